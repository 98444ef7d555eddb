package facts

import (
	"slices"
	"testing"
	"time"
)

// TestJobAsNoun: a job at an organisation said as a noun is the
// employer; someone else's, a wish or an application is not.
func TestJobAsNoun(t *testing.T) {
	at := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	cases := []struct{ msg, employer, job string }{
		{"New job at Globex!", "Globex", ""},
		{"I got a new job as a nurse at St. Mary's.", "St. Mary's", "nurse"},
		{"I accepted a position at Globex.", "Globex", ""},
		{"Just started my new role at Stripe, so far so good.", "Stripe", ""},
		{"My new employer is Globex.", "Globex", ""},
		{"I applied for a job at Globex.", "", ""},
		{"My old job at Acme was boring.", "", ""},
		{"Would you take a job at Globex?", "", ""},
	}
	for _, c := range cases {
		var employer, job string
		for _, f := range Extract(c.msg, Options{At: at}) {
			switch f.Key() {
			case "user.works_at":
				employer = f.Value
			case "user.job_title":
				job = f.Value
			}
		}
		if employer != c.employer || job != c.job {
			t.Errorf("%q: works at %q as %q, want %q as %q", c.msg, employer, job, c.employer, c.job)
		}
	}
}

// TestListedValues: the values of a multi-valued attribute listed with
// "and" or commas are each a fact; a new clause ends the list.
func TestListedValues(t *testing.T) {
	at := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		msg  string
		key  string
		want []string
	}{
		{"I speak French and Spanish.", "user.speaks", []string{"French", "Spanish"}},
		{"I use Python and Go for work.", "user.uses", []string{"Python", "Go"}},
		{"I'm allergic to peanuts and shellfish.", "user.allergy", []string{"peanuts", "shellfish"}},
		{"I speak French and my wife speaks Dutch.", "user.speaks", []string{"French"}},
		{"I play guitar and sing in a band.", "user.plays", []string{"guitar"}},
		{"I play guitar, piano and drums.", "user.plays", []string{"guitar", "piano", "drums"}},
		{"I play often and well.", "user.plays", nil},
	}
	for _, c := range cases {
		var got []string
		for _, f := range Extract(c.msg, Options{At: at}) {
			if f.Key() == c.key {
				got = append(got, f.Value)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: %s = %v, want %v", c.msg, c.key, got, c.want)
		}
	}
}
