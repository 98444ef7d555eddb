package text

import (
	"testing"
	"time"
)

func TestExplicitDates(t *testing.T) {
	at := time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)
	cases := []struct {
		s, text, date string
		p             Precision
	}{
		{"I got married in 2019.", "2019", "2019-01-01", Year},
		{"I've lived here since March 2021.", "March 2021", "2021-03-01", Month},
		{"back in Sept. 2016 we met", "Sept. 2016", "2016-09-01", Month},
		{"until late 2027", "late 2027", "2027-01-01", Year},
		{"我2019年结婚了。", "2019年", "2019-01-01", Year},
		{"我2024年3月搬到了上海。", "2024年3月", "2024-03-01", Month},
		{"2024年3月5日那天", "2024年3月5日", "2024-03-05", Day},
	}
	for _, c := range cases {
		got := ExplicitDates(c.s, at, nil)
		if len(got) != 1 || got[0].Text != c.text || got[0].Date.Format("2006-01-02") != c.date || got[0].Precision != c.p {
			t.Errorf("%q: got %+v, want %q %s %v", c.s, got, c.text, c.date, c.p)
			continue
		}
		if c.s[got[0].Start:got[0].End] != c.text {
			t.Errorf("%q: offsets %d:%d do not hold %q", c.s, got[0].Start, got[0].End, c.text)
		}
	}
	for _, s := range []string{"I think the 2019 model was better.", "I have 2020 photos.", "in 2099", "room 2019", "2024年13月"} {
		if got := ExplicitDates(s, at, nil); len(got) != 0 {
			t.Errorf("%q: got %+v, want no date", s, got)
		}
	}
	if got := AnnotateDates("I got married in 2019.", at, nil); got != "I got married in 2019." {
		t.Errorf("AnnotateDates wrote an explicit date again: %q", got)
	}
}

// TestMonthAlone: a month without its year is the last such month for what
// happened and the next one for what is planned; a day or year after it,
// or a lowercase "may", is not a month said alone.
func TestMonthAlone(t *testing.T) {
	at := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		s    string
		past bool
		text string
		date string
	}{
		{"I moved to Denver in January.", true, "January", "2026-01-01"},
		{"I moved to Austin in May.", true, "May", "2025-05-01"},
		{"since March", true, "March", "2026-03-01"},
		{"back in Sept. we met", true, "Sept", "2025-09-01"},
		{"We're moving in June.", false, "June", "2026-06-01"},
		{"We're moving in February.", false, "February", "2027-02-01"},
		{"I'll be working at Google from September.", false, "September", "2026-09-01"},
		{"I join Meta starting in May.", false, "May", "2026-05-01"},
	}
	for _, c := range cases {
		got := MonthAlone(c.s, at, nil, c.past)
		if len(got) != 1 || got[0].Text != c.text || got[0].Date.Format("2006-01-02") != c.date || got[0].Precision != Month {
			t.Errorf("%q: got %+v, want %q %s", c.s, got, c.text, c.date)
			continue
		}
		if c.s[got[0].Start:got[0].End] != c.text {
			t.Errorf("%q: offsets %d:%d do not hold %q", c.s, got[0].Start, got[0].End, c.text)
		}
	}
	for _, s := range []string{"in March 2021", "in May 5th", "it may be in may", "in 2019"} {
		if got := MonthAlone(s, at, nil, true); len(got) != 0 {
			t.Errorf("%q: got %+v, want no month", s, got)
		}
	}
}
