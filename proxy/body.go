package proxy

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/memproxy/memproxy/memory"
)

// chatBody is the part of a chat completion request the proxy reads. The
// body itself is kept as bytes; msgStart/msgEnd locate the messages value
// so a rewrite replaces exactly that range.
type chatBody struct {
	raw              []byte
	msgStart, msgEnd int
	Model            string
	Stream           bool
	User             string
	SafetyIdentifier string
	Messages         []Message
}

// parseChat decodes what the proxy needs from a chat completion body and
// rejects bad input with a 400 naming the field. It reads the body in
// place (gjson, no reflection): this is the hot path of every chat call.
func parseChat(body []byte) (*chatBody, error) {
	if !utf8.Valid(body) {
		return nil, badRequest("", "invalid_utf8", "request body is not valid UTF-8")
	}
	if err := checkDepth(body); err != nil {
		return nil, err
	}
	if !gjson.ValidBytes(body) {
		return nil, invalidJSON(body)
	}
	root := gjson.Parse(unsafe.String(unsafe.SliceData(body), len(body)))
	if !root.IsObject() {
		return nil, badRequest("", "invalid_json", "request body must be a JSON object")
	}
	// Value offsets (Index) count from root.Raw's start, or from the body's
	// when gjson already includes root.Index; base covers both.
	base := len(body) - len(root.Raw) - root.Index
	cb := &chatBody{raw: body, msgStart: -1}
	var msgs gjson.Result
	var err error
	root.ForEach(func(k, v gjson.Result) bool {
		switch k.Str {
		case "messages":
			msgs, cb.msgStart, cb.msgEnd = v, base+v.Index, base+v.Index+len(v.Raw)
		case "model":
			err = stringField(v, &cb.Model, "model")
		case "stream":
			switch v.Type {
			case gjson.True, gjson.False, gjson.Null:
				cb.Stream = v.Type == gjson.True
			default:
				err = badRequest("stream", "invalid_type", "invalid type for 'stream': expected a boolean")
			}
		case "user":
			err = stringField(v, &cb.User, "user")
		case "safety_identifier":
			err = stringField(v, &cb.SafetyIdentifier, "safety_identifier")
		}
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	if cb.msgStart < 0 {
		return nil, badRequest("messages", "missing_required_parameter", "missing required parameter: 'messages'")
	}
	if cb.Messages, err = parseMessages(body, base, msgs); err != nil {
		return nil, err
	}
	return cb, nil
}

func stringField(v gjson.Result, dst *string, name string) error {
	switch v.Type {
	case gjson.String:
		*dst = strings.Clone(v.Str)
	case gjson.Null:
	default:
		return badRequest(name, "invalid_type", fmt.Sprintf("invalid type for '%s': expected a string", name))
	}
	return nil
}

func parseMessages(body []byte, base int, msgs gjson.Result) ([]Message, error) {
	if !msgs.IsArray() {
		return nil, badRequest("messages", "invalid_type", "invalid type for 'messages': expected an array of message objects")
	}
	out := make([]Message, 0, 8)
	var err error
	msgs.ForEach(func(_, m gjson.Result) bool {
		param := "messages[" + strconv.Itoa(len(out)) + "]"
		if !m.IsObject() {
			err = badRequest(param, "invalid_type", fmt.Sprintf("invalid type for '%s': expected an object", param))
			return false
		}
		role, content := members2(m, "role", "content")
		if role.Type != gjson.String {
			if !role.Exists() {
				err = badRequest(param+".role", "missing_required_parameter", fmt.Sprintf("missing required parameter: '%s.role'", param))
			} else {
				err = badRequest(param+".role", "invalid_type", fmt.Sprintf("invalid type for '%s.role': expected a string", param))
			}
			return false
		}
		start := base + m.Index
		out = append(out, Message{
			Role: strings.Clone(role.Str),
			Text: contentText(content),
			Raw:  json.RawMessage(body[start : start+len(m.Raw) : start+len(m.Raw)]),
		})
		return true
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, badRequest("messages", "empty_array", "'messages' must not be empty")
	}
	return out, nil
}

// contentText returns a content string, or the text parts of a content
// array joined with newlines; other part types are ignored.
func contentText(c gjson.Result) string {
	switch {
	case c.Type == gjson.String:
		return strings.Clone(c.Str)
	case c.IsArray():
		var b strings.Builder
		c.ForEach(func(_, p gjson.Result) bool {
			typ, text := members2(p, "type", "text")
			if t := typ.Str; t != "text" && t != "input_text" {
				return true
			}
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(text.Str)
			return true
		})
		return b.String()
	}
	return ""
}

// splice returns body with the messages value replaced by msgs; all other
// bytes are unchanged.
func (cb *chatBody) splice(msgs []json.RawMessage) []byte {
	n := len(cb.raw) - (cb.msgEnd - cb.msgStart) + 2 + len(msgs)
	for _, m := range msgs {
		n += len(m)
	}
	out := make([]byte, 0, n)
	out = append(out, cb.raw[:cb.msgStart]...)
	out = append(out, '[')
	for i, m := range msgs {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, m...)
	}
	out = append(out, ']')
	return append(out, cb.raw[cb.msgEnd:]...)
}

// newUserText is the text of the trailing user messages (those after the
// last assistant message): the new turn, not the resent history.
// prevExchange is the exchange before the new user message(s): the last
// assistant message of the resent history and the user message(s) it
// answered, as memory.ExchangeContext. Ingest indexes it with the turn's
// event, so a reply is found by the words of what it answered. Empty when
// the conversation starts here.
func prevExchange(msgs []Message) string {
	i := len(msgs)
	for i > 0 && msgs[i-1].Role != "assistant" {
		i--
	}
	if i == 0 {
		return ""
	}
	reply := msgs[i-1].Text
	var parts []string
	for j := i - 2; j >= 0 && msgs[j].Role != "assistant"; j-- {
		if msgs[j].Role == "user" && msgs[j].Text != "" {
			parts = append([]string{msgs[j].Text}, parts...)
		}
	}
	return memory.ExchangeContext(strings.Join(parts, "\n"), reply)
}

func newUserText(msgs []Message) string {
	i := len(msgs)
	for i > 0 && msgs[i-1].Role != "assistant" {
		i--
	}
	var parts []string
	for _, m := range msgs[i:] {
		if m.Role == "user" && m.Text != "" {
			parts = append(parts, m.Text)
		}
	}
	return strings.Join(parts, "\n")
}
