package eval

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/memproxy/memproxy/eval/locomo"
	"github.com/memproxy/memproxy/inject"
	"github.com/memproxy/memproxy/memory"
)

func TestAnswerWords(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"The 7th of May, 2023", []string{"7", "may", "2023"}},
		{"September 1st", []string{"sep", "1"}},
		{"Caroline's dogs and cats!", []string{"caroline", "dog", "cat"}},
		{"- [event 2023-05-07] went hiking", []string{"event", "7", "may", "2023", "went", "hiking"}},
		{"Yes, she does", []string{"yes"}},
		{"the 1990s, in 03", []string{"1990", "3"}},
		{"stories, glass, bus", []string{"story", "glass", "bus"}},
		{"我住在北京", []string{"我", "住", "在", "北", "京"}},
	} {
		if got := AnswerWords(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("AnswerWords(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestAnswerInContext(t *testing.T) {
	for _, c := range []struct {
		gold, ctx string
		want      float64
		ok        bool
	}{
		{"7 May 2023", "- [event 7 May 2023 m:ab12] we went hiking", 1, true},
		{"7 May 2023", "2023-05-07 went hiking", 1, true},
		{"7 May 2023", "8 May 2023 went hiking", 2.0 / 3, true},
		{"pottery, camping", "She loves camping.", 0.5, true},
		{"Mental health", "", 0, true},
		{"the", "anything", 0, false},
	} {
		got, ok := AnswerInContext(c.gold, c.ctx)
		if ok != c.ok || (ok && abs(got-c.want) > 1e-9) {
			t.Errorf("AnswerInContext(%q, %q) = %v, %v; want %v, %v", c.gold, c.ctx, got, ok, c.want, c.ok)
		}
	}
	if g := GoldAnswer(3, "Likely yes; she said so"); g != "Likely yes" {
		t.Errorf("GoldAnswer cat 3 = %q", g)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestMemoryLines keeps each memory's date and text and drops the fences,
// the guard, the tier and the id, so guard words never score.
func TestMemoryLines(t *testing.T) {
	block := "<memory>\nNotes from earlier chats; may be outdated.\n- [semantic 3 Mar 2026 m:ab12] The user lives in Lisbon.\n" +
		"- [event m:cd34] Went to the pottery class\nAssistant: nice\n</memory>"
	want := "3 Mar 2026 The user lives in Lisbon.\nWent to the pottery class Assistant: nice"
	if got := MemoryLines(block); got != want {
		t.Errorf("MemoryLines = %q\nwant %q", got, want)
	}
	if v, _ := AnswerInContext("May", MemoryLines(block)); v != 0 {
		t.Errorf("the guard's 'may' counted: %v", v)
	}
}

func TestBlockFromDetail(t *testing.T) {
	d := &recallDetail{Injected: []string{"b", "a"}, Memories: []detailMemory{
		{ID: "a", Tier: memory.TierEvent, Text: "first\nline", CreatedAt: time.Date(2023, 5, 7, 0, 0, 0, 0, time.UTC)},
		{ID: "b", Tier: memory.TierSemantic, Text: "second", ValidFrom: time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)},
	}}
	want := "2 Jan 2024 second\n7 May 2023 first line"
	if got := MemoryLines(blockFromDetail(d)); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestMemoryBlock(t *testing.T) {
	body := `{"messages":[{"role":"system","content":"Be brief.\n\n<memory>\n- [event 1 Jan 2024] x\n</memory>"},` +
		`{"role":"user","content":"first"},{"role":"assistant","content":"ok"},{"role":"user","content":[{"type":"text","text":"Where?"}]}]}`
	q, block, ok := memoryBlock([]byte(body))
	if !ok || q != "Where?" || block != "<memory>\n- [event 1 Jan 2024] x\n</memory>" {
		t.Errorf("memoryBlock = %q, %q, %v", q, block, ok)
	}
}

func TestQuestionOnly(t *testing.T) {
	for text, want := range map[string]bool{
		"Where do I live?":                                 true,
		"Hey Mel! How are you?":                            false,
		"Where do I live?\nAssistant: You live in Lisbon.": true,
		"I moved to Lisbon. Do you like it?":               false,
		"The user lives in Lisbon.":                        false,
		"我住在哪里？":                                           true,
		"我住在上海。你呢？":                                        false,
		"":                                                 false,
	} {
		if got := QuestionOnly(text); got != want {
			t.Errorf("QuestionOnly(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestJunkOf(t *testing.T) {
	users := [][]listed{{
		{Tier: memory.TierEvent, State: memory.StateLive, Text: "I live in Lisbon."},
		{Tier: memory.TierEvent, State: memory.StateLive, Text: "i live in lisbon"},
		{Tier: memory.TierEvent, State: memory.StateLive, Text: "Where do I live?"},
		{Tier: memory.TierSemantic, State: memory.StateSuperseded, Text: "The user lives in Berlin."},
	}, {
		{Tier: memory.TierEvent, State: memory.StateLive, Text: "I live in Lisbon."},
	}}
	j := junkOf(4, users)
	if j.LiveTotal != 4 || j.Live["event"] != 4 || j.MemoriesPerTurn["event"] != 1 || j.MemoriesPerTurn["semantic"] != 0.25 {
		t.Errorf("counts: %+v", j)
	}
	if j.QuestionOnly != 0.25 || j.Duplicates != 0.25 || j.JunkShare != 0.5 {
		t.Errorf("question-only %v duplicates %v, want 0.25 0.25 (duplicates are per user)", j.QuestionOnly, j.Duplicates)
	}
}

// TestBaselines: BM25 fills the budget with the best-matching dated turns
// and never exceeds it; the evidence baseline holds the evidence turns.
func TestBaselines(t *testing.T) {
	day := time.Date(2023, 5, 7, 13, 0, 0, 0, time.UTC)
	s := &locomo.Sample{ID: "s", SpeakerA: "A", SpeakerB: "B", Sessions: []locomo.Session{{N: 1, Date: day, Turns: []locomo.Dialog{
		{Speaker: "A", DiaID: "D1:1", Text: "I adopted a puppy named Biscuit."},
		{Speaker: "B", DiaID: "D1:2", Text: "Lovely!"},
		{Speaker: "A", DiaID: "D1:3", Text: "The puppy " + strings.Repeat("weather talk ", 40)},
		{Speaker: "B", DiaID: "D1:4", Text: "Sure."},
	}}}, QA: []locomo.QA{
		{Question: "What is the puppy called?", Answer: "Biscuit", Category: 4, Evidence: []string{"D1:1"}},
		{Question: "When did A adopt the puppy?", Answer: "7 May 2023", Category: 2, Evidence: []string{"D1:1"}},
		{Question: "Is it raining?", Answer: "not mentioned", Category: 5, Evidence: nil},
	}}
	bm := bm25Pairs(s, inject.Options{BudgetTokens: 40})
	if bm[0].AnswerInContext == nil || *bm[0].AnswerInContext != 1 || *bm[1].AnswerInContext != 1 {
		t.Errorf("bm25 context %q: %v", bm[0].Context, bm[0].AnswerInContext)
	}
	if bm[0].InjectedTokens > 40 || strings.Contains(bm[0].Context, "weather") {
		t.Errorf("bm25 over budget: %d tokens, %q", bm[0].InjectedTokens, bm[0].Context)
	}
	if bm[2].AnswerInContext != nil {
		t.Error("category 5 scored")
	}
	ev := evidenceTurns(s)
	if ev[0].Context != "2023-05-07 I adopted a puppy named Biscuit." || *ev[1].AnswerInContext != 1 {
		t.Errorf("evidence context %q", ev[0].Context)
	}
	sum := SummarizeContext(ev)
	if sum.Questions != 2 || sum.Mean != 1 || sum.FullyCovered != 1 || sum.ByCategory["4"].Questions != 1 || sum.ByCategory["1"].Questions != 0 {
		t.Errorf("summary %+v", sum)
	}
}
