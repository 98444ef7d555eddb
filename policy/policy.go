// Package policy holds every memproxy knob with its default, loads
// policy.yaml strictly (unknown keys, wrong types and out-of-range values
// stop start-up with the file, key path and line) and validates it once.
//
// The zero Policy is not useful; start from Default() and overlay a file
// with Load. The field comments are the user documentation; policy.yaml at
// the repository root mirrors Default() with a comment per key.
package policy

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Policy is the whole configuration.
type Policy struct {
	Server        Server        `yaml:"server"`
	Upstream      Upstream      `yaml:"upstream"`
	Identity      Identity      `yaml:"identity"`
	AB            AB            `yaml:"ab"`
	Gate          Gate          `yaml:"gate"`
	Recall        Recall        `yaml:"recall"`
	Inject        Inject        `yaml:"inject"`
	Explicit      Explicit      `yaml:"explicit"`
	Ingest        Ingest        `yaml:"ingest"`
	Consolidation Consolidation `yaml:"consolidation"`
	Reconcile     Reconcile     `yaml:"reconcile"`
	Decay         Decay         `yaml:"decay"`
	Sessions      Sessions      `yaml:"sessions"`
	Embedder      Embedder      `yaml:"embedder"`
	Admin         Admin         `yaml:"admin"`
	Postgres      Postgres      `yaml:"postgres"`
}

// Postgres bounds memproxy's connections to PostgreSQL
// (MEMPROXY_DATABASE_URL); unused with the embedded store.
type Postgres struct {
	// Three pools, sized separately so none takes another's connections:
	// MaxConns the request path's (recall, capture, the management API;
	// the search read gets a quarter more), BackgroundMaxConns the
	// background workers' (ingest, consolidation, decay), RiverMaxConns
	// the queue's (River). memproxy opens at most their sum plus the
	// quarter. Beyond its pool a request-path call waits as its deadline
	// allows (recall.timeout, server.sink_timeout), then fails open; a
	// background call waits its turn.
	MaxConns           int `yaml:"max_conns"`
	BackgroundMaxConns int `yaml:"background_max_conns"`
	RiverMaxConns      int `yaml:"river_max_conns"`
	// ConnectTimeout bounds opening a connection; StatementTimeout and
	// LockTimeout are set on every connection. A connection silent past
	// StatementTimeout + 5 s is dropped (a hung server or network).
	ConnectTimeout   Duration `yaml:"connect_timeout"`
	StatementTimeout Duration `yaml:"statement_timeout"`
	LockTimeout      Duration `yaml:"lock_timeout"`
}

// Server is the HTTP front.
type Server struct {
	// MaxBodyBytes bounds a request body; larger ones get 413.
	MaxBodyBytes int64 `yaml:"max_body_bytes"`
	// ConnectTimeout bounds dialing the upstream (502 on failure).
	ConnectTimeout Duration `yaml:"connect_timeout"`
	// FirstByteTimeout bounds the wait for upstream response headers (504).
	// Generous by default: reasoning models think for minutes.
	FirstByteTimeout Duration `yaml:"first_byte_timeout"`
	// ShutdownTimeout is how long in-flight streams may run after SIGTERM.
	ShutdownTimeout Duration `yaml:"shutdown_timeout"`
	// SinkTimeout bounds how long a reply's last bytes wait for the
	// queue to store its turn. Past it the reply goes on and the outcome
	// is awaited in the background up to SinkAbandonTimeout; only a turn
	// really not stored is logged and counted as not captured.
	SinkTimeout        Duration `yaml:"sink_timeout"`
	SinkAbandonTimeout Duration `yaml:"sink_abandon_timeout"`
	// ReadHeaderTimeout bounds reading a request's headers.
	ReadHeaderTimeout Duration `yaml:"read_header_timeout"`
	// IdleTimeout closes a keep-alive connection idle this long.
	IdleTimeout Duration `yaml:"idle_timeout"`
	// BodyMinRate and BodyStallTimeout cut slow request bodies on every
	// route (408, connection closed): a body must not stall longer than
	// BodyStallTimeout, and after that grace it must have arrived at
	// BodyMinRate bytes per second on average. A trickle is cut after
	// BodyStallTimeout; an honest slow upload passes.
	BodyMinRate      int64    `yaml:"body_min_rate"`
	BodyStallTimeout Duration `yaml:"body_stall_timeout"`
	// MaxInFlight caps concurrent requests (probes and metrics not
	// counted); beyond it a request gets 503 at once.
	MaxInFlight int `yaml:"max_in_flight"`
	// TrustedProxies are the addresses or CIDR ranges of reverse proxies
	// in front of memproxy whose X-Forwarded-For is believed (admin rate
	// limit, logs). Empty: the socket peer is the client.
	TrustedProxies []string `yaml:"trusted_proxies"`
}

// Upstream is the real OpenAI-compatible server.
type Upstream struct {
	// APIKeyEnv names an environment variable holding an upstream key used
	// only when the client sends no Authorization. When set, callers must
	// present a memproxy client key (never an open relay).
	APIKeyEnv string `yaml:"api_key_env"`
	// AnthropicAPIKeyEnv names an environment variable holding memproxy's
	// own Anthropic key, sent in place of the caller's on the Anthropic
	// routes; when set, those callers must present a memproxy client key.
	AnthropicAPIKeyEnv string `yaml:"anthropic_api_key_env"`
}

// Identity decides who a request belongs to.
type Identity struct {
	// TrustHeaders honours X-Memproxy-User, body user/safety_identifier and
	// UserHeaders. Set false when end users reach memproxy directly.
	TrustHeaders bool `yaml:"trust_headers"`
	// UserHeaders are headers chat UIs forward with the user id.
	UserHeaders []string `yaml:"user_headers"`
	// SessionMessages is how many leading messages identify a session when
	// no X-Memproxy-Session header is sent.
	SessionMessages int `yaml:"session_messages"`
	// Anonymous is what a chat request with no credential and no trusted
	// identity gets: "no_memory" (forwarded, no recall, nothing stored,
	// X-Memproxy-Reason: anonymous) or "refuse" (401). Such callers never
	// share one memory.
	Anonymous string `yaml:"anonymous"`
}

// Values of identity.anonymous.
const (
	AnonymousNoMemory = "no_memory"
	AnonymousRefuse   = "refuse"
)

// AB is the A/B assignment.
type AB struct {
	// OffPercent is the share (0-100) of units assigned to the "off" arm.
	OffPercent float64 `yaml:"off_percent"`
	// Unit is what is hashed for assignment: user or session.
	Unit string `yaml:"unit"`
	// OffArmIngests keeps learning from the off arm (recall only is off).
	OffArmIngests bool `yaml:"off_arm_ingests"`
}

// Gate decides whether a request needs recall.
type Gate struct {
	// MinScore is the starting score threshold for adaptive recall.
	MinScore float64 `yaml:"min_score"`
	// ForcedMinScore is the threshold when the user refers to the past
	// (a recall cue): they expect memory, so weaker matches are worth
	// showing behind the "ignore if irrelevant" guard.
	ForcedMinScore float64 `yaml:"forced_min_score"`
	// LocalMinScore replaces MinScore as the starting threshold with the
	// local hashed embedder: min_score judges a memory's own evidence,
	// max(cosine, term coverage), and a relevant memory's share of the
	// question's words often sits between 0.2 and 0.35 where a semantic
	// model's cosine would not. 0 uses MinScore.
	LocalMinScore float64 `yaml:"local_min_score"`
	// Adaptive moves the per-scope threshold with usage feedback.
	Adaptive Adaptive `yaml:"adaptive"`
	// MinChars: messages shorter than this (in characters) are noise.
	MinChars int `yaml:"min_chars"`
	// Acknowledgements are whole-message noise ("ok", "好的").
	Acknowledgements []string `yaml:"acknowledgements"`
	// Negations are bare refusals ("no", "不行").
	Negations []string `yaml:"negations"`
	// Laughter are laughter tokens; repeats of them are noise.
	Laughter []string `yaml:"laughter"`
	// Greetings are whole-message greetings.
	Greetings []string `yaml:"greetings"`
	// CommandPrefixes mark chat commands ("/x", "!x").
	CommandPrefixes []string `yaml:"command_prefixes"`
	// RecallCues force recall (case-insensitive substrings).
	RecallCues []string `yaml:"recall_cues"`
}

// Adaptive is the per-scope threshold controller.
type Adaptive struct {
	Enabled bool `yaml:"enabled"`
	// StepUp is added after an injected memory goes unused.
	StepUp float64 `yaml:"step_up"`
	// StepDown is subtracted after an injected memory is used.
	StepDown float64 `yaml:"step_down"`
	// Min and Max bound the threshold.
	Min float64 `yaml:"min"`
	Max float64 `yaml:"max"`
}

// Recall is search and scoring.
type Recall struct {
	// TopK is the most memories injected per request (profile excluded).
	TopK int `yaml:"top_k"`
	// Candidates is how many hits each search (vector, lexical) returns.
	Candidates int `yaml:"candidates"`
	// RRFK is the reciprocal-rank-fusion constant.
	RRFK float64 `yaml:"rrf_k"`
	// VectorWeight is the vector list's weight in the fusion (the lexical
	// list weighs 1) for semantic embedders; LocalVectorWeight is the same
	// for the local hashed embedder, which is itself lexical and weaker
	// than BM25 with IDF, so it only breaks ties.
	VectorWeight      float64 `yaml:"vector_weight"`
	LocalVectorWeight float64 `yaml:"local_vector_weight"`
	// LocalVectorCandidates is the vector search's length with the local
	// embedder (0: Candidates). Its list weighs LocalVectorWeight in the
	// fusion, so its tail barely moves a rank and each candidate costs a
	// row read and an exact re-score.
	LocalVectorCandidates int `yaml:"local_vector_candidates"`
	// PhraseWeight raises a candidate whose text holds the query's words
	// side by side ("support group", not "support" here and "group"
	// there): its fused score is multiplied by 1 + PhraseWeight × the
	// query's word pairs it holds (0: no boost).
	PhraseWeight float64 `yaml:"phrase_weight"`
	// AnswerWeight raises an event that answers a question about the
	// message's topic: the exchange before it ends by asking about the
	// message's rarer words ("… What's your favourite game?" before
	// "Catan, for sure!"). Its fused score is multiplied by 1 +
	// AnswerWeight (0: no boost).
	AnswerWeight float64 `yaml:"answer_weight"`
	// HyponymWeight is the weight in the fusion of a third, lexical,
	// search for the kinds and instances (WordNet hyponyms, package
	// lexicon) of the message's category words: "martial arts" also
	// searches karate and judo, "European countries" Spain and France.
	// A memory holding one counts it as the category's word. 0: no
	// expansion.
	HyponymWeight float64 `yaml:"hyponym_weight"`
	// EntityFirst selects the live facts about an entity the query names
	// (a person, pet, place, organisation or project, by name or alias)
	// before the other memories.
	EntityFirst bool `yaml:"entity_first"`
	// SnippetTokens: a selected memory longer than this can go in as a
	// compact form where the budget has no room left for it whole: its
	// sentences that bear on the message (those holding its rarer words,
	// each with the sentence after it), within what the budget leaves, the
	// rest marked "…". 0: memories go in whole or not at all.
	SnippetTokens int `yaml:"snippet_tokens"`
	// LeadTokens: once every selected memory went in, what the budget
	// leaves shows, before an event, the part of the exchange it answered
	// (its context) that bears on the message, at most this many tokens
	// an event, best-ranked first. 0: never.
	LeadTokens int `yaml:"lead_tokens"`
	// Weights of the score formula.
	Weights Weights `yaml:"weights"`
	// ProfileBudgetTokens is the separate budget for profile memories.
	ProfileBudgetTokens int `yaml:"profile_budget_tokens"`
	// ProfileAlways renders every profile memory before the recalled ones,
	// whatever the message. Off, a profile memory that shares no content
	// word with the message goes after the recalled memories, in what they
	// leave of the budget: it competes on relevance instead of taking the
	// block's first tokens on every request.
	ProfileAlways bool `yaml:"profile_always"`
	// PreferConsolidated leaves out events already consolidated.
	PreferConsolidated bool `yaml:"prefer_consolidated"`
	// Timeout bounds the whole recall decision of a request (profile,
	// gate state, embedding, search, rendering). Past it the request goes
	// upstream unchanged with X-Memproxy-Recall: timeout, a log line and
	// memproxy_recall_timeouts_total; a cold scope's index load goes on in
	// the background for the next request.
	Timeout Duration `yaml:"timeout"`
}

// Weights of score = sim·w_sim + retention·w_rec + min(1,hits/5)·w_freq + value·w_val.
type Weights struct {
	Similarity float64 `yaml:"similarity"`
	Recency    float64 `yaml:"recency"`
	Frequency  float64 `yaml:"frequency"`
	Value      float64 `yaml:"value"`
}

// Inject renders and places the memory block.
type Inject struct {
	// BudgetTokens bounds the block (CJK counted per character).
	BudgetTokens int `yaml:"budget_tokens"`
	// Placement: "system" appends to the first system/developer message (or
	// a new one at position 0); "before_last_user" inserts a system message
	// just before the last user message (keeps the prompt-cache prefix).
	Placement string `yaml:"placement"`
	// Guard is the text that opens the block.
	Guard string `yaml:"guard"`
}

// Explicit are "remember"/"forget" instructions.
type Explicit struct {
	RememberCues []string `yaml:"remember_cues"`
	ForgetCues   []string `yaml:"forget_cues"`
	// RememberNote and ForgetNote tell the model of that request what
	// memproxy is doing, so it can confirm.
	RememberNote string `yaml:"remember_note"`
	ForgetNote   string `yaml:"forget_note"`
	// ProfileCues route an explicit write to the profile tier.
	ProfileCues []string `yaml:"profile_cues"`
}

// Ingest is the background's first step.
type Ingest struct {
	// TurnLog keeps raw turns (switch off for minimal storage).
	TurnLog bool `yaml:"turn_log"`
	// Redact replaces secrets before anything is written (capture, admin
	// create and edit, import).
	Redact Redact `yaml:"redact"`
	// UsedThreshold: an injected memory counts as used when the reply's
	// similarity to it (or lexical overlap) reaches this.
	UsedThreshold float64 `yaml:"used_threshold"`
	// Workers is the number of concurrent ingest workers.
	Workers int `yaml:"workers"`
	// MaxTurnBytes caps the user text and the reply stored from one turn
	// (each cut at a character boundary, the turn marked truncated), and
	// the text of one message recall reads: a pasted 10 MB document
	// costs neither the request path nor the store more than this.
	MaxTurnBytes int `yaml:"max_turn_bytes"`
	// MaxFactsPerTurn caps the facts read from one turn, in the order it
	// says them (the turn's event keeps all of its text): each fact is
	// reconciled and stored, so a pasted list of hundreds costs the
	// background seconds.
	MaxFactsPerTurn int `yaml:"max_facts_per_turn"`
	// TimeZone is the users' IANA time zone ("Europe/Lisbon"): relative
	// dates in a turn ("yesterday", 上个月) resolve in it. Default UTC.
	TimeZone string `yaml:"time_zone"`
	// Yield paces the background while the request path is busy.
	Yield IngestYield `yaml:"yield"`
}

// IngestYield paces background work (ingest rounds, cluster checks,
// consolidation) while requests are running, so a small machine spends
// its cores on the request a user waits for.
type IngestYield struct {
	// Share is the part of wall time the background works while the
	// request path is busy (a request's memory work in flight, or one
	// ended within BusyWindow), one worker at a time: after each step it
	// pauses (1-Share)/Share times as long as the step took. 1 turns
	// pacing off.
	Share float64 `yaml:"share"`
	// BusyWindow is how long after its last request the request path
	// still counts as busy.
	BusyWindow Duration `yaml:"busy_window"`
	// MaxLag bounds the pacing: the share rises with the age of the
	// oldest turn being ingested, to 1 (no pauses, every worker) at
	// MaxLag, so a steady stream of requests never starves ingest.
	MaxLag Duration `yaml:"max_lag"`
}

// Redact lists what is scrubbed.
type Redact struct {
	Email bool `yaml:"email"`
	Phone bool `yaml:"phone"`
	// APIKey covers API keys, tokens, bearer credentials and private keys.
	APIKey bool `yaml:"api_key"`
	// Card covers payment card numbers (Luhn-valid 13–19 digits).
	Card bool `yaml:"card"`
}

// Consolidation turns repeated patterns into facts and summaries.
type Consolidation struct {
	// BaseURL and Model of an OpenAI-compatible model; empty Model uses the
	// extractive consolidator (offline).
	BaseURL string `yaml:"base_url"`
	Model   string `yaml:"model"`
	// APIKeyEnv names the environment variable with the model's key.
	APIKeyEnv string `yaml:"api_key_env"`
	// ClusterMin events (the new one included) trigger consolidation.
	ClusterMin int `yaml:"cluster_min"`
	// ClusterThreshold is the sibling similarity for semantic embedders.
	ClusterThreshold float64 `yaml:"cluster_threshold"`
	// LocalClusterThreshold is the same for the local hashed embedder.
	LocalClusterThreshold float64 `yaml:"local_cluster_threshold"`
	// MaxCallsPerHour caps LLM calls; the backlog waits, never dropped.
	MaxCallsPerHour int `yaml:"max_calls_per_hour"`
	// Retries on an invalid model answer before the job fails.
	Retries int `yaml:"retries"`
	// Timeout of one model call.
	Timeout Duration `yaml:"timeout"`
}

// Reconcile merges new facts with known ones.
type Reconcile struct {
	// DupThreshold: similarity at or above which a fact reinforces.
	DupThreshold float64 `yaml:"dup_threshold"`
	// SupersedeThreshold: similarity at or above which a fact with a change
	// cue supersedes.
	SupersedeThreshold float64 `yaml:"supersede_threshold"`
	// LocalDupThreshold and LocalSupersedeThreshold for the local embedder.
	LocalDupThreshold       float64 `yaml:"local_dup_threshold"`
	LocalSupersedeThreshold float64 `yaml:"local_supersede_threshold"`
	// ChangeCues mark a fact that replaces an older one.
	ChangeCues []string `yaml:"change_cues"`
}

// Decay is soft forgetting.
type Decay struct {
	// Interval of the periodic pass.
	Interval Duration `yaml:"interval"`
	// Shape s of r = 2^(-(age/h)^s): 1 exponential, 1.5 Weibull.
	Shape float64 `yaml:"shape"`
	// HalfLife per tier; 0 means no decay.
	HalfLife HalfLife `yaml:"half_life"`
	// BoostPerHit and MaxBoost: h_eff = h × min(MaxBoost, 1 + BoostPerHit·hits).
	BoostPerHit float64 `yaml:"boost_per_hit"`
	MaxBoost    float64 `yaml:"max_boost"`
	// LowValue: only memories with value below this are archived.
	LowValue float64 `yaml:"low_value"`
	// ForgetBelow: archive when value × retention falls below this.
	ForgetBelow float64 `yaml:"forget_below"`
	// ArchiveRetention: archived memories are purged after this.
	ArchiveRetention Duration `yaml:"archive_retention"`
	// JobRetention: completed queue rows (which hold raw turns) are pruned
	// after this.
	JobRetention Duration `yaml:"job_retention"`
}

// HalfLife per tier.
type HalfLife struct {
	Event    Duration `yaml:"event"`
	Episodic Duration `yaml:"episodic"`
	Semantic Duration `yaml:"semantic"`
	Profile  Duration `yaml:"profile"`
}

// Sessions are idle-session summaries.
type Sessions struct {
	// Idle is how long a session must be quiet before it is summarised.
	Idle Duration `yaml:"idle"`
	// MinTurns a session needs to be summarised.
	MinTurns int `yaml:"min_turns"`
}

// Embedder turns text into vectors.
type Embedder struct {
	// Provider: local (offline hashed features) or openai (any
	// OpenAI-compatible /embeddings endpoint).
	Provider string `yaml:"provider"`
	// Model and BaseURL for the openai provider.
	Model   string `yaml:"model"`
	BaseURL string `yaml:"base_url"`
	// APIKeyEnv names the environment variable with the embedding key.
	APIKeyEnv string `yaml:"api_key_env"`
	// Dim of the local embedder.
	Dim int `yaml:"dim"`
	// CacheSize is the number of cached embeddings.
	CacheSize int64 `yaml:"cache_size"`
}

// Admin is the management API.
type Admin struct {
	// RatePerSecond and Burst limit admin API calls per client.
	RatePerSecond float64 `yaml:"rate_per_second"`
	Burst         int     `yaml:"burst"`
}

// Duration is a time.Duration that reads "90s", "30m", "12h" and "30d".
type Duration time.Duration

// D returns the value as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// ParseDuration accepts Go durations plus a "d" (day) suffix.
func ParseDuration(s string) (Duration, error) {
	s = strings.TrimSpace(s)
	if n, ok := strings.CutSuffix(s, "d"); ok {
		f, err := strconv.ParseFloat(n, 64)
		if err != nil {
			return 0, fmt.Errorf("invalid duration %q", s)
		}
		return Duration(f * 24 * float64(time.Hour)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q (use e.g. 90s, 30m, 12h, 30d)", s)
	}
	return Duration(d), nil
}

func (d Duration) String() string {
	t := time.Duration(d)
	if t != 0 && t%(24*time.Hour) == 0 {
		return strconv.FormatInt(int64(t/(24*time.Hour)), 10) + "d"
	}
	return t.String()
}
