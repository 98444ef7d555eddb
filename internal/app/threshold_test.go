package app

import (
	"testing"

	"github.com/memproxy/memproxy/policy"
)

func TestThresholdPolicy(t *testing.T) {
	g := policy.Default().Gate
	if got := thresholdPolicy(g, true).MinScore; got != g.LocalMinScore {
		t.Errorf("local embedder starts at %v, want local_min_score %v", got, g.LocalMinScore)
	}
	if got := thresholdPolicy(g, false).MinScore; got != g.MinScore {
		t.Errorf("semantic embedder starts at %v, want min_score %v", got, g.MinScore)
	}
	g.LocalMinScore = 0
	if got := thresholdPolicy(g, true).MinScore; got != g.MinScore {
		t.Errorf("local_min_score 0 gives %v, want min_score %v", got, g.MinScore)
	}
}
