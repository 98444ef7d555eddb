package storetest

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/memproxy/memproxy/memory"
)

// bm25 is the suite's lexical reference: BM25 (k1 1.2, b 0.75, an IDF of
// log((N-n+0.5)/(n+0.5)) floored at 1e-6, as SQLite's FTS5 computes it)
// over docs, the search texts (memory.Memory.SearchText) of every memory
// of one scope by id, live or not, with the scope's own counts. Any query
// term may match; the scores of the matching docs are returned.
func bm25(docs map[string]string, query string) map[string]float64 {
	const k1, b = 1.2, 0.75
	tf := make(map[string]map[string]int, len(docs))
	dl := make(map[string]int, len(docs))
	df := map[string]int{}
	total := 0
	for id, text := range docs {
		tf[id] = map[string]int{}
		for tok := range strings.FieldsSeq(memory.LexicalForm(text)) {
			if tf[id][tok] == 0 {
				df[tok]++
			}
			tf[id][tok]++
			dl[id]++
			total++
		}
	}
	n := float64(len(docs))
	avgdl := float64(total) / n
	out := map[string]float64{}
	for _, term := range memory.ContentTerms(memory.QueryTerms(query)) {
		if df[term] == 0 {
			continue
		}
		idf := math.Log((n - float64(df[term]) + 0.5) / (float64(df[term]) + 0.5))
		if idf <= 0 {
			idf = 1e-6
		}
		for id := range docs {
			if f := float64(tf[id][term]); f > 0 {
				out[id] += idf * f * (k1 + 1) / (f + k1*(1-b+b*float64(dl[id])/avgdl))
			}
		}
	}
	return out
}

// testLexicalBM25 checks lexical search against the reference: the same
// memories with the same scores (to rounding), best first, for short and
// longer queries, with and without dead memories, fresh and after
// updates, deletions and archiving (the index follows every write).
func (s *suite) testLexicalBM25(t *testing.T) {
	ctx := context.Background()
	st := s.store(t)
	r := rand.New(rand.NewPCG(7, 11))
	words := strings.Fields(`tea lemon honey walk river boat sailing regatta cello violin piano garden tomato
		basil museum train station ticket dentist appointment passport holiday beach mountain hiking
		dog cat birthday cake office meeting report deadline`)
	text := func(n int) string {
		var w []string
		for range n {
			// Squared: some words are far more common than others.
			w = append(w, words[int(math.Pow(r.Float64(), 2)*float64(len(words)))])
		}
		return strings.Join(w, " ")
	}
	docs := map[string]string{}
	var ms []*memory.Memory
	for i := range 60 {
		m := newMem(text(3+r.IntN(12)), memory.TierSemantic, nil)
		if i%4 == 0 {
			m.Context = "what about the " + text(3)
		}
		ms = append(ms, m)
	}
	insert(t, st, alice, ms...)
	for _, m := range ms {
		docs[m.ID] = m.SearchText()
	}
	var queries []string
	for i := range 30 {
		queries = append(queries, text(1+i%5))
	}
	queries = append(queries, "what is the tea like by the river?", "zzz unknown")
	dead := map[string]bool{} // archived: filtered unless IncludeDead
	compare := func(stage string) {
		t.Helper()
		for i, q := range queries {
			o := memory.SearchOptions{At: t0, Limit: 200, IncludeDead: i%2 == 0}
			got, err := st.LexicalSearch(ctx, alice, q, o)
			must(t, err)
			want := bm25(docs, q)
			if !o.IncludeDead {
				for id := range want {
					if dead[id] {
						delete(want, id)
					}
				}
			}
			if len(got) != len(want) {
				t.Errorf("%s: query %q: %d matches, reference %d", stage, q, len(got), len(want))
				continue
			}
			for j, c := range got {
				w, ok := want[c.Memory.ID]
				if !ok || math.Abs(w-c.Score) > 1e-9*w {
					t.Errorf("%s: query %q: %s scored %v, reference %v (%v)", stage, q, c.Memory.ID, c.Score, w, ok)
				}
				if j > 0 && c.Score > got[j-1].Score {
					t.Errorf("%s: query %q: not best first at %d", stage, q, j)
				}
			}
		}
	}
	compare("fresh")
	for _, m := range ms[:10] {
		m.Text = text(6)
		must(t, st.Update(ctx, alice, m))
		docs[m.ID] = m.SearchText()
	}
	for _, m := range ms[10:15] {
		must(t, st.Delete(ctx, alice, m.ID))
		delete(docs, m.ID)
	}
	var arch []string
	for _, m := range ms[15:25] {
		arch = append(arch, m.ID)
		dead[m.ID] = true
	}
	must(t, st.Archive(ctx, alice, arch, t0))
	more := []*memory.Memory{newMem(text(8), memory.TierSemantic, nil), newMem(text(2), memory.TierEvent, nil)}
	insert(t, st, alice, more...)
	for _, m := range more {
		docs[m.ID] = m.SearchText()
	}
	compare("after writes")
}
