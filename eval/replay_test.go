package eval

import (
	"reflect"
	"testing"

	"github.com/memproxy/memproxy/memory"
)

// TestFillHits turns a recall-log row into scored hits: injected in rank
// order with their provenance, ranked candidates limited to those a larger
// top_k would inject, strict credit only for single-turn memories.
func TestFillHits(t *testing.T) {
	d := &recallDetail{
		Injected: []string{"b", "a"},
		Candidates: []memory.RankedCandidate{
			{ID: "a", Tier: memory.TierEvent, Rank: 2, Refs: []string{"D1:1", "D1:2"}, Injected: true},
			{ID: "b", Tier: memory.TierEpisodic, Rank: 1, Refs: []string{"D1:3", "D2:1", "D2:2"}, Injected: true},
			{ID: "c", Tier: memory.TierEvent, Rank: 3, Refs: []string{"D3:1"}, Filtered: memory.FilteredTopK},
			{ID: "d", Tier: memory.TierEvent, Rank: 4, Refs: []string{"D4:1"}, Filtered: memory.FilteredConsolidated},
		},
		InjectedTokens: 123,
	}
	d.Memories = append(d.Memories, detailMemory{ID: "b", Tier: memory.TierEpisodic, Provenance: memory.Provenance{TurnRefs: []string{"D1:3", "D2:1", "D2:2"}, MemoryIDs: []string{"x", "y", "z"}}})
	var q QuestionResult
	fillHits(&q, d)
	want := []Hit{{ID: "b", Refs: []string{"D1:3", "D2:1", "D2:2"}}, {ID: "a", Refs: []string{"D1:1", "D1:2"}, Single: true}}
	if !reflect.DeepEqual(q.Injected, want) {
		t.Errorf("injected = %+v\nwant %+v", q.Injected, want)
	}
	var ranked []string
	for _, h := range q.Ranked {
		ranked = append(ranked, h.ID)
	}
	if !reflect.DeepEqual(ranked, []string{"a", "b", "c"}) && !reflect.DeepEqual(ranked, []string{"b", "a", "c"}) {
		t.Errorf("ranked = %v", ranked)
	}
	if ranked[0] != "b" {
		t.Errorf("ranked not in rank order: %v", ranked)
	}
	if q.InjectedTokens != 123 {
		t.Errorf("tokens = %d", q.InjectedTokens)
	}
	q.Evidence = []string{"D2:1", "D1:1"}
	if got := EvidenceRecall(q.Evidence, q.At(5)); got != 1 {
		t.Errorf("recall = %v, want 1", got)
	}
	if got := StrictEvidenceRecall(q.Evidence, q.At(5)); got != 0.5 {
		t.Errorf("strict = %v, want 0.5 (the summary's D2:1 is not strict)", got)
	}
}
