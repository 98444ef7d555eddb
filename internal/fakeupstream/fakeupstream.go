// Package fakeupstream is an OpenAI-compatible (and Anthropic Messages
// compatible) server for tests and benchmarks: scripted chat, Responses
// and Messages replies (plain, streamed with delays or held on
// a channel, tool calls, errors with Retry-After), deterministic default
// replies, legacy completions (streamed too), embeddings and models. It is
// the only fake in memproxy's tests; everything else is real.
package fakeupstream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Reply scripts one chat completion answer. The zero Reply is a 200 with
// the deterministic default content.
type Reply struct {
	// Status is the HTTP status (0 means 200).
	Status int
	// Header holds extra response headers (Retry-After, x-request-id, …).
	Header http.Header
	// Body, when set, is written verbatim (Content-Type application/json)
	// and everything below is ignored.
	Body string
	// Error, when set, answers with OpenAI's error JSON carrying this
	// message (Status defaults to 500).
	Error string
	// ErrorType and ErrorCode fill the error's type and code.
	ErrorType, ErrorCode string

	// Content is the assistant text (empty: the default reply).
	Content string
	// Chunks are the streamed content pieces; nil splits Content at spaces.
	Chunks []string
	// ToolCalls are returned instead of / beside content.
	ToolCalls []ToolCall
	// FinishReason defaults to "stop", or "tool_calls" with ToolCalls.
	FinishReason string
	// Choices > 1 repeats the reply in that many choices.
	Choices int
	// Delay is waited before each streamed chunk.
	Delay time.Duration
	// Hold, when set, is waited on after the first streamed event is sent:
	// tests release it to prove the proxy relays without buffering.
	Hold <-chan struct{}
	// NoDone omits the final "data: [DONE]".
	NoDone bool
	// Cut breaks the connection, as a crashed or reset upstream does (no
	// clean end of the body): a stream after its Cut-th event, a scripted
	// Body after its first half. 0 ends replies cleanly.
	Cut int
	// OnStart is called with the upstream request before answering (tests
	// keep r.Context() to see cancellation).
	OnStart func(r *http.Request)
	// Polls is how many fetches (GET /v1/responses/{id}) of a background
	// response answer "in_progress" before it is completed.
	Polls int
}

// ToolCall is one function call in a reply.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// Request is a recorded request as the upstream saw it.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// Server is the fake. Create it with New; it is safe for concurrent use.
type Server struct {
	// Model is reported when the request names none.
	Model string
	// EmbeddingDim is the length of returned embeddings (0 means 8).
	EmbeddingDim int
	// Record keeps every request for Requests (off by default for
	// benchmarks that send millions).
	Record bool
	// EchoSystem adds the system text (Chat Completions' system and
	// developer messages, Responses' instructions, Messages' system) a
	// request carried to the default reply, so one can see what memproxy
	// injected.
	EchoSystem bool
	// Log, when set, receives one line per request with its body.
	Log io.Writer

	mu       sync.Mutex
	script   []Reply
	requests []Request
	stored   map[string]map[string]any // responses by id
	// polling are background responses still answering in_progress to
	// that many more fetches (Reply.Polls).
	polling map[string]int
	seq     int
	mux     *http.ServeMux
}

// New returns a fake that records requests.
func New() *Server {
	s := &Server{Model: "fake-model", Record: true, stored: map[string]map[string]any{}, polling: map[string]int{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/responses", s.responses)
	mux.HandleFunc("GET /v1/responses/{id}", s.getResponse)
	mux.HandleFunc("POST /v1/messages", s.messages)
	mux.HandleFunc("POST /v1/messages/count_tokens", s.countTokens)
	mux.HandleFunc("POST /v1/chat/completions", s.chat)
	mux.HandleFunc("POST /v1/completions", s.completions)
	mux.HandleFunc("POST /v1/embeddings", s.embeddings)
	mux.HandleFunc("GET /v1/models", s.models)
	mux.HandleFunc("GET /v1/models/{id}", s.model)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.record(r, nil)
		if r.Header.Get("Anthropic-Version") != "" {
			anthropicError(w, http.StatusNotFound, "not_found_error", "unknown path "+r.URL.Path)
			return
		}
		writeError(w, http.StatusNotFound, "unknown path "+r.URL.Path, "invalid_request_error", "not_found")
	})
	s.mux = mux
	return s
}

// Handler serves the OpenAI routes under /v1.
func (s *Server) Handler() http.Handler { return s.mux }

// Push appends scripted replies; each chat request consumes one, and the
// default reply answers when none is left.
func (s *Server) Push(r ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, r...)
}

// Requests returns a copy of the recorded requests.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Last returns the last recorded request (zero when none).
func (s *Server) Last() Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.requests) == 0 {
		return Request{}
	}
	return s.requests[len(s.requests)-1]
}

// bodies are request-body buffers lent while a request is read (readBody).
var bodies = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// readBody reads r's body; done returns its buffer once the body is no
// longer read. A body the fake keeps (Record, Log) is a copy of its own.
func (s *Server) readBody(r *http.Request) (body []byte, done func(), err error) {
	if s.Record || s.Log != nil {
		b, err := io.ReadAll(r.Body)
		return b, func() {}, err
	}
	buf := bodies.Get().(*bytes.Buffer)
	buf.Reset()
	if _, err := buf.ReadFrom(r.Body); err != nil {
		bodies.Put(buf)
		return nil, nil, err
	}
	return buf.Bytes(), func() { bodies.Put(buf) }, nil
}

func (s *Server) record(r *http.Request, body []byte) {
	if s.Log != nil {
		s.mu.Lock()
		fmt.Fprintf(s.Log, "%s %s %s\n", r.Method, r.URL.Path, body)
		s.mu.Unlock()
	}
	if !s.Record {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body})
}

func (s *Server) next() Reply {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.script) == 0 {
		return Reply{}
	}
	r := s.script[0]
	s.script = s.script[1:]
	return r
}

// chatRequest is what the fake reads from a chat request.
type chatRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	body, done, err := s.readBody(r)
	if err != nil {
		return
	}
	s.record(r, body)
	var req chatRequest
	err = json.Unmarshal(body, &req)
	done()
	if err != nil {
		writeError(w, http.StatusBadRequest, "invalid JSON: "+err.Error(), "invalid_request_error", "")
		return
	}
	rep := s.next()
	if rep.OnStart != nil {
		rep.OnStart(r)
	}
	if s.scriptedError(w, rep) {
		return
	}
	model := cmpOr(req.Model, s.Model)
	if rep.Content == "" && len(rep.ToolCalls) == 0 {
		system := ""
		if s.EchoSystem {
			system = systemText(req)
		}
		rep.Content = s.defaultReply(lastUserText(req), system)
	}
	if req.Stream {
		s.streamChat(w, r, rep, model, req.StreamOptions != nil && req.StreamOptions.IncludeUsage)
		return
	}
	writeJSON(w, rep.Header, completion(rep, model))
}

// scriptedError writes a raw body or an error reply; it reports whether it
// answered.
func (s *Server) scriptedError(w http.ResponseWriter, rep Reply) bool {
	for k, v := range rep.Header {
		w.Header()[k] = v
	}
	switch {
	case rep.Body != "":
		writeBody(w, rep)
		return true
	case rep.Error != "":
		writeError(w, cmpOr(rep.Status, http.StatusInternalServerError), rep.Error, cmpOr(rep.ErrorType, "server_error"), rep.ErrorCode)
		return true
	}
	return false
}

// DefaultReply is the deterministic answer to a user text.
func DefaultReply(user string) string {
	if user == "" {
		return "Hello from the fake upstream."
	}
	return "You said: " + user
}

// systemText is the text of a chat request's system and developer
// messages, joined.
func systemText(req chatRequest) string {
	var texts []string
	for _, m := range req.Messages {
		if m.Role == "system" || m.Role == "developer" {
			if t := contentText(m.Content); t != "" {
				texts = append(texts, t)
			}
		}
	}
	return strings.Join(texts, "\n")
}

func lastUserText(req chatRequest) string {
	for i := len(req.Messages) - 1; i >= 0; i-- {
		m := req.Messages[i]
		if m.Role != "user" {
			continue
		}
		return contentText(m.Content)
	}
	return ""
}

// contentText is a chat message's content as text: the string, or its
// text parts joined.
func contentText(c json.RawMessage) string {
	var s string
	if json.Unmarshal(c, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(c, &parts)
	var texts []string
	for _, p := range parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, " ")
}

// completionJSON is a chat completion as the fake writes it: typed, so a
// benchmark's fake (in the measured process) makes little garbage.
type completionJSON struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []choiceJSON `json:"choices"`
	Usage   struct {
		Prompt     int `json:"prompt_tokens"`
		Completion int `json:"completion_tokens"`
		Total      int `json:"total_tokens"`
	} `json:"usage"`
}

type choiceJSON struct {
	Index        int         `json:"index"`
	Message      messageJSON `json:"message"`
	FinishReason string      `json:"finish_reason"`
	Logprobs     *struct{}   `json:"logprobs"` // always null
}

type messageJSON struct {
	Role      string         `json:"role"`
	Content   *string        `json:"content"` // null when empty
	ToolCalls []toolCallJSON `json:"tool_calls,omitempty"`
}

type toolCallJSON struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func completion(rep Reply, model string) *completionJSON {
	msg := messageJSON{Role: "assistant"}
	if rep.Content != "" {
		msg.Content = &rep.Content
	}
	for _, tc := range rep.ToolCalls {
		c := toolCallJSON{ID: tc.ID, Type: "function"}
		c.Function.Name, c.Function.Arguments = tc.Name, tc.Arguments
		msg.ToolCalls = append(msg.ToolCalls, c)
	}
	out := &completionJSON{ID: "chatcmpl-fake", Object: "chat.completion", Created: 1700000000, Model: model}
	for i := range max(rep.Choices, 1) {
		out.Choices = append(out.Choices, choiceJSON{Index: i, Message: msg, FinishReason: finish(rep)})
	}
	out.Usage.Prompt, out.Usage.Completion, out.Usage.Total = 5, 7, 12
	return out
}

func finish(rep Reply) string {
	switch {
	case rep.FinishReason != "":
		return rep.FinishReason
	case len(rep.ToolCalls) > 0:
		return "tool_calls"
	}
	return "stop"
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func (s *Server) streamChat(w http.ResponseWriter, r *http.Request, rep Reply, model string, usage bool) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	chunk := func(choice int, delta map[string]any, fin any) map[string]any {
		return map[string]any{
			"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": model,
			"choices": []map[string]any{{"index": choice, "delta": delta, "finish_reason": fin}},
		}
	}
	var events []map[string]any
	for c := range max(rep.Choices, 1) {
		events = append(events, chunk(c, map[string]any{"role": "assistant", "content": ""}, nil))
		pieces := rep.Chunks
		if pieces == nil && rep.Content != "" {
			pieces = splitKeep(rep.Content)
		}
		for _, p := range pieces {
			events = append(events, chunk(c, map[string]any{"content": p}, nil))
		}
		for i, tc := range rep.ToolCalls {
			// Arguments arrive in two halves, as real servers split them.
			half := len(tc.Arguments) / 2
			events = append(events,
				chunk(c, map[string]any{"tool_calls": []map[string]any{{"index": i, "id": tc.ID, "type": "function", "function": map[string]any{"name": tc.Name, "arguments": tc.Arguments[:half]}}}}, nil),
				chunk(c, map[string]any{"tool_calls": []map[string]any{{"index": i, "function": map[string]any{"arguments": tc.Arguments[half:]}}}}, nil))
		}
		events = append(events, chunk(c, map[string]any{}, finish(rep)))
	}
	if usage {
		events = append(events, map[string]any{
			"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 1700000000, "model": model,
			"choices": []any{}, "usage": map[string]any{"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12},
		})
	}
	for i, ev := range events {
		if !s.pause(r, rep.Delay) {
			return
		}
		b, _ := json.Marshal(ev)
		if !sendEvent(w, rc, b) {
			return
		}
		cutAfter(rc, rep, i)
		if i == 0 && rep.Hold != nil {
			select {
			case <-rep.Hold:
			case <-r.Context().Done():
				return
			}
		}
	}
	if !rep.NoDone {
		sendEvent(w, rc, []byte("[DONE]"))
	}
}

// writeBody writes a scripted raw body (Content-Type application/json),
// cut after its first half when rep.Cut is set.
func writeBody(w http.ResponseWriter, rep Reply) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(cmpOr(rep.Status, http.StatusOK))
	if rep.Cut > 0 {
		_, _ = io.WriteString(w, rep.Body[:len(rep.Body)/2])
		cutAfter(http.NewResponseController(w), rep, rep.Cut-1)
	}
	_, _ = io.WriteString(w, rep.Body)
}

// cutAfter breaks the connection once event i (from 0) was sent, when
// rep.Cut says so: what was written is flushed, then the handler aborts
// (net/http closes the connection without ending the body).
func cutAfter(rc *http.ResponseController, rep Reply, i int) {
	if rep.Cut > 0 && i+1 == rep.Cut {
		_ = rc.Flush()
		panic(http.ErrAbortHandler)
	}
}

func (s *Server) pause(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return r.Context().Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

func sendEvent(w io.Writer, rc *http.ResponseController, data []byte) bool {
	var b bytes.Buffer
	b.WriteString("data: ")
	b.Write(data)
	b.WriteString("\n\n")
	if _, err := w.Write(b.Bytes()); err != nil {
		return false
	}
	return rc.Flush() == nil
}

// splitKeep splits s after each space, keeping the spaces, so the pieces
// concatenate back to s.
func splitKeep(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, ' ')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

func (s *Server) completions(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	s.record(r, body)
	var req struct {
		Model  string `json:"model"`
		Prompt string `json:"prompt"`
		Stream bool   `json:"stream"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid JSON", "invalid_request_error", "")
		return
	}
	text := DefaultReply(req.Prompt)
	model := cmpOr(req.Model, s.Model)
	mk := func(t string, fin any) map[string]any {
		return map[string]any{"id": "cmpl-fake", "object": "text_completion", "created": 1700000000, "model": model,
			"choices": []map[string]any{{"index": 0, "text": t, "finish_reason": fin, "logprobs": nil}}}
	}
	if !req.Stream {
		writeJSON(w, nil, mk(text, "stop"))
		return
	}
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	for _, p := range splitKeep(text) {
		b, _ := json.Marshal(mk(p, nil))
		if !sendEvent(w, rc, b) {
			return
		}
	}
	sendEvent(w, rc, []byte("[DONE]"))
}

func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	s.record(r, nil)
	writeJSON(w, nil, map[string]any{"object": "list", "data": []map[string]any{
		{"id": s.Model, "object": "model", "created": 1700000000, "owned_by": "fake"},
		{"id": "fake-embedding", "object": "model", "created": 1700000000, "owned_by": "fake"},
	}})
}

func (s *Server) model(w http.ResponseWriter, r *http.Request) {
	s.record(r, nil)
	writeJSON(w, nil, map[string]any{"id": r.PathValue("id"), "object": "model", "created": 1700000000, "owned_by": "fake"})
}

func writeJSON(w http.ResponseWriter, h http.Header, v any) {
	for k, vs := range h {
		w.Header()[k] = vs
	}
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

func writeError(w http.ResponseWriter, status int, msg, typ, code string) {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": nilIfEmpty(code)}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func cmpOr[T comparable](a, b T) T {
	var zero T
	if a != zero {
		return a
	}
	return b
}
