package facts

import (
	"strings"
	"testing"
	"time"
)

func TestExperienced(t *testing.T) {
	at := time.Date(2023, 5, 8, 12, 0, 0, 0, time.UTC)
	cases := []struct{ msg, attr, value string }{
		{`Just finished "A Dance with Dragons" and it's a really good story.`, "read", "A Dance with Dragons"},
		{`I read The Hobbit last year.`, "read", "The Hobbit"},
		{`I just watched "Little Women" and it was amazing!`, "watched", "Little Women"},
		{`I've been to Paris twice.`, "visited", "Paris"},
		{`I went to London a few years ago.`, "visited", "London"},
		{`I snapped that pic on my trip to the Smoky Mountains last year.`, "visited", "the Smoky Mountains"},
		{`We visited Lisbon in April.`, "visited", "Lisbon"},
		// Nothing named, a wish, a plan, a negation, a question, someone else.
		{`I read that book you recommended.`, "", ""},
		{`I went to a Harry Potter conference in the UK.`, "", ""},
		{`I'd love to go to Paris someday.`, "", ""},
		{`If I went to Rome I would eat pasta every day.`, "", ""},
		{`I want to visit Japan next year.`, "", ""},
		{`I haven't read "Dune" yet.`, "", ""},
		{`I've never been to Paris.`, "", ""},
		{`Have you been to Paris?`, "", ""},
		{`My sister went to Paris last week.`, "", ""},
		{`John visited Berlin.`, "", ""},
	}
	for _, c := range cases {
		var got []Fact
		for _, f := range Extract(c.msg, Options{At: at}) {
			if f.Subject == "user" && (f.Attribute == "read" || f.Attribute == "watched" || f.Attribute == "visited") {
				got = append(got, f)
			}
		}
		if c.attr == "" {
			if len(got) > 0 {
				t.Errorf("%q: got %s=%q, want none", c.msg, got[0].Attribute, got[0].Value)
			}
			continue
		}
		if len(got) != 1 || got[0].Attribute != c.attr || got[0].Value != c.value {
			t.Errorf("%q: got %+v, want %s=%q", c.msg, got, c.attr, c.value)
			continue
		}
		if got[0].Text == "" {
			t.Errorf("%q: no text", c.msg)
		}
	}
}

// A liked or started gerund keeps its object, a list of them is read
// whole, and a gerund that leads into something else names nothing.
func TestGerundValues(t *testing.T) {
	at := time.Date(2023, 5, 8, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		msg  string
		want []string
	}{
		{"Besides writing, I also enjoy reading, watching movies, and exploring nature.", []string{"reading", "watching movies", "exploring nature"}},
		{"Started hitting the gym last week to stay on track.", []string{"hitting the gym"}},
		{"I love creating art!", []string{"creating art"}},
		{"I love getting immersed in the feelings and plots.", nil},
		{"So, I started looking into counseling and mental health career options.", nil},
		{"I already started doing what you said about social media.", nil},
		{"I really like the idea and the acting.", nil},
		{"I love the color and texture.", nil},
		{"I like the structure of the language.", nil},
		{"Connecting with the things I love makes writing even more fun.", nil},
		{`We love "Home Alone" - it always brings lots of laughs!`, []string{"Home Alone"}},
		{"We love being outdoors - going for hikes.", []string{"being outdoors"}},
		{"I love the beach.", []string{"beach"}},
	}
	for _, c := range cases {
		var got []string
		for _, f := range Extract(c.msg, Options{At: at}) {
			if f.Attribute == "likes" || f.Attribute == "activity" {
				got = append(got, f.Value)
			}
		}
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("%q: got %q, want %q", c.msg, got, c.want)
		}
	}
}
