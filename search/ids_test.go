package search

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/memproxy/memproxy/memory"
)

// TestIDTable runs random puts, clears and moves against a map and a
// slice, through rehashes, tombstones and compactions.
func TestIDTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	tb := newIDTable()
	ref := map[string]int32{}
	var bySlot []string
	var kept []string // strings get returned before later compactions
	var keptWant []string
	for step := range 20000 {
		switch op := rng.IntN(10); {
		case op < 5 || len(ref) == 0:
			id := fmt.Sprintf("%x-%d", rng.Uint64(), rng.IntN(3))
			if _, ok := ref[id]; ok {
				continue
			}
			s := tb.addSlot()
			tb.put(s, id)
			ref[id] = s
			bySlot = append(bySlot, id)
		case op < 8:
			// Clear a random held id, moving the last slot into its place.
			i := int32(rng.IntN(len(bySlot)))
			if bySlot[i] == "" {
				continue
			}
			delete(ref, bySlot[i])
			tb.clear(i)
			last := int32(len(bySlot) - 1)
			tb.moveLast(i)
			if i != last {
				bySlot[i] = bySlot[last]
				if bySlot[i] != "" {
					ref[bySlot[i]] = i
				}
			}
			bySlot = bySlot[:last]
		default:
			// Free a slot in place and give it a new id (Lex's free list).
			i := int32(rng.IntN(len(bySlot)))
			if bySlot[i] != "" {
				delete(ref, bySlot[i])
				tb.clear(i)
			}
			id := fmt.Sprintf("re-%d", step)
			tb.put(i, id)
			ref[id] = i
			bySlot[i] = id
		}
		if step%97 == 0 && len(bySlot) > 0 {
			i := int32(rng.IntN(len(bySlot)))
			kept, keptWant = append(kept, tb.get(i)), append(keptWant, strings.Clone(bySlot[i]))
		}
	}
	if tb.count() != len(ref) || tb.slots() != len(bySlot) {
		t.Fatalf("count %d slots %d, want %d and %d", tb.count(), tb.slots(), len(ref), len(bySlot))
	}
	entries := 0
	for _, v := range tb.tab {
		if v > 0 {
			entries++
		}
	}
	if entries != len(ref) {
		t.Fatalf("the hash table holds %d entries for %d ids", entries, len(ref))
	}
	for i, id := range bySlot {
		if got := tb.get(int32(i)); got != id {
			t.Fatalf("slot %d holds %q, want %q", i, got, id)
		}
	}
	for id, s := range ref {
		if got, ok := tb.find(id); !ok || got != s {
			t.Fatalf("find(%q) = %d, %v; want %d", id, got, ok, s)
		}
	}
	for _, id := range []string{"absent", "re-x", ""} {
		if _, ok := tb.find(id); ok {
			t.Fatalf("find(%q) found an id never put", id)
		}
	}
	if !slices.Equal(kept, keptWant) {
		t.Fatal("a string get returned changed after later writes")
	}
}

// TestIndexChurn reindexes, removes and re-adds rows at random, then
// checks both indexes search exactly as ones built afresh from the rows
// left.
func TestIndexChurn(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const dim = 16
	words := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon")
	type row struct {
		seq  int64
		text string
		vec  []float32
	}
	text := func() string {
		var b strings.Builder
		for range 2 + rng.IntN(8) {
			b.WriteString(words[rng.IntN(len(words))] + " ")
		}
		return b.String()
	}
	vec := func() []float32 {
		v := make([]float32, dim)
		for i := range v {
			v[i] = rng.Float32()*2 - 1
		}
		return v
	}
	lx, vx := NewLex(), NewVec(dim)
	rows := map[string]row{}
	seq := int64(0)
	for range 6000 {
		id := fmt.Sprintf("m%d", rng.IntN(400))
		seq++
		switch rng.IntN(4) {
		case 0:
			lx.Remove(id)
			vx.Remove(id)
			delete(rows, id)
		case 1:
			if r, ok := rows[id]; ok {
				// Same text (only the seq changes), new vector.
				r.seq, r.vec = seq, vec()
				rows[id] = r
				lx.Upsert(id, r.seq, Meta{}, r.text)
				vx.Upsert(id, r.seq, Meta{}, r.vec)
				continue
			}
			fallthrough
		default:
			r := row{seq, text(), vec()}
			rows[id] = r
			lx.Upsert(id, r.seq, Meta{}, r.text)
			vx.Upsert(id, r.seq, Meta{}, r.vec)
		}
	}
	flx, fvx := NewLex(), NewVec(dim)
	for id, r := range rows {
		flx.Upsert(id, r.seq, Meta{}, r.text)
		fvx.Upsert(id, r.seq, Meta{}, r.vec)
	}
	if lx.Totals() != flx.Totals() {
		t.Fatalf("totals %+v, afresh %+v", lx.Totals(), flx.Totals())
	}
	for id := range rows {
		if !lx.Has(id) || !vx.Has(id) {
			t.Fatalf("%s lost", id)
		}
	}
	f := NewFilter(memory.SearchOptions{})
	for _, w := range words {
		if lx.DF(w) != flx.DF(w) {
			t.Fatalf("df(%s) %d, afresh %d", w, lx.DF(w), flx.DF(w))
		}
	}
	for q := range 50 {
		terms := []string{words[q%len(words)], words[(q*7+3)%len(words)], words[(q*3+1)%len(words)]}
		chosen, n := PickTerms(terms, lx.DF)
		got, want := lexHitIDs(lx, lx.Search(chosen, n, &f, 20)), lexHitIDs(flx, flx.Search(chosen, n, &f, 20))
		if !slices.Equal(got, want) {
			t.Fatalf("lexical %v: %v, afresh %v", terms, got, want)
		}
		qv, _ := Normalise(vec())
		gv, wv := vx.Search(qv, &f, 20, 1), fvx.Search(qv, &f, 20, 1)
		if len(gv) != len(wv) {
			t.Fatalf("vector: %d hits, afresh %d", len(gv), len(wv))
		}
		for i := range gv {
			if vx.ID(gv[i].Slot) != fvx.ID(wv[i].Slot) || gv[i].Score != wv[i].Score {
				t.Fatalf("vector hit %d: %s %v, afresh %s %v", i, vx.ID(gv[i].Slot), gv[i].Score, fvx.ID(wv[i].Slot), wv[i].Score)
			}
		}
	}
}

func lexHitIDs(lx *Lex, hits []LexHit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = fmt.Sprintf("%s:%.9g", lx.ID(h.Slot), h.Score)
	}
	return out
}
