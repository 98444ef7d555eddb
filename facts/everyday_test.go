package facts

import (
	"slices"
	"testing"
	"time"
)

// TestEverydayHomesAndJobs: a home said with an adverb after "live"
// ("live together in"), a move back in with someone in a place, a job
// at a described workplace; no note of a relative and the user beside
// the user's own fact of it.
func TestEverydayHomesAndJobs(t *testing.T) {
	at := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	for msg, want := range map[string][]string{
		"My boyfriend Tom and I live together in a flat in Leeds.": {"user.partner=Tom", "user.lives_in=Leeds"},
		"We live happily in a small town in Ohio.":                 {"user.lives_in=a small town in Ohio"},
		"I moved back in with my parents in York.":                 {"user.lives_in=York"},
		"Tom and I broke up, so I moved back in with my parents in York.": {
			"user.lives_in=York", "user.partner="},
		"I work as a barista at a café in Leeds.": {"user.job_title=barista", "user.works_at=a café in Leeds"},
		"I work as a nurse at St Mary's.":         {"user.job_title=nurse", "user.works_at=St Mary's"},
	} {
		if got := stated(msg, at); !slices.Equal(got, want) {
			t.Errorf("%q: %q, want %q", msg, got, want)
		}
		for _, f := range Extract(msg, Options{At: at}) {
			if f.Note {
				t.Errorf("%q: a note beside: %q", msg, f.Text)
			}
		}
	}
	// A relative and the user doing what no fact holds stay a note.
	if fs := Extract("My sister Anna and I went hiking last weekend.", Options{At: at}); !slices.ContainsFunc(fs, func(f Fact) bool { return f.Note }) {
		t.Errorf("the hike was lost: %q", texts(fs))
	}
}

// TestCorrectionIsAChange: a value said as the correction of another
// ("on Wednesdays, not Mondays") is a change that names the old value.
func TestCorrectionIsAChange(t *testing.T) {
	at := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	for msg, prior := range map[string]string{
		"Actually my gym class is on Wednesdays, not Mondays.": "Mondays",
		"Sorry, my dentist appointment is at 4pm, not 3pm.":    "3pm",
	} {
		fs := Extract(msg, Options{At: at})
		if len(fs) != 1 || !fs[0].Change || fs[0].Prior != prior {
			t.Errorf("%q: %+v", msg, fs)
		}
	}
}
