package facts

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// The words of a date expression or a time hedge never stay in a value,
// wherever the expression stands.
func TestCleanValueDates(t *testing.T) {
	at := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct{ msg, key, want string }{
		{"Quick update: I relocated to Prague two weeks ago for a new role.", "user.lives_in", "Prague"},
		{"I moved to Berlin three days ago.", "user.lives_in", "Berlin"},
		{"I moved to Berlin a month ago.", "user.lives_in", "Berlin"},
		{"Two weeks ago I moved to Vienna.", "user.lives_in", "Vienna"},
		{"I moved to Lisbon last week.", "user.lives_in", "Lisbon"},
		{"Last week I moved to Rome.", "user.lives_in", "Rome"},
		{"I started at Google yesterday.", "user.works_at", "Google"},
		{"I started at Stripe two weeks ago.", "user.works_at", "Stripe"},
		{"My employer is Acme right now.", "user.works_at", "Acme"},
		{"My home is in Oslo these days, near the fjord.", "user.lives_in", "Oslo"},
		{"我两周前搬到了布拉格。", "user.lives_in", "布拉格"},
		{"三天前我搬到了上海。", "user.lives_in", "上海"},
		{"我目前住在杭州。", "user.lives_in", "杭州"},
	} {
		got := ""
		for _, f := range Extract(c.msg, Options{At: at}) {
			if f.Key() == c.key {
				got = f.Value
				for _, w := range []string{"ago", "these", "right", "前", "目前"} {
					if ContainsWord(strings.ToLower(f.Text), w) {
						t.Errorf("%q: text %q keeps %q", c.msg, f.Text, w)
					}
				}
			}
		}
		if got != c.want {
			t.Errorf("%q: %s = %q, want %q", c.msg, c.key, got, c.want)
		}
	}
}

func TestDropSpan(t *testing.T) {
	for _, c := range []struct{ v, span, want string }{
		{"Prague two weeks", "two weeks ago", "Prague"},
		{"Prague two weeks ago", "two weeks ago", "Prague"},
		{"two weeks ago Prague", "two weeks ago", "Prague"},
		{"Lisbon since last week", "last week", "Lisbon"},
		{"Acme right", "right now", "Acme"},
		{"in Oslo these days", "these days", "in Oslo"},
		{"in two weeks", "in two weeks", "in two weeks"}, // only a date: resolved elsewhere
		{"Right Stuff Records", "right now", "Right Stuff Records"},
		{"a bakery", "a month ago", "a bakery"},
	} {
		got := strings.Join(dropSpan(strings.Fields(c.v), strings.Fields(c.span)), " ")
		if got != c.want {
			t.Errorf("dropSpan(%q, %q) = %q, want %q", c.v, c.span, got, c.want)
		}
	}
}

// Copular forms of controlled attributes take their slot.
func TestCopularSlots(t *testing.T) {
	for _, c := range []struct{ msg, key, want string }{
		{"My home is in Oslo these days, near the fjord.", "user.lives_in", "Oslo"},
		{"My home is a flat in Leeds.", "user.lives_in", "Leeds"},
		{"My workplace is at Hooli.", "user.works_at", "Hooli"},
		{"My hometown is Bergen.", "user.from", "Bergen"},
		{"My employer is Initech at the moment.", "user.works_at", "Initech"},
		{"My job is nurse at St. Mary's Hospital.", "user.job_title", "nurse"},
		{"My job is nurse at St. Mary's Hospital.", "user.works_at", "St. Mary's Hospital"},
	} {
		got := ""
		for _, f := range Extract(c.msg, Options{At: time.Date(2026, 6, 10, 0, 0, 0, 0, time.UTC)}) {
			if f.Key() == c.key {
				got = f.Value
			}
		}
		if got != c.want {
			t.Errorf("%q: %s = %q, want %q", c.msg, c.key, got, c.want)
		}
	}
}

// "I start at X" and its kin state the new employer; a sentence about the
// user always names the user.
func TestStartEmployerAndSubject(t *testing.T) {
	at := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct{ msg, want string }{
		{"Last Friday was my final day at Initech; on Monday I start at Hooli.", "Hooli"},
		{"On Monday I start at Hooli.", "Hooli"},
		{"I begin at Hooli next week.", "Hooli"},
		{"My first day at Hooli is Monday.", "Hooli"},
		{"I'm starting at Hooli on Monday.", "Hooli"},
	} {
		got := ""
		for _, f := range Extract(c.msg, Options{At: at}) {
			if f.Key() == "user.works_at" && !f.Ended {
				got = f.Value
			}
		}
		if got != c.want {
			t.Errorf("%q: works_at = %q, want %q", c.msg, got, c.want)
		}
	}
	for _, msg := range []string{"Yesterday was my last day at Initech.", "Yesterday my sister visited me.",
		"Last Friday was my final day at Initech; on Monday I start at Hooli."} {
		for _, f := range Extract(msg, Options{At: at}) {
			low := strings.ToLower(f.Text)
			if !strings.Contains(low, "the user") || theyRe.MatchString(strings.SplitN(low, "the user", 2)[0]) || strings.HasPrefix(low, "on ") && strings.Contains(low, " was ") {
				t.Errorf("%q: %q names no user or starts without a subject", msg, f.Text)
			}
		}
	}
}

// TestNoFragmentFacts: conversational turns that name no standing fact
// store none, and a noun phrase keeps the noun an adjective wants.
func TestNoFragmentFacts(t *testing.T) {
	at := time.Date(2023, 5, 10, 0, 0, 0, 0, time.UTC)
	none := []string{
		"I love how you use it to tell your stories and teach people about trans folks.",
		"We'll rock the dance floor and teach others to chase their dreams.",
		"Painting landscapes and still life is my favorite!",
		"That looks really good! I love the way the frosting turned out!",
		"People will love the book even more.",
	}
	for _, msg := range none {
		for _, f := range Extract(msg, Options{At: at}) {
			if !f.Note {
				t.Errorf("%q: stored %s=%q (%q)", msg, f.Key(), f.Value, f.Text)
			}
		}
	}
	// Nor is a note stored of what leans on words said before it (a bare
	// pronoun object, a choice among options) or of what the user does
	// not know yet.
	for _, msg := range []string{"I work on it every day.", "I play it safe usually.", "I prefer the second option.",
		"I like the blue one.", "I'm not sure what to cook tonight.", "I have no idea what to do this weekend.",
		"I'm wondering if I should move next year."} {
		if fs := Extract(msg, Options{At: at}); len(fs) > 0 {
			t.Errorf("%q: stored %q", msg, fs[0].Text)
		}
	}
	for msg, want := range map[string][]string{
		"I joined a service-focused online group last week.":        {"user.member_of=service-focused online group"},
		"My favourite sport is Formula One.":                        {"user.favorite_sport=Formula One"},
		"I work with Python and Go mostly.":                         {"user.uses=Python", "user.uses=Go"},
		"I'm a software engineer at a fintech company.":             {"user.job_title=software engineer", "user.works_at=a fintech company"},
		"I got a job at a bakery downtown.":                         {"user.works_at=a bakery downtown"},
		"I'm a fan of a band called Muse.":                          {"user.fan_of=Muse"},
		"I work with Sarah on the project.":                         nil,
		"I love action and sci-fi movies, the effects are so cool!": {"user.likes=action", "user.likes=sci-fi movies"},
		"I love the ocean.":                                         {"user.likes=ocean"},
		"I teach math at Lincoln High.":                             {"user.job_title=math teacher", "user.works_at=Lincoln High"},
	} {
		if got := stated(msg, at); !slices.Equal(got, want) {
			t.Errorf("%q: %v, want %v", msg, got, want)
		}
	}
}

// TestPastimesAndDiets: "I started <-ing>" is a pastime unless the word
// names a change of life or work, or whom the user teaches; an
// instrument learned or taken up is one the user plays; plant-based is a
// diet.
func TestPastimesAndDiets(t *testing.T) {
	at := time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)
	for msg, want := range map[string]string{
		"I started doing aerial yoga.":                 "user.activity=aerial yoga",
		"I started surfing five years ago.":            "user.activity=surfing",
		"I started transitioning three years ago.":     "",
		"I started teaching people how to make bread.": "",
		"I'm learning to play the violin.":             "user.plays=violin",
		"I took up the ukulele last year.":             "user.plays=ukulele",
		"I'm learning piano.":                          "user.plays=piano",
		"I went plant-based last year.":                "user.diet=plant-based",
		"I took the piano lessons off my list.":        "",
		"I'm learning Korean.":                         "user.studies=Korean",
	} {
		if got := strings.Join(stated(msg, at), " "); got != want {
			t.Errorf("%q: %q, want %q", msg, got, want)
		}
	}
}

// statedTexts is what Extract stores of msg with its text: "key=value|text",
// or "note|text" for a note.
func statedTexts(msg string, at time.Time) []string {
	var out []string
	for _, f := range Extract(msg, Options{At: at}) {
		if f.Note {
			out = append(out, "note|"+f.Text)
			continue
		}
		out = append(out, f.Key()+"="+f.Value+"|"+f.Text)
	}
	return out
}

// stated is what Extract stores of msg as key=value, notes left out.
func stated(msg string, at time.Time) []string {
	var out []string
	for _, f := range Extract(msg, Options{At: at}) {
		if !f.Note {
			out = append(out, f.Key()+"="+f.Value)
		}
	}
	return out
}
