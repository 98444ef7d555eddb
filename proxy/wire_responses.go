package proxy

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/memproxy/memproxy/inject"
)

// responsesWire is the OpenAI Responses API adapter (/v1/responses). The
// section joins "instructions" (created if absent), or goes in a developer
// item before the last user item; "input" may be a string or items.
type responsesWire struct{}

func (responsesWire) api() string { return APIResponses }

func (responsesWire) parse(body []byte) (*convo, error) {
	root, base, err := parseRoot(body)
	if err != nil {
		return nil, err
	}
	cv := &convo{raw: body}
	instr, input := span{-1, -1}, span{-1, -1}
	var instrV, inputV gjson.Result
	root.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "model":
			err = stringField(v, &cv.Model, "model")
		case "stream":
			err = boolField(v, &cv.Stream, "stream")
		case "background":
			err = boolField(v, &cv.Background, "background")
		case "user":
			err = stringField(v, &cv.User, "user")
		case "safety_identifier":
			err = stringField(v, &cv.SafetyIdentifier, "safety_identifier")
		case "previous_response_id":
			err = stringField(v, &cv.Previous, "previous_response_id")
		case "conversation":
			err = conversationField(v, &cv.Conversation)
		case "instructions":
			instr, instrV = spanOf(base, v), v
		case "input":
			input, inputV = spanOf(base, v), v
		}
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	if instr.ok() {
		switch instrV.Type {
		case gjson.String, gjson.Null:
		default:
			if !instrV.IsArray() {
				return nil, badRequest("instructions", "invalid_type", "invalid type for 'instructions': expected a string")
			}
		}
		if t := instrV.Str; instrV.Type == gjson.String && t != "" {
			cv.Messages = append(cv.Messages, Message{Role: "system", Text: strings.Clone(t), Raw: body[instr.start:instr.end:instr.end]})
		}
	}
	lastUser := span{-1, -1}
	if input.ok() {
		switch {
		case inputV.Type == gjson.String:
			cv.Messages = append(cv.Messages, Message{Role: "user", Text: strings.Clone(inputV.Str), Raw: body[input.start:input.end:input.end]})
		case inputV.IsArray():
			i := 0
			inputV.ForEach(func(_, it gjson.Result) bool {
				param := "input[" + strconv.Itoa(i) + "]"
				i++
				if !it.IsObject() {
					err = badRequest(param, "invalid_type", fmt.Sprintf("invalid type for '%s': expected an object", param))
					return false
				}
				m := responsesItem(it)
				m.Raw = body[base+it.Index : base+it.Index+len(it.Raw) : base+it.Index+len(it.Raw)]
				if m.Role == "user" {
					lastUser = spanOf(base, it)
				}
				cv.Messages = append(cv.Messages, m)
				return true
			})
			if err != nil {
				return nil, err
			}
		case inputV.Type == gjson.Null:
		default:
			return nil, badRequest("input", "invalid_type", "invalid type for 'input': expected a string or an array of items")
		}
	}
	cv.place = func(section, placement string) ([]byte, error) {
		switch placement {
		case inject.PlacementSystem:
		case inject.PlacementBeforeLastUser:
			dev := append(append([]byte(`{"type":"message","role":"developer","content":`), inject.JSONString(section)...), '}')
			switch {
			case lastUser.ok():
				return splice(body, span{lastUser.start, lastUser.start}, dev, []byte(",")), nil
			case input.ok() && inputV.Type == gjson.String:
				// A string input becomes items only now that it must.
				user := append(append([]byte(`{"type":"message","role":"user","content":`), body[input.start:input.end]...), '}')
				return splice(body, input, []byte("["), dev, []byte(","), user, []byte("]")), nil
			}
		default:
			return nil, fmt.Errorf("%w %q", inject.ErrPlacement, placement)
		}
		switch {
		case !instr.ok():
			return addMember(body, "instructions", inject.JSONString(section)), nil
		case instrV.Type == gjson.String:
			return splice(body, instr, appendText(instrV.Str, section)), nil
		case instrV.Type == gjson.Null:
			return splice(body, instr, inject.JSONString(section)), nil
		}
		return nil, fmt.Errorf("instructions is not a string")
	}
	return cv, nil
}

// responsesItem reads one input item into the view. An item without a
// type that has a role is a message (the SDKs' "easy" input message).
func responsesItem(it gjson.Result) Message {
	typV, roleV, content := members3(it, "type", "role", "content")
	typ, role := typV.Str, roleV.Str
	if typ == "" && role != "" {
		typ = "message"
	}
	switch typ {
	case "message":
		return Message{Role: strings.Clone(role), Text: partsText(content, "input_text", "output_text", "text")}
	case "function_call", "custom_tool_call", "local_shell_call", "computer_call", "mcp_call":
		return Message{Role: "assistant", Tool: true}
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output", "computer_call_output", "mcp_approval_response":
		return Message{Role: "tool", Tool: true}
	}
	return Message{Role: strings.Clone(typ)}
}

func boolField(v gjson.Result, dst *bool, name string) error {
	switch v.Type {
	case gjson.True, gjson.False, gjson.Null:
		*dst = v.Type == gjson.True
		return nil
	}
	return badRequest(name, "invalid_type", fmt.Sprintf("invalid type for '%s': expected a boolean", name))
}

func (responsesWire) bodyReply(body []byte) reply {
	if !validJSON(body) {
		return reply{}
	}
	return responseObject(gjson.ParseBytes(body))
}

// responseObject reads a Response object: the text of its output messages
// (tool calls summarised when there is none), status and model.
func responseObject(r gjson.Result) reply {
	if r.Get("object").Str != "response" && !r.Get("output").IsArray() {
		return reply{}
	}
	rep := reply{ID: r.Get("id").Str, Model: r.Get("model").Str, Finish: r.Get("status").Str}
	var texts []string
	var calls []toolCall
	r.Get("output").ForEach(func(_, it gjson.Result) bool {
		switch it.Get("type").Str {
		case "message":
			if t := partsText(it.Get("content"), "output_text"); t != "" {
				texts = append(texts, t)
			} else if t := refusalText(it.Get("content")); t != "" {
				texts = append(texts, t)
			}
		case "function_call", "custom_tool_call":
			args := it.Get("arguments").Str
			if args == "" {
				args = it.Get("input").Str
			}
			calls = append(calls, toolCall{ID: it.Get("call_id").Str, Name: it.Get("name").Str, Arguments: args})
		}
		return true
	})
	rep.Text = strings.Join(texts, "\n")
	if rep.Text == "" && len(calls) > 0 {
		rep.Text = summariseCalls(calls)
	}
	switch rep.Finish {
	case "completed", "incomplete":
		rep.OK = true
	case "queued", "in_progress":
		rep.Pending = true
	}
	return rep
}

func refusalText(c gjson.Result) string {
	var b strings.Builder
	c.ForEach(func(_, p gjson.Result) bool {
		if p.Get("type").Str == "refusal" {
			b.WriteString(p.Get("refusal").Str)
		}
		return true
	})
	return b.String()
}

func (responsesWire) stream() streamReply { return &responsesStream{} }

// responsesStream rebuilds a streamed response from its events: text
// deltas per output item, function-call argument deltas, and the final
// response object of response.completed (or .incomplete / .failed), which
// is authoritative when it carries the output.
type responsesStream struct {
	id, model string
	texts     map[int]*strings.Builder
	calls     map[int]*toolCall
	final     *reply
	failed    bool
	done      bool
}

func (s *responsesStream) Add(data []byte) {
	ev, ok := jsonData(data)
	if !ok {
		return
	}
	s.done = false
	idx := int(ev.Get("output_index").Int())
	switch ev.Get("type").Str {
	case "response.created", "response.in_progress", "response.queued":
		s.id = ev.Get("response.id").Str
		s.model = ev.Get("response.model").Str
	case "response.output_text.delta", "response.refusal.delta":
		s.text(idx).WriteString(ev.Get("delta").Str)
	case "response.output_item.added", "response.output_item.done":
		it := ev.Get("item")
		if t := it.Get("type").Str; t == "function_call" || t == "custom_tool_call" {
			c := s.call(idx)
			c.ID, c.Name = it.Get("call_id").Str, it.Get("name").Str
			if a := it.Get("arguments"); a.Type == gjson.String && a.Str != "" {
				c.Arguments = a.Str
			}
		}
	case "response.function_call_arguments.delta", "response.custom_tool_call_input.delta":
		s.call(idx).Arguments += ev.Get("delta").Str
	case "response.function_call_arguments.done":
		if a := ev.Get("arguments"); a.Type == gjson.String {
			s.call(idx).Arguments = a.Str
		}
	case "response.completed", "response.incomplete":
		r := responseObject(ev.Get("response"))
		s.final, s.done = &r, true
	case "response.failed", "error":
		s.failed, s.done = true, true
	}
}

func (s *responsesStream) text(i int) *strings.Builder {
	if s.texts == nil {
		s.texts = map[int]*strings.Builder{}
	}
	b := s.texts[i]
	if b == nil {
		b = &strings.Builder{}
		s.texts[i] = b
	}
	return b
}

func (s *responsesStream) call(i int) *toolCall {
	if s.calls == nil {
		s.calls = map[int]*toolCall{}
	}
	c := s.calls[i]
	if c == nil {
		c = &toolCall{Index: i}
		s.calls[i] = c
	}
	return c
}

func (s *responsesStream) Done() bool { return s.done }

func (s *responsesStream) Reply() reply {
	if s.failed {
		return reply{ID: s.id, Model: s.model, Finish: "failed"}
	}
	if s.final != nil && s.final.Text != "" {
		r := *s.final
		r.ID, r.Model = cmpStr(r.ID, s.id), cmpStr(r.Model, s.model)
		return r
	}
	rep := reply{ID: s.id, Model: s.model}
	if s.final != nil {
		rep.ID, rep.Model, rep.Finish = cmpStr(s.final.ID, s.id), cmpStr(s.final.Model, s.model), s.final.Finish
	}
	var texts []string
	for _, i := range sortedKeys(s.texts) {
		if t := s.texts[i].String(); t != "" {
			texts = append(texts, t)
		}
	}
	rep.Text = strings.Join(texts, "\n")
	if rep.Text == "" && len(s.calls) > 0 {
		var calls []toolCall
		for _, i := range sortedKeys(s.calls) {
			calls = append(calls, *s.calls[i])
		}
		rep.Text = summariseCalls(calls)
	}
	rep.OK = s.final != nil && s.final.OK
	return rep
}

func sortedKeys[V any](m map[int]V) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}

func cmpStr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// conversationField reads Responses "conversation": an id, or an object
// with one.
func conversationField(v gjson.Result, dst *string) error {
	if v.IsObject() {
		v = member(v, "id")
		if !v.Exists() {
			return badRequest("conversation", "invalid_type", "invalid 'conversation': expected an id or an object with an id")
		}
	}
	return stringField(v, dst, "conversation")
}
