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
		"My haircut is this Thursday at 5pm.": "on 5 Mar 2026 at 5pm",
		"My haircut is next Thursday at 5pm.": "on 12 Mar 2026 at 5pm",
		"My haircut is this coming Thursday.": "on 5 Mar 2026",
	} {
		fs := Extract(msg, Options{At: at})
		if len(fs) == 0 || fs[0].Value != want {
			t.Errorf("%q: %+v, want value %q", msg, fs, want)
		}
	}
}
