// Package memory is memproxy's domain: the memory model (scopes, tiers, the
// memory record, turns, audit and recall records), the Store interfaces the
// backends implement, the scoring and decay math, and recall.
//
// Isolation is enforced here: every request-path and background operation
// takes a Scope, and there is no unscoped query on Store. Operator-wide reads
// live on the separate Admin interface.
package memory

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Scope is the isolation unit: every memory belongs to exactly one
// (user, namespace) pair.
type Scope struct {
	User      string `json:"user"`
	Namespace string `json:"namespace"`
}

// DefaultNamespace is used when a request names none.
const DefaultNamespace = "default"

// MaxScopePart bounds the length of a user or namespace in bytes.
const MaxScopePart = 256

// Common errors. Backends wrap them with %w so callers can use errors.Is.
var (
	ErrInvalidScope = errors.New("invalid scope")
	ErrNotFound     = errors.New("not found")
	ErrInvalid      = errors.New("invalid input")
	ErrDimension    = errors.New("wrong vector dimension")
	ErrClosed       = errors.New("store closed")
)

// Validate reports whether s names a user and a namespace of sane shape.
func (s Scope) Validate() error {
	if err := validPart("user", s.User); err != nil {
		return err
	}
	return validPart("namespace", s.Namespace)
}

func validPart(name, v string) error {
	switch {
	case v == "":
		return fmt.Errorf("%w: %s is empty", ErrInvalidScope, name)
	case len(v) > MaxScopePart:
		return fmt.Errorf("%w: %s longer than %d bytes", ErrInvalidScope, name, MaxScopePart)
	case !utf8.ValidString(v):
		return fmt.Errorf("%w: %s is not valid UTF-8", ErrInvalidScope, name)
	case strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return fmt.Errorf("%w: %s contains control characters", ErrInvalidScope, name)
	}
	return nil
}

func (s Scope) String() string { return s.User + "/" + s.Namespace }

// Tier is the layer a memory lives in.
type Tier string

const (
	// TierEvent is a raw turn (user text + reply): the cheap buffer.
	TierEvent Tier = "event"
	// TierEpisodic is a summary of what happened, with time and context.
	TierEpisodic Tier = "episodic"
	// TierSemantic is a durable fact, detached from the episode.
	TierSemantic Tier = "semantic"
	// TierProfile is a semantic fact injected on every request.
	TierProfile Tier = "profile"
)

// Tiers lists every tier, in rendering order.
var Tiers = []Tier{TierProfile, TierSemantic, TierEpisodic, TierEvent}

// Valid reports whether t is a known tier.
func (t Tier) Valid() bool {
	switch t {
	case TierEvent, TierEpisodic, TierSemantic, TierProfile:
		return true
	}
	return false
}

// Source says how a memory came to be.
type Source string

const (
	SourceExplicit     Source = "explicit"
	SourceExtracted    Source = "extracted"
	SourceConsolidated Source = "consolidated"
	SourceImported     Source = "imported"
	SourceAdmin        Source = "admin"
	SourceEvent        Source = "event" // a raw turn stored as an event
)

// Valid reports whether s is a known source.
func (s Source) Valid() bool {
	switch s {
	case SourceExplicit, SourceExtracted, SourceConsolidated, SourceImported, SourceAdmin, SourceEvent:
		return true
	}
	return false
}

// Provenance records where a memory came from.
type Provenance struct {
	// RequestIDs are the proxy request ids of the turns behind the memory.
	RequestIDs []string `json:"request_ids,omitempty"`
	// TurnRefs are client-supplied message ids (X-Memproxy-Turn-Ref); a
	// consolidated memory carries the union of its sources' refs.
	TurnRefs []string `json:"turn_refs,omitempty"`
	// MemoryIDs are the memories this one was derived from (events of a
	// consolidated cluster).
	MemoryIDs []string `json:"memory_ids,omitempty"`
	// Fact is the dated triple the memory was extracted as (subject,
	// attribute, value; the memory's ValidFrom/ValidTo date it), nil for
	// free text. It travels with the provenance, so both stores keep it,
	// and export and import carry it, without a schema change.
	Fact *Triple `json:"fact,omitempty"`
}

// Fact is the triple m states, nil for free text.
func (m *Memory) Fact() *Triple { return m.Provenance.Fact }

// Triple is a fact as (subject, attribute, value): ("user", "lives_in",
// "Lisbon"), ("sister", "name", "Anna"). Subjects and attributes are
// normalised (lowercase, underscores); the value keeps its case.
type Triple struct {
	Subject   string `json:"subject"`
	Attribute string `json:"attribute"`
	Value     string `json:"value"`
	// Multi: the attribute holds several values at once (uses, likes,
	// pets); a new value is added beside the others.
	Multi bool `json:"multi,omitempty"`
	// Ended: the statement is that the value stopped being true ("I quit
	// Acme"): it closes the live fact of that value.
	Ended bool `json:"ended,omitempty"`
	// Prior is the value the statement says this one replaced ("I
	// swapped my Brooks for Hokas": Brooks), "" when it names none.
	// Recall reads it: an older event that names the prior value says
	// what this fact replaced, so the fact ranks before it.
	Prior string `json:"prior,omitempty"`
}

// Key is the triple's slot, "subject.attribute".
func (t *Triple) Key() string { return t.Subject + "." + t.Attribute }

// Memory is one stored memory. Times are UTC; nil pointers mean "not set".
type Memory struct {
	ID         string     `json:"id"`
	Scope      Scope      `json:"scope"`
	Tier       Tier       `json:"tier"`
	Text       string     `json:"text"`
	Embedding  []float32  `json:"embedding,omitempty"`
	Value      float64    `json:"value"`      // 0..1: explicit/constraint > ordinary > chatter
	Confidence float64    `json:"confidence"` // 0..1
	Source     Source     `json:"source"`
	Provenance Provenance `json:"provenance"`
	// Key is the normalised subject/attribute key ("user.language"), used
	// for update-over-insert and history. Empty when unknown.
	Key string `json:"key,omitempty"`
	// Session is the conversation the memory came from, when known.
	Session string `json:"session,omitempty"`
	// Context is search-only text: what the memory was said in answer to
	// (an event's date and the exchange before it). Lexical search indexes
	// Text and Context together and embeddings are made from both, but only
	// Text is ever injected. A reply such as "yes, last weekend" carries
	// its topic words only in the message it answers.
	Context string `json:"context,omitempty"`
	// NoDecay exempts the memory from decay (explicit writes, profile).
	NoDecay bool `json:"no_decay,omitempty"`
	// API is the wire format of the turn the memory came from (chat,
	// responses, messages); empty for memories not made from a turn
	// (admin writes, imports without it) and those stored before it was
	// kept. Set once, when the memory is inserted.
	API string `json:"api,omitempty"`

	CreatedAt    time.Time  `json:"created_at"`
	LastUsedAt   time.Time  `json:"last_used_at"`
	Hits         int        `json:"hits"`
	ValidFrom    time.Time  `json:"valid_from"`
	ValidTo      *time.Time `json:"valid_to,omitempty"`
	SupersededBy string     `json:"superseded_by,omitempty"`
	ExpiresAt    *time.Time `json:"expires_at,omitempty"`
	ArchivedAt   *time.Time `json:"archived_at,omitempty"`
	// ConsolidatedAt marks an event folded into a consolidated memory.
	ConsolidatedAt *time.Time `json:"consolidated_at,omitempty"`
}

// Live reports whether m is recallable at t: not superseded, archived or
// expired.
func (m *Memory) Live(t time.Time) bool {
	return m.ValidTo == nil && m.ArchivedAt == nil && (m.ExpiresAt == nil || m.ExpiresAt.After(t))
}

// NewID returns a fresh random memory id (16 lowercase hex characters).
func NewID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// MaxAPIName bounds Memory.API in bytes.
const MaxAPIName = 32

// Validate checks a memory before it is written. dim is the store's
// embedding dimension (0 skips the check).
func (m *Memory) Validate(dim int) error {
	switch {
	case strings.TrimSpace(m.Text) == "":
		return fmt.Errorf("%w: memory text is empty", ErrInvalid)
	case !utf8.ValidString(m.Text):
		return fmt.Errorf("%w: memory text is not valid UTF-8", ErrInvalid)
	case !utf8.ValidString(m.Context):
		return fmt.Errorf("%w: memory context is not valid UTF-8", ErrInvalid)
	case !m.Tier.Valid():
		return fmt.Errorf("%w: unknown tier %q", ErrInvalid, m.Tier)
	case len(m.API) > MaxAPIName || strings.ContainsFunc(m.API, func(r rune) bool { return r <= ' ' || r >= 0x7f }):
		return fmt.Errorf("%w: api must be at most %d printable ASCII characters", ErrInvalid, MaxAPIName)
	case m.Source != "" && !m.Source.Valid():
		return fmt.Errorf("%w: unknown source %q", ErrInvalid, m.Source)
	case m.Value < 0 || m.Value > 1:
		return fmt.Errorf("%w: value %v outside [0,1]", ErrInvalid, m.Value)
	case m.Confidence < 0 || m.Confidence > 1:
		return fmt.Errorf("%w: confidence %v outside [0,1]", ErrInvalid, m.Confidence)
	case dim > 0 && m.Embedding != nil && len(m.Embedding) != dim:
		return fmt.Errorf("%w: embedding has %d dimensions, store expects %d", ErrDimension, len(m.Embedding), dim)
	}
	return nil
}

// Turn is one captured chat turn: the new user message(s) and the reply.
// It is what the proxy hands to the TurnSink and what the turn log keeps.
type Turn struct {
	// ID keys the turn from capture on (the spool sets it): ingest writes
	// the turn-log row and the turn's memories under it, so a retry writes
	// no duplicates.
	ID string `json:"id,omitempty"`
	// API is the wire format the turn came through: chat, responses or
	// messages (empty: chat, for turns recorded before it was kept).
	API       string `json:"api,omitempty"`
	RequestID string `json:"request_id"`
	// ResponseID is the upstream's id of the reply (Responses API), which a
	// later request's previous_response_id names (TurnSpool.SessionByResponse).
	ResponseID   string    `json:"response_id,omitempty"`
	Scope        Scope     `json:"scope"`
	Session      string    `json:"session,omitempty"`
	Time         time.Time `json:"time"`
	User         string    `json:"user"`      // new user message text(s), joined
	Assistant    string    `json:"assistant"` // assistant reply text (first choice)
	FinishReason string    `json:"finish_reason,omitempty"`
	Model        string    `json:"model,omitempty"`
	Arm          string    `json:"arm,omitempty"`
	// Refs are client message ids for this turn (X-Memproxy-Turn-Ref).
	Refs []string `json:"refs,omitempty"`
	// Injected are the ids of memories injected into this request, for
	// usage feedback.
	Injected []string `json:"injected,omitempty"`
	// Intent marks an explicit "remember" or "forget" the proxy detected.
	Intent Intent `json:"intent,omitempty"`
	// Context is the exchange before this turn in the same conversation
	// (the last user and assistant messages the client resent, or the
	// previous imported turn), kept short: ingest indexes it with the
	// turn's event so an answer is found by its question's words.
	Context string `json:"context,omitempty"`
	// Truncated says User or Assistant was cut to policy
	// ingest.max_turn_bytes when the turn was captured.
	Truncated bool `json:"truncated,omitempty"`
	// Attempts is how many times the spool handed the turn to a worker,
	// this claim included (TurnSpool.ClaimTurns sets it; not stored in
	// the turn itself).
	Attempts int `json:"-"`
}

// MaxTurnContext bounds Turn.Context in characters (runes).
const MaxTurnContext = 600

// EventUser is what the user said in an event memory's text: the part
// before the reply ("…\nAssistant: …").
func EventUser(eventText string) string {
	u, _, _ := strings.Cut(eventText, "\nAssistant:")
	return u
}

// ExchangeContext is how a previous exchange reads as a Turn.Context: the
// user's message, then "Assistant: " and the reply, cut so the whole
// stays within MaxTurnContext characters (each side keeps at least half
// when both are long). Empty when both are.
func ExchangeContext(user, assistant string) string {
	u := []rune(strings.TrimSpace(user))
	a := []rune(strings.TrimSpace(assistant))
	const half = MaxTurnContext / 2
	if len(u)+len(a) > MaxTurnContext {
		switch {
		case len(u) <= half:
			a = a[:MaxTurnContext-len(u)]
		case len(a) <= half:
			u = u[:MaxTurnContext-len(a)]
		default:
			u, a = u[:half], a[:half]
		}
	}
	switch {
	case len(a) == 0:
		return string(u)
	case len(u) == 0:
		return "Assistant: " + string(a)
	}
	return string(u) + "\nAssistant: " + string(a)
}

// EventExchange is the exchange an event's Context holds, without the
// line of the event's own date that ingest puts first (so the date's words
// find it): "" when there is none or a forget erased it.
func EventExchange(ctx string) string {
	ex := strings.TrimSpace(ctx)
	first, rest, _ := strings.Cut(ex, "\n")
	if _, err := time.Parse("2 January 2006", strings.TrimSpace(first)); err == nil {
		ex = strings.TrimSpace(rest)
	}
	if ex == ErasedText {
		// A forget erased it.
		return ""
	}
	return ex
}

// SearchText is what a memory is found by: its text and its search-only
// context, joined. Stores index its LexicalForm; embedders embed it.
func (m *Memory) SearchText() string {
	if m.Context == "" {
		return m.Text
	}
	return m.Text + "\n" + m.Context
}

// Intent is an explicit memory instruction detected in a user message.
type Intent string

const (
	IntentNone     Intent = ""
	IntentRemember Intent = "remember"
	IntentForget   Intent = "forget"
)

// AuditEntry records one mutation.
type AuditEntry struct {
	ID       int64     `json:"id"`
	Scope    Scope     `json:"scope"`
	Time     time.Time `json:"time"`
	Actor    string    `json:"actor"`  // background | explicit | admin | system
	Action   string    `json:"action"` // insert | update | supersede | archive | restore | delete | purge | forget_user | reinforce ...
	MemoryID string    `json:"memory_id,omitempty"`
	Before   string    `json:"before,omitempty"` // JSON snapshot or text, "" when none
	After    string    `json:"after,omitempty"`
	Detail   string    `json:"detail,omitempty"`
}

// RecallRecord is the per-request recall log row used by the A/B report and
// the request detail view.
type RecallRecord struct {
	// API is the wire format of the request (chat, responses, messages).
	API            string            `json:"api,omitempty"`
	RequestID      string            `json:"request_id"`
	Scope          Scope             `json:"scope"`
	Session        string            `json:"session,omitempty"`
	Time           time.Time         `json:"time"`
	Arm            string            `json:"arm"`
	Status         string            `json:"status"` // injected | skipped | off | error
	GateReason     string            `json:"gate_reason"`
	Injected       []string          `json:"injected,omitempty"` // ranked
	Candidates     []RankedCandidate `json:"candidates,omitempty"`
	InjectedTokens int               `json:"injected_tokens"`
	OverheadMs     float64           `json:"overhead_ms"`
	Feedback       *float64          `json:"feedback,omitempty"`
}

// RankedCandidate is one scored recall candidate with its score breakdown.
type RankedCandidate struct {
	ID        string   `json:"id"`
	Tier      Tier     `json:"tier"`
	Score     float64  `json:"score"`
	Sim       float64  `json:"sim"`
	Retention float64  `json:"retention"`
	Freq      float64  `json:"freq"`
	Value     float64  `json:"value"`
	Rank      int      `json:"rank"`
	Refs      []string `json:"refs,omitempty"`
	Injected  bool     `json:"injected"`
	Filtered  string   `json:"filtered,omitempty"` // why it was dropped, if it was
}

// Clone copies m deeply enough that changing the copy (its vector,
// provenance or times) cannot change the original.
func (m *Memory) Clone() *Memory {
	c := *m
	c.Embedding = slices.Clone(m.Embedding)
	c.Provenance.RequestIDs = slices.Clone(m.Provenance.RequestIDs)
	c.Provenance.TurnRefs = slices.Clone(m.Provenance.TurnRefs)
	c.Provenance.MemoryIDs = slices.Clone(m.Provenance.MemoryIDs)
	c.ValidTo = cloneTime(m.ValidTo)
	c.ExpiresAt = cloneTime(m.ExpiresAt)
	c.ArchivedAt = cloneTime(m.ArchivedAt)
	c.ConsolidatedAt = cloneTime(m.ConsolidatedAt)
	return &c
}

func cloneTime(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	c := *t
	return &c
}

// SearchCopy is what a store's search returns of a memory it keeps
// cached: the memory itself when the caller promised to only read it
// (SearchOptions.ReadOnly), else a Clone.
func SearchCopy(m *Memory, o SearchOptions) *Memory {
	if o.ReadOnly {
		return m
	}
	return m.Clone()
}
