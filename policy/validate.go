package policy

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"
)

// Validate checks every value against its allowed range. The first problem
// is returned as an *Error naming the key path.
func (p *Policy) Validate() error {
	checks := []error{
		positiveInt("server.max_body_bytes", p.Server.MaxBodyBytes),
		positiveDur("server.connect_timeout", p.Server.ConnectTimeout),
		positiveDur("server.first_byte_timeout", p.Server.FirstByteTimeout),
		nonNegDur("server.shutdown_timeout", p.Server.ShutdownTimeout),
		positiveDur("server.sink_timeout", p.Server.SinkTimeout),
		positiveDur("server.sink_abandon_timeout", p.Server.SinkAbandonTimeout),
		positiveDur("server.read_header_timeout", p.Server.ReadHeaderTimeout),
		positiveDur("server.idle_timeout", p.Server.IdleTimeout),
		positiveInt("server.body_min_rate", p.Server.BodyMinRate),
		positiveDur("server.body_stall_timeout", p.Server.BodyStallTimeout),
		rangeInt("server.max_in_flight", p.Server.MaxInFlight, 1, 1000000),
		cidrs("server.trusted_proxies", p.Server.TrustedProxies),
		rangeInt("identity.session_messages", p.Identity.SessionMessages, 1, 20),
		oneOf("identity.anonymous", p.Identity.Anonymous, AnonymousNoMemory, AnonymousRefuse),
		rangeF("ab.off_percent", p.AB.OffPercent, 0, 100),
		oneOf("ab.unit", p.AB.Unit, "user", "session"),
		rangeF("gate.min_score", p.Gate.MinScore, 0, 1),
		rangeF("gate.forced_min_score", p.Gate.ForcedMinScore, 0, 1),
		rangeF("gate.local_min_score", p.Gate.LocalMinScore, 0, 1),
		rangeF("gate.adaptive.step_up", p.Gate.Adaptive.StepUp, 0, 0.5),
		rangeF("gate.adaptive.step_down", p.Gate.Adaptive.StepDown, 0, 0.5),
		rangeF("gate.adaptive.min", p.Gate.Adaptive.Min, 0, 1),
		rangeF("gate.adaptive.max", p.Gate.Adaptive.Max, p.Gate.Adaptive.Min, 1),
		rangeInt("gate.min_chars", p.Gate.MinChars, 0, 100),
		rangeInt("recall.top_k", p.Recall.TopK, 1, 100),
		rangeInt("recall.candidates", p.Recall.Candidates, 1, 1000),
		rangeF("recall.rrf_k", p.Recall.RRFK, 1, 1000),
		rangeF("recall.vector_weight", p.Recall.VectorWeight, 0.01, 10),
		rangeF("recall.local_vector_weight", p.Recall.LocalVectorWeight, 0.01, 10),
		rangeInt("recall.local_vector_candidates", p.Recall.LocalVectorCandidates, 0, 10000),
		rangeF("recall.phrase_weight", p.Recall.PhraseWeight, 0, 10),
		rangeF("recall.answer_weight", p.Recall.AnswerWeight, 0, 10),
		rangeF("recall.hyponym_weight", p.Recall.HyponymWeight, 0, 10),
		rangeF("recall.snippet_tokens", float64(p.Recall.SnippetTokens), 0, 100000),
		rangeF("recall.lead_tokens", float64(p.Recall.LeadTokens), 0, 100000),
		rangeF("recall.weights.similarity", p.Recall.Weights.Similarity, 0, 10),
		rangeF("recall.weights.recency", p.Recall.Weights.Recency, 0, 10),
		rangeF("recall.weights.frequency", p.Recall.Weights.Frequency, 0, 10),
		rangeF("recall.weights.value", p.Recall.Weights.Value, 0, 10),
		positiveDur("recall.timeout", p.Recall.Timeout),
		rangeInt("recall.profile_budget_tokens", p.Recall.ProfileBudgetTokens, 0, 100000),
		rangeInt("inject.budget_tokens", p.Inject.BudgetTokens, 1, 100000),
		oneOf("inject.placement", p.Inject.Placement, "system", "before_last_user"),
		nonEmpty("inject.guard", p.Inject.Guard),
		rangeF("ingest.used_threshold", p.Ingest.UsedThreshold, 0, 1),
		rangeInt("ingest.workers", p.Ingest.Workers, 1, 256),
		rangeInt("ingest.max_turn_bytes", p.Ingest.MaxTurnBytes, 1024, 16<<20),
		rangeInt("ingest.max_facts_per_turn", p.Ingest.MaxFactsPerTurn, 1, 100000),
		rangeF("ingest.yield.share", p.Ingest.Yield.Share, 0.05, 1),
		nonNegDur("ingest.yield.busy_window", p.Ingest.Yield.BusyWindow),
		positiveDur("ingest.yield.max_lag", p.Ingest.Yield.MaxLag),
		timeZone("ingest.time_zone", p.Ingest.TimeZone),
		optionalURL("consolidation.base_url", p.Consolidation.BaseURL),
		rangeInt("consolidation.cluster_min", p.Consolidation.ClusterMin, 2, 100),
		rangeF("consolidation.cluster_threshold", p.Consolidation.ClusterThreshold, 0, 1),
		rangeF("consolidation.local_cluster_threshold", p.Consolidation.LocalClusterThreshold, 0, 1),
		rangeInt("consolidation.max_calls_per_hour", p.Consolidation.MaxCallsPerHour, 0, 1000000),
		rangeInt("consolidation.retries", p.Consolidation.Retries, 0, 10),
		positiveDur("consolidation.timeout", p.Consolidation.Timeout),
		rangeF("reconcile.dup_threshold", p.Reconcile.DupThreshold, 0, 1),
		rangeF("reconcile.supersede_threshold", p.Reconcile.SupersedeThreshold, 0, 1),
		rangeF("reconcile.local_dup_threshold", p.Reconcile.LocalDupThreshold, 0, 1),
		rangeF("reconcile.local_supersede_threshold", p.Reconcile.LocalSupersedeThreshold, 0, 1),
		positiveDur("decay.interval", p.Decay.Interval),
		rangeF("decay.shape", p.Decay.Shape, 0.1, 5),
		nonNegDur("decay.half_life.event", p.Decay.HalfLife.Event),
		nonNegDur("decay.half_life.episodic", p.Decay.HalfLife.Episodic),
		nonNegDur("decay.half_life.semantic", p.Decay.HalfLife.Semantic),
		nonNegDur("decay.half_life.profile", p.Decay.HalfLife.Profile),
		rangeF("decay.boost_per_hit", p.Decay.BoostPerHit, 0, 10),
		rangeF("decay.max_boost", p.Decay.MaxBoost, 1, 100),
		rangeF("decay.low_value", p.Decay.LowValue, 0, 1),
		rangeF("decay.forget_below", p.Decay.ForgetBelow, 0, 1),
		positiveDur("decay.archive_retention", p.Decay.ArchiveRetention),
		positiveDur("decay.job_retention", p.Decay.JobRetention),
		positiveDur("sessions.idle", p.Sessions.Idle),
		rangeInt("sessions.min_turns", p.Sessions.MinTurns, 1, 1000),
		oneOf("embedder.provider", p.Embedder.Provider, "local", "openai"),
		rangeInt("embedder.dim", p.Embedder.Dim, 16, 4096),
		positiveInt("embedder.cache_size", p.Embedder.CacheSize),
		optionalURL("embedder.base_url", p.Embedder.BaseURL),
		rangeF("admin.rate_per_second", p.Admin.RatePerSecond, 0.1, 100000),
		rangeInt("admin.burst", p.Admin.Burst, 1, 100000),
		rangeInt("postgres.max_conns", p.Postgres.MaxConns, 2, 10000),
		rangeInt("postgres.background_max_conns", p.Postgres.BackgroundMaxConns, 1, 10000),
		rangeInt("postgres.river_max_conns", p.Postgres.RiverMaxConns, 2, 10000),
		positiveDur("postgres.connect_timeout", p.Postgres.ConnectTimeout),
		positiveDur("postgres.statement_timeout", p.Postgres.StatementTimeout),
		positiveDur("postgres.lock_timeout", p.Postgres.LockTimeout),
	}
	for _, err := range checks {
		if err != nil {
			return err
		}
	}
	if p.Embedder.Provider == "openai" && p.Embedder.Model == "" {
		return &Error{Key: "embedder.model", Msg: "required when embedder.provider is openai"}
	}
	if p.Consolidation.Model != "" && p.Consolidation.BaseURL == "" {
		return &Error{Key: "consolidation.base_url", Msg: "required when consolidation.model is set"}
	}
	return nil
}

func rangeF(key string, v, lo, hi float64) error {
	if v < lo || v > hi {
		return &Error{Key: key, Msg: fmt.Sprintf("%v is out of range: allowed %v to %v", v, lo, hi)}
	}
	return nil
}

func rangeInt(key string, v, lo, hi int) error {
	if v < lo || v > hi {
		return &Error{Key: key, Msg: fmt.Sprintf("%d is out of range: allowed %d to %d", v, lo, hi)}
	}
	return nil
}

func positiveInt(key string, v int64) error {
	if v <= 0 {
		return &Error{Key: key, Msg: fmt.Sprintf("%d must be greater than 0", v)}
	}
	return nil
}

func positiveDur(key string, d Duration) error {
	if d <= 0 {
		return &Error{Key: key, Msg: fmt.Sprintf("%s must be greater than 0", time.Duration(d))}
	}
	return nil
}

func nonNegDur(key string, d Duration) error {
	if d < 0 {
		return &Error{Key: key, Msg: "must not be negative"}
	}
	return nil
}

func oneOf(key, v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return &Error{Key: key, Msg: fmt.Sprintf("%q is not allowed: use one of %s", v, strings.Join(allowed, ", "))}
}

// cidrs checks that every entry is an IP address or a CIDR range.
func cidrs(key string, vs []string) error {
	for i, v := range vs {
		if _, err := ParseCIDR(v); err != nil {
			return &Error{Key: fmt.Sprintf("%s[%d]", key, i), Msg: err.Error()}
		}
	}
	return nil
}

// ParseCIDR reads an IP address ("10.0.0.1", a single host) or a CIDR
// range ("10.0.0.0/8").
func ParseCIDR(v string) (*net.IPNet, error) {
	v = strings.TrimSpace(v)
	if strings.Contains(v, "/") {
		_, n, err := net.ParseCIDR(v)
		if err != nil {
			return nil, fmt.Errorf("%q is not an IP address or CIDR range", v)
		}
		return n, nil
	}
	ip := net.ParseIP(v)
	if ip == nil {
		return nil, fmt.Errorf("%q is not an IP address or CIDR range", v)
	}
	bits := 128
	if ip4 := ip.To4(); ip4 != nil {
		ip, bits = ip4, 32
	}
	return &net.IPNet{IP: ip, Mask: net.CIDRMask(bits, bits)}, nil
}

func nonEmpty(key, v string) error {
	if strings.TrimSpace(v) == "" {
		return &Error{Key: key, Msg: "must not be empty"}
	}
	return nil
}

func optionalURL(key, v string) error {
	if v == "" {
		return nil
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return &Error{Key: key, Msg: fmt.Sprintf("%q is not an http(s) URL", v)}
	}
	return nil
}

// timeZone checks an IANA zone name ("" is UTC).
func timeZone(key, v string) error {
	if v == "" {
		return nil
	}
	if _, err := time.LoadLocation(v); err != nil {
		return fmt.Errorf("%s: unknown time zone %q", key, v)
	}
	return nil
}
