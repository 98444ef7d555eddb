package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/memory/storetest"
)

func TestSpool(t *testing.T) {
	storetest.RunSpool(t, func(t *testing.T) memory.TurnSpool {
		p, err := OpenSpool(context.Background(), SpoolPath(filepath.Join(t.TempDir(), "memproxy.db")))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { p.Close() })
		return p
	})
}

// BenchmarkSpoolClaim is one drain round (claim, complete) of a scope with
// a deep backlog: spoolBacklog turns pending, as under load, where the
// claim's check for another worker's lease must not walk the backlog.
func BenchmarkSpoolClaim(b *testing.B) {
	ctx := context.Background()
	p, err := OpenSpool(ctx, SpoolPath(filepath.Join(b.TempDir(), "memproxy.db")))
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	sc := memory.Scope{User: "u", Namespace: "default"}
	const round = 16
	n := spoolBacklog + b.N*round
	for i := 0; i < n; i += 500 {
		var turns []*memory.Turn
		for j := i; j < min(n, i+500); j++ {
			turns = append(turns, &memory.Turn{ID: fmt.Sprintf("t%07d", j), RequestID: fmt.Sprintf("r%d", j), Scope: sc,
				Time: time.Now(), User: "a message of an ordinary length, neither short nor long", Assistant: strings.Repeat("a reply ", 40)})
		}
		if err := p.SpoolTurns(ctx, turns); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := range b.N {
		owner := fmt.Sprintf("w/%d", i)
		got, err := p.ClaimTurns(ctx, sc, owner, time.Minute, round)
		if err != nil || len(got) != round {
			b.Fatalf("claim: %d turns, %v", len(got), err)
		}
		ids := make([]string, len(got))
		for k, t := range got {
			ids[k] = t.ID
		}
		if _, err := p.CompleteTurns(ctx, sc, owner, ids); err != nil {
			b.Fatal(err)
		}
	}
}

const spoolBacklog = 4000
