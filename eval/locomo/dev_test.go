package locomo

import (
	"os"
	"testing"
)

// devFile is the shared dev split; the test is skipped where it is absent.
const devFile = "../../../shared/bench/locomo-dev.json"

// TestDevCounts checks the reader against the counts published with the
// dev split (shared/bench/README.md).
func TestDevCounts(t *testing.T) {
	if _, err := os.Stat(devFile); err != nil {
		t.Skip("dev split not present")
	}
	ss, err := Load(devFile)
	if err != nil {
		t.Fatal(err)
	}
	var sessions, dialogs, qa, evidence, images int
	cats := map[int]int{}
	for i := range ss {
		s := &ss[i]
		sessions += len(s.Sessions)
		for _, sess := range s.Sessions {
			if sess.Date.IsZero() {
				t.Errorf("%s session %d: unparsed date %q", s.ID, sess.N, sess.DateRaw)
			}
			for _, d := range sess.Turns {
				dialogs++
				if d.BlipCaption != "" {
					images++
				}
			}
		}
		refs := 0
		for _, tu := range s.ChatTurns() {
			refs += len(tu.Refs)
		}
		if n := len(s.DiaIDs()); refs != n {
			t.Errorf("%s: turns carry %d refs, conversation has %d dia_ids", s.ID, refs, n)
		}
		for _, q := range s.QA {
			qa++
			cats[q.Category]++
			evidence += len(q.Evidence)
		}
	}
	if len(ss) != 5 || sessions != 128 || dialogs != 2760 || qa != 999 || images != 602 {
		t.Errorf("samples %d sessions %d turns %d qa %d images %d; want 5 128 2760 999 602", len(ss), sessions, dialogs, qa, images)
	}
	if want := map[int]int{1: 142, 2: 156, 3: 46, 4: 418, 5: 237}; len(cats) != 5 || cats[1] != want[1] || cats[2] != want[2] || cats[3] != want[3] || cats[4] != want[4] || cats[5] != want[5] {
		t.Errorf("categories = %v, want %v", cats, want)
	}
	// 1350 published references: "D8:6; D9:17" splits in two, "D" goes.
	if evidence != 1350 {
		t.Errorf("evidence ids = %d, want 1350", evidence)
	}
}
