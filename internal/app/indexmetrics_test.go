package app_test

import (
	"testing"

	"github.com/memproxy/memproxy/internal/app"
)

// TestSQLiteIndexMetrics checks that the SQLite store's search indexes are
// exported once a request searched memories, with the configured bound.
func TestSQLiteIndexMetrics(t *testing.T) {
	h := newHarness(t, "sqlite", func(o *app.Options) { o.IndexBytes = 64 << 20 })
	h.say("alice", "s1", "I moved to Lisbon last spring and I love the tram")
	h.idle()
	h.say("alice", "s1", "where did I move to?")
	got := map[string]float64{}
	mfs, err := h.app.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			if g := m.GetGauge(); g != nil {
				got[mf.GetName()] = g.GetValue()
			} else if c := m.GetCounter(); c != nil {
				got[mf.GetName()] = c.GetValue()
			}
		}
	}
	if got["memproxy_index_scopes"] < 1 || got["memproxy_index_bytes"] <= 0 {
		t.Errorf("index metrics after a recall: %v", got)
	}
	if v, ok := got["memproxy_index_evictions_total"]; !ok || v != 0 {
		t.Errorf("evictions under a 64 MiB bound = %v (present %v), want 0", v, ok)
	}
}
