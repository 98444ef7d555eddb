package search

import (
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// TestKeepFlags: the scan's packed flags decide as Keep does, for every
// tier (a known one, one this build does not know), state, expiry and
// filter.
func TestKeepFlags(t *testing.T) {
	now := time.Now()
	tiers := []memory.Tier{memory.TierEvent, memory.TierSemantic, memory.TierProfile, memory.TierEpisodic, "custom-tier"}
	filters := []memory.SearchOptions{
		{At: now},
		{At: now, IncludeDead: true},
		{At: now, ExcludeConsolidated: true},
		{At: now, Tiers: []memory.Tier{memory.TierSemantic, memory.TierEvent}},
		{At: now, Tiers: []memory.Tier{"custom-tier"}, IncludeDead: true, ExcludeConsolidated: true},
	}
	for _, tier := range tiers {
		for _, dead := range []bool{false, true} {
			for _, cons := range []bool{false, true} {
				for _, exp := range []int64{0, now.Add(-time.Hour).UnixMicro(), now.Add(time.Hour).UnixMicro()} {
					m := NewMeta(tier, dead, exp, cons)
					for _, o := range filters {
						f := NewFilter(o)
						if got, want := f.keepFlags(m.flags(), &m), f.Keep(&m); got != want {
							t.Errorf("tier %s dead %v consolidated %v expires %d, filter %+v: flags %v, Keep %v", tier, dead, cons, exp, o, got, want)
						}
					}
				}
			}
		}
	}
}
