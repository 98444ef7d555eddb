package memory

import "testing"

func TestExchangeContext(t *testing.T) {
	if got := ExchangeContext(" hi ", "hello"); got != "hi\nAssistant: hello" {
		t.Errorf("ExchangeContext = %q", got)
	}
	if got := ExchangeContext("", "hello"); got != "Assistant: hello" {
		t.Errorf("assistant only = %q", got)
	}
	long := string(make([]rune, 1000))
	for _, c := range []struct{ u, a string }{{long, long}, {"short", long}, {long, "short"}} {
		got := ExchangeContext(c.u, c.a)
		if n := len([]rune(got)) - len([]rune("\nAssistant: ")); n > MaxTurnContext {
			t.Errorf("ExchangeContext keeps %d characters, want ≤ %d", n, MaxTurnContext)
		}
	}
	m := &Memory{Text: "yes", Context: "did you?"}
	if m.SearchText() != "yes\ndid you?" || (&Memory{Text: "x"}).SearchText() != "x" {
		t.Errorf("SearchText = %q", m.SearchText())
	}
}
