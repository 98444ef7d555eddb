// Package proxy is memproxy's HTTP front: an OpenAI-compatible reverse
// proxy (echo/v4) that resolves identity and A/B arm, lets a Rewriter add a
// memory section to chat requests, relays every upstream byte (streams event
// by event) and hands each finished chat turn to a TurnSink.
//
// The chat never breaks because of memory: a failing Rewriter or TurnSink
// degrades to plain pass-through, recorded in logs, metrics and headers.
package proxy

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
)

// Config configures a Server. Only Upstream is required.
type Config struct {
	// Upstream is the base URL of the OpenAI-compatible server, including
	// its /v1 (e.g. https://api.openai.com/v1). A request for /v1/X goes
	// to Upstream + /X.
	Upstream string
	// Policy supplies limits, timeouts, identity and A/B settings. Nil
	// means policy.Default().
	Policy *policy.Policy
	// Salt keys the bearer-token hash and the A/B assignment. Keep it
	// stable (stored in the database) so identities survive restarts.
	// Empty works but makes identities guessable.
	Salt string
	// Sink receives every finished chat turn of an ingesting arm. Nil
	// drops turns (nothing is learned).
	Sink TurnSink
	// Rewriter may add a memory section to chat requests of the on and
	// readonly arms. Nil means recall "skipped".
	Rewriter Rewriter
	// Observer is told every chat request's recall outcome; nil means
	// none.
	Observer Observer
	// Authenticator resolves memproxy client keys. Nil means none: then a
	// server holding its own UpstreamKey refuses every request (401).
	Authenticator Authenticator
	// UpstreamKey is memproxy's own upstream API key (read by the caller
	// from the environment variable policy upstream.api_key_env). When set,
	// callers must present a valid memproxy client key, and the key is
	// sent upstream in their place.
	UpstreamKey string
	// AdminToken lets a replay set X-Memproxy-Time (with the header
	// X-Memproxy-Admin-Token). Empty disables the replay clock.
	AdminToken string
	// Logger receives request problems; nil means slog.Default().
	Logger *slog.Logger
	// Registry receives the metrics; nil means a fresh registry. /metrics
	// serves it when it is also a prometheus.Gatherer.
	Registry prometheus.Registerer
	// Clock is "now"; nil means time.Now.
	Clock func() time.Time
	// Ready reports whether dependencies (store, queue) are ready for
	// /readyz; nil means always ready.
	Ready func(ctx context.Context) error
	// Transport overrides the upstream transport (tests); nil builds one
	// with the policy's connect and first-byte timeouts.
	Transport http.RoundTripper
	// AnthropicUpstream is the origin of the Anthropic Messages API
	// (e.g. https://api.anthropic.com, without /v1): /v1/messages and
	// every request carrying anthropic-version go there. Empty means the
	// origin of Upstream.
	AnthropicUpstream string
	// AnthropicKey is memproxy's own Anthropic key; when set, callers of
	// the Anthropic routes must present a memproxy client key (x-api-key
	// or Authorization: Bearer) and this key is sent in its place.
	AnthropicKey string
	// Chains links provider response ids to memproxy sessions for
	// Responses requests that continue a previous response; nil keeps
	// the links in memory (bounded).
	Chains ChainStore
	// Held keeps the turns of background Responses requests (answered
	// "queued") until the app fetches the completed response through
	// memproxy (GET /v1/responses/{id}). The background queue's holds them
	// in the turn spool every replica shares, so any replica captures the
	// fetched response, once, and a restart loses none; nil keeps them in
	// this process's memory and queues them through Sink.
	Held HeldTurns
	// Requests counts the requests in flight (every route but health and
	// metrics), so background work can pace itself while any runs, not
	// only while a recall does; nil counts nothing. *loadshed.Gauge
	// implements it.
	Requests RequestGauge
}

// RequestGauge counts requests in flight: Enter marks one started and
// returns the func that marks it done.
type RequestGauge interface {
	Enter() (leave func())
}

// HeldTurns keeps turns whose reply comes later (memory.HeldTurns; the
// background queue implements it with redaction and ingest wake-up).
type HeldTurns interface {
	HoldTurn(ctx context.Context, t *memory.Turn) error
	HeldTurn(ctx context.Context, s memory.Scope, responseID string) (*memory.Turn, bool, error)
	// ReleaseTurn queues the held turn with its reply; false when it was
	// not held any more (released elsewhere first).
	ReleaseTurn(ctx context.Context, t *memory.Turn) (bool, error)
}

// ChainStore keeps, per scope, the session and last exchange of each
// response id memproxy relayed, so a request naming previous_response_id
// (history kept at the provider) stays in its session and gets its
// context.
type ChainStore interface {
	LinkResponse(ctx context.Context, s memory.Scope, responseID string, l ChainLink) error
	ResolveResponse(ctx context.Context, s memory.Scope, responseID string) (l ChainLink, ok bool, err error)
}

// ChainLink is what a response id leads to.
type ChainLink struct {
	Session string `json:"session"`
	// Context is the exchange of that response (memory.ExchangeContext).
	Context string `json:"context,omitempty"`
}

// TurnSink durably queues a finished chat turn. It is called after the
// upstream finished and before the client's last bytes, bounded by policy
// server.sink_timeout; an error is logged and counted, never shown to the
// client.
type TurnSink interface {
	Enqueue(ctx context.Context, t *memory.Turn) error
}

// Rewriter decides recall for a chat request and may return a new messages
// array holding the memory section. It must not modify user messages.
type Rewriter interface {
	Rewrite(ctx context.Context, req *ChatRequest) (*Rewrite, error)
}

// Authenticator checks a memproxy client key (the bearer token). ok=false
// means the key is unknown; err means the check itself failed. user binds
// the caller to a memory user; allowNamedUsers lets the key's app name its
// end users with identity headers.
type Authenticator interface {
	Authenticate(ctx context.Context, bearer string) (user string, allowNamedUsers bool, ok bool, err error)
}

// ChatRequest is the neutral view of a request of any API (chat
// completion, response, Anthropic message) handed to the Rewriter.
type ChatRequest struct {
	// API names the wire format: APIChat, APIResponses or APIMessages.
	API       string
	RequestID string
	Scope     memory.Scope
	Session   string
	Arm       string
	Time      time.Time
	// Header holds the original request headers (X-Memproxy-* included).
	Header http.Header
	Model  string
	Stream bool
	// Messages are the request's messages in order (Responses: the
	// instructions as a system message, then the input items;
	// Anthropic: the system as a system message, then the messages).
	Messages []Message
}

// Message is one message of the neutral view. Role is user, assistant,
// system, developer or tool (a tool's output or result); other items
// keep their own type as role.
type Message struct {
	Role string
	// Tool marks tool activity: a call the assistant made or a result.
	Tool bool
	// Text is the message's text: the content string, or its text parts
	// joined with newlines.
	Text string
	// Raw is the whole message object (or item, or the instructions or
	// system value) exactly as the client sent it.
	Raw json.RawMessage
}

// Rewrite is a Rewriter's decision.
type Rewrite struct {
	// Section, when not empty, is the rendered memory section: the
	// proxy places it per policy inject.placement in the request's own
	// wire format (every other byte kept).
	Section string
	// Messages (chat only, when Section is empty), when non-nil, replaces the request's messages array (each
	// element a raw message object); every other top-level member of the
	// request stays byte-identical. Nil leaves the request unchanged.
	Messages []json.RawMessage
	// Status is the X-Memproxy-Recall value: injected, skipped, off or
	// error (empty means skipped).
	Status string
	// Memories is the number of memories injected.
	Memories int
	// Injected are the ids of the injected memories, kept with the turn.
	Injected []string
	// Intent is an explicit remember/forget detected in the request.
	Intent memory.Intent
	// Detail is the Rewriter's own record of the decision, handed back to
	// the Observer untouched.
	Detail any
	// SkipCapture says the turn carries nothing to learn (noise such as
	// "ok" with nothing injected): the sink is not called, so the
	// request does not wait for a queue commit.
	SkipCapture bool
}

// Observer sees the outcome of every chat request's recall decision, the
// arms that do not recall and fail-open errors included (the A/B report
// compares arms from it). It must not block.
type Observer interface {
	Observe(req *ChatRequest, rw *Rewrite, overhead time.Duration)
}

// Arms.
const (
	ArmOn        = "on"
	ArmOff       = "off"
	ArmReadonly  = "readonly"
	ArmWriteonly = "writeonly"
)

// Recall statuses (X-Memproxy-Recall).
const (
	RecallInjected = "injected"
	RecallSkipped  = "skipped"
	RecallOff      = "off"
	RecallError    = "error"
)

// Header names.
const (
	HeaderRequestID  = "X-Memproxy-Request-Id"
	HeaderArm        = "X-Memproxy-Arm"
	HeaderRecall     = "X-Memproxy-Recall"
	HeaderMemories   = "X-Memproxy-Memories"
	HeaderOverhead   = "X-Memproxy-Overhead-Ms"
	HeaderUser       = "X-Memproxy-User"
	HeaderNamespace  = "X-Memproxy-Namespace"
	HeaderSession    = "X-Memproxy-Session"
	HeaderMemory     = "X-Memproxy-Memory"
	HeaderTurnRef    = "X-Memproxy-Turn-Ref"
	HeaderTime       = "X-Memproxy-Time"
	HeaderAdminToken = "X-Memproxy-Admin-Token"
)
