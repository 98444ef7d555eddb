package facts

import (
	"slices"
	"testing"
	"time"
)

// TestHomeSaidOtherWays: the home slot said without "I live".
func TestHomeSaidOtherWays(t *testing.T) {
	for _, msg := range []string{"Home for me is Lisbon now.", "Home's Lisbon these days.", "Lisbon is home now.",
		"Lisbon is my new home!", "I call Lisbon home now.", "I've settled in Lisbon.", "I'm based in Lisbon these days.",
		"I relocated to Lisbon.", "I live with my girlfriend in Lisbon.", "We live with our two kids in a small flat in Lisbon.",
		"I live with Sam in a cottage in Lisbon."} {
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
	for _, msg := range []string{"Home is where the heart is.", "I'm home now.", "I live with my sister in January.",
		"I live with my dog but I work in London."} {
		for _, f := range Extract(msg, Options{At: time.Now()}) {
			if f.Attribute == "lives_in" {
				t.Errorf("%q: lives_in %q", msg, f.Value)
			}
		}
	}
}

// TestHomeOtherWords: a home and a hometown said with an adverb, "based
// out of", a move whose motive is someone's job, or a "but" clause that
// shares the user's subject; an employer named after "a … called", or
// described ("a big bank").
func TestHomeOtherWords(t *testing.T) {
	at := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	for msg, want := range map[string][]string{
		"I'm originally from Kyoto.":                              {"user.from=Kyoto"},
		"I'm from Kyoto but live in Osaka now.":                   {"user.from=Kyoto", "user.lives_in=Osaka"},
		"These days I'm based out of Austin.":                     {"user.lives_in=Austin"},
		"I relocated to Denver for my partner's job.":             {"user.lives_in=Denver"},
		"I like tea but my husband drinks coffee.":                {"user.likes=tea"},
		"I work remotely for a fintech startup called Brightpay.": {"user.works_at=Brightpay"},
		"I work for a company called Initech as a tester.":        {"user.works_at=Initech", "user.job_title=tester"},
		"I work for a big bank.":                                  {"user.works_at=a big bank"}, // described, its article kept
		"I work for a living.":                                    nil,
	} {
		if got := stated(msg, at); !slices.Equal(got, want) {
			t.Errorf("%q: %v, want %v", msg, got, want)
		}
	}
}
