package proxy

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the proxy's Prometheus series.
type metrics struct {
	requests        *prometheus.CounterVec // route, code class
	overhead        prometheus.Histogram
	captured        prometheus.Counter
	captureFailures prometheus.Counter
	captureLate     prometheus.Counter
	capturesPending prometheus.Gauge
	recallFailures  prometheus.Counter
	upstreamErrors  *prometheus.CounterVec // code
	// breakpointRebuilds counts Anthropic requests with cache_control
	// breakpoints inside messages that got the section in system (which
	// invalidates those cache entries).
	breakpointRebuilds prometheus.Counter
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "memproxy_requests_total", Help: "Requests served, by route and status class.",
		}, []string{"route", "arm", "status"}),
		overhead: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "memproxy_overhead_seconds", Help: "Time spent in the proxy before forwarding a chat request.",
			Buckets: []float64{0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1},
		}),
		captured: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "memproxy_turns_captured_total", Help: "Chat turns handed to the turn sink.",
		}),
		captureFailures: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "memproxy_turn_capture_failures_total", Help: "Chat turns the sink did not store (an error, or no answer within server.sink_abandon_timeout); each is logged with its request id.",
		}),
		capturesPending: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "memproxy_turn_captures_pending", Help: "Chat turns handed to the sink whose answer has not come yet (those past server.sink_timeout included).",
		}),
		captureLate: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "memproxy_turn_capture_late_total", Help: "Chat turns whose sink answer took longer than server.sink_timeout: the reply went on without it; each is also counted as captured or failed once the answer came.",
		}),
		recallFailures: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "memproxy_recall_failures_total", Help: "Rewriter errors and panics; the request went upstream unchanged.",
		}),
		upstreamErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "memproxy_upstream_errors_total", Help: "Upstream round trips that failed before a response, by code.",
		}, []string{"code"}),
		breakpointRebuilds: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "memproxy_anthropic_breakpoint_rebuilds_total",
			Help: "Anthropic requests with cache_control breakpoints inside messages whose memory section went into system (placement system): their cached prefix is rebuilt; before_last_user avoids it.",
		}),
	}
	var err error
	m.requests = register(reg, m.requests, &err)
	m.overhead = register(reg, m.overhead, &err)
	m.captured = register(reg, m.captured, &err)
	m.captureFailures = register(reg, m.captureFailures, &err)
	m.captureLate = register(reg, m.captureLate, &err)
	m.capturesPending = register(reg, m.capturesPending, &err)
	m.recallFailures = register(reg, m.recallFailures, &err)
	m.upstreamErrors = register(reg, m.upstreamErrors, &err)
	m.breakpointRebuilds = register(reg, m.breakpointRebuilds, &err)
	return m, err
}

// register adds c to reg, reusing an identical collector registered
// before (two servers on one registry share series).
func register[C prometheus.Collector](reg prometheus.Registerer, c C, errp *error) C {
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing
			}
		}
		if *errp == nil {
			*errp = err
		}
	}
	return c
}
