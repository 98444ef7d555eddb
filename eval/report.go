package eval

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Anchors printed beside the results: published figures for scale.
const anchors = `Anchors: the LoCoMo paper's DRAGON retriever over dialog turns reaches
evidence recall@5 0.567, @10 0.662, @25 0.767 (Maharana et al., ACL 2024);
Mem0 reports 1,764 retrieved tokens per question.`

// Markdown renders the report for people (and the README's Results).
func (r *Report) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# LoCoMo evaluation\n\n")
	if r.Data != "" {
		fmt.Fprintf(&b, "Data: `%s` — %d samples, %d questions, %d imported turns. ", r.Data, r.Samples, r.Questions, r.ImportedTurns)
	}
	fmt.Fprintf(&b, "Target: %s, questions through the %s API. Run time %.0f s.\n\n", r.Target, cmp.Or(r.API, APIChat), r.ElapsedSeconds)
	fmt.Fprintf(&b, "Evidence recall is the LoCoMo paper's metric: the share of a question's\n")
	fmt.Fprintf(&b, "evidence turns carried by the memories injected (@5, top_k 5) or ranked\n")
	fmt.Fprintf(&b, "(@10, @25), averaged over questions; a question without evidence counts 1.\n\n")
	b.WriteString("| | @5 | @10 | @25 |\n|---|---|---|---|\n")
	row := func(name string, m RecallAtK) {
		fmt.Fprintf(&b, "| %s | %.3f | %.3f | %.3f |\n", name, m["5"], m["10"], m["25"])
	}
	row("all questions", r.EvidenceRecall)
	row("categories 1–4", r.EvidenceRecallCat1_4)
	row("strict (single-turn memories only)", r.EvidenceRecallStrict)
	for _, c := range []string{"1", "2", "3", "4", "5"} {
		cs := r.ByCategory[c]
		row(fmt.Sprintf("cat %s %s (%d)", c, cs.Name, cs.Questions), cs.EvidenceRecall)
	}
	b.WriteString("\n| | memory (readonly) | off |\n|---|---|---|\n")
	fmt.Fprintf(&b, "| mean injected tokens | %.0f | %.0f |\n", r.MeanInjectedTokens, r.Off.MeanInjectedTokens)
	fmt.Fprintf(&b, "| p95 injected tokens | %.0f | %.0f |\n", r.P95InjectedTokens, r.Off.P95InjectedTokens)
	fmt.Fprintf(&b, "| added latency p50 (ms) | %.2f | %.2f |\n", r.AddedLatencyMs.P50, r.Off.AddedLatencyMs.P50)
	fmt.Fprintf(&b, "| added latency p95 (ms) | %.2f | %.2f |\n", r.AddedLatencyMs.P95, r.Off.AddedLatencyMs.P95)
	fmt.Fprintf(&b, "| gate skip rate | %.3f | %.3f |\n", r.GateSkipRate, r.Off.GateSkipRate)
	if r.RecallTimeoutRate > 0 {
		fmt.Fprintf(&b, "| recall timed out (nothing injected: rerun on a quieter machine) | %.3f | |\n", r.RecallTimeoutRate)
	}
	if r.LLMCallsPerTurn != nil {
		fmt.Fprintf(&b, "| LLM calls per ingested turn | %.3f | |\n", *r.LLMCallsPerTurn)
	}
	b.WriteString(r.contextMarkdown())
	b.WriteString(r.junkMarkdown())
	b.WriteString("\n![recall by category](recall-by-category.svg)\n\n![tokens per question](tokens-per-question.svg)\n\n")
	b.WriteString(anchors + "\n")
	return b.String()
}

// contextMarkdown is the answer-in-context table: memory beside the
// baselines, overall and per category.
func (r *Report) contextMarkdown() string {
	var b strings.Builder
	b.WriteString("\nAnswer-in-context is the share of the gold answer's content words present in\n")
	b.WriteString("the text the model reads (categories 1–4; mean over questions, and the share\n")
	b.WriteString("fully covered). Baselines on the same questions: BM25 over the dated (user,\n")
	b.WriteString("reply) turns rendered by the injector in the same budget, and the evidence\n")
	b.WriteString("turns themselves.\n\n")
	type col struct {
		name   string
		cs     *ContextSummary
		recall float64
		tokens float64
	}
	cols := []col{{"memory", r.AnswerInContext, r.EvidenceRecall["5"], r.MeanInjectedTokens}}
	for _, n := range []string{BaselineBM25Pairs, BaselineEvidenceTurns} {
		if bl, ok := r.Baselines[n]; ok {
			cols = append(cols, col{strings.ReplaceAll(n, "_", " "), bl.AnswerInContext, bl.EvidenceRecall, bl.MeanTokens})
		}
	}
	b.WriteString("| |")
	for _, c := range cols {
		fmt.Fprintf(&b, " %s |", c.name)
	}
	b.WriteString("\n|---|")
	b.WriteString(strings.Repeat("---|", len(cols)))
	b.WriteString("\n")
	cell := func(cs *ContextSummary, cat string) string {
		if cs == nil {
			return "–"
		}
		sc := cs.ContextScore
		if cat != "" {
			sc = cs.ByCategory[cat]
		}
		return fmt.Sprintf("%.3f / %.3f", sc.Mean, sc.FullyCovered)
	}
	fmt.Fprintf(&b, "| categories 1–4 (mean / fully) |")
	for _, c := range cols {
		fmt.Fprintf(&b, " %s |", cell(c.cs, ""))
	}
	b.WriteString("\n")
	for c := 1; c <= 4; c++ {
		key := categoryKey(c)
		n := 0
		if r.AnswerInContext != nil {
			n = r.AnswerInContext.ByCategory[key].Questions
		}
		fmt.Fprintf(&b, "| cat %d %s (%d) |", c, categoryName(c), n)
		for _, col := range cols {
			fmt.Fprintf(&b, " %s |", cell(col.cs, key))
		}
		b.WriteString("\n")
	}
	b.WriteString("| evidence recall (all questions) |")
	for _, c := range cols {
		fmt.Fprintf(&b, " %.3f |", c.recall)
	}
	b.WriteString("\n| mean tokens |")
	for _, c := range cols {
		fmt.Fprintf(&b, " %.0f |", c.tokens)
	}
	b.WriteString("\n")
	return b.String()
}

// junkMarkdown is the table of what the background kept.
func (r *Report) junkMarkdown() string {
	j := r.Junk
	if j == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\nWhat the background kept (%d ingested turns, %d live memories): ", j.IngestedTurns, j.LiveTotal)
	fmt.Fprintf(&b, "%.3f of live memories are questions only, %.3f duplicates (%.3f either).\n\n", j.QuestionOnly, j.Duplicates, j.JunkShare)
	b.WriteString("| tier | memories per ingested turn | live |\n|---|---|---|\n")
	tiers := make([]string, 0, len(j.MemoriesPerTurn))
	for t := range j.MemoriesPerTurn {
		tiers = append(tiers, t)
	}
	sort.Strings(tiers)
	for _, t := range tiers {
		fmt.Fprintf(&b, "| %s | %.3f | %d |\n", t, j.MemoriesPerTurn[t], j.Live[t])
	}
	return b.String()
}

// WriteDir writes report.json, report.md, questions.jsonl and the two SVG
// charts into dir (created if needed).
func (r *Report) WriteDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("out dir: %w", err)
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	var q strings.Builder
	enc := json.NewEncoder(&q)
	for _, arm := range []struct {
		name string
		rs   []QuestionResult
	}{{ArmReadonly, r.Results}, {ArmOff, r.OffResults},
		{BaselineBM25Pairs, r.BaselineResults[BaselineBM25Pairs]}, {BaselineEvidenceTurns, r.BaselineResults[BaselineEvidenceTurns]}} {
		for _, x := range arm.rs {
			if err := enc.Encode(struct {
				Arm string `json:"arm"`
				QuestionResult
			}{arm.name, x}); err != nil {
				return err
			}
		}
	}
	files := map[string]string{
		"report.json":             string(js) + "\n",
		"report.md":               r.Markdown(),
		"questions.jsonl":         q.String(),
		"recall-by-category.svg":  RecallChart(r.Summary),
		"tokens-per-question.svg": TokensChart(r.Results),
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			return fmt.Errorf("write %s: %w", name, err)
		}
	}
	return nil
}

// svg colours for @5, @10, @25.
var barColours = []string{"#1f77b4", "#ff7f0e", "#2ca02c"}

// RecallChart draws evidence recall @5/@10/@25 per category (and over all
// questions) as grouped bars.
func RecallChart(s Summary) string {
	groups := []struct {
		label string
		m     RecallAtK
	}{{"all", s.EvidenceRecall}}
	for _, c := range []string{"1", "2", "3", "4", "5"} {
		groups = append(groups, struct {
			label string
			m     RecallAtK
		}{c + " " + s.ByCategory[c].Name, s.ByCategory[c].EvidenceRecall})
	}
	const w, h, left, bottom, top = 640, 320, 40, 40, 30
	plotH := float64(h - bottom - top)
	gw := float64(w-left-10) / float64(len(groups))
	bw := gw / 4
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n", w, h)
	fmt.Fprintf(&b, `<text x="%d" y="18" font-size="13">Evidence recall by category</text>`+"\n", left)
	for i := 0; i <= 4; i++ {
		y := float64(top) + plotH*(1-float64(i)/4)
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="4" y="%.1f">%.2f</text>`+"\n", left, w-10, y, y, y+4, float64(i)/4)
	}
	for gi, g := range groups {
		x0 := float64(left) + gw*float64(gi) + bw/2
		for ki, k := range Ks {
			v := clamp(g.m[fmt.Sprint(k)])
			bh := plotH * v
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"><title>@%d %.3f</title></rect>`+"\n",
				x0+bw*float64(ki), float64(top)+plotH-bh, bw-1, bh, barColours[ki], k, v)
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", x0+bw*1.5, h-bottom+16, escape(g.label))
	}
	for ki, k := range Ks {
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="10" height="10" fill="%s"/><text x="%d" y="%d">@%d</text>`+"\n",
			w-170+ki*55, 8, barColours[ki], w-156+ki*55, 17, k)
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// TokensChart draws the distribution of injected tokens per question.
func TokensChart(rs []QuestionResult) string {
	const bins = 20
	maxT := 1
	for _, q := range rs {
		maxT = max(maxT, q.InjectedTokens)
	}
	width := int(math.Ceil(float64(maxT+1) / bins))
	counts := make([]int, bins)
	peak := 1
	for _, q := range rs {
		i := min(q.InjectedTokens/width, bins-1)
		counts[i]++
		peak = max(peak, counts[i])
	}
	const w, h, left, bottom, top = 640, 300, 40, 40, 30
	plotH := float64(h - bottom - top)
	bw := float64(w-left-10) / bins
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="11">`+"\n", w, h)
	fmt.Fprintf(&b, `<text x="%d" y="18" font-size="13">Injected tokens per question (%d questions)</text>`+"\n", left, len(rs))
	for i, c := range counts {
		bh := plotH * float64(c) / float64(peak)
		x := float64(left) + bw*float64(i)
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="#1f77b4"><title>%d–%d tokens: %d</title></rect>`+"\n",
			x, float64(top)+plotH-bh, bw-1, bh, i*width, (i+1)*width-1, c)
		if i%4 == 0 {
			fmt.Fprintf(&b, `<text x="%.1f" y="%d">%d</text>`+"\n", x, h-bottom+16, i*width)
		}
	}
	fmt.Fprintf(&b, `<text x="4" y="%d">%d</text><text x="4" y="%d">0</text>`+"\n", top+4, peak, h-bottom)
	b.WriteString("</svg>\n")
	return b.String()
}

func clamp(v float64) float64 { return math.Max(0, math.Min(1, v)) }

func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
