package search

import (
	"slices"
	"testing"
)

func TestParseSnapshot(t *testing.T) {
	for text, want := range map[string]Snapshot{
		"100:120:":         {Xmax: 120},
		"100:120:100,115":  {Xmax: 120, Running: []string{"100", "115"}},
		"7:7:":             {Xmax: 7},
		"9:4294967396:9,1": {Xmax: 4294967396, Running: []string{"9", "1"}}, // xid8 past 32 bits
	} {
		got, err := ParseSnapshot(text)
		if err != nil || got.Xmax != want.Xmax || !slices.Equal(got.Running, want.Running) {
			t.Errorf("ParseSnapshot(%q) = %+v, %v; want %+v", text, got, err, want)
		}
	}
	for _, bad := range []string{"", "100:120", "100:x:", "1:2:3:4"} {
		if _, err := ParseSnapshot(bad); err == nil {
			t.Errorf("ParseSnapshot(%q): no error", bad)
		}
	}
}

// TestSnapshotNewer: a search keeps the later of two marks whichever of
// their reads finished first; any mark is newer than none.
func TestSnapshotNewer(t *testing.T) {
	early := Snapshot{Xmax: 10, Running: []string{"7", "8"}}
	for _, c := range []struct {
		m, o  Snapshot
		newer bool
	}{
		{Snapshot{Xmax: 11}, early, true},                         // past xmax
		{Snapshot{Xmax: 10, Running: []string{"8"}}, early, true}, // 7 committed since
		{early, early, false},
		{early, Snapshot{Xmax: 11}, false},
		{early, Snapshot{Xmax: 10, Running: []string{"8"}}, false},
	} {
		if got := c.m.Newer(c.o); got != c.newer {
			t.Errorf("%+v.Newer(%+v) = %v, want %v", c.m, c.o, got, c.newer)
		}
	}
	if !early.Newer(nil) {
		t.Error("a snapshot is not newer than no mark")
	}
}
