package scenarios_test

import (
	"strings"
	"testing"
)

// TestChecks pins the meaning of a story's checks: a has term must be in
// some text, a none term in no text, unless (for current-state views) the
// same text also carries a has term; alternatives are "|"-separated and
// matching ignores case.
func TestChecks(t *testing.T) {
	c := check{Has: []string{"Lisbon|里斯本"}, None: []string{"Berlin"}}
	for _, tc := range []struct {
		texts  []string
		exempt bool
		bad    int
	}{
		{[]string{"The user lives in Lisbon."}, true, 0},
		{[]string{"the user lives in lisbon"}, true, 0},
		{[]string{"用户住在里斯本。"}, true, 0},
		{[]string{"The user moved from Berlin to Lisbon."}, true, 0},
		{[]string{"The user moved from Berlin to Lisbon."}, false, 1},
		{[]string{"The user lives in Lisbon.", "The user lives in Berlin."}, true, 1},
		{[]string{"The user lives in Berlin."}, true, 2},
		{nil, true, 1},
	} {
		got := c.problems("facts", tc.texts, tc.exempt)
		if len(got) != tc.bad {
			t.Errorf("%q (exempt %v): %d problems %q, want %d", tc.texts, tc.exempt, len(got), got, tc.bad)
		}
	}
	if !matches("用 Go 写", " Go ") || matches("Google", " Go ") {
		t.Error("spaces in a term must count")
	}
}

// TestSuiteLoads checks every story of stories.yaml parses with known
// fields only and carries at least one check.
func TestSuiteLoads(t *testing.T) {
	s := loadSuite(t)
	for _, st := range s.Stories {
		e := st.Expect
		n := len(e.Facts.Has) + len(e.Facts.None) + len(e.History.Has) + len(e.History.None) + len(e.Never) + len(e.AtMost) + len(e.Recall)
		if n == 0 {
			t.Errorf("story %s checks nothing", st.Name)
		}
		if !strings.HasPrefix(st.Name, "en-") && !strings.HasPrefix(st.Name, "zh-") {
			t.Errorf("story %s: name must start with its language (en-, zh-)", st.Name)
		}
	}
	if s.Floor["sqlite"] <= 0 || s.Floor["postgres"] <= 0 {
		t.Errorf("floor %v: record what passes on main", s.Floor)
	}
}
