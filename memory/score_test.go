package memory

import (
	"math"
	"testing"
	"time"

	"github.com/memproxy/memproxy/policy"
)

const sDay = 24 * time.Hour

var sT0 = time.Date(2026, 10, 1, 12, 0, 0, 0, time.UTC)

func sNear(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestRetention(t *testing.T) {
	d := policy.Default().Decay // event 30d, semantic 365d, profile 0, s=1.5, boost 0.2, max 3
	cases := []struct {
		name string
		m    Memory
		now  time.Time
		want float64
	}{
		{"fresh", Memory{Tier: TierEvent, CreatedAt: sT0}, sT0, 1},
		{"one half-life", Memory{Tier: TierEvent, CreatedAt: sT0}, sT0.Add(30 * sDay), 0.5},
		{"two half-lives weibull", Memory{Tier: TierEvent, CreatedAt: sT0}, sT0.Add(60 * sDay), math.Exp2(-math.Pow(2, 1.5))},
		{"last use counts, not creation", Memory{Tier: TierEvent, CreatedAt: sT0.Add(-400 * sDay), LastUsedAt: sT0}, sT0.Add(30 * sDay), 0.5},
		{"hits stretch the half-life", Memory{Tier: TierEvent, CreatedAt: sT0, Hits: 5}, sT0.Add(60 * sDay), 0.5}, // h = 30d × 2
		{"boost is capped", Memory{Tier: TierEvent, CreatedAt: sT0, Hits: 100}, sT0.Add(90 * sDay), 0.5},          // h = 30d × 3
		{"semantic", Memory{Tier: TierSemantic, CreatedAt: sT0}, sT0.Add(365 * sDay), 0.5},
		{"profile never decays", Memory{Tier: TierProfile, CreatedAt: sT0}, sT0.Add(3650 * sDay), 1},
		{"no decay flag", Memory{Tier: TierEvent, CreatedAt: sT0, NoDecay: true}, sT0.Add(3650 * sDay), 1},
		{"future use", Memory{Tier: TierEvent, CreatedAt: sT0}, sT0.Add(-sDay), 1},
	}
	for _, c := range cases {
		if got := Retention(&c.m, c.now, d); !sNear(got, c.want) {
			t.Errorf("%s: Retention = %v, want %v", c.name, got, c.want)
		}
	}

	exp := d
	exp.Shape = 1
	m := Memory{Tier: TierEvent, CreatedAt: sT0}
	if got := Retention(&m, sT0.Add(60*sDay), exp); !sNear(got, 0.25) {
		t.Errorf("exponential shape, two half-lives: %v, want 0.25", got)
	}
}

func TestScore(t *testing.T) {
	w := formulaWeights // 0.6 / 0.3 / 0.1 / 0
	total, b := Score(0.8, 0.5, 2, 0.9, w)
	want := 0.6*0.8 + 0.3*0.5 + 0.1*0.4
	if !sNear(total, want) || !sNear(b.Total, want) {
		t.Fatalf("total %v (breakdown %v), want %v", total, b.Total, want)
	}
	if b.Sim != 0.8 || b.Retention != 0.5 || !sNear(b.Freq, 0.4) || b.Value != 0.9 {
		t.Fatalf("breakdown %+v", b)
	}
	if _, b := Score(0, 0, 50, 0, w); b.Freq != 1 {
		t.Errorf("freq saturates at %d hits: got %v", FreqSaturation, b.Freq)
	}
	if total, _ := Score(-0.7, 1, 0, 0, w); !sNear(total, 0.3) {
		t.Errorf("negative cosine is clamped to 0: total %v", total)
	}
	wv := policy.Weights{Value: 1}
	if total, _ := Score(1, 1, 5, 0.25, wv); !sNear(total, 0.25) {
		t.Errorf("value weight: total %v, want 0.25", total)
	}
}

func TestShouldArchive(t *testing.T) {
	d := policy.Default().Decay // low_value 0.3, forget_below 0.15, event 30d
	cases := []struct {
		name string
		m    Memory
		now  time.Time
		want bool
	}{
		{"fresh chatter stays", Memory{Tier: TierEvent, Value: 0.2, CreatedAt: sT0}, sT0, false},
		{"old chatter goes", Memory{Tier: TierEvent, Value: 0.2, CreatedAt: sT0}, sT0.Add(30 * sDay), true}, // 0.2×0.5 < 0.15
		{"informative never by decay", Memory{Tier: TierEvent, Value: 0.3, CreatedAt: sT0}, sT0.Add(3650 * sDay), false},
		{"no decay stays", Memory{Tier: TierEvent, Value: 0.1, NoDecay: true, CreatedAt: sT0}, sT0.Add(3650 * sDay), false},
		{"already archived", Memory{Tier: TierEvent, Value: 0.1, CreatedAt: sT0, ArchivedAt: &sT0}, sT0.Add(3650 * sDay), false},
		{"used recently stays", Memory{Tier: TierEvent, Value: 0.2, CreatedAt: sT0, LastUsedAt: sT0.Add(29 * sDay)}, sT0.Add(30 * sDay), false},
	}
	for _, c := range cases {
		if got := ShouldArchive(&c.m, c.now, d); got != c.want {
			t.Errorf("%s: ShouldArchive = %v, want %v", c.name, got, c.want)
		}
	}
}
