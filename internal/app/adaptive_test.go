package app_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/memproxy/memproxy/internal/fakeupstream"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/proxy"
)

// A scope whose injected memories keep going unused gets a higher
// threshold and so fewer injections; when the replies use them again, the
// threshold comes down and injections recover.
func TestAdaptiveThreshold(t *testing.T) {
	h := newHarness(t, "sqlite")
	seeds := []string{
		"I planted tomatoes and basil in the raised garden bed on Saturday.",
		"The garden soil here is heavy clay, so I mixed in compost last autumn.",
		"Slugs ate half of the lettuce in the garden again this week.",
		"I water the garden early in the morning before work.",
		"We built a small greenhouse next to the garden shed for the peppers.",
	}
	for i, s := range seeds {
		h.say("ivy", "seed"+strconv.Itoa(i), s)
	}
	h.idle()
	scope := memory.Scope{User: "ivy", Namespace: memory.DefaultNamespace}
	question := "Any ideas for improving the garden soil and the lettuce this season?"

	// One growing conversation: the app resends its history, so earlier
	// exchanges are in the request and never recalled as memories.
	var history []openai.ChatCompletionMessageParamUnion
	ask := func(question, reply string) int {
		t.Helper()
		h.fake.Push(fakeupstream.Reply{Content: reply})
		history = append(history, openai.UserMessage(question))
		_, hdr := h.chat(h.client("ivy"), history)
		history = append(history, openai.AssistantMessage(reply))
		h.idle()
		n, _ := strconv.Atoi(hdr.Get(proxy.HeaderMemories))
		return n
	}
	threshold := func() float64 {
		v, ok, err := h.app.Store.Threshold(t.Context(), scope)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return h.app.Policy.Gate.MinScore
		}
		return v
	}

	const offTopic = "Check the weather forecast and enjoy your weekend."
	first := ask(question, offTopic)
	if first == 0 {
		t.Fatal("nothing injected at the start; the test needs memories above min_score")
	}
	start := threshold()
	var last int
	for range 12 {
		last = ask(question, offTopic)
	}
	raised := threshold()
	if raised <= start || last >= first {
		t.Fatalf("unused memories: threshold %.3f → %.3f, injected %d → %d; want a higher threshold and fewer injections", start, raised, first, last)
	}

	// Once nothing clears the raised threshold, only forced recall (the
	// user refers back: "my …", "as I said") injects, at the base
	// threshold; replies that use those notes bring the threshold down
	// and ordinary questions get memories again.
	used := strings.Join(seeds, " ")
	cue := "As I said, my garden soil and the lettuce need help this season, any ideas?"
	for range 12 {
		ask(cue, used)
	}
	last = ask(question, used)
	lowered := threshold()
	if lowered >= raised || last <= 0 {
		t.Fatalf("used memories: threshold %.3f → %.3f, injected %d; want a lower threshold and injections back", raised, lowered, last)
	}
	t.Logf("threshold %.3f → %.3f → %.3f; injected %d → … → %d", start, raised, lowered, first, last)
}
