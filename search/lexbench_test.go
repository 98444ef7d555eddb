package search

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/memproxy/memproxy/memory"
)

// BenchmarkLexSearch is one recall's lexical search of a 10k-row scope.
func BenchmarkLexSearch(b *testing.B) {
	r := rand.New(rand.NewPCG(11, 12))
	word := func() string { return "w" + strconv.Itoa(int(r.ExpFloat64()*300)) }
	lx := NewLex()
	for i := range 10000 {
		var sb strings.Builder
		for range 12 {
			sb.WriteString(word() + " ")
		}
		lx.Upsert(strconv.Itoa(i), int64(i), Meta{}, sb.String())
	}
	terms := []string{"w5", "w40", "w120", "w300", "w600", "w900", "w1200", "w20"}
	chosen, postings := PickTerms(terms, lx.DF)
	f := NewFilter(memory.SearchOptions{})
	b.ReportAllocs()
	for b.Loop() {
		if len(lx.Search(chosen, postings, &f, 50)) == 0 {
			b.Fatal("no hits")
		}
	}
}
