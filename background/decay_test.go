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
		// Low-value memories sit at 0.25 (< low_value 0.3): archived once
		// 0.25·r < forget_below 0.15, i.e. r < 0.6, at about 0.82 of the
		// effective half-life (shape 1.5).
		ms := map[string]*memory.Memory{
			"chatter event":      mk("chatter event", memory.TierEvent, 0.25, 0, false, nil),
			"used chatter event": mk("used chatter event", memory.TierEvent, 0.25, 10, false, nil),
			"informative event":  mk("informative event", memory.TierEvent, 0.6, 0, false, nil),
			"low episodic":       mk("low episodic", memory.TierEpisodic, 0.25, 0, false, nil),
			"low semantic":       mk("low semantic", memory.TierSemantic, 0.25, 0, false, nil),
			"profile":            mk("profile", memory.TierProfile, 0.25, 0, false, nil),
			"explicit":           mk("explicit", memory.TierSemantic, 0.25, 0, true, nil),
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
		check(t0.Add(5*day), map[string]string{"chatter event": "live", "temporary": "live", "low episodic": "live"})
		// Day 11: TTL is hard.
		check(t0.Add(11*day), map[string]string{"temporary": "gone", "chatter event": "live"})
		// Day 60: events (30d) and episodic (60d) chatter archived; the
		// used event (10 hits: h×3 = 90d) survives; informative, profile,
		// explicit and semantic stay.
		check(t0.Add(60*day), map[string]string{
			"chatter event": "archived", "used chatter event": "live", "low episodic": "archived",
			"informative event": "live", "profile": "live", "explicit": "live", "low semantic": "live",
		})
		// Day 151: archived on day 60, purged after archive_retention (90d).
		check(t0.Add(60*day+e.pol.Decay.ArchiveRetention.D()+day), map[string]string{
			"chatter event": "gone", "low episodic": "gone", "used chatter event": "archived", "low semantic": "live",
		})
		// Day 400: semantic (365d) chatter archived; profile, explicit and
		// informative memories never leave by decay.
		check(t0.Add(400*day), map[string]string{
			"low semantic": "archived", "profile": "live", "explicit": "live", "informative event": "live",
		})
		r1 := memory.Retention(ms["chatter event"], t0.Add(31*day), e.pol.Decay)
		r2 := memory.Retention(ms["used chatter event"], t0.Add(31*day), e.pol.Decay)
		if !(r2 > r1) {
			t.Errorf("use boost: retention %v (10 hits) not above %v", r2, r1)
		}
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
