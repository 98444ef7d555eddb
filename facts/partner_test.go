package facts

import (
	"testing"
	"time"
)

// TestNamedPartnerEnds: "my girlfriend Priya and I broke up" ends the
// partner it names; it states no live partner.
func TestNamedPartnerEnds(t *testing.T) {
	fs := Extract("My girlfriend Priya and I broke up last week.", Options{At: time.Now()})
	if len(fs) != 1 || fs[0].Attribute != "partner" || !fs[0].Ended || fs[0].Value != "Priya" {
		t.Fatalf("got %+v, want one ended partner Priya", fs)
	}
}
