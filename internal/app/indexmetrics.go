package app

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/memproxy/memproxy/store/sqlite"
)

// registerIndexMetrics exposes the SQLite store's loaded search indexes
// against their bound. A registry shared by two apps (tests) keeps the
// first store's.
func registerIndexMetrics(reg prometheus.Registerer, s *sqlite.Store) error {
	cs := []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "memproxy_sqlite_index_bytes",
			Help: "Estimated memory of the SQLite store's loaded per-scope search indexes.",
		}, func() float64 { return float64(s.IndexStats().Bytes) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "memproxy_sqlite_index_scopes",
			Help: "Scopes whose search indexes the SQLite store holds.",
		}, func() float64 { return float64(s.IndexStats().Scopes) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "memproxy_sqlite_index_evictions_total",
			Help: "Scopes whose search indexes were unloaded to stay under the bound (--index-memory).",
		}, func() float64 { return float64(s.IndexStats().Evictions) }),
	}
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			var are prometheus.AlreadyRegisteredError
			if !errors.As(err, &are) {
				return fmt.Errorf("register index metrics: %w", err)
			}
		}
	}
	return nil
}
