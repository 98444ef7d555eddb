package facts

import (
	"testing"
	"time"
)

// TestHiredAndPartnerWords: other verbs for a new employer and a partner.
func TestHiredAndPartnerWords(t *testing.T) {
	cases := []struct{ msg, attr, value string }{
		{"I've been hired by Globex as a data scientist.", "works_at", "Globex"},
		{"I got hired at Globex.", "works_at", "Globex"},
		{"I accepted an offer from Globex.", "works_at", "Globex"},
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
