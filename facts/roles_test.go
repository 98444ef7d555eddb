package facts

import (
	"strings"
	"testing"
	"time"
)

// TestRolesAndHabits: an age the user turned, an allergy said as a noun,
// a job with its employer, a stay-at-home parent, a drinker, a platform
// the user is on, a degree in a subject, a hobby with its time phrase,
// and in Chinese retirement and a language being learnt. The rest state
// no such value.
func TestRolesAndHabits(t *testing.T) {
	cases := []struct{ msg, attr, value string }{
		{"I just turned 40.", "age", "40"},
		{"I have a peanut allergy.", "allergy", "peanuts"},
		{"I have a severe shellfish allergy.", "allergy", "shellfish"},
		{"I work as a nurse at St Mary's.", "job_title", "nurse"},
		{"I work as a nurse at St Mary's.", "works_at", "St Mary's"},
		{"I'm a stay-at-home dad.", "job_title", "stay-at-home dad"},
		{"I'm a big coffee drinker.", "drinks", "coffee"},
		{"I'm a tea drinker.", "drinks", "tea"},
		{"I'm back on Vim after a year of VS Code.", "uses", "Vim"},
		{"I've been on Android for a year.", "uses", "Android"},
		{"I'm doing a PhD in chemistry.", "studies", "chemistry"},
		{"I'm doing a master's in nursing.", "studies", "nursing"},
		{"I play tennis every Sunday.", "plays", "tennis"},
		{"我退休了。", "job_title", "退休"},
		{"我开始学日语了。", "studies", "日语"},
		{"我开始学日语了。", "activity", ""},
		{"我开始学游泳了。", "activity", "游泳"},
		// none of these states the value
		{"I'm a social drinker.", "drinks", ""},
		{"I'm not a big coffee drinker.", "drinks", ""},
		{"I'm on Monday shift.", "uses", ""},
		{"I'm on Bob's team now.", "uses", ""},
		{"I'm on Team Alpha.", "uses", ""},
		{"I'm on Christmas break.", "uses", ""},
		{"I have a big allergy.", "allergy", ""},
		{"I play well.", "plays", ""},
		{"I work as a nurse.", "works_at", ""},
		{"My dad just turned 70.", "age", ""},
		{"I'm doing a PhD.", "studies", ""},
	}
	for _, c := range cases {
		got := ""
		for _, f := range Extract(c.msg, Options{At: time.Now()}) {
			if f.Attribute == c.attr && f.Subject == "user" && !f.Ended {
				got = f.Value
			}
		}
		if got != c.value {
			t.Errorf("%q: %s = %q, want %q", c.msg, c.attr, got, c.value)
		}
	}
}

// TestRolesRender: the sentences stored for these values read as said.
func TestRolesRender(t *testing.T) {
	cases := map[string]string{
		"I have a peanut allergy.":  "The user is allergic to peanuts.",
		"我退休了。":                     "用户已退休。",
		"我开始学日语了。":                  "用户学日语。",
		"I'm a big coffee drinker.": "The user drinks coffee.",
	}
	wantOneFact(t, cases)
}

// TestExplicitDatesDate: a year or month said outright dates the fact or
// the note as a relative date does.
func TestExplicitDatesDate(t *testing.T) {
	at := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	cases := []struct{ msg, text, from string }{
		{"I got married in 2019.", "The user got married in 2019.", "2019-01-01"},
		{"I moved to Lisbon in 2019.", "The user lives in Lisbon (since 2019).", "2019-01-01"},
		{"I've lived in Lisbon since March 2021.", "The user lives in Lisbon (since Mar 2021).", "2021-03-01"},
		{"我2024年3月搬到了上海。", "用户住在上海（自2024年3月起）。", "2024-03-01"},
	}
	for _, c := range cases {
		fs := Extract(c.msg, Options{At: at})
		if len(fs) != 1 || fs[0].Text != c.text || fs[0].ValidFrom.Format("2006-01-02") != c.from || !fs[0].Dated {
			t.Errorf("%q: got %+v, want %q from %s", c.msg, fs, c.text, c.from)
		}
	}
}

// TestCountedPets: pets counted but not named are one fact that says
// how many; named ones stay a fact each.
func TestCountedPets(t *testing.T) {
	cases := map[string][]string{
		"I have two cats.":                   {"The user has two cats."},
		"We have three dogs and a big yard.": {"The user has three dogs."},
		"I have two cats, Luna and Milo.":    {"The user has a pet cat named Luna.", "The user has a pet cat named Milo."},
		"I have two kids.":                   nil,
	}
	for msg, want := range cases {
		var got []string
		for _, f := range Extract(msg, Options{At: time.Now()}) {
			if f.Attribute == "pet" {
				got = append(got, f.Text)
			}
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("%q: got %q, want %q", msg, got, want)
		}
	}
}

// TestSchoolsAndDecades: a relative's school, the user's own said alone,
// and an age said as a decade of life.
func TestSchoolsAndDecades(t *testing.T) {
	cases := map[string]string{
		"My son goes to Lincoln Elementary.":          "The user's son studies at Lincoln Elementary.",
		"My daughter goes to Carver High School now.": "The user's daughter studies at Carver High School.",
		"I'm in my thirties.":                         "The user is in their thirties.",
		"My dad is in his early seventies.":           "The user's dad is in his early seventies.",
	}
	wantOneFact(t, cases)
	for _, msg := range []string{"I go to Lincoln Elementary every morning to drop off my son.", "I go to Stanford.", "I'm in my element."} {
		for _, f := range Extract(msg, Options{At: time.Now()}) {
			if f.Attribute == "studies_at" || f.Attribute == "age" {
				t.Errorf("%q: got %+v, want no school or age", msg, f)
			}
		}
	}
}

// TestHabitNotes: a habit with no triple is a note in the third person,
// a lasting condition a profile fact; a frequency that says nothing of
// how the user lives, a question and a passing mood are neither.
func TestHabitNotes(t *testing.T) {
	cases := map[string]string{
		"I'm pregnant.":                       "The user is pregnant.",
		"I'm a night owl.":                    "The user is a night owl.",
		"I usually wake up at 6am.":           "The user usually wakes up at 6am.",
		"I go to the gym three times a week.": "The user goes to the gym three times a week.",
		"I always say that.":                  "",
		"I never know what to order.":         "",
		"Do you usually wake up early?":       "",
		"I'm tired.":                          "",
		"我怀孕了。":                               "用户怀孕了。",
		"我每天早上六点起床。":                          "用户每天早上六点起床。",
		"I'm training for a half marathon.":   "The user is training for a half marathon.",
		"We're expecting a baby in June.":     "The user is expecting a baby in June.",
		"I don't drive.":                      "The user doesn't drive.",
		"I'm trying to figure out dinner.":    "",
		// What the user means to become, and the medicines they take.
		"I'm studying to be a nurse.":             "The user is studying to be a nurse.",
		"I'm training to become a pilot.":         "The user is training to become a pilot.",
		"I want to become a doctor someday.":      "The user wants to become a doctor someday.",
		"I'd love to be a teacher one day.":       "The user would love to be a teacher one day.",
		"My goal is to become a lawyer.":          "The user's goal is to become a lawyer.",
		"I want to be alone.":                     "",
		"I take metformin for my diabetes.":       "The user takes metformin for their diabetes.",
		"I'm on blood thinners.":                  "The user is on blood thinners.",
		"I take it for granted.":                  "",
		"I always have almond milk in my coffee.": "The user always has almond milk in their coffee.",
		"你每天几点起床？":                                "",
	}
	for msg, want := range cases {
		got := ""
		for _, f := range Extract(msg, Options{At: time.Now()}) {
			if f.Note || f.Attribute == "condition" {
				got = f.Text
			}
		}
		if got != want {
			t.Errorf("%q: note %q, want %q", msg, got, want)
		}
	}
}

// wantOneFact checks that each message states exactly one fact, stored
// as the sentence given.
func wantOneFact(t *testing.T, cases map[string]string) {
	t.Helper()
	for msg, want := range cases {
		fs := Extract(msg, Options{At: time.Now()})
		if len(fs) != 1 || fs[0].Text != want {
			t.Errorf("%q: got %+v, want one fact %q", msg, fs, want)
		}
	}
}
