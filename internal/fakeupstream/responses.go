package fakeupstream

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// responsesRequest is what the fake reads from a Responses API request.
type responsesRequest struct {
	Model        string          `json:"model"`
	Stream       bool            `json:"stream"`
	Background   bool            `json:"background"`
	Instructions json.RawMessage `json:"instructions"`
	Input        json.RawMessage `json:"input"`
	Previous     *string         `json:"previous_response_id"`
	Tools        []struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tools"`
}

type responsesItem struct {
	Type    string          `json:"type"`
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	Output  json.RawMessage `json:"output"`
}

// lastTurn is the text the fake answers and whether the last input item
// is a tool output (then it answers with what the tool returned).
func (q responsesRequest) lastTurn() (text string, toolOutput bool) {
	var s string
	if json.Unmarshal(q.Input, &s) == nil {
		return s, false
	}
	var items []responsesItem
	_ = json.Unmarshal(q.Input, &items)
	if n := len(items); n > 0 && strings.HasSuffix(items[n-1].Type, "_output") {
		return rawText(items[n-1].Output), true
	}
	for i := len(items) - 1; i >= 0; i-- {
		if items[i].Role == "user" {
			return partText(items[i].Content, "input_text", "text"), false
		}
	}
	return "", false
}

// rawText is a JSON string's value, or the text parts of an array, or
// the raw JSON.
func rawText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	if t := partText(raw, "text", "input_text", "output_text"); t != "" {
		return t
	}
	return string(raw)
}

func partText(raw json.RawMessage, types ...string) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var texts []string
	for _, p := range parts {
		for _, t := range types {
			if p.Type == t {
				texts = append(texts, p.Text)
			}
		}
	}
	return strings.Join(texts, " ")
}

// ToolReply is the default answer after a tool returned out.
func ToolReply(out string) string { return "The tool returned: " + out }

// AutoToolArguments are the arguments of the call the fake makes by
// itself: when a Responses or Messages request offers tools and its last
// item is the user's, the fake calls the first tool with them.
func AutoToolArguments(user string) string {
	b, _ := json.Marshal(map[string]string{"query": user})
	return string(b)
}

func (s *Server) responses(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	s.record(r, body)
	var req responsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
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
	text, tool := req.lastTurn()
	firstTool := ""
	if len(req.Tools) > 0 {
		firstTool = req.Tools[0].Name
	}
	s.autoReply(&rep, text, tool, firstTool, "call_fake_1", rawText(req.Instructions))
	id := s.newID("resp")
	resp := s.responseObject(id, rep, model, req, "completed")
	if req.Background {
		s.mu.Lock()
		s.stored[id] = resp
		if rep.Polls > 0 {
			s.polling[id] = rep.Polls
		}
		s.mu.Unlock()
		writeJSON(w, rep.Header, s.responseObject(id, Reply{}, model, req, "queued"))
		return
	}
	s.mu.Lock()
	s.stored[id] = resp
	s.mu.Unlock()
	if req.Stream {
		s.streamResponse(w, r, rep, resp)
		return
	}
	writeJSON(w, rep.Header, resp)
}

func (s *Server) getResponse(w http.ResponseWriter, r *http.Request) {
	s.record(r, nil)
	id := r.PathValue("id")
	s.mu.Lock()
	resp, ok := s.stored[id]
	polls := s.polling[id]
	if polls > 0 {
		s.polling[id]--
	}
	s.mu.Unlock()
	if ok && polls > 0 {
		running := make(map[string]any, len(resp))
		for k, v := range resp {
			running[k] = v
		}
		running["status"], running["output"], running["usage"] = "in_progress", []any{}, nil
		writeJSON(w, nil, running)
		return
	}
	if !ok {
		writeError(w, http.StatusNotFound, "No response found with id '"+r.PathValue("id")+"'.", "invalid_request_error", "not_found")
		return
	}
	writeJSON(w, nil, resp)
}

func (s *Server) newID(prefix string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	return fmt.Sprintf("%s_fake%06d", prefix, s.seq)
}

// responseObject is a Response with rep's output ("queued" has none).
func (s *Server) responseObject(id string, rep Reply, model string, req responsesRequest, status string) map[string]any {
	output := []map[string]any{}
	if status == "completed" {
		output = responseOutput(id, rep)
	}
	var instr any
	if len(req.Instructions) > 0 {
		instr = json.RawMessage(req.Instructions)
	}
	var usage any
	if status == "completed" {
		usage = map[string]any{"input_tokens": 5, "output_tokens": 7, "total_tokens": 12,
			"input_tokens_details": map[string]any{"cached_tokens": 0}, "output_tokens_details": map[string]any{"reasoning_tokens": 0}}
	}
	return map[string]any{
		"id": id, "object": "response", "created_at": 1700000000, "status": status,
		"background": req.Background, "error": nil, "incomplete_details": nil,
		"instructions": instr, "model": model, "output": output, "parallel_tool_calls": true,
		"previous_response_id": req.Previous, "temperature": 1.0, "top_p": 1.0, "tool_choice": "auto",
		"tools": []any{}, "text": map[string]any{"format": map[string]any{"type": "text"}},
		"usage": usage, "metadata": map[string]any{},
	}
}

func responseOutput(id string, rep Reply) []map[string]any {
	var out []map[string]any
	if rep.Content != "" {
		out = append(out, messageItem(id, rep.Content, "completed"))
	}
	for i, tc := range rep.ToolCalls {
		out = append(out, callItem(id, i, tc, tc.Arguments, "completed"))
	}
	return out
}

func messageItem(id, text, status string) map[string]any {
	content := []map[string]any{}
	if status == "completed" {
		content = append(content, outputText(text))
	}
	return map[string]any{"type": "message", "id": "msg_" + strings.TrimPrefix(id, "resp_"), "status": status, "role": "assistant", "content": content}
}

func outputText(text string) map[string]any {
	return map[string]any{"type": "output_text", "text": text, "annotations": []any{}, "logprobs": []any{}}
}

func callItem(id string, i int, tc ToolCall, args, status string) map[string]any {
	return map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%s_%d", strings.TrimPrefix(id, "resp_"), i),
		"call_id": tc.ID, "name": tc.Name, "arguments": args, "status": status}
}

// streamResponse sends the documented event sequence of a streamed
// response: created, in_progress, per output item added / deltas / done,
// completed.
func (s *Server) streamResponse(w http.ResponseWriter, r *http.Request, rep Reply, final map[string]any) {
	rc := http.NewResponseController(w)
	for k, v := range rep.Header {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	id := final["id"].(string)
	start := map[string]any{}
	for k, v := range final {
		start[k] = v
	}
	start["status"], start["output"], start["usage"] = "in_progress", []any{}, nil
	seq := 0
	var events []map[string]any
	ev := func(typ string, kv ...any) {
		e := map[string]any{"type": typ, "sequence_number": seq}
		for i := 0; i+1 < len(kv); i += 2 {
			e[kv[i].(string)] = kv[i+1]
		}
		seq++
		events = append(events, e)
	}
	ev("response.created", "response", start)
	ev("response.in_progress", "response", start)
	idx := 0
	if rep.Content != "" {
		item := messageItem(id, rep.Content, "in_progress")
		itemID := item["id"]
		ev("response.output_item.added", "output_index", idx, "item", item)
		empty := outputText("")
		ev("response.content_part.added", "item_id", itemID, "output_index", idx, "content_index", 0, "part", empty)
		pieces := rep.Chunks
		if pieces == nil {
			pieces = splitKeep(rep.Content)
		}
		for _, p := range pieces {
			ev("response.output_text.delta", "item_id", itemID, "output_index", idx, "content_index", 0, "delta", p, "logprobs", []any{})
		}
		ev("response.output_text.done", "item_id", itemID, "output_index", idx, "content_index", 0, "text", rep.Content, "logprobs", []any{})
		ev("response.content_part.done", "item_id", itemID, "output_index", idx, "content_index", 0, "part", outputText(rep.Content))
		ev("response.output_item.done", "output_index", idx, "item", messageItem(id, rep.Content, "completed"))
		idx++
	}
	for i, tc := range rep.ToolCalls {
		item := callItem(id, i, tc, "", "in_progress")
		ev("response.output_item.added", "output_index", idx, "item", item)
		half := len(tc.Arguments) / 2
		for _, d := range []string{tc.Arguments[:half], tc.Arguments[half:]} {
			ev("response.function_call_arguments.delta", "item_id", item["id"], "output_index", idx, "delta", d)
		}
		ev("response.function_call_arguments.done", "item_id", item["id"], "output_index", idx, "arguments", tc.Arguments)
		ev("response.output_item.done", "output_index", idx, "item", callItem(id, i, tc, tc.Arguments, "completed"))
		idx++
	}
	ev("response.completed", "response", final)
	for i, e := range events {
		if !s.pause(r, rep.Delay) {
			return
		}
		b, _ := json.Marshal(e)
		if !sendNamedEvent(w, rc, e["type"].(string), b) {
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

// sendNamedEvent writes "event: name" and "data: ..." as one event.
func sendNamedEvent(w io.Writer, rc *http.ResponseController, name string, data []byte) bool {
	b := make([]byte, 0, len(data)+len(name)+16)
	b = append(b, "event: "...)
	b = append(b, name...)
	b = append(b, "\ndata: "...)
	b = append(b, data...)
	b = append(b, "\n\n"...)
	if _, err := w.Write(b); err != nil {
		return false
	}
	return rc.Flush() == nil
}

// defaultReply is DefaultReply, with the instructions or system text the
// request carried when EchoSystem is on.
func (s *Server) defaultReply(user, system string) string {
	out := DefaultReply(user)
	if s.EchoSystem && system != "" && system != "null" {
		out += "\n[system] " + system
	}
	return out
}

// autoReply fills an unscripted reply as both agent APIs do: after a tool
// result, a reply that quotes it; when the request offers a tool, a call
// of the first one (id callID); otherwise the default reply, which may
// echo the system text.
func (s *Server) autoReply(rep *Reply, text string, toolResult bool, firstTool, callID, system string) {
	if rep.Content != "" || len(rep.ToolCalls) > 0 {
		return
	}
	switch {
	case toolResult:
		rep.Content = ToolReply(text)
	case firstTool != "":
		rep.ToolCalls = []ToolCall{{ID: callID, Name: firstTool, Arguments: AutoToolArguments(text)}}
	default:
		rep.Content = s.defaultReply(text, system)
	}
}
