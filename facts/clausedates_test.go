package facts

import (
	"slices"
	"testing"
	"time"
)

// TestClauseDates: in a sentence whose clauses have subjects (or verbs)
// of their own, a date and a change cue belong to the clause that says
// them: "My mom is a nurse and my dad retired last year" dates the
// retirement, not the mom's job.
func TestClauseDates(t *testing.T) {
	at := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	for msg, want := range map[string][]string{
		"My mom is a nurse and my dad retired last year.": {
			"The user's mom works as a nurse.", "The user's dad is retired (since 2025)."},
		"I live in Berlin and my sister moved to Paris last year.": {
			"The user lives in Berlin.", "The user's sister lives in Paris (since 2025)."},
		"My sister moved to Paris last year, and I live in Berlin.": {
			"The user's sister lives in Paris (since 2025).", "The user lives in Berlin."},
		"I moved to Denver in January and started at Google last week.": {
			"The user lives in Denver (since Jan 2026).", "The user works at Google (since the week of 1 Jun 2026)."},
		"Alex and I got married last Saturday!": {"The user's spouse is Alex (since 6 Jun 2026)."},
	} {
		var got []string
		for _, f := range Extract(msg, Options{At: at}) {
			if !f.Note {
				got = append(got, f.Text)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q:\n got %q\nwant %q", msg, got, want)
		}
	}
	// The change cue too: "moved" is the sister's, so the user's home
	// said beside it is no change.
	for _, f := range Extract("I live in a small village near Oxford and my sister moved to Paris.", Options{At: at}) {
		if f.Subject == "user" && f.Change {
			t.Errorf("the user's home took the sister's change cue: %+v", f.Triple)
		}
	}
}
