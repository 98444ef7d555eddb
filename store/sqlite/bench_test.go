package sqlite

// Benchmarks of candidate search and batch inserts:
//
//	go test ./store/sqlite -run '^$' -bench . -benchtime 2000x
//
// The search fixture (one scope of 10k memories, one of 100k, 256
// dimensions) is built once per test binary run in a temporary directory
// and removed when the run ends.

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/memory/storebench"
)

// fixture caches the search fixture for the length of one test binary run.
var fixture struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fixture.dir != "" {
		os.RemoveAll(fixture.dir)
	}
	os.Exit(code)
}

var benchOpts = memory.OpenOptions{Model: "bench", Dim: storebench.Dim}

func fixturePath(b *testing.B) string {
	fixture.once.Do(func() {
		fixture.dir, fixture.err = os.MkdirTemp("", "memproxy-sqlite-bench-")
		if fixture.err != nil {
			return
		}
		fixture.path = filepath.Join(fixture.dir, "bench.db")
		ctx := context.Background()
		st, err := Open(ctx, fixture.path, benchOpts)
		if err != nil {
			fixture.err = err
			return
		}
		defer st.Close()
		for i, sz := range storebench.Sizes {
			if err := storebench.Fill(ctx, st, sz.Scope, storebench.NewCorpus(uint64(i+1)), sz.N, 5000); err != nil {
				fixture.err = err
				return
			}
		}
	})
	if fixture.err != nil {
		b.Fatal(fixture.err)
	}
	return fixture.path
}

func BenchmarkSearch(b *testing.B) {
	st, err := Open(context.Background(), fixturePath(b), benchOpts)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	storebench.Search(b, st, storebench.Sizes)
}

func BenchmarkInsert(b *testing.B) {
	st, err := Open(context.Background(), filepath.Join(b.TempDir(), "insert.db"), benchOpts)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	b.Run("batch100", func(b *testing.B) { storebench.Insert(b, st, 100) })
	b.Run("batch1000", func(b *testing.B) { storebench.Insert(b, st, 1000) })
}
