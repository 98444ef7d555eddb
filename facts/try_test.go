package facts

import (
	"os"
	"strings"
	"testing"
)

func TestTry(t *testing.T) {
	for _, s := range strings.Split(os.Getenv("TRY"), "|") {
		for _, f := range extract(s) {
			t.Logf("%q → %s=%q ended=%v change=%v repl=%v | %s", s, f.Key(), f.Value, f.Ended, f.Change, f.Replace, f.Text)
		}
	}
}
