package facts

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestLineOfWork: a job said by its field ("I work in marketing", "I
// switched careers to nursing") is the job, rendered "works in …"; a
// switch to a field in a sentence about jobs is no tool used; an
// ending names the job it ends; a relative named beside the user's own
// sentence leaves no note, and the relation takes no date the sentence
// gives something else.
func TestLineOfWork(t *testing.T) {
	at := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	for msg, want := range map[string][]string{
		"I work in marketing.":             {"user.job_title=marketing|The user works in marketing."},
		"I moved into product management.": {"user.job_title=product management|The user works in product management."},
		"I switched careers to nursing.":   {"user.job_title=nursing|The user works in nursing."},
		"My job is in marketing now.":      {"user.job_title=marketing|The user works in marketing."},
		"My sister works in finance.":      {"sister.job_title=finance|The user's sister works in finance."},
		"I switched to decaf.":             {"user.drinks=decaf|The user drinks decaf."},
		"I work in London.":                nil,
		"I've started doing yoga.":         {"user.activity=yoga|The user took up yoga as a hobby."},
		"I'm no longer a developer, I've switched to product management.": {
			"user.job_title=developer|The user no longer works as a developer.",
			"user.job_title=product management|The user works in product management."},
		"I'm a software developer and I live in Austin with my husband Mark.": {
			"user.job_title=software developer|The user works as a software developer.",
			"user.lives_in=Austin|The user lives in Austin.", "user.partner=Mark|The user's husband is Mark."},
		"I went to Paris with my sister Ana last year.": {
			"user.visited=Paris|The user has been to Paris (in 2025).", "user.sister=Ana|The user has a sister named Ana."},
	} {
		if got := statedTexts(msg, at); !slices.Equal(got, want) {
			t.Errorf("%q:\n got %q\nwant %q", msg, got, want)
		}
	}
}

// TestHedgeBeforeCopula: a time hedge between an attribute and its "is"
// ("my favorite band these days is …") is read past.
func TestHedgeBeforeCopula(t *testing.T) {
	at := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	for msg, want := range map[string]string{
		"Honestly I'm kind of over Radiohead, my favorite band these days is Phoebe Bridgers.": "user.favorite_band=Phoebe Bridgers",
		"My job right now is barista.":              "user.job_title=barista",
		"My favourite food at the moment is ramen.": "user.favorite_food=ramen",
		"My favorite band is Radiohead.":            "user.favorite_band=Radiohead",
	} {
		if got := strings.Join(stated(msg, at), ","); got != want {
			t.Errorf("%q: %q, want %q", msg, got, want)
		}
	}
}

// TestPracticesAndDietsSaidOtherwise: "I do yoga" is a pastime (not "do
// the dishes"); "I'm not vegan, just vegetarian" is the diet kept.
func TestPracticesAndDietsSaidOtherwise(t *testing.T) {
	at := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	for msg, want := range map[string]string{
		"I do yoga.": "user.activity=yoga",
		"I used to play tennis but now I mostly do padel.": "user.activity=padel",
		"I do the dishes.":                        "",
		"I do marketing.":                         "",
		"I'm not vegan, just vegetarian.":         "user.diet=vegetarian",
		"I'm not vegan anymore, just vegetarian.": "user.diet=vegan,user.diet=vegetarian",
		"I'm not vegan.":                          "",
	} {
		if got := strings.Join(stated(msg, at), ","); got != want {
			t.Errorf("%q: %q, want %q", msg, got, want)
		}
	}
}

// TestConditionThenClause: a condition said first leaves the clause
// after it read ("… and I'm lactose intolerant"); an allergy outgrown
// ends.
func TestConditionThenClause(t *testing.T) {
	at := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	for msg, want := range map[string]string{
		"I have type 1 diabetes and I'm lactose intolerant.": "user.condition=has type 1 diabetes,user.diet=lactose intolerant",
		"I have asthma, I live in Leeds.":                    "user.condition=has asthma,user.lives_in=Leeds",
		"I have asthma.":                                     "user.condition=has asthma",
		"My daughter outgrew her peanut allergy!":            "child.allergy=peanuts",
		"I outgrew my cat allergy.":                          "user.allergy=cats",
		"She grew out of her egg allergy.":                   "",
	} {
		var got []string
		for _, f := range Extract(msg, Options{At: at}) {
			if !f.Note {
				got = append(got, f.Key()+"="+f.Value)
				if f.Attribute == "allergy" && !f.Ended {
					t.Errorf("%q: allergy not ended", msg)
				}
			}
		}
		if g := strings.Join(got, ","); g != want {
			t.Errorf("%q: %q, want %q", msg, g, want)
		}
	}
}
