package facts

import "testing"

// TestOrganisationAfterThe: an employer or school named with a leading
// "the" is still a name; a common noun after "the" is not.
func TestOrganisationAfterThe(t *testing.T) {
	cases := []struct{ msg, attr, value string }{
		{"I study at the University of Leeds.", "studies_at", "University of Leeds"},
		{"I work at the Bank of England.", "works_at", "Bank of England"},
		{"I work for the Guardian.", "works_at", "Guardian"},
		{"I study at Leeds University.", "studies_at", "Leeds University"},
		{"I work at the bakery.", "works_at", ""},
	}
	for _, c := range cases {
		got := ""
		for _, f := range Extract(c.msg, Options{}) {
			if f.Attribute == c.attr {
				got = f.Value
			}
		}
		if got != c.value {
			t.Errorf("%q: %s = %q, want %q", c.msg, c.attr, got, c.value)
		}
	}
}
