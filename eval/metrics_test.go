package eval

import (
	"math"
	"testing"

	"github.com/memproxy/memproxy/eval/locomo"
)

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestEvidenceRecall(t *testing.T) {
	pair := Hit{ID: "a", Refs: []string{"D1:1", "D1:2"}, Single: true}
	summary := Hit{ID: "s", Refs: []string{"D1:1", "D2:2", "D2:3"}}
	cases := []struct {
		name     string
		evidence []string
		hits     []Hit
		want     float64
		strict   float64
	}{
		{"no evidence counts one", nil, nil, 1, 1},
		{"covered", []string{"D1:1"}, []Hit{pair}, 1, 1},
		{"half", []string{"D1:1", "D2:2"}, []Hit{pair}, 0.5, 0.5},
		{"missing id stays in denominator", []string{"D2:3", "D9:9"}, []Hit{summary}, 0.5, 0},
		{"summary credit is not strict", []string{"D2:2"}, []Hit{summary}, 1, 0},
		{"nothing injected", []string{"D1:1"}, nil, 0, 0},
	}
	for _, c := range cases {
		if got := EvidenceRecall(c.evidence, c.hits); !near(got, c.want) {
			t.Errorf("%s: recall = %v, want %v", c.name, got, c.want)
		}
		if got := StrictEvidenceRecall(c.evidence, c.hits); !near(got, c.strict) {
			t.Errorf("%s: strict = %v, want %v", c.name, got, c.strict)
		}
	}
}

// TestSummarizeTiny scores a hand-made retrieval on the tiny LoCoMo file,
// whose questions carry malformed and missing evidence ids, against
// figures worked out by hand.
func TestSummarizeTiny(t *testing.T) {
	ss, err := locomo.Load("testdata/tiny-locomo.json")
	if err != nil {
		t.Fatal(err)
	}
	turns := ss[0].ChatTurns()
	hit := func(i int) Hit { return Hit{ID: string(rune('a' + i)), Refs: turns[i].Refs, Single: true} }
	// Injected top-5 per question; turns: 0=[D1:1 D1:2] 1=[D1:3] 2=[D2:1]
	// 3=[D2:2 D2:3] 4=[D2:4 D2:5].
	injected := [][]Hit{
		{hit(0)},         // q0 [D1:1]            -> 1
		{hit(0)},         // q1 [D1:1 D2:2]       -> 0.5 (@10: 1)
		{hit(1)},         // q2 [D2:3] (from "D", "D:2:3") -> 0 (@10: 1)
		{hit(3), hit(4)}, // q3 [D2:3 D9:9]       -> 0.5 (D9:9 never found)
		nil,              // q4 no evidence       -> 1
		{hit(2)},         // q5 [D1:2]            -> 0
	}
	ranked := [][]Hit{
		{hit(0)},
		{hit(0), hit(1), hit(2), hit(3)},
		{hit(1), hit(3)},
		{hit(3), hit(4)},
		nil,
		{hit(2)},
	}
	var rs []QuestionResult
	for i, q := range ss[0].QA {
		rs = append(rs, QuestionResult{
			Sample: ss[0].ID, Index: i, Category: q.Category, Evidence: q.Evidence,
			Injected: injected[i], Ranked: ranked[i],
			InjectedTokens: 100 * (i + 1), LatencyMs: float64(i + 1),
			Skipped: i == 4, TimedOut: i == 1 || i == 2,
		})
	}
	s := Summarize(rs)
	checks := []struct {
		name      string
		got, want float64
	}{
		{"recall@5", s.EvidenceRecall["5"], (1 + 0.5 + 0 + 0.5 + 1 + 0) / 6},
		{"recall@10", s.EvidenceRecall["10"], (1 + 1 + 1 + 0.5 + 1 + 0) / 6},
		{"recall@25", s.EvidenceRecall["25"], (1 + 1 + 1 + 0.5 + 1 + 0) / 6},
		{"cat1-4 @5", s.EvidenceRecallCat1_4["5"], (1 + 0.5 + 0 + 0.5 + 1) / 5},
		{"cat4 @5", s.ByCategory["4"].EvidenceRecall["5"], (1 + 0.5) / 2},
		{"cat2 @10", s.ByCategory["2"].EvidenceRecall["10"], 1},
		{"cat3 @5 (empty evidence)", s.ByCategory["3"].EvidenceRecall["5"], 1},
		{"cat5 @5", s.ByCategory["5"].EvidenceRecall["5"], 0},
		{"strict @5", s.EvidenceRecallStrict["5"], (1 + 0.5 + 0 + 0.5 + 1 + 0) / 6},
		{"mean tokens", s.MeanInjectedTokens, 350},
		{"p95 tokens", s.P95InjectedTokens, 600},
		{"latency p50", s.AddedLatencyMs.P50, 3},
		{"latency p95", s.AddedLatencyMs.P95, 6},
		{"skip rate", s.GateSkipRate, 1.0 / 6},
		{"recall timeout rate", s.RecallTimeoutRate, 2.0 / 6},
	}
	for _, c := range checks {
		if !near(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if s.Questions != 6 || s.ByCategory["4"].Questions != 2 || s.ByCategory["1"].Name != "multi-hop" {
		t.Errorf("counts: %d questions, cat4 %d, cat1 name %q", s.Questions, s.ByCategory["4"].Questions, s.ByCategory["1"].Name)
	}
}

func TestPercentile(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3}
	for p, want := range map[float64]float64{50: 3, 95: 5, 0: 1, 100: 5} {
		if got := Percentile(xs, p); got != want {
			t.Errorf("p%v = %v, want %v", p, got, want)
		}
	}
	if Percentile(nil, 50) != 0 {
		t.Error("empty percentile not 0")
	}
}
