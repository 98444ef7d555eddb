package recallpath

import (
	"testing"
	"time"

	"github.com/memproxy/memproxy/inject"
	"github.com/memproxy/memproxy/memory"
)

// An event older than the newest live fact bearing on the message loses
// its lead; a newer one keeps it; an Aside profile memory does not count.
func TestLeadsAfterFacts(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 1, d, 9, 0, 0, 0, time.UTC) }
	lead := func(int) string { return "I live in Berlin." }
	mem := func(id string, tier memory.Tier, d int) *memory.Memory {
		return &memory.Memory{ID: id, Tier: tier, Text: id, CreatedAt: day(d)}
	}
	build := func(aside bool) []inject.Item {
		profile := []*memory.Memory{mem("home", memory.TierProfile, 10)}
		recalled := []*memory.Scored{{Memory: mem("old", memory.TierEvent, 5)}, {Memory: mem("new", memory.TierEvent, 12)}}
		items := inject.Items(profile, recalled)
		items[0].Aside = aside
		items[1].Lead, items[2].Lead = lead, lead
		leadsAfterFacts(items, profile, recalled)
		return items
	}
	items := build(false)
	if items[1].Lead != nil || items[2].Lead == nil {
		t.Errorf("bearing fact of day 10: old event lead %v, new event lead %v; want none, kept", items[1].Lead != nil, items[2].Lead != nil)
	}
	items = build(true)
	if items[1].Lead == nil || items[2].Lead == nil {
		t.Error("an Aside profile memory took a lead")
	}
}
