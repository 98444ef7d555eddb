package fakeupstream

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// messagesRequest is what the fake reads from an Anthropic Messages
// request.
type messagesRequest struct {
	Model    string          `json:"model"`
	Stream   bool            `json:"stream"`
	System   json.RawMessage `json:"system"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

// lastTurn is the text the fake answers, and whether the last message
// carries tool results.
func (q messagesRequest) lastTurn() (string, bool) {
	if n := len(q.Messages); n > 0 && q.Messages[n-1].Role == "user" {
		var blocks []struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(q.Messages[n-1].Content, &blocks) == nil {
			for _, b := range blocks {
				if b.Type == "tool_result" {
					return rawText(b.Content), true
				}
			}
		}
	}
	for i := len(q.Messages) - 1; i >= 0; i-- {
		if q.Messages[i].Role == "user" {
			return partText(q.Messages[i].Content, "text"), false
		}
	}
	return "", false
}

// toolResultsFirst checks Anthropic's rule that a user message's
// tool_result blocks come before any other block (the API answers 400
// otherwise); it returns the error message, "" when the request keeps it.
func (q messagesRequest) toolResultsFirst() string {
	for i, m := range q.Messages {
		var blocks []struct {
			Type string `json:"type"`
		}
		if m.Role != "user" || json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		other := false
		for j, b := range blocks {
			switch {
			case b.Type != "tool_result":
				other = true
			case other:
				return fmt.Sprintf("messages.%d.content.%d: tool_result blocks must come first in a user message's content, before any other block", i, j)
			}
		}
	}
	return ""
}

// anthropicError writes Anthropic's error shape.
func anthropicError(w http.ResponseWriter, status int, typ, msg string) {
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

func (s *Server) messages(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	s.record(r, body)
	if r.Header.Get("Anthropic-Version") == "" {
		anthropicError(w, http.StatusBadRequest, "invalid_request_error", "anthropic-version: header is required")
		return
	}
	var req messagesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		anthropicError(w, http.StatusBadRequest, "invalid_request_error", "invalid JSON: "+err.Error())
		return
	}
	if msg := req.toolResultsFirst(); msg != "" {
		anthropicError(w, http.StatusBadRequest, "invalid_request_error", msg)
		return
	}
	rep := s.next()
	if rep.OnStart != nil {
		rep.OnStart(r)
	}
	for k, v := range rep.Header {
		w.Header()[k] = v
	}
	switch {
	case rep.Body != "":
		writeBody(w, rep)
		return
	case rep.Error != "":
		anthropicError(w, cmpOr(rep.Status, http.StatusInternalServerError), cmpOr(rep.ErrorType, "api_error"), rep.Error)
		return
	}
	model := cmpOr(req.Model, s.Model)
	text, tool := req.lastTurn()
	firstTool := ""
	if len(req.Tools) > 0 {
		firstTool = req.Tools[0].Name
	}
	s.autoReply(&rep, text, tool, firstTool, "toolu_fake_1", partText(req.System, "text"))
	id := s.newID("msg")
	if req.Stream {
		s.streamMessage(w, r, rep, id, model)
		return
	}
	writeJSON(w, nil, messageObject(id, rep, model))
}

func stopReason(rep Reply) string {
	switch {
	case rep.FinishReason != "":
		return rep.FinishReason
	case len(rep.ToolCalls) > 0:
		return "tool_use"
	}
	return "end_turn"
}

func messageObject(id string, rep Reply, model string) map[string]any {
	content := []map[string]any{}
	if rep.Content != "" {
		content = append(content, map[string]any{"type": "text", "text": rep.Content})
	}
	for _, tc := range rep.ToolCalls {
		content = append(content, map[string]any{"type": "tool_use", "id": tc.ID, "name": tc.Name, "input": json.RawMessage(cmpOr(tc.Arguments, "{}"))})
	}
	return map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": model, "content": content,
		"stop_reason": stopReason(rep), "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 5, "output_tokens": 7},
	}
}

// streamMessage sends the documented event sequence: message_start, ping,
// per block content_block_start / deltas / stop, message_delta,
// message_stop.
func (s *Server) streamMessage(w http.ResponseWriter, r *http.Request, rep Reply, id, model string) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	type event struct {
		name string
		data map[string]any
	}
	var events []event
	ev := func(name string, kv ...any) {
		e := map[string]any{"type": name}
		for i := 0; i+1 < len(kv); i += 2 {
			e[kv[i].(string)] = kv[i+1]
		}
		events = append(events, event{name, e})
	}
	start := messageObject(id, Reply{}, model)
	start["content"], start["stop_reason"] = []any{}, nil
	start["usage"] = map[string]any{"input_tokens": 5, "output_tokens": 1}
	ev("message_start", "message", start)
	idx := 0
	if rep.Content != "" {
		ev("content_block_start", "index", idx, "content_block", map[string]any{"type": "text", "text": ""})
		ev("ping")
		pieces := rep.Chunks
		if pieces == nil {
			pieces = splitKeep(rep.Content)
		}
		for _, p := range pieces {
			ev("content_block_delta", "index", idx, "delta", map[string]any{"type": "text_delta", "text": p})
		}
		ev("content_block_stop", "index", idx)
		idx++
	}
	for _, tc := range rep.ToolCalls {
		args := cmpOr(tc.Arguments, "{}")
		ev("content_block_start", "index", idx, "content_block", map[string]any{"type": "tool_use", "id": tc.ID, "name": tc.Name, "input": map[string]any{}})
		half := len(args) / 2
		for _, d := range []string{args[:half], args[half:]} {
			ev("content_block_delta", "index", idx, "delta", map[string]any{"type": "input_json_delta", "partial_json": d})
		}
		ev("content_block_stop", "index", idx)
		idx++
	}
	ev("message_delta", "delta", map[string]any{"stop_reason": stopReason(rep), "stop_sequence": nil}, "usage", map[string]any{"output_tokens": 7})
	ev("message_stop")
	for i, e := range events {
		if !s.pause(r, rep.Delay) {
			return
		}
		b, _ := json.Marshal(e.data)
		if !sendNamedEvent(w, rc, e.name, b) {
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
}

func (s *Server) countTokens(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	s.record(r, body)
	writeJSON(w, nil, map[string]any{"input_tokens": len(strings.Fields(string(body)))})
}
