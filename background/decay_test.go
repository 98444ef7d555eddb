package background

import (
	"context"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

const day = 24 * time.Hour

func TestDecay(t *testing.T) {
	forBackends(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, envOpts{})
		ctx := context.Background()
		s := scope("ivy")
		t0 := e.clock.Now()
		ttl := t0.Add(10 * day)
		mk := func(name string, tier memory.Tier, value float64, hits int, noDecay bool, expires *time.Time) *memory.Memory {
			v, _ := e.emb.Embed(ctx, []string{name})
			return &memory.Memory{ID: stableID(name), Scope: s, Tier: tier, Text: name, Embedding: v[0], Value: value,
				Confidence: 1, Source: memory.SourceAdmin, Hits: hits, NoDecay: noDecay, ExpiresAt: expires,
				CreatedAt: t0, LastUsedAt: t0, ValidFrom: t0}
		}
		ms := map[string]*memory.Memory{
			"chatter event":      mk("chatter event", memory.TierEvent, 0.1, 0, false, nil),
			"used chatter event": mk("used chatter event", memory.TierEvent, 0.1, 10, false, nil),
			"informative event":  mk("informative event", memory.TierEvent, 0.6, 0, false, nil),
			"low episodic":       mk("low episodic", memory.TierEpisodic, 0.1, 0, false, nil),
			"low semantic":       mk("low semantic", memory.TierSemantic, 0.1, 0, false, nil),
			"profile":            mk("profile", memory.TierProfile, 0.1, 0, false, nil),
			"explicit":           mk("explicit", memory.TierSemantic, 0.1, 0, true, nil),
			"temporary":          mk("temporary", memory.TierSemantic, 0.9, 0, false, &ttl),
		}
		for _, m := range ms {
			if err := e.st.Insert(ctx, s, m); err != nil {
				t.Fatal(err)
			}
		}
		state := func(at time.Time) map[string]string {
			out := map[string]string{}
			for name, m := range ms {
				got, err := e.st.Get(ctx, s, m.ID)
				switch {
				case err != nil:
					out[name] = "gone"
				case got.ArchivedAt != nil:
					out[name] = "archived"
				default:
					out[name] = "live"
				}
			}
			return out
		}
		check := func(at time.Time, want map[string]string) {
			t.Helper()
			if _, err := e.q.RunDecay(ctx, at); err != nil {
				t.Fatal(err)
			}
			got := state(at)
			for k, w := range want {
				if got[k] != w {
					t.Errorf("day %d: %s is %s, want %s", int(at.Sub(t0)/day), k, got[k], w)
				}
			}
		}
		// Day 5: nothing faded; nothing expired.
		check(t0.Add(5*day), map[string]string{"chatter event": "live", "temporary": "live"})
		// Day 11: TTL is hard.
		check(t0.Add(11*day), map[string]string{"temporary": "gone", "chatter event": "live"})
		// Day 60: a 30d-half-life chatter event at r≈0.14 → 0.1·r < 0.15:
		// archived; the used one (h×3) too (value·r is small either way)
		// but the informative event stays (value ≥ low_value).
		check(t0.Add(60*day), map[string]string{
			"chatter event": "archived", "informative event": "live", "profile": "live", "explicit": "live",
		})
		// Use boost: at day 31 the used event's retention (h=90d) is far
		// above the unused one's.
		r1 := memory.Retention(ms["chatter event"], t0.Add(31*day), e.pol.Decay)
		r2 := memory.Retention(ms["used chatter event"], t0.Add(31*day), e.pol.Decay)
		if !(r2 > r1) {
			t.Errorf("use boost: retention %v (10 hits) not above %v", r2, r1)
		}
		// Day 400: semantic low-value archived; profile and explicit never.
		check(t0.Add(400*day), map[string]string{
			"low semantic": "archived", "low episodic": "archived", "profile": "live", "explicit": "live", "informative event": "live",
		})
		// Purge: archived memories go archive_retention after archiving.
		check(t0.Add(60*day+e.pol.Decay.ArchiveRetention.D()+day), map[string]string{"chatter event": "gone", "low semantic": "archived"})
	})
}

func TestDecayPeriodicRunsOnStart(t *testing.T) {
	e := newEnv(t, "sqlite", envOpts{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	waitDecay(ctx, t, e.q)
	if e.q.DecayRuns() != 1 {
		t.Errorf("decay runs %d", e.q.DecayRuns())
	}
}
