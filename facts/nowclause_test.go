package facts

import (
	"slices"
	"testing"
	"time"
)

// TestNowClause: a change cue that begins a second statement with the
// user as its subject ("…, now I swim twice a week") cuts the sentence;
// each statement is read on its own, so the second is not lost to the
// first's fact. A habit said after "now" or "these days" is a habit.
func TestNowClause(t *testing.T) {
	at := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	for msg, want := range map[string][]string{
		"I stopped climbing because of my knee, now I swim twice a week": {
			"user.activity=climbing|The user no longer does climbing.", "note|The user stopped climbing because of their knee, now the user swims twice a week."},
		"I stopped running, and these days I cycle to work every day": {
			"user.activity=running|The user no longer does running.", "note|The user stopped running, and these days the user cycles to work every day."},
		"Now I swim twice a week.":                                 {"note|Now the user swims twice a week."},
		"I used to live in Berlin but these days I live in Lisbon": {"user.lives_in=Lisbon|The user lives in Lisbon."},
		"I work at Google now, I love it":                          {"user.works_at=Google|The user works at Google."},
		// A pastime said with its verb alone, in the tail or on its own;
		// a verb with an object is no pastime.
		"I stopped climbing, now I swim": {
			"user.activity=climbing|The user no longer does climbing.", "user.activity=swimming|The user took up swimming as a hobby."},
		"I climb at the local gym.": {"user.activity=climbing|The user took up climbing as a hobby."},
		"I run a small bakery.":     nil,
		// The tail's "it" is what the user used to like; "but now"
		// begins a tail without a comma.
		"I used to love jazz but now I can't stand it": {
			"user.likes=jazz|The user no longer likes jazz.", "user.dislikes=jazz|The user does not like jazz."},
		"I used to hate olives, but now I love them.": {
			"user.dislikes=olives|The user no longer dislikes olives.", "user.likes=olives|The user likes olives."},
		// What the user used to be or do no longer holds.
		"I used to live in Berlin.":    {"user.lives_in=Berlin|The user no longer lives in Berlin."},
		"I used to be vegetarian.":     {"user.diet=vegetarian|The user is no longer vegetarian."},
		"I used to think it was easy.": nil,
	} {
		if got := statedTexts(msg, at); !slices.Equal(got, want) {
			t.Errorf("%q:\n got %q\nwant %q", msg, got, want)
		}
	}
}

// TestComingEmployerStarts: an employer said in a sentence about what the
// user is about to do starts on the date the sentence names, as "I start
// at Hooli on Monday" does; without a coming date it is the employer now.
func TestComingEmployerStarts(t *testing.T) {
	at := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	for msg, want := range map[string]string{
		"I'm moving to Lisbon next month for a new job at Revolut": "Jul 1 2026|The user works at Revolut (starting Jul 2026).",
		"I work at Google now": "Jun 10 2026|The user works at Google.",
		// A month said alone is its coming first day.
		"I start at Google in September":         "Sep 1 2026|The user works at Google (starting Sep 2026).",
		"I'll be working at Stripe from January": "Jan 1 2027|The user works at Stripe (starting Jan 2027).",
	} {
		var got []string
		for _, f := range Extract(msg, Options{At: at}) {
			if f.Attribute == "works_at" {
				got = append(got, f.ValidFrom.Format("Jan 2 2006")+"|"+f.Text)
			}
		}
		if !slices.Equal(got, []string{want}) {
			t.Errorf("%q: got %q, want %q", msg, got, want)
		}
	}
}

// TestMoveFor: the employer or school a move was for is kept beside the
// new home, dated as the move is.
func TestMoveFor(t *testing.T) {
	at := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	for msg, want := range map[string][]string{
		"I moved to Lisbon last month for a new job at Revolut": {
			"user.lives_in=Lisbon|The user lives in Lisbon (since May 2026).", "user.works_at=Revolut|The user works at Revolut (since May 2026)."},
		"I moved to Boston to study at MIT": {"user.lives_in=Boston|The user lives in Boston.", "user.studies_at=MIT|The user studies at MIT."},
		"I moved to Seattle for work":       {"user.lives_in=Seattle|The user lives in Seattle."},
	} {
		if got := statedTexts(msg, at); !slices.Equal(got, want) {
			t.Errorf("%q:\n got %q\nwant %q", msg, got, want)
		}
	}
}

// TestLikesKeepTheirArticle: a liked or disliked value is written with the
// article it was said with; the value itself (the slot's key) has none.
func TestLikesKeepTheirArticle(t *testing.T) {
	at := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	for msg, want := range map[string]string{
		"I like the beach":        "beach|The user likes the beach.",
		"My parents love the sea": "sea|The user's parents like the sea.",
		"I love a good thriller":  "good thriller|The user likes a good thriller.",
		"I hate the cold":         "cold|The user does not like the cold.",
		"I like jazz":             "jazz|The user likes jazz.",
	} {
		var got []string
		for _, f := range Extract(msg, Options{At: at}) {
			got = append(got, f.Value+"|"+f.Text)
		}
		if !slices.Equal(got, []string{want}) {
			t.Errorf("%q: got %q, want %q", msg, got, want)
		}
	}
}
