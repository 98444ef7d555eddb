// Package eval measures what memory does for a chat app: it replays a
// long-conversation benchmark (LoCoMo) through memproxy and scores what was
// injected — evidence recall at k, injected tokens, added latency — with
// memory on and off.
package eval

import (
	"math"
	"sort"
	"strconv"

	"github.com/memproxy/memproxy/eval/locomo"
)

// Hit is one memory as the evaluation sees it: the turn refs it carries.
type Hit struct {
	ID   string   `json:"id"`
	Refs []string `json:"refs,omitempty"`
	// Single marks a memory made from one turn alone (an event, a fact
	// extracted from a single turn). Only such memories earn strict credit,
	// so credit from broad summaries stays visible.
	Single bool `json:"single,omitempty"`
}

// EvidenceRecall is the LoCoMo paper's retrieval metric for one question:
// the fraction of its evidence dia_ids carried by the refs of hits. A
// question without evidence counts 1 (as in the paper). Evidence ids that
// match no turn stay in the denominator and are never covered.
func EvidenceRecall(evidence []string, hits []Hit) float64 {
	return recall(evidence, hits, false)
}

// StrictEvidenceRecall credits an evidence id only when a single-turn
// memory carries it.
func StrictEvidenceRecall(evidence []string, hits []Hit) float64 {
	return recall(evidence, hits, true)
}

func recall(evidence []string, hits []Hit, strict bool) float64 {
	if len(evidence) == 0 {
		return 1
	}
	covered := map[string]bool{}
	for _, h := range hits {
		if strict && !h.Single {
			continue
		}
		for _, r := range h.Refs {
			covered[r] = true
		}
	}
	n := 0
	for _, e := range evidence {
		if covered[e] {
			n++
		}
	}
	return float64(n) / float64(len(evidence))
}

// Ks are the cut-offs reported: recall@5 is scored on what was injected
// (top_k 5), @10 and @25 on the ranked candidate list.
var Ks = []int{5, 10, 25}

// QuestionResult is what one question produced in one arm.
type QuestionResult struct {
	Sample   string   `json:"sample"`
	Index    int      `json:"index"`
	Category int      `json:"category"`
	Question string   `json:"question"`
	Evidence []string `json:"evidence"`
	// Injected are the memories injected, in rank order.
	Injected []Hit `json:"injected"`
	// Ranked is the full ranked candidate list (injected first).
	Ranked         []Hit   `json:"ranked,omitempty"`
	InjectedTokens int     `json:"injected_tokens"`
	LatencyMs      float64 `json:"latency_ms"`
	// Skipped is true when the gate decided not to recall.
	Skipped bool `json:"skipped,omitempty"`
	// TimedOut is true when recall ran out of its time (recall.timeout)
	// and the request went on without memory: a loaded machine, not the
	// memory, decided that question.
	TimedOut bool `json:"timed_out,omitempty"`
	// Answer, AnswerScore and Correct are set when a model answered
	// (AnswerScore: LoCoMo's official score) and a judge ruled.
	Answer      string   `json:"answer,omitempty"`
	AnswerScore *float64 `json:"answer_score,omitempty"`
	Correct     *bool    `json:"judged_correct,omitempty"`
	// Context is the text the model read from memory (the injected
	// block; a baseline's lines), and AnswerInContext the share of the
	// gold answer's content words in it (categories 1–4 only).
	Context         string   `json:"context,omitempty"`
	AnswerInContext *float64 `json:"answer_in_context,omitempty"`
}

// At returns the hits scored for cut-off k: the injected memories for the
// first cut-off, the top k ranked candidates otherwise (falling back to the
// injected ones when no ranking is known).
func (q *QuestionResult) At(k int) []Hit {
	if k == Ks[0] || len(q.Ranked) == 0 {
		return q.Injected
	}
	if len(q.Ranked) > k {
		return q.Ranked[:k]
	}
	return q.Ranked
}

// RecallAtK maps a cut-off ("5", "10", "25") to a mean recall.
type RecallAtK map[string]float64

// CategorySummary is the recall of one question category.
type CategorySummary struct {
	Name                 string    `json:"name"`
	Questions            int       `json:"questions"`
	EvidenceRecall       RecallAtK `json:"evidence_recall"`
	EvidenceRecallStrict RecallAtK `json:"evidence_recall_strict"`
}

// Percentiles are latency quantiles in milliseconds.
type Percentiles struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
}

// Summary is one arm's figures; the JSON names are the documented output
// of `memproxy eval locomo --json`.
type Summary struct {
	Questions            int                        `json:"questions"`
	EvidenceRecall       RecallAtK                  `json:"evidence_recall"`
	EvidenceRecallCat1_4 RecallAtK                  `json:"evidence_recall_cat1_4"`
	ByCategory           map[string]CategorySummary `json:"by_category"`
	EvidenceRecallStrict RecallAtK                  `json:"evidence_recall_strict"`
	MeanInjectedTokens   float64                    `json:"mean_injected_tokens"`
	P95InjectedTokens    float64                    `json:"p95_injected_tokens"`
	AddedLatencyMs       Percentiles                `json:"added_latency_ms"`
	GateSkipRate         float64                    `json:"gate_skip_rate"`
	// RecallTimeoutRate is the share of questions whose recall ran out of
	// time (X-Memproxy-Recall: timeout). Above 0 the run's figures are
	// low by about that share: rerun on a quieter machine.
	RecallTimeoutRate float64 `json:"recall_timeout_rate"`
	// LLMCallsPerTurn counts consolidation calls per ingested turn (the
	// calls a configured model would receive); nil when unknown.
	LLMCallsPerTurn *float64 `json:"llm_calls_per_turn"`
	// TokenF1 and JudgeAccuracy need an answer/judge model; nil without.
	TokenF1       *float64 `json:"token_f1"`
	JudgeAccuracy *float64 `json:"judge_accuracy"`
	// AnswerInContext is the share of the gold answer's content words
	// present in the injected block (categories 1–4); nil when no
	// question was scored.
	AnswerInContext *ContextSummary `json:"answer_in_context"`
}

// Summarize computes one arm's figures from its per-question results.
func Summarize(results []QuestionResult) Summary {
	s := Summary{
		Questions:            len(results),
		EvidenceRecall:       RecallAtK{},
		EvidenceRecallCat1_4: RecallAtK{},
		EvidenceRecallStrict: RecallAtK{},
		ByCategory:           map[string]CategorySummary{},
	}
	var tokens, latency []float64
	skipped, timedOut := 0, 0
	for i := range results {
		q := &results[i]
		tokens = append(tokens, float64(q.InjectedTokens))
		latency = append(latency, q.LatencyMs)
		if q.Skipped {
			skipped++
		}
		if q.TimedOut {
			timedOut++
		}
	}
	for _, k := range Ks {
		key := strconv.Itoa(k)
		s.EvidenceRecall[key] = meanRecall(results, k, false, nil)
		s.EvidenceRecallStrict[key] = meanRecall(results, k, true, nil)
		s.EvidenceRecallCat1_4[key] = meanRecall(results, k, false, func(c int) bool { return c >= 1 && c <= 4 })
	}
	for c := 1; c <= 5; c++ {
		in := func(x int) bool { return x == c }
		cs := CategorySummary{Name: categoryName(c), EvidenceRecall: RecallAtK{}, EvidenceRecallStrict: RecallAtK{}}
		for i := range results {
			if results[i].Category == c {
				cs.Questions++
			}
		}
		for _, k := range Ks {
			key := strconv.Itoa(k)
			cs.EvidenceRecall[key] = meanRecall(results, k, false, in)
			cs.EvidenceRecallStrict[key] = meanRecall(results, k, true, in)
		}
		s.ByCategory[strconv.Itoa(c)] = cs
	}
	var f1s, judged []*float64
	for i := range results {
		f1s = append(f1s, results[i].AnswerScore)
		if c := results[i].Correct; c != nil {
			v := 0.0
			if *c {
				v = 1
			}
			judged = append(judged, &v)
		}
	}
	s.TokenF1, s.JudgeAccuracy = meanOf(f1s), meanOf(judged)
	s.AnswerInContext = SummarizeContext(results)
	s.MeanInjectedTokens = mean(tokens)
	s.P95InjectedTokens = Percentile(tokens, 95)
	s.AddedLatencyMs = Percentiles{P50: Percentile(latency, 50), P95: Percentile(latency, 95)}
	if len(results) > 0 {
		s.GateSkipRate = float64(skipped) / float64(len(results))
		s.RecallTimeoutRate = float64(timedOut) / float64(len(results))
	}
	return s
}

func categoryKey(c int) string { return strconv.Itoa(c) }

func categoryName(c int) string {
	if n, ok := locomo.Categories[c]; ok {
		return n
	}
	return "unknown"
}

func meanRecall(results []QuestionResult, k int, strict bool, keep func(int) bool) float64 {
	var sum float64
	n := 0
	for i := range results {
		q := &results[i]
		if keep != nil && !keep(q.Category) {
			continue
		}
		sum += recall(q.Evidence, q.At(k), strict)
		n++
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// Percentile is the nearest-rank p-th percentile of xs (0 when empty).
func Percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	rank := int(math.Ceil(p / 100 * float64(len(s))))
	rank = min(max(rank, 1), len(s))
	return s[rank-1]
}
