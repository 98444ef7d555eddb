package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/memproxy/memproxy/embed"
	"github.com/memproxy/memproxy/memory"
)

// quantCorpus is n sentences of 6 to 15 words drawn from a vocabulary of
// 3,000 made-up words with Zipf frequencies (a few words everywhere, most
// rare, as in a conversation's memories), embedded by the local embedder,
// and queries of three of a row's words with three others.
func quantCorpus(t testing.TB, n, queries int) (rows, qs [][]float32) {
	r := rand.New(rand.NewPCG(11, 12))
	syll := []string{"ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "zen", "par", "dor", "bel", "qui", "fan", "gro", "hul"}
	vocab := make([]string, 3000)
	for i := range vocab {
		var b strings.Builder
		for range 2 + r.IntN(3) {
			b.WriteString(syll[r.IntN(len(syll))])
		}
		vocab[i] = fmt.Sprint(b.String(), i%7)
	}
	z := rand.NewZipf(r, 1.1, 4, uint64(len(vocab)-1))
	sentences := make([][]string, n)
	texts := make([]string, n)
	for i := range sentences {
		for range 6 + r.IntN(10) {
			sentences[i] = append(sentences[i], vocab[z.Uint64()])
		}
		texts[i] = strings.Join(sentences[i], " ")
	}
	var qtexts []string
	for range queries {
		s := sentences[r.IntN(n)]
		var w []string
		for range 3 {
			w = append(w, s[r.IntN(len(s))])
		}
		for range 3 {
			w = append(w, vocab[z.Uint64()])
		}
		qtexts = append(qtexts, strings.Join(w, " "))
	}
	l := embed.NewLocal(0)
	rows, err := l.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	qs, err = l.Embed(context.Background(), qtexts)
	if err != nil {
		t.Fatal(err)
	}
	return rows, qs
}

// TestQuantisedScanFindsTheBest checks the int8 scan (rows and query
// quantised to 127 levels) against exact float cosines on local-embedder
// vectors of a large scope: re-scored exactly, as the stores do with the
// rows they read, the best 20 of the 36 it returns (the recall path's
// vector list and its margin) are the exact best 20.
func TestQuantisedScanFindsTheBest(t *testing.T) {
	const n, k, top = 12000, 36, 20
	rows, qs := quantCorpus(t, n, 200)
	ix := NewVec(len(rows[0]))
	for i, v := range rows {
		ix.Upsert(fmt.Sprint("m", i), int64(i), Meta{}, v)
	}
	f := NewFilter(memory.SearchOptions{})
	var found, want int
	for _, q := range qs {
		exact := make([]Hit, n)
		for i, v := range rows {
			exact[i] = Hit{i, Dot(q, v)}
		}
		slices.SortFunc(exact, func(a, b Hit) int { return cmpScore(b.Score, a.Score) })
		best := map[string]bool{}
		for _, h := range exact[:top] {
			best[ix.ID(h.Slot)] = true
		}
		hits := ix.Search(q, &f, k, 1)
		for i := range hits {
			hits[i].Score = Dot(q, rows[hits[i].Slot])
		}
		slices.SortFunc(hits, func(a, b Hit) int { return cmpScore(b.Score, a.Score) })
		for _, h := range hits[:min(top, len(hits))] {
			if best[ix.ID(h.Slot)] {
				found++
			}
		}
		want += top
	}
	got := float64(found) / float64(want)
	t.Logf("the scan's best %d (int4 stage: %v), re-scored, hold %.4f of the exact best %d", k, ix.nibbles(), got, top)
	if got < 0.999 {
		t.Errorf("the scan's best %d, re-scored, hold %.4f of the exact best %d; want all", k, got, top)
	}
}

func cmpScore(a, b float32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
