package facts

import (
	"testing"
	"time"
)

// TestMoreChangeWords: more ways of saying a new home, name, diet, pets
// and a pet gone, each read as the slot's new value (or its end).
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
		{"I have two cats, Luna and Milo.", "user.pet", "cat named Luna", false},
		{"I have two cats, Luna and Milo.", "user.pet", "cat named Milo", false},
		{"We have three dogs named Rex, Bella and Max.", "user.pet", "dog named Bella", false},
		{"I've got two puppies, Biscuit and Gravy!", "user.pet", "puppy named Gravy", false},
		{"Honestly I've gone back to my iPhone.", "user.phone_model", "iPhone", false},
		{"I went back to coffee.", "user.drinks", "coffee", false},
		{"We replaced Slack with Teams at work.", "user.uses", "Teams", false},
		{"I use both Vim and VS Code.", "user.uses", "Vim", false},
		{"I use both Vim and VS Code.", "user.uses", "VS Code", false},
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
		"We went back to the hotel early.":           "user.uses",
	} {
		for _, f := range Extract(msg, Options{At: time.Now()}) {
			if f.Key() == key && !f.Ended {
				t.Errorf("%q: %s = %q", msg, key, f.Value)
			}
		}
	}
}

// oneFactText checks that each message, said at at, is stored as one fact
// whose sentence is the one given.
func oneFactText(t *testing.T, at time.Time, cases map[string]string) {
	t.Helper()
	for msg, want := range cases {
		fs := Extract(msg, Options{At: at})
		if len(fs) != 1 || fs[0].Text != want {
			var got []string
			for _, f := range fs {
				got = append(got, f.Text)
			}
			t.Errorf("%q: %q, want one fact %q", msg, got, want)
		}
	}
}

// TestFactTexts: a stay until a named day is written with the day it is,
// the day keeping its capital, and a date gets its preposition; 老家/家乡
// is the hometown and a favourite reads 用户最喜欢的…, a title without its
// brackets; what a fan likes reads as said, article kept.
func TestFactTexts(t *testing.T) {
	oneFactText(t, time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC), map[string]string{ // a Tuesday
		"I'm in Tokyo until Sunday.":                     "The user is in Tokyo until Sunday 15 Mar 2026.",
		"I'm in Oslo until Tuesday.":                     "The user is in Oslo until Tuesday 17 Mar 2026.",
		"I'm at my parents' until tomorrow.":             "The user is at their parents' until 11 Mar 2026.",
		"I'm in Leeds for the holidays.":                 "The user is in Leeds for the holidays.",
		"I'm in Paris for the next three days.":          "The user is in Paris for the next three days (until 12 Mar 2026).",
		"I'm visiting my parents in Ohio for two weeks.": "The user is in Ohio for two weeks (until 23 Mar 2026).",
		"I'm on vacation until Monday.":                  "The user is on vacation until Monday 16 Mar 2026.",
		// a word ending in "on" is no preposition
		"I ran my first marathon last Sunday.":         "The user ran their first marathon on 8 Mar 2026.",
		"我老家是四川的。":                                     "用户来自四川。",
		"我的家乡在大理。":                                     "用户来自大理。",
		"我最喜欢的电影是《肖申克的救赎》。":                            "用户最喜欢的电影是肖申克的救赎。",
		"我最喜欢的水果是芒果。":                                  "用户最喜欢的水果是芒果。",
		"I'm a huge fan of the Boston Celtics.":        "The user is a fan of the Boston Celtics.",
		"I am a long-time fan of Studio Ghibli films.": "The user is a fan of Studio Ghibli films.",
	})
}

// TestPeriodThatNamesItsEnd: of two periods, the one that names the end
// decides when a state expires ("on vacation until Monday": after
// Monday, not three weeks of vacation).
func TestPeriodThatNamesItsEnd(t *testing.T) {
	at := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC) // a Tuesday
	fs := Extract("I'm on vacation until Monday.", Options{At: at})
	if want := time.Date(2026, 3, 17, 0, 0, 0, 0, time.UTC); len(fs) != 1 || !fs[0].Expires.Equal(want) {
		t.Errorf("%v, want one memory expiring %v", fs, want)
	}
}
