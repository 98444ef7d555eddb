package eval

import (
	"strings"
	"time"

	"github.com/memproxy/memproxy/eval/locomo"
	"github.com/memproxy/memproxy/inject"
	"github.com/memproxy/memproxy/memory"
)

// Baselines the report sets beside memory, computed by the eval itself on
// the same data and questions.
const (
	// BaselineBM25Pairs ranks the sample's dated (user, reply) chat
	// turns with BM25 for the question and renders them in rank order with
	// the injector, within the same budget and guard as memory: what a
	// plain lexical retriever over the raw conversation gives the model for
	// the same tokens.
	BaselineBM25Pairs = "bm25_pairs"
	// BaselineEvidenceTurns is the question's evidence turns themselves,
	// dated, without a budget: about as much as the conversation can
	// give.
	BaselineEvidenceTurns = "evidence_turns"
)

// pairText is one chat turn as a baseline memory: the user message and
// the reply, on one line.
func pairText(t locomo.Turn) string {
	text := strings.TrimSpace(t.User + " / " + t.Assistant)
	return strings.Join(strings.Fields(strings.Trim(text, "/ ")), " ")
}

// bm25Pairs answers every question of s from BM25 over its dated chat
// turns: the best-ranked turns go through the product's injector with
// opts (the same budget, guard and fences as memory, no top-k cap), so the
// baseline fills the block exactly as memory would.
func bm25Pairs(s *locomo.Sample, opts inject.Options) []QuestionResult {
	turns := s.ChatTurns()
	texts := make([]string, len(turns))
	for i, t := range turns {
		texts[i] = t.Time.UTC().Format(time.DateOnly) + " " + pairText(t)
	}
	idx := newBM25(texts)
	opts.MaxItems = 0
	out := make([]QuestionResult, len(s.QA))
	for qi, qa := range s.QA {
		res := QuestionResult{Sample: s.ID, Index: qi, Category: qa.Category, Question: qa.Question, Evidence: qa.Evidence}
		ranked := idx.search(qa.Question)
		var items []inject.Item
		for _, d := range ranked[:min(len(ranked), 50)] {
			items = append(items, inject.Item{ID: turns[d].Refs[0], Tier: "turn", Date: turns[d].Time, Text: pairText(turns[d])})
		}
		section, used, tokens := inject.Render(items, opts)
		refs := map[string][]string{}
		for _, d := range ranked {
			refs[turns[d].Refs[0]] = turns[d].Refs
		}
		for _, it := range used {
			res.Injected = append(res.Injected, Hit{ID: it.ID, Refs: refs[it.ID], Single: true})
		}
		res.InjectedTokens = tokens
		scoreContext(&res, qa, MemoryLines(section))
		out[qi] = res
	}
	return out
}

// evidenceTurns answers every question of s with its evidence utterances,
// each dated by its session.
func evidenceTurns(s *locomo.Sample) []QuestionResult {
	type utter struct {
		date time.Time
		text string
	}
	byID := map[string]utter{}
	for _, sess := range s.Sessions {
		for _, d := range sess.Turns {
			byID[d.DiaID] = utter{sess.Date, d.ChatText()}
		}
	}
	out := make([]QuestionResult, len(s.QA))
	for qi, qa := range s.QA {
		res := QuestionResult{Sample: s.ID, Index: qi, Category: qa.Category, Question: qa.Question, Evidence: qa.Evidence}
		var lines []string
		for _, id := range qa.Evidence {
			if u, ok := byID[id]; ok {
				lines = append(lines, u.date.UTC().Format(time.DateOnly)+" "+u.text)
				res.Injected = append(res.Injected, Hit{ID: id, Refs: []string{id}, Single: true})
			}
		}
		ctx := strings.Join(lines, "\n")
		if ctx != "" {
			res.InjectedTokens = memory.CountTokens(ctx)
		}
		scoreContext(&res, qa, ctx)
		out[qi] = res
	}
	return out
}

// scoreContext records the text a question's model would read and, for
// categories 1–4, its answer-in-context share.
func scoreContext(res *QuestionResult, qa locomo.QA, context string) {
	res.Context = context
	if qa.Category < 1 || qa.Category > 4 {
		return
	}
	if v, ok := AnswerInContext(GoldAnswer(qa.Category, qa.Answer), context); ok {
		res.AnswerInContext = &v
	}
}

// ContextScore is answer-in-context over a set of questions (categories
// 1–4 whose gold answer has a content word).
type ContextScore struct {
	Questions int `json:"questions"`
	// Mean is the mean share of gold content words present in the context.
	Mean float64 `json:"mean"`
	// FullyCovered is the share of questions with every word present.
	FullyCovered float64 `json:"fully_covered"`
}

// ContextSummary is answer-in-context overall and per category.
type ContextSummary struct {
	ContextScore
	ByCategory map[string]ContextScore `json:"by_category"`
}

// SummarizeContext computes answer-in-context over results; nil when no
// question is scored.
func SummarizeContext(results []QuestionResult) *ContextSummary {
	s := &ContextSummary{ByCategory: map[string]ContextScore{}}
	add := func(c *ContextScore, v float64) {
		c.Questions++
		c.Mean += v
		if v >= 1 {
			c.FullyCovered++
		}
	}
	cats := map[int]*ContextScore{}
	for i := range results {
		q := &results[i]
		if q.AnswerInContext == nil {
			continue
		}
		add(&s.ContextScore, *q.AnswerInContext)
		if cats[q.Category] == nil {
			cats[q.Category] = &ContextScore{}
		}
		add(cats[q.Category], *q.AnswerInContext)
	}
	if s.Questions == 0 {
		return nil
	}
	norm := func(c *ContextScore) {
		if c.Questions > 0 {
			c.Mean /= float64(c.Questions)
			c.FullyCovered /= float64(c.Questions)
		}
	}
	norm(&s.ContextScore)
	for c := 1; c <= 4; c++ {
		cs := ContextScore{}
		if x := cats[c]; x != nil {
			cs = *x
			norm(&cs)
		}
		s.ByCategory[categoryKey(c)] = cs
	}
	return s
}

// Baseline is one baseline's figures.
type Baseline struct {
	Description     string          `json:"description"`
	AnswerInContext *ContextSummary `json:"answer_in_context"`
	// EvidenceRecall is the share of evidence turns in the context (all
	// questions, and categories 1–4), as recall@5 is for memory.
	EvidenceRecall       float64 `json:"evidence_recall"`
	EvidenceRecallCat1_4 float64 `json:"evidence_recall_cat1_4"`
	MeanTokens           float64 `json:"mean_tokens"`
}

var baselineDescriptions = map[string]string{
	BaselineBM25Pairs:     "BM25 over the dated (user, reply) chat turns, filling the injection budget",
	BaselineEvidenceTurns: "the question's evidence turns themselves, dated, no budget",
}

func summarizeBaseline(name string, rs []QuestionResult) Baseline {
	s := Summarize(rs)
	return Baseline{
		Description:          baselineDescriptions[name],
		AnswerInContext:      SummarizeContext(rs),
		EvidenceRecall:       s.EvidenceRecall["5"],
		EvidenceRecallCat1_4: s.EvidenceRecallCat1_4["5"],
		MeanTokens:           s.MeanInjectedTokens,
	}
}
