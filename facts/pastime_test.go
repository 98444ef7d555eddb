package facts

import (
	"slices"
	"testing"
	"time"
)

// TestPastimesAndMore: a pastime of a noun and a gerund is whole ("rock
// climbing", never "rock"); "took up / picked up" a pastime is an
// activity (not a thing picked up, an offer, smoking); pets listed with
// a count keep the counted ones; a promotion at a named place names the
// employer too.
func TestPastimesAndMore(t *testing.T) {
	at := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	for msg, want := range map[string][]string{
		"I'm really into rock climbing these days.": {"user.likes=rock climbing"},
		"I love bird watching.":                     {"user.likes=bird watching"},
		"I took up pottery last summer.":            {"user.activity=pottery"},
		"I took up scuba diving.":                   {"user.activity=scuba diving"},
		"I took up knitting during lockdown.":       {"user.activity=knitting"},
		"I started rock climbing last month.":       {"user.activity=rock climbing"},
		"I picked up my kids at school.":            nil,
		"I took up the offer.":                      nil,
		"I took up smoking again.":                  nil,
		"I picked up a cold.":                       nil,
		"I have a golden retriever called Biscuit and two cats.": {
			"user.pet=golden retriever named Biscuit", "user.pet=two cats"},
		"My wife Elena just got promoted to head nurse at St. Mary's.": {
			"user.partner=Elena", "partner.job_title=head nurse", "partner.works_at=St. Mary's"},
		"I got promoted to senior engineer at Google.": {"user.job_title=senior engineer", "user.works_at=Google"},
		"I got promoted to team lead.":                 {"user.job_title=team lead"},
	} {
		if got := stated(msg, at); !slices.Equal(got, want) {
			t.Errorf("%q: %q, want %q", msg, got, want)
		}
	}
}
