package facts

import (
	"strings"
	"testing"
	"time"
)

// TestDescribedHome: a home said by its kind keeps its article and what
// places it ("a small village near Oxford"), and is Generic; a dwelling
// in a named place is the place ("a small flat in Lisbon"); a dwelling
// alone said as a move ("moved to a new apartment") is no new home.
func TestDescribedHome(t *testing.T) {
	at := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		msg, key, want string
		generic        bool
	}{
		{"I live in a small village near Oxford.", "user.lives_in", "a small village near Oxford", true},
		{"I live in a small town in Ohio.", "user.lives_in", "a small town in Ohio", true},
		{"I live in an apartment downtown.", "user.lives_in", "an apartment downtown", true},
		{"I live in the suburbs of Chicago.", "user.lives_in", "the suburbs of Chicago", true},
		{"I live in a village near the coast.", "user.lives_in", "a village near the coast", true},
		{"I live in a small town about an hour from Boston.", "user.lives_in", "a small town about an hour from Boston", true},
		{"I live in a small town in the north of England.", "user.lives_in", "a small town in the north of England", true},
		{"We moved to a farmhouse outside Lyon.", "user.lives_in", "a farmhouse outside Lyon", true},
		{"We moved to a small village near Oxford last month.", "user.lives_in", "a small village near Oxford", true},
		{"We relocated to a suburb of Denver.", "user.lives_in", "a suburb of Denver", true},
		{"We moved into a cottage just outside York.", "user.lives_in", "a cottage just outside York", true},
		{"I've settled in a quiet village in Devon.", "user.lives_in", "a quiet village in Devon", true},
		{"I moved to the countryside.", "user.lives_in", "the countryside", true},
		{"We live with our kids in a village near Bath.", "user.lives_in", "a village near Bath", true},
		{"My sister lives in a small town in Ohio.", "sister.lives_in", "a small town in Ohio", true},
		{"I'm based in a small town outside Austin.", "user.lives_in", "a small town outside Austin", true},
		// a dwelling in a named place is the place
		{"I live in a flat in east London.", "user.lives_in", "east London", false},
		{"I live in a small flat in Lisbon.", "user.lives_in", "Lisbon", false},
		{"I live in a tiny studio apartment in Brooklyn.", "user.lives_in", "Brooklyn", false},
		{"I live in a flat in a small town in Ohio.", "user.lives_in", "a small town in Ohio", true},
		{"I live in a quiet neighbourhood in Austin.", "user.lives_in", "Austin", false},
		{"I moved to rural Ohio last year.", "user.lives_in", "rural Ohio", false},
		{"I live in Berlin.", "user.lives_in", "Berlin", false},
		// a dwelling or a part of town said alone as a move: no new home
		{"I moved to a new apartment last week.", "user.lives_in", "", false},
		{"We moved to a different part of town.", "user.lives_in", "", false},
		{"We moved to a new neighbourhood.", "user.lives_in", "", false},
		{"I moved to the data team.", "user.lives_in", "", false},
	} {
		var got, text string
		for _, f := range Extract(c.msg, Options{At: at}) {
			if f.Key() == c.key && !f.Ended {
				got, text = f.Value, f.Text
			}
		}
		if got != c.want {
			t.Errorf("%q: %s = %q, want %q", c.msg, c.key, got, c.want)
			continue
		}
		if got != "" && Generic(got) != c.generic {
			t.Errorf("%q: Generic(%q) = %v", c.msg, got, !c.generic)
		}
		if got != "" && !strings.Contains(text, " "+got) {
			t.Errorf("%q: text %q lacks %q", c.msg, text, got)
		}
	}
}

// TestCodeStatesNothing: a fenced code block is a program, not the user's
// words; what is said around it is read.
func TestCodeStatesNothing(t *testing.T) {
	at := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	for msg, want := range map[string]string{
		"Why does this fail?\n```python\nprint(1)\nI live in a loop = True\n```":          "",
		"I live in Porto.\n```\nmy_name = 'I work at Google'\n```\nWhat's wrong with it?": "user.lives_in=Porto",
		"~~~\nI moved to a small village near Oxford\n~~~":                                "",
		"```I live in Paris```\nI work at Acme.":                                          "user.works_at=Acme",
	} {
		got := strings.Join(stated(msg, at), ",")
		if got != want {
			t.Errorf("%q: %q, want %q", msg, got, want)
		}
	}
}

// TestDescribedWorkplaceKeepsPlace: a workplace described rather than
// named keeps the named place it is in.
func TestDescribedWorkplaceKeepsPlace(t *testing.T) {
	at := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	for msg, want := range map[string]string{
		"I started a new job at a small startup in London two weeks ago.": "a small startup in London",
		"I work at a hospital in Leeds.":                                  "a hospital in Leeds",
		"I work at a bakery in Porto as a baker.":                         "a bakery in Porto",
		"I'm a software engineer at a fintech company in Berlin.":         "a fintech company in Berlin",
		"I work for a bank in January.":                                   "a bank",
	} {
		got := ""
		for _, f := range Extract(msg, Options{At: at}) {
			if f.Key() == "user.works_at" {
				got = f.Value
			}
		}
		if got != want {
			t.Errorf("%q: works_at %q, want %q", msg, got, want)
		}
		if !Generic(got) {
			t.Errorf("%q: %q is not Generic", msg, got)
		}
	}
}

// TestDescribedHometown: a hometown described is kept as said, as a home
// is ("I grew up in a small town in Texas"); a family is no place.
func TestDescribedHometown(t *testing.T) {
	at := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	for msg, want := range map[string]string{
		"I grew up in a small town in Texas.":                          "user.from=a small town in Texas",
		"I'm from a small village near Krakow.":                        "user.from=a small village near Krakow",
		"I'm originally from a tiny island off the coast of Scotland.": "user.from=a tiny island off the coast of Scotland",
		"I was born in a small town in Ohio.":                          "user.from=a small town in Ohio",
		"I'm from the suburbs of Chicago.":                             "user.from=the suburbs of Chicago",
		"I'm from a big family.":                                       "",
		"I grew up in Manchester.":                                     "user.from=Manchester",
	} {
		if got := strings.Join(stated(msg, at), ","); got != want {
			t.Errorf("%q: %q, want %q", msg, got, want)
		}
	}
}
