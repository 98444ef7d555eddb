package search

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// TestRescoreRows: scoring cached rows from their encodings (rowMeta) and
// decoding only the best gives exactly what Rescore gives over the rows
// decoded, for rows of every tier and lifecycle state, some cached and
// some read, under filters of tiers, dead rows and expiry, with and
// without ReadOnly; and rowMeta is MetaOf the decoded row.
func TestRescoreRows(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 2))
	at := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	tiers := []memory.Tier{memory.TierEvent, memory.TierEpisodic, memory.TierSemantic, memory.TierProfile, "custom"}
	const dim = 8
	vec := func() []float32 {
		v := make([]float32, dim)
		for i := range v {
			v[i] = float32(r.NormFloat64())
		}
		return v
	}
	opt := func(p float64, d time.Duration) *time.Time {
		if r.Float64() >= p {
			return nil
		}
		x := at.Add(d)
		return &x
	}
	sc := memory.Scope{User: "u", Namespace: "default"}
	for round := range 50 {
		n := 10 + r.IntN(60)
		ids := make([]string, n)
		bufs := make([][]byte, n)
		decoded := map[string]*memory.Memory{}
		read := map[string]*memory.Memory{}
		for i := range n {
			m := &memory.Memory{ID: fmt.Sprintf("m%d-%d", round, i), Scope: sc, Tier: tiers[r.IntN(len(tiers))],
				Text: "text", Embedding: vec(), CreatedAt: at.Add(-time.Hour), LastUsedAt: at, ValidFrom: at.Add(-time.Hour),
				ValidTo: opt(0.1, -time.Minute), ExpiresAt: opt(0.3, time.Duration(r.IntN(120)-60)*time.Minute),
				ArchivedAt: opt(0.1, -time.Minute), ConsolidatedAt: opt(0.3, -time.Minute),
				Provenance: memory.Provenance{RequestIDs: []string{"r1"}}}
			switch r.IntN(10) {
			case 0:
				m.Embedding = m.Embedding[:dim-1] // another size: left out
			case 1:
				m.Embedding = make([]float32, dim) // no direction: left out
			}
			ids[i] = m.ID
			switch r.IntN(4) {
			case 0: // read from the source
				read[m.ID], decoded[m.ID] = m, m
			case 1: // missing altogether
			default:
				b := encodeRow(m)
				bufs[i] = b
				var d memory.Memory
				decodeRow(b, &d)
				decoded[m.ID] = &d
				meta, v := rowMeta(b)
				if meta != MetaOf(&d) || !reflect.DeepEqual(v, d.Embedding) {
					t.Fatalf("rowMeta of %+v = %+v, %v; MetaOf the decoding %+v", m, meta, v, MetaOf(&d))
				}
			}
		}
		o := memory.SearchOptions{At: at, Limit: 1 + r.IntN(n), ReadOnly: r.IntN(2) == 0, IncludeDead: r.IntN(4) == 0,
			ExcludeConsolidated: r.IntN(2) == 0}
		if r.IntN(2) == 0 {
			o.Tiers = tiers[:1+r.IntN(3)]
		}
		f := NewFilter(o)
		q, _ := Normalise(vec())
		want := Rescore(q, ids, decoded, &f, o.Limit, o)
		got := rescoreRows(q, ids, bufs, nil, read, &f, o.Limit, o)
		if len(got) != len(want) {
			t.Fatalf("round %d: %d candidates, Rescore gives %d", round, len(got), len(want))
		}
		for i := range want {
			if got[i].Score != want[i].Score || !reflect.DeepEqual(got[i].Memory, want[i].Memory) {
				t.Fatalf("round %d, candidate %d: %+v (%v), Rescore gives %+v (%v)", round, i, got[i].Memory, got[i].Score, want[i].Memory, want[i].Score)
			}
		}
	}
}
