package recallpath

import "github.com/prometheus/client_golang/prometheus"

type metrics struct {
	errors  prometheus.Counter
	dropped prometheus.Counter
}

func newMetrics(reg prometheus.Registerer) metrics {
	m := metrics{
		errors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "memproxy_recall_path_errors_total",
			Help: "Recall-path failures (the request was forwarded without memory).",
		}),
		dropped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "memproxy_recall_writes_dropped_total",
			Help: "Access touches or recall-log rows dropped because the background writer was full.",
		}),
	}
	if reg != nil {
		reg.MustRegister(m.errors, m.dropped)
	}
	return m
}
