package facts

import (
	"testing"
	"time"
)

// TestThisWeekdayValue: a value that is a date expression with "this" is
// kept as the date it names.
func TestThisWeekdayValue(t *testing.T) {
	at := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC) // a Wednesday
	for msg, want := range map[string]string{
		"My haircut is this Thursday at 5pm.": "on Thursday 5 Mar 2026 at 5pm",
		"My haircut is next Thursday at 5pm.": "on Thursday 12 Mar 2026 at 5pm",
		"My haircut is this coming Thursday.": "on Thursday 5 Mar 2026",
	} {
		fs := Extract(msg, Options{At: at})
		if len(fs) == 0 || fs[0].Value != want {
			t.Errorf("%q: %+v, want value %q", msg, fs, want)
		}
	}
}

// TestCorrectedWeekdayMovesDate: "I meant Tuesday, not Monday" on a value
// written "on Monday 9 Mar 2026" names Tuesday and its date.
func TestCorrectedWeekdayMovesDate(t *testing.T) {
	at := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC) // a Wednesday
	fs := Extract("My dentist appointment is next Monday at 9am.", Options{At: at})
	if len(fs) != 1 {
		t.Fatalf("got %+v", fs)
	}
	c, ok := ExtractCorrection("Sorry, I meant Tuesday, not Monday.")
	if !ok {
		t.Fatal("no correction")
	}
	got, ok := c.Apply(fs[0].Text)
	if want := "The user's dentist appointment is on Tuesday 10 Mar 2026 at 9am."; !ok || got != want {
		t.Errorf("Apply = %q, %v; want %q", got, ok, want)
	}
}
