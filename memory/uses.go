package memory

import "time"

// Uses gathers the accesses of one scope's memories that are written
// together (an ingest round's replies) so they
// take a few Touch calls instead of one each, with the same effect on
// hits: a memory used k times is in the first k calls. Each call records
// the latest time among the uses it stands for, which may be later than a
// given memory's own last use by the span gathered (decay works in days).
type Uses struct {
	ids    []string       // in first-use order
	n      map[string]int // uses per id
	layers []time.Time    // layers[k]: latest time of a (k+1)-th use
}

// Add counts one use of each of ids at t.
func (u *Uses) Add(ids []string, t time.Time) {
	if u.n == nil {
		u.n = map[string]int{}
	}
	for _, id := range ids {
		k := u.n[id]
		if k == 0 {
			u.ids = append(u.ids, id)
		}
		u.n[id] = k + 1
		if k == len(u.layers) {
			u.layers = append(u.layers, t)
		} else if t.After(u.layers[k]) {
			u.layers[k] = t
		}
	}
}

// Empty reports whether no use was added.
func (u *Uses) Empty() bool { return len(u.ids) == 0 }

// Touches yields the Touch calls that record the uses: the ids used more
// than k times, at the latest time of their (k+1)-th uses, for k = 0, 1, ….
func (u *Uses) Touches(yield func(ids []string, t time.Time) bool) {
	for k, at := range u.layers {
		var ids []string
		for _, id := range u.ids {
			if u.n[id] > k {
				ids = append(ids, id)
			}
		}
		if !yield(ids, at) {
			return
		}
	}
}
