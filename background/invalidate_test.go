package background

import (
	"sync"
	"testing"

	"github.com/memproxy/memproxy/memory"
)

type invalidations struct {
	mu sync.Mutex
	n  map[string]int
}

func (i *invalidations) InvalidateScope(user, _ string) {
	i.mu.Lock()
	defer i.mu.Unlock()
	i.n[user]++
}

func (i *invalidations) count(user string) int {
	i.mu.Lock()
	defer i.mu.Unlock()
	return i.n[user]
}

// TestProfileChangeInvalidates: the request path caches a scope's
// profile, so a turn that ends a profile fact without stating a new one
// ("I'm not vegan anymore": itself no profile fact) tells it, as one that
// states a profile fact does; a turn that touches no profile fact does
// not.
func TestProfileChangeInvalidates(t *testing.T) {
	inv := &invalidations{n: map[string]int{}}
	e := newEnv(t, "sqlite", envOpts{inv: inv})
	s, other := scope("vera"), scope("otto")
	e.say(s, "I'm vegan, have been for years.")
	e.say(other, "I like jazz on Sunday mornings.")
	e.wait()
	before := inv.count(s.User)
	if before == 0 {
		t.Fatal("a new profile fact invalidated nothing: the test proves nothing")
	}
	if n := inv.count(other.User); n != 0 {
		t.Errorf("a turn without a profile fact invalidated the profile %d times", n)
	}
	e.say(s, "I'm not vegan anymore, I eat eggs and cheese again.")
	e.wait()
	if inv.count(s.User) == before {
		t.Error("ending the diet left the cached profile in place")
	}
	for _, m := range e.list(s, memory.StateLive, memory.TierProfile) {
		t.Errorf("a profile memory is still live: %q", m.Text)
	}
}

// forgets records ForgetScope beside the invalidations.
type forgets struct {
	invalidations
	scopes []memory.Scope
}

func (f *forgets) ForgetScope(s memory.Scope) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.scopes = append(f.scopes, s)
}

// TestForgetTellsTheProxy: a "forget that …" turn tells the Invalidator,
// when it holds texts of the scope too (the proxy's chain links), to drop
// them; other turns do not.
func TestForgetTellsTheProxy(t *testing.T) {
	f := &forgets{invalidations: invalidations{n: map[string]int{}}}
	e := newEnv(t, "sqlite", envOpts{inv: f})
	s := scope("fiona")
	e.say(s, "I work at Initech.")
	e.say(s, "I like sailing.")
	e.wait()
	f.mu.Lock()
	n := len(f.scopes)
	f.mu.Unlock()
	if n != 0 {
		t.Fatalf("turns that forget nothing dropped the proxy's links %d times", n)
	}
	e.say(s, "Please forget that I work at Initech.")
	e.wait()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.scopes) != 1 || f.scopes[0] != s {
		t.Errorf("after the forget the proxy was told %v, want [%v]", f.scopes, s)
	}
}
