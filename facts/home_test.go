package facts

import (
	"testing"
	"time"
)

// TestHomeSaidOtherWays: the home slot said without "I live".
func TestHomeSaidOtherWays(t *testing.T) {
	for _, msg := range []string{"Home for me is Lisbon now.", "Home's Lisbon these days.", "Lisbon is home now.",
		"Lisbon is my new home!", "I call Lisbon home now.", "I've settled in Lisbon.", "I'm based in Lisbon these days.",
		"I relocated to Lisbon."} {
		got := ""
		for _, f := range Extract(msg, Options{At: time.Now()}) {
			if f.Attribute == "lives_in" && !f.Ended {
				got = f.Value
			}
		}
		if got != "Lisbon" {
			t.Errorf("%q: lives_in %q, want Lisbon", msg, got)
		}
	}
	for _, msg := range []string{"Home is where the heart is.", "I'm home now."} {
		for _, f := range Extract(msg, Options{At: time.Now()}) {
			if f.Attribute == "lives_in" {
				t.Errorf("%q: lives_in %q", msg, f.Value)
			}
		}
	}
}
