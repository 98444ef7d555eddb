package main

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/memproxy/memproxy/eval"
	"github.com/memproxy/memproxy/eval/locomo"
	"github.com/memproxy/memproxy/internal/fakeupstream"
)

const tinyLoCoMo = "../../eval/testdata/tiny-locomo.json"

// TestEvalLoCoMoInProcess replays the tiny LoCoMo file through an
// in-process memproxy and checks the documented --json shape and the
// figures that do not depend on ranking quality.
func TestEvalLoCoMoInProcess(t *testing.T) {
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := run(t.Context(), []string{"eval", "locomo", "--data", tinyLoCoMo, "--json", "--out", out}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, stderr.String())
	}
	var got map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("stdout is not one JSON object: %v\n%s", err, stdout.String())
	}
	for _, k := range []string{"questions", "evidence_recall", "evidence_recall_cat1_4", "by_category", "mean_injected_tokens",
		"p95_injected_tokens", "added_latency_ms", "llm_calls_per_turn", "evidence_recall_strict", "off", "token_f1", "judge_accuracy",
		"answer_in_context", "baselines", "junk"} {
		if _, ok := got[k]; !ok {
			t.Errorf("missing key %q", k)
		}
	}
	var rep struct {
		eval.Summary
		Off           eval.Summary             `json:"off"`
		ImportedTurns int                      `json:"imported_turns"`
		Baselines     map[string]eval.Baseline `json:"baselines"`
		Junk          *eval.Junk               `json:"junk"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Questions != 6 || rep.Off.Questions != 6 || rep.ImportedTurns != 5 {
		t.Errorf("questions %d/%d, imported %d; want 6/6, 5", rep.Questions, rep.Off.Questions, rep.ImportedTurns)
	}
	for _, c := range []string{"1", "2", "3", "4", "5"} {
		if _, ok := rep.ByCategory[c]; !ok {
			t.Errorf("by_category lacks %q", c)
		}
	}
	// The off arm injects nothing: only the question without evidence
	// scores (1 of 6); the memory arm must find something more.
	if r := rep.Off.EvidenceRecall["5"]; r != 1.0/6 {
		t.Errorf("off recall@5 = %v, want 1/6", r)
	}
	if rep.Off.MeanInjectedTokens != 0 {
		t.Errorf("off arm injected %v tokens", rep.Off.MeanInjectedTokens)
	}
	if rep.EvidenceRecall["5"] <= rep.Off.EvidenceRecall["5"] {
		t.Errorf("memory recall@5 %v not above off %v", rep.EvidenceRecall["5"], rep.Off.EvidenceRecall["5"])
	}
	if rep.MeanInjectedTokens <= 0 || rep.P95InjectedTokens > 500 {
		t.Errorf("tokens mean %v p95 %v", rep.MeanInjectedTokens, rep.P95InjectedTokens)
	}
	// Answer-in-context reads the block the upstream was sent: the memory
	// arm carries some gold words, the off arm none; both baselines are
	// scored on the same questions.
	if rep.AnswerInContext == nil || rep.AnswerInContext.Mean <= 0 || rep.AnswerInContext.Questions != 5 {
		t.Errorf("answer_in_context = %+v, want 5 questions scored above 0", rep.AnswerInContext)
	}
	if rep.Off.AnswerInContext == nil || rep.Off.AnswerInContext.Mean != 0 {
		t.Errorf("off arm answer_in_context = %+v, want 0", rep.Off.AnswerInContext)
	}
	for _, b := range []string{eval.BaselineBM25Pairs, eval.BaselineEvidenceTurns} {
		bl, ok := rep.Baselines[b]
		if !ok || bl.AnswerInContext == nil || bl.AnswerInContext.Questions != 5 {
			t.Errorf("baseline %s = %+v", b, bl)
		}
	}
	if rep.Junk == nil || rep.Junk.IngestedTurns < 5 || rep.Junk.LiveTotal == 0 || rep.Junk.MemoriesPerTurn["event"] <= 0 {
		t.Errorf("junk = %+v", rep.Junk)
	}
	if rep.TokenF1 != nil || rep.JudgeAccuracy != nil {
		t.Error("model fields set without a model")
	}
	for _, f := range []string{"report.json", "report.md", "questions.jsonl", "recall-by-category.svg", "tokens-per-question.svg"} {
		b, err := os.ReadFile(filepath.Join(out, f))
		if err != nil || len(b) == 0 {
			t.Errorf("--out %s: %v (%d bytes)", f, err, len(b))
		}
	}
}

// TestABReport reads the A/B report of a memproxy that served both arms.
func TestABReport(t *testing.T) {
	rp := &eval.Replayer{}
	stop, err := startInProcess(t.Context(), rp, "", "")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	samples, err := locomo.Load(tinyLoCoMo)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rp.Run(t.Context(), samples); err != nil {
		t.Fatal(err)
	}
	var js, text, stderr bytes.Buffer
	base := []string{"ab", "report", "--proxy", rp.BaseURL, "--admin-token", rp.AdminToken, "--since", "87600h"}
	if err := run(t.Context(), append(base, "--json"), &js, &stderr); err != nil {
		t.Fatalf("ab report --json: %v\n%s", err, stderr.String())
	}
	var rep abReport
	if err := json.Unmarshal(js.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	arms := map[string]int{}
	for _, a := range rep.Arms {
		arms[a.Arm] = a.Requests
	}
	if arms["readonly"] != 6 || arms["off"] != 6 {
		t.Errorf("arms = %v, want 6 readonly and 6 off requests", arms)
	}
	if err := run(t.Context(), base, &text, &stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "readonly") || !strings.Contains(text.String(), "recall rate") {
		t.Errorf("text report:\n%s", text.String())
	}
	if err := run(t.Context(), []string{"ab", "report", "--proxy", rp.BaseURL, "--admin-token", "wrong"}, &text, &stderr); err == nil {
		t.Error("wrong admin token accepted")
	}
}

// TestEvalAnswerAndJudge runs the model arm against the fake upstream as
// the "model": the first question gets the gold answer and a CORRECT
// verdict, every other reply is the fake's echo, so token F1 and judge
// accuracy of the memory arm are exactly 1/6 and those of the off arm 0.
func TestEvalAnswerAndJudge(t *testing.T) {
	for _, api := range eval.APIs {
		t.Run(api, func(t *testing.T) { testEvalAnswerAndJudge(t, api) })
	}
}

func testEvalAnswerAndJudge(t *testing.T, api string) {
	fake := fakeupstream.New()
	fake.Push(fakeupstream.Reply{Content: "A cat named Tom"}, fakeupstream.Reply{Content: "CORRECT"})
	up := httptest.NewServer(fake.Handler())
	defer up.Close()
	var stdout, stderr bytes.Buffer
	err := run(t.Context(), []string{"eval", "locomo", "--data", tinyLoCoMo, "--json", "--concurrency", "1",
		"--answer-model", "fake-model", "--judge-model", "fake-judge", "--model-url", up.URL + "/v1", "--api", api}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, stderr.String())
	}
	var rep struct {
		eval.Summary
		Off eval.Summary `json:"off"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	check := func(name string, got *float64, want float64) {
		t.Helper()
		if got == nil || math.Abs(*got-want) > 1e-9 {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	check("token_f1", rep.TokenF1, 1.0/6)
	check("judge_accuracy", rep.JudgeAccuracy, 1.0/6)
	check("off token_f1", rep.Off.TokenF1, 0)
	check("off judge_accuracy", rep.Off.JudgeAccuracy, 0)
}

// TestEvalBlockFromDetail: against a remote proxy the eval cannot see the
// upstream and rebuilds the memory lines from the request detail; on the
// same data both ways must read the same text the model was sent.
func TestEvalBlockFromDetail(t *testing.T) {
	samples, err := locomo.Load(tinyLoCoMo)
	if err != nil {
		t.Fatal(err)
	}
	contexts := func(remote bool) []string {
		rp := &eval.Replayer{Concurrency: 1}
		stop, err := startInProcess(t.Context(), rp, "", "")
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
		if remote {
			rp.Blocks = nil
		}
		rep, err := rp.Run(t.Context(), samples)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, q := range rep.Results {
			out = append(out, q.Context)
		}
		return out
	}
	upstream, detail := contexts(false), contexts(true)
	nonEmpty := 0
	for i := range upstream {
		if upstream[i] != "" {
			nonEmpty++
		}
		// Two replays may order memories of equal score differently (the
		// background groups live turns by timing), so the lines compare as
		// sets; each block's own order is the injector's. The request
		// detail keeps no memory text beyond the memories themselves (a
		// forget must leave none behind), so a line's lead is not in it.
		if sortedLines(withoutLeads(upstream[i])) != sortedLines(detail[i]) {
			t.Errorf("question %d: upstream block reads\n%q\nrequest detail reads\n%q", i, upstream[i], detail[i])
		}
	}
	if nonEmpty == 0 {
		t.Error("no question had a memory block")
	}
}

// TestEvalBudgetFlag: --budget bounds what the BM25 baseline fills.
func TestEvalBudgetFlag(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), []string{"eval", "locomo", "--data", tinyLoCoMo, "--json", "--budget", "80"}, &stdout, &stderr); err != nil {
		t.Fatalf("eval: %v\n%s", err, stderr.String())
	}
	var rep struct {
		Baselines map[string]eval.Baseline `json:"baselines"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &rep); err != nil {
		t.Fatal(err)
	}
	if bl := rep.Baselines[eval.BaselineBM25Pairs]; bl.MeanTokens <= 0 || bl.MeanTokens > 80 {
		t.Errorf("bm25 baseline mean tokens %v with --budget 80", bl.MeanTokens)
	}
}

// sortedLines is s with its lines sorted.
// withoutLeads drops the "(context: …) " a line shows before its memory.
func withoutLeads(s string) string {
	return regexp.MustCompile(`(?m)^(\S+ \S+ \S+ )\(context: [^\n]*?\) `).ReplaceAllString(s, "$1")
}

func sortedLines(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// TestEvalAcrossAPIs asks the tiny LoCoMo file's questions through each
// API: one memory pipeline serves them all, so every question gets the
// same memory lines, recall status and scores through chat, Responses
// and Messages.
func TestEvalAcrossAPIs(t *testing.T) {
	samples, err := locomo.Load(tinyLoCoMo)
	if err != nil {
		t.Fatal(err)
	}
	reports := map[string]*eval.Report{}
	for _, api := range eval.APIs {
		rp := &eval.Replayer{Concurrency: 1, API: api}
		stop, err := startInProcess(t.Context(), rp, "", "")
		if err != nil {
			t.Fatal(err)
		}
		rep, err := rp.Run(t.Context(), samples)
		stop()
		if err != nil {
			t.Fatalf("%s: %v", api, err)
		}
		if rep.API != api {
			t.Errorf("report api %q, want %q", rep.API, api)
		}
		reports[api] = rep
	}
	chat := reports[eval.APIChat]
	injected := 0
	for _, q := range chat.Results {
		if q.Context != "" {
			injected++
		}
	}
	if injected == 0 {
		t.Fatal("no question had memory through chat")
	}
	for _, api := range []string{eval.APIResponses, eval.APIMessages} {
		rep := reports[api]
		if len(rep.Results) != len(chat.Results) {
			t.Fatalf("%s: %d results, chat %d", api, len(rep.Results), len(chat.Results))
		}
		for i, q := range rep.Results {
			c := chat.Results[i]
			if sortedLines(q.Context) != sortedLines(c.Context) || q.Skipped != c.Skipped || q.InjectedTokens != c.InjectedTokens ||
				len(q.Injected) != len(c.Injected) {
				t.Errorf("%s question %d: memory lines\n%q\nchat\n%q (skipped %v/%v, tokens %d/%d, injected %d/%d)", api, i,
					q.Context, c.Context, q.Skipped, c.Skipped, q.InjectedTokens, c.InjectedTokens, len(q.Injected), len(c.Injected))
			}
		}
		for k, v := range chat.EvidenceRecall {
			if rep.EvidenceRecall[k] != v {
				t.Errorf("%s: evidence recall@%s %v, chat %v", api, k, rep.EvidenceRecall[k], v)
			}
		}
		if rep.Off.MeanInjectedTokens != 0 {
			t.Errorf("%s: off arm injected %v tokens", api, rep.Off.MeanInjectedTokens)
		}
	}
}
