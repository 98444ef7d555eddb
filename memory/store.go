package memory

import (
	"context"
	"time"
)

// Candidate is one search hit with the backend's raw score: cosine
// similarity for vector search, a relevance score (higher is better) for
// lexical search.
type Candidate struct {
	Memory *Memory
	Score  float64
}

// SearchOptions narrows a candidate search.
type SearchOptions struct {
	// Limit is the number of candidates wanted (0 means 50).
	Limit int
	// At is "now" for the expiry filter (zero means time.Now()).
	At time.Time
	// Tiers restricts the tiers searched (nil means all).
	Tiers []Tier
	// IncludeDead also returns superseded, archived and expired memories.
	IncludeDead bool
	// ExcludeConsolidated leaves out events already folded into a
	// consolidated memory.
	ExcludeConsolidated bool
	// ReadOnly promises that the caller only reads the candidates (their
	// embeddings, provenance and times included), so a store may return
	// memories it shares with its caches instead of a copy of each. Recall
	// sets it: on SQLite, copying its ~100 candidates out of the row cache,
	// vectors included, was 40% of the bytes a recall allocated.
	ReadOnly bool
	// VectorLimit is the vector list's length when set (else Limit): a
	// list fused at a small weight needs fewer candidates.
	VectorLimit int
}

// State selects memories by lifecycle in List.
type State string

const (
	StateAny        State = ""
	StateLive       State = "live"
	StateSuperseded State = "superseded"
	StateArchived   State = "archived"
	StateExpired    State = "expired"
)

// ListFilter selects and pages memories of one scope. Results are ordered
// newest first (created_at desc, id desc); Cursor is the opaque Next of the
// previous page.
type ListFilter struct {
	Tiers  []Tier
	State  State
	At     time.Time // "now" for the live/expired states (zero: time.Now())
	Key    string    // exact subject/attribute key
	Query  string    // substring (case-insensitive) of text
	Source Source
	// Unconsolidated keeps only events not yet folded into a consolidation.
	Unconsolidated bool
	Session        string
	Since, Until   time.Time // created_at window, zero = open
	Limit          int       // 0 means 100
	Cursor         string
}

// Page is one page of a listing; Next is "" on the last page.
type Page[T any] struct {
	Data []T
	Next string
}

// DeleteCounts reports what a user deletion removed.
type DeleteCounts struct {
	Memories int `json:"memories"`
	Turns    int `json:"turns"`
	Audit    int `json:"audit"`
	Recall   int `json:"recall"`
	Other    int `json:"other"`
}

// Memories is the scoped memory table.
type Memories interface {
	// Insert writes new memories (ids, timestamps and defaults filled when
	// empty) in one transaction: all or none.
	Insert(ctx context.Context, s Scope, ms ...*Memory) error
	// Update rewrites a memory's mutable fields (everything but id, scope
	// and created_at).
	Update(ctx context.Context, s Scope, m *Memory) error
	Get(ctx context.Context, s Scope, id string) (*Memory, error)
	// GetMany returns the memories found among ids, in the order given.
	GetMany(ctx context.Context, s Scope, ids []string) ([]*Memory, error)
	List(ctx context.Context, s Scope, f ListFilter) (Page[*Memory], error)
	// History returns every memory with the key, oldest first, superseded
	// ones included.
	History(ctx context.Context, s Scope, key string) ([]*Memory, error)
	Delete(ctx context.Context, s Scope, id string) error

	VectorSearch(ctx context.Context, s Scope, vec []float32, o SearchOptions) ([]Candidate, error)
	LexicalSearch(ctx context.Context, s Scope, query string, o SearchOptions) ([]Candidate, error)
	// HybridSearch returns what VectorSearch and LexicalSearch return for
	// one query (HybridSearcher), however the store best runs the pair.
	HybridSearch(ctx context.Context, s Scope, vec []float32, query string, o SearchOptions) (byVector, byText []Candidate, err error)

	// Supersede marks old as replaced by newID at t (valid_to=t).
	Supersede(ctx context.Context, s Scope, oldID, newID string, t time.Time) error
	// Touch records an access: hits+1, last_used_at=t for every id.
	Touch(ctx context.Context, s Scope, ids []string, t time.Time) error
	// MarkConsolidated sets consolidated_at=t on the given events.
	MarkConsolidated(ctx context.Context, s Scope, ids []string, t time.Time) error
	Archive(ctx context.Context, s Scope, ids []string, t time.Time) error
	Restore(ctx context.Context, s Scope, ids []string) error
	// Purge deletes archived memories archived before t and memories
	// whose TTL expired before t; it returns how many went.
	Purge(ctx context.Context, s Scope, before time.Time) (int, error)
}

// TurnLog is the scoped raw-turn log.
type TurnLog interface {
	AppendTurn(ctx context.Context, t *Turn) error
	Turns(ctx context.Context, s Scope, f TurnFilter) (Page[*Turn], error)
}

// TurnFilter pages the turn log, oldest first.
type TurnFilter struct {
	Session string
	Since   time.Time
	Limit   int
	Cursor  string
}

// AuditLog is the scoped mutation log.
type AuditLog interface {
	AppendAudit(ctx context.Context, e *AuditEntry) error
	Audit(ctx context.Context, s Scope, since time.Time, limit int) ([]*AuditEntry, error)
}

// RecallLog is the scoped per-request recall log.
type RecallLog interface {
	AppendRecall(ctx context.Context, r *RecallRecord) error
	RecallByRequest(ctx context.Context, s Scope, requestID string) (*RecallRecord, error)
	// SetFeedback attaches an app's score to a request's recall row.
	SetFeedback(ctx context.Context, s Scope, requestID string, score float64) error
}

// GateState keeps the adaptive gate's per-scope threshold.
type GateState interface {
	// Threshold returns the stored threshold for s, ok=false when none.
	Threshold(ctx context.Context, s Scope) (v float64, ok bool, err error)
	SetThreshold(ctx context.Context, s Scope, v float64) error
}

// Store is everything the request path and the background need. Every
// method is scoped.
type Store interface {
	Memories
	TurnLog
	AuditLog
	RecallLog
	GateState
	// Dim is the embedding dimension the store was created with.
	Dim() int
	Close() error
}

// Admin is the operator-wide interface: reads across scopes for the
// management API and maintenance sweeps. Request-path code never gets one.
type Admin interface {
	// Users lists distinct users (with their namespaces), ordered by user.
	Users(ctx context.Context, limit int, cursor string) (Page[UserInfo], error)
	// Scopes lists every scope that holds memories (for decay sweeps).
	Scopes(ctx context.Context) ([]Scope, error)
	// DeleteUser removes everything of a user (in one namespace when ns is
	// not empty): memories, turns, recall log, audit content, gate state.
	DeleteUser(ctx context.Context, user, ns string) (DeleteCounts, error)
	// AuditAll reads the audit log across scopes (user "" = all users).
	AuditAll(ctx context.Context, user string, since time.Time, limit int) ([]*AuditEntry, error)
	// RecallSince reads recall rows across scopes for the A/B report.
	RecallSince(ctx context.Context, since time.Time) ([]*RecallRecord, error)
	// FindRecall finds a request's recall row without knowing its scope.
	FindRecall(ctx context.Context, requestID string) (*RecallRecord, error)
	// Meta reads and writes operator settings (salt, embedder identity).
	Meta(ctx context.Context, key string) (string, bool, error)
	// SetMetaIfAbsent stores v under key unless a value exists; it returns
	// the value in force.
	SetMetaIfAbsent(ctx context.Context, key, v string) (string, error)
}

// UserInfo is one row of the user listing.
type UserInfo struct {
	User       string   `json:"user"`
	Namespaces []string `json:"namespaces"`
	Memories   int      `json:"memories"`
}
