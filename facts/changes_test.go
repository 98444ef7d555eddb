package facts

import (
	"testing"
	"time"
)

// TestMoreChangeWords: more ways of saying a new home, name, diet and a
// pet gone, each read as the slot's new value (or its end).
func TestMoreChangeWords(t *testing.T) {
	cases := []struct {
		msg, key, value string
		ended           bool
	}{
		{"We just moved into a new place in Brooklyn.", "user.lives_in", "Brooklyn", false},
		{"I've relocated to Austin for work.", "user.lives_in", "Austin", false},
		{"I changed my name to Alex.", "user.name", "Alex", false},
		{"I eat meat again.", "user.diet", "eats meat", false},
		{"Our cat Mochi ran away.", "user.pet", "cat named Mochi", true},
		{"Our dog Rex was put down last week.", "user.pet", "dog named Rex", true},
	}
	for _, c := range cases {
		found := false
		for _, f := range Extract(c.msg, Options{At: time.Now()}) {
			if f.Key() == c.key && f.Value == c.value && f.Ended == c.ended {
				found = true
			}
		}
		if !found {
			t.Errorf("%q: no %s = %q (ended %v) in %v", c.msg, c.key, c.value, c.ended, Extract(c.msg, Options{At: time.Now()}))
		}
	}
	// A stay for work is no home; a name changed elsewhere is no name.
	for msg, key := range map[string]string{
		"I'm in Austin for work.":                    "user.lives_in",
		"I changed my password to something long.":   "user.name",
		"I eat meat.":                                "user.diet",
		"I changed the name of my project to Atlas.": "user.name",
	} {
		for _, f := range Extract(msg, Options{At: time.Now()}) {
			if f.Key() == key && !f.Ended {
				t.Errorf("%q: %s = %q", msg, key, f.Value)
			}
		}
	}
}
