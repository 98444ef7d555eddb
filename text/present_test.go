package text

import (
	"strings"
	"testing"
)

func TestSpeaksOfNow(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"Should I take it easy at the gym today?", true},
		{"What am I doing right now?", true},
		{"Which city am I in this week?", true},
		{"今天适合去跑步吗？", true},
		{"我现在住在哪里？", true},
		{"Do you know where I live?", false},
		{"Is it snowing in Oslo?", false},
		{"Where did I go last week?", false},
		{"我住在哪里？", false},
	} {
		if got := SpeaksOfNow(tc.s); got != tc.want {
			t.Errorf("SpeaksOfNow(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
	for _, w := range append(append([]string(nil), presentEN...), presentZH...) {
		if !SpeaksOfNow("so " + w + "?") {
			t.Errorf("present word %q not recognised", w)
		}
	}
	if got := strings.Join(append(append([]string(nil), presentEN...), presentZH...), " "); PresentWords() != got {
		t.Errorf("PresentWords() = %q, want %q", PresentWords(), got)
	}
}
