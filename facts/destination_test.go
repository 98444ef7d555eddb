package facts

import (
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// TestMoveDestination: a move's destination is a home only when nothing
// says it is an organisation; a company said so is the new employer; a
// move the message speaks of only in the words of work sets nothing.
func TestMoveDestination(t *testing.T) {
	at := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	cases := []struct{ msg, key, value string }{
		{"I moved to Prague last month.", "user.lives_in", "Prague"},
		{"I moved to the city of Leeds.", "user.lives_in", "Leeds"},
		{"I moved to Portland, Oregon in May.", "user.lives_in", "Portland"},
		{"Quick update: I relocated to Prague two weeks ago for a new role.", "user.lives_in", "Prague"},
		{"I moved to Lisbon last month and started a new job at Farfetch.", "user.lives_in", "Lisbon"},
		{"I moved to Acme Corp in March.", "user.works_at", "Acme Corp"},
		{"I moved to Globex as a senior engineer.", "user.works_at", "Globex"},
		{"I moved jobs to Hooli.", "user.works_at", "Hooli"},
		{"I got an offer from Globex. I moved to Globex last week.", "user.works_at", "Globex"},
		{"Moved to Brightwave last week, the team is lovely.", "", ""},
		{"I moved to Stanford University.", "", ""},
	}
	for _, c := range cases {
		var got *Fact
		for _, f := range Extract(c.msg, Options{At: at}) {
			if (f.Attribute == "lives_in" || f.Attribute == "works_at") && (got == nil || f.Key() == c.key) {
				got = &f
			}
		}
		switch {
		case got == nil && c.key != "":
			t.Errorf("%q: nothing, want %s=%s", c.msg, c.key, c.value)
		case got != nil && c.key == "":
			t.Errorf("%q: %s=%s, want nothing", c.msg, got.Key(), got.Value)
		case got != nil && (got.Key() != c.key || got.Value != c.value):
			t.Errorf("%q: %s=%s, want %s=%s", c.msg, got.Key(), got.Value, c.key, c.value)
		}
	}
}

// TestKnownOrganisation: a destination the user's memories name as an
// employer is one; named as a place, it is not.
func TestKnownOrganisation(t *testing.T) {
	if !KnownOrganisation("Globex", nil, []string{"I had my final interview at Globex today."}) {
		t.Error("an interview at Globex: not an organisation")
	}
	if !KnownOrganisation("globex", []string{"Globex"}, nil) {
		t.Error("an employer slot's value: not an organisation")
	}
	if KnownOrganisation("Lisbon", nil, []string{"The weather in Lisbon is lovely.", "I work at Farfetch."}) {
		t.Error("Lisbon named as a place: an organisation")
	}
	f := Extract("I moved to Globex last month.", Options{At: time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)})
	if len(f) != 1 || !f[0].Destination {
		t.Fatalf("got %+v", f)
	}
	f[0].AsEmployer()
	if f[0].Key() != "user.works_at" || f[0].Text != "The user works at Globex (since Feb 2026)." {
		t.Errorf("AsEmployer: %s %q", f[0].Key(), f[0].Text)
	}
}

// TestStays: staying with someone, visiting, a period such as "for the
// holidays" or "for the summer" is where the user is, never the home.
func TestStays(t *testing.T) {
	at := time.Date(2026, 12, 20, 10, 0, 0, 0, time.UTC)
	for _, msg := range []string{
		"I'm staying with my parents in Leeds for the holidays.",
		"I'm staying with my parents in Leeds.",
		"I'm visiting my sister in Leeds.",
		"I'm living in Leeds for the summer.",
		"I'm in Leeds for work.",
		"We're spending the holidays in Leeds.",
	} {
		fs := Extract(msg, Options{At: at})
		if len(fs) != 1 || fs[0].Attribute != "staying_in" || fs[0].Value != "Leeds" || fs[0].Expires.IsZero() {
			t.Errorf("%q: %+v, want a stay in Leeds that expires", msg, fs)
		}
	}
	if fs := Extract("I'm at home in Leeds.", Options{At: at}); len(fs) > 0 && fs[0].Attribute == "staying_in" {
		t.Errorf("at home: %+v", fs)
	}
}

// TestLinkAge: a named age takes over the one unnamed age it can be.
func TestLinkAge(t *testing.T) {
	then := time.Date(2025, 9, 1, 0, 0, 0, 0, time.UTC)
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	mem := func(subject, attr, value, text string) *memory.Memory {
		return &memory.Memory{Text: text, ValidFrom: then, Provenance: memory.Provenance{Fact: &memory.Triple{Subject: subject, Attribute: attr, Value: value}}}
	}
	son := mem("child", "age", "12", "The user's son is 12 years old.")
	dog := mem("dog", "age", "3", "The user's dog is 3 years old.")
	leo := Extract("Leo turned 13.", Options{At: now})[0]
	if got := LinkAge(&leo, []*memory.Memory{son}, nil, now); got != son {
		t.Fatalf("Leo: linked %v, want the son", got)
	}
	leo.NameAge(son)
	if leo.Text != "The user's son Leo is 13 years old." {
		t.Errorf("NameAge: %q", leo.Text)
	}
	// Two unnamed ages Leo could follow: neither.
	leo = Extract("Leo turned 13.", Options{At: now})[0]
	dog.Provenance.Fact.Value = "12"
	if got := LinkAge(&leo, []*memory.Memory{son, dog}, nil, now); got != nil {
		t.Errorf("two candidates: linked %q", got.Text)
	}
	// The name's relation decides between them.
	about := []*memory.Memory{mem("user", "pet", "dog named Leo", "The user has a pet dog named Leo.")}
	if got := LinkAge(&leo, []*memory.Memory{son, dog}, about, now); got != dog {
		t.Errorf("a dog named Leo: linked %v", got)
	}
	// An age cannot fall, nor grow faster than time.
	for _, v := range []string{"11", "15"} {
		f := Extract("Leo turned "+v+".", Options{At: now})[0]
		if got := LinkAge(&f, []*memory.Memory{son}, nil, now); got != nil {
			t.Errorf("Leo %s after the son's 12: linked", v)
		}
	}
}
