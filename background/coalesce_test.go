package background

import (
	"fmt"
	"testing"

	"github.com/memproxy/memproxy/memory"
)

// TestWaitingJobs: a scope's last job is the highest id recorded; a job
// is forgotten only while it is still the scope's last one.
func TestWaitingJobs(t *testing.T) {
	w := newWaitingJobs()
	a, b := scope("a"), scope("b")
	w.set(a, 5)
	w.set(a, 3) // an older job's result read back late
	w.set(b, 7)
	if got := fmt.Sprint(w.of([]memory.Scope{a, b, scope("c")})); got != fmt.Sprint(map[memory.Scope]int64{a: 5, b: 7}) {
		t.Errorf("of = %s", got)
	}
	w.forget(a, 3) // a worker started the older job: a's last job still waits
	w.forget(b, 7)
	if got := fmt.Sprint(w.of([]memory.Scope{a, b})); got != fmt.Sprint(map[memory.Scope]int64{a: 5}) {
		t.Errorf("after forgets: %s", got)
	}
}
