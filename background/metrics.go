package background

import (
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the queue's Prometheus series plus plain counters tests and
// the admin view read without a registry.
type metrics struct {
	enqueued       prometheus.Counter
	enqueueErrors  prometheus.Counter
	enqueueLatency prometheus.Histogram
	jobLatency     *prometheus.HistogramVec
	jobErrors      *prometheus.CounterVec
	ingested       prometheus.Counter
	dropped        *prometheus.CounterVec
	llmCalls       *prometheus.CounterVec
	memories       *prometheus.CounterVec // created, by tier
	archived       prometheus.Counter
	superseded     prometheus.Counter
	reinforced     prometheus.Counter
	parked         prometheus.Counter
	yielded        prometheus.Counter
	queueDepth     *prometheus.GaugeVec
	tierGauge      *prometheus.GaugeVec

	nLLM, nWouldBe, nIngested, nConsolidations, nParked, nJobErrors atomic.Int64
}

func newMetrics(reg prometheus.Registerer) *metrics {
	const ns = "memproxy"
	m := &metrics{
		enqueued:       prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Name: "queue_enqueued_total", Help: "Turns committed to the queue."}),
		enqueueErrors:  prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Name: "queue_enqueue_errors_total", Help: "Turns whose enqueue failed."}),
		enqueueLatency: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: ns, Name: "queue_commit_seconds", Help: "Group-commit latency.", Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14)}),
		jobLatency:     prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: ns, Name: "job_seconds", Help: "Job run time by kind.", Buckets: prometheus.ExponentialBuckets(0.0005, 2, 18)}, []string{"kind"}),
		jobErrors:      prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "job_errors_total", Help: "Failed job attempts by kind."}, []string{"kind"}),
		ingested:       prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Name: "ingested_turns_total", Help: "Turns processed by ingest."}),
		dropped:        prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "ingest_dropped_total", Help: "Turns dropped as noise, by class."}, []string{"class"}),
		llmCalls:       prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "llm_calls_total", Help: "Consolidation model calls (would_be: calls the extractive consolidator stood in for).", ConstLabels: nil}, []string{"kind"}),
		memories:       prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: ns, Name: "memories_created_total", Help: "Memories created by the background, by tier."}, []string{"tier"}),
		archived:       prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Name: "memories_archived_total", Help: "Memories archived by decay."}),
		superseded:     prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Name: "memories_superseded_total", Help: "Memories superseded by newer facts or forgets."}),
		reinforced:     prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Name: "memories_reinforced_total", Help: "Reinforcements instead of inserts."}),
		parked:         prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Name: "ingest_parked_turns_total", Help: "Turns parked after failing Config.MaxTurnAttempts times (kept in the turn log, not ingested)."}),
		yielded:        prometheus.NewCounter(prometheus.CounterOpts{Namespace: ns, Name: "background_yield_seconds_total", Help: "Time background work paused or waited for its turn while the request path was busy (policy ingest.yield)."}),
		tierGauge:      prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Name: "memories_live", Help: "Live memories by tier (refreshed by each decay pass)."}, []string{"tier"}),
		queueDepth:     prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: ns, Name: "queue_depth", Help: "Jobs by state (refreshed by Pending and decay)."}, []string{"state"}),
	}
	if reg != nil {
		m.enqueued = register(reg, m.enqueued)
		m.enqueueErrors = register(reg, m.enqueueErrors)
		m.enqueueLatency = register(reg, m.enqueueLatency)
		m.jobLatency = register(reg, m.jobLatency)
		m.jobErrors = register(reg, m.jobErrors)
		m.ingested = register(reg, m.ingested)
		m.dropped = register(reg, m.dropped)
		m.llmCalls = register(reg, m.llmCalls)
		m.memories = register(reg, m.memories)
		m.archived = register(reg, m.archived)
		m.superseded = register(reg, m.superseded)
		m.reinforced = register(reg, m.reinforced)
		m.parked = register(reg, m.parked)
		m.yielded = register(reg, m.yielded)
		m.queueDepth = register(reg, m.queueDepth)
		m.tierGauge = register(reg, m.tierGauge)
		register(reg, prometheus.Collector(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: ns, Name: "llm_calls_per_ingested_turn", Help: "Consolidation model calls (real or would-be) per ingested turn of this process's first queue."}, m.callsPerTurn)))
	}
	return m
}

func (m *metrics) callsPerTurn() float64 {
	n := m.nIngested.Load()
	if n == 0 {
		return 0
	}
	return float64(m.nLLM.Load()+m.nWouldBe.Load()) / float64(n)
}

// LLMCalls is how many consolidation model calls this queue made (retries
// included).
func (q *Queue) LLMCalls() int64 { return q.met.nLLM.Load() }

// WouldBeLLMCalls is how many calls the extractive consolidator stood in
// for (no model configured): the figure a model would have cost.
func (q *Queue) WouldBeLLMCalls() int64 { return q.met.nWouldBe.Load() }

// IngestedTurns is how many turns this queue's ingest workers processed.
func (q *Queue) IngestedTurns() int64 { return q.met.nIngested.Load() }

// Failures is how many job attempts failed (errors and panics) and how
// many turns were parked after repeated failures, since the queue started.
func (q *Queue) Failures() (jobErrors, parkedTurns int64) {
	return q.met.nJobErrors.Load(), q.met.nParked.Load()
}

// Consolidations is how many clusters this queue consolidated.
func (q *Queue) Consolidations() int64 { return q.met.nConsolidations.Load() }

// register adds c to reg; when an equal collector is already there (a
// second Queue in one process: tests, or a replica in-process) it returns
// that one so both queues feed the same series.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	if err := reg.Register(c); err != nil {
		if are, ok := err.(prometheus.AlreadyRegisteredError); ok {
			if ex, ok := are.ExistingCollector.(C); ok {
				return ex
			}
		}
	}
	return c
}
