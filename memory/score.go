package memory

import (
	"math"
	"time"

	"github.com/memproxy/memproxy/policy"
)

// Retention is how much of a memory is still "remembered" at now:
// r = 2^(-(age/h)^s), with age measured since the memory was last used
// (created, if never used), s the policy's shape and h the tier's half-life
// stretched by use: h = half_life[tier] × min(max_boost, 1 + boost_per_hit·hits).
// At age h the memory is at exactly one half whatever the shape; shapes
// above 1 keep young memories fresher and let old ones fall faster.
//
// NoDecay memories, tiers with a zero half-life (profile by default) and
// memories "used in the future" (clock skew, replays) have retention 1.
func Retention(m *Memory, now time.Time, d policy.Decay) float64 {
	if m.NoDecay {
		return 1
	}
	h := HalfLife(m.Tier, d)
	if h <= 0 {
		return 1
	}
	last := m.LastUsedAt
	if last.IsZero() {
		last = m.CreatedAt
	}
	age := now.Sub(last)
	if age <= 0 {
		return 1
	}
	boost := min(max(d.MaxBoost, 1), 1+d.BoostPerHit*float64(max(m.Hits, 0)))
	x := float64(age) / (float64(h) * boost)
	shape := d.Shape
	if shape <= 0 {
		shape = 1
	}
	return math.Exp2(-math.Pow(x, shape))
}

// HalfLife returns the policy's base half-life for a tier (0: no decay).
func HalfLife(t Tier, d policy.Decay) time.Duration {
	switch t {
	case TierEvent:
		return d.HalfLife.Event.D()
	case TierEpisodic:
		return d.HalfLife.Episodic.D()
	case TierSemantic:
		return d.HalfLife.Semantic.D()
	case TierProfile:
		return d.HalfLife.Profile.D()
	}
	return 0
}

// FreqSaturation is the number of hits at which the frequency term of the
// score saturates: freq = min(1, hits/FreqSaturation).
const FreqSaturation = 5

// Breakdown is a score with its terms, as the admin "explain" view and the
// recall log show them. The inputs are kept raw (each 0..1); Total is the
// weighted sum.
type Breakdown struct {
	Sim       float64 `json:"sim"`
	Retention float64 `json:"retention"`
	Freq      float64 `json:"freq"`
	Value     float64 `json:"value"`
	Total     float64 `json:"total"`
}

// Score combines relevance and memory strength:
// total = w_sim·sim + w_rec·retention + w_freq·min(1, hits/5) + w_val·value.
// sim is clamped to [0, 1] so an anti-correlated vector cannot push a
// memory below one that is merely unrelated.
func Score(sim, retention float64, hits int, value float64, w policy.Weights) (float64, Breakdown) {
	b := Breakdown{
		Sim:       clamp01(sim),
		Retention: clamp01(retention),
		Freq:      min(1, float64(max(hits, 0))/FreqSaturation),
		Value:     clamp01(value),
	}
	b.Total = w.Similarity*b.Sim + w.Recency*b.Retention + w.Frequency*b.Freq + w.Value*b.Value
	return b.Total, b
}

// ShouldArchive reports whether the decay pass archives m at now: only
// low-value memories (value < low_value) leave recall by decay, once
// value × retention falls below forget_below. Informative memories leave
// only by supersede, TTL or deletion; NoDecay memories never, and an
// archived memory is not archived again.
func ShouldArchive(m *Memory, now time.Time, d policy.Decay) bool {
	if m.NoDecay || m.ArchivedAt != nil || m.Value >= d.LowValue {
		return false
	}
	return m.Value*Retention(m, now, d) < d.ForgetBelow
}

func clamp01(x float64) float64 {
	switch {
	case math.IsNaN(x) || x < 0:
		return 0
	case x > 1:
		return 1
	}
	return x
}
