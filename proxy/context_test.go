package proxy

import (
	"strings"
	"testing"
)

func TestPrevExchange(t *testing.T) {
	msgs := []Message{
		{Role: "system", Text: "be brief"},
		{Role: "user", Text: "I went hiking at Mount Rainier"},
		{Role: "assistant", Text: "Did you reach the top?"},
		{Role: "user", Text: "Yes!"},
	}
	if got, want := prevExchange(msgs), "I went hiking at Mount Rainier\nAssistant: Did you reach the top?"; got != want {
		t.Errorf("prevExchange = %q, want %q", got, want)
	}
	if got := prevExchange(msgs[:2]); got != "" {
		t.Errorf("first turn: prevExchange = %q, want empty", got)
	}
	long := []Message{
		{Role: "user", Text: strings.Repeat("a", 2000)},
		{Role: "assistant", Text: strings.Repeat("b", 2000)},
		{Role: "user", Text: "and then?"},
	}
	if got := prevExchange(long); len([]rune(got)) > 600+len("\nAssistant: ") {
		t.Errorf("prevExchange of long messages has %d characters, want at most 600 of text", len([]rune(got)))
	}
}
