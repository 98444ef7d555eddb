package memory

import (
	"slices"
	"testing"
	"time"
)

func TestUses(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	var u Uses
	u.Add([]string{"a", "b"}, t0)
	u.Add([]string{"a"}, t0.Add(2*time.Minute))
	u.Add([]string{"c", "a"}, t0.Add(time.Minute))
	type call struct {
		ids []string
		at  time.Time
	}
	var got []call
	for ids, at := range u.Touches {
		got = append(got, call{ids, at})
	}
	want := []call{
		{[]string{"a", "b", "c"}, t0.Add(time.Minute)}, // b's own last use was t0: later by the span gathered
		{[]string{"a"}, t0.Add(2 * time.Minute)},
		{[]string{"a"}, t0.Add(time.Minute)},
	}
	if len(got) != len(want) {
		t.Fatalf("%d touches, want %d: %v", len(got), len(want), got)
	}
	hits := map[string]int{}
	for i := range want {
		if !slices.Equal(got[i].ids, want[i].ids) || !got[i].at.Equal(want[i].at) {
			t.Errorf("touch %d = %v at %v, want %v at %v", i, got[i].ids, got[i].at, want[i].ids, want[i].at)
		}
		for _, id := range got[i].ids {
			hits[id]++
		}
	}
	if hits["a"] != 3 || hits["b"] != 1 || hits["c"] != 1 {
		t.Errorf("hits %v, want a:3 b:1 c:1", hits)
	}
	var none Uses
	for range none.Touches {
		t.Error("no uses, a touch")
	}
}
