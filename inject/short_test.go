package inject

import (
	"strings"
	"testing"
)

// A memory the budget has no room left for goes in as its compact form
// when that fits; one that fits whole is rendered whole.
func TestRenderShortWhenNoRoom(t *testing.T) {
	long := strings.Repeat("word ", 60)
	asked := 0
	items := []Item{
		{ID: "aaaa", Tier: "event", Date: day("2023-05-08"), Text: long, Shorten: func(int) string { return "the short form" }},
		{ID: "bbbb", Tier: "event", Date: day("2023-05-08"), Text: long, Shorten: func(n int) string { asked = n; return "… the gist of the second …" }},
		{ID: "cccc", Tier: "event", Date: day("2023-05-08"), Text: long},
	}
	section, used, tokens := Render(items, Options{BudgetTokens: 110})
	if len(used) != 2 || used[0].ID != "aaaa" || used[1].ID != "bbbb" || tokens > 110 {
		t.Fatalf("used %v, %d tokens:\n%s", used, tokens, section)
	}
	// The compact form is asked for what the budget leaves after the
	// line's prefix.
	if left := 110 - tokens + 8; asked < 15 || asked > left {
		t.Errorf("compact form asked for %d tokens, %d left", asked, left)
	}
	if !strings.Contains(section, strings.TrimSpace(long)) || strings.Contains(section, "the short form") || !strings.Contains(section, "… the gist of the second …") {
		t.Errorf("the first memory fits whole, the second only short:\n%s", section)
	}
}
