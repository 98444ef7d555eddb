package facts

import (
	"testing"
	"time"
)

// TestHiredAndPartnerWords: other verbs for a new employer and a partner,
// and what a fan likes.
func TestHiredAndPartnerWords(t *testing.T) {
	cases := []struct{ msg, attr, value string }{
		{"I've been hired by Globex as a data scientist.", "works_at", "Globex"},
		{"I got hired at Globex.", "works_at", "Globex"},
		{"I accepted an offer from Globex.", "works_at", "Globex"},
		{"I got a job offer from Meta and took it.", "works_at", "Meta"},
		{"We got the offer from Initech and I accepted it.", "works_at", "Initech"},
		{"I'm a huge fan of the Boston Celtics.", "fan_of", "Boston Celtics"},
		{"I am a long-time fan of Studio Ghibli films.", "fan_of", "Studio Ghibli films"},
		{"I'm not a fan of horror movies.", "dislikes", "horror movies"},
		{"I retired last year.", "job_title", "retired"},
		{"I work from home for Shopify.", "works_at", "Shopify"},
		{"I'm a student at UCLA.", "studies_at", "UCLA"},
		{"I grew up in Manchester.", "from", "Manchester"},
		{"我是素食主义者。", "diet", "吃素"},
		{"I retired from teaching in 2020.", "job_title", "retired"},
		{"I accepted a job at Globex last week.", "works_at", "Globex"},
		{"I'm now working for Globex.", "works_at", "Globex"},
		{"I'm currently working at Globex as a designer.", "job_title", "designer"},
		{"I'm now living in Porto.", "lives_in", "Porto"},
		{"I'm dating Sam.", "partner", "Sam"},
		{"Sam and I got engaged!", "partner", "Sam"},
		{"I married Sam last month.", "partner", "Sam"},
		{"I'm engaged to Sam.", "partner", "Sam"},
		// none of these names an employer or a partner
		{"I got an offer from Globex but I'm not sure yet.", "works_at", ""},
		{"I accepted the invitation from Sam.", "works_at", ""},
		{"I got a job offer from Meta and I'm still deciding.", "works_at", ""},
		{"I got an offer from Meta, would you take it?", "works_at", ""},
		{"My husband got an offer from Meta and took it.", "works_at", ""},
		{"I'm a fan.", "fan_of", ""},
		{"I retired my old laptop.", "job_title", ""},
		{"I'm a student at UCLA.", "works_at", ""},
		{"I'm a student at UCLA.", "job_title", ""},
		{"I'm dating again.", "partner", ""},
	}
	for _, c := range cases {
		got := ""
		for _, f := range Extract(c.msg, Options{At: time.Now()}) {
			if f.Attribute == c.attr && !f.Ended {
				got = f.Value
			}
		}
		if got != c.value {
			t.Errorf("%q: %s = %q, want %q", c.msg, c.attr, got, c.value)
		}
	}
}

// TestMoreEverydayWords: a move that names no place is no home; a
// negated present job, a stopped diet, a pet in apposition, a partner
// ended without a name, a Chinese relative named in the next clause.
func TestMoreEverydayWords(t *testing.T) {
	cases := []struct {
		msg, attr, value string
		ended            bool
	}{
		{"I've moved on from Initech to a startup called Brightwave.", "lives_in", "", false},
		{"I moved to the countryside.", "lives_in", "the countryside", false}, // described, as said
		{"We moved to a new flat in Leeds.", "lives_in", "Leeds", false},
		{"I'm not working at Initech anymore.", "works_at", "Initech", true},
		{"I've stopped being vegetarian.", "diet", "vegetarian", true},
		{"We got a second cat, Luna.", "pet", "cat named Luna", false},
		{"我有女朋友了，叫小红。", "partner", "小红", false},
		{"我有女朋友了，叫小红。", "name", "", false},
		{"我上个月搬家到杭州了。", "lives_in", "杭州", false},
	}
	for _, c := range cases {
		got, ended := "", false
		for _, f := range Extract(c.msg, Options{At: time.Now()}) {
			if f.Attribute == c.attr {
				got, ended = f.Value, f.Ended
			}
		}
		if got != c.value || got != "" && ended != c.ended {
			t.Errorf("%q: %s = %q ended %v, want %q ended %v", c.msg, c.attr, got, ended, c.value, c.ended)
		}
	}
	fs := Extract("My husband and I separated in July.", Options{At: time.Now()})
	if len(fs) != 1 || fs[0].Attribute != "partner" || !fs[0].Ended {
		t.Errorf("separated: %+v", fs)
	}
}
