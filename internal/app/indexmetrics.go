package app

import (
	"errors"
	"fmt"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/memproxy/memproxy/store/sqlite"
)

// indexStatser is a store with in-process search indexes (both stores).
type indexStatser interface{ IndexStats() sqlite.IndexStats }

// registerIndexMetrics exposes the store's loaded in-process search
// indexes against their bound. A registry shared by two apps (tests)
// keeps the first store's.
func registerIndexMetrics(reg prometheus.Registerer, s indexStatser) error {
	cs := []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "memproxy_index_bytes",
			Help: "Estimated memory of the store's loaded per-scope search indexes (in this process).",
		}, func() float64 { return float64(s.IndexStats().Bytes) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "memproxy_index_scopes",
			Help: "Scopes whose search indexes this process holds.",
		}, func() float64 { return float64(s.IndexStats().Scopes) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "memproxy_index_evictions_total",
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
