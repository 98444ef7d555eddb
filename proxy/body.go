package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
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
// rejects bad input with a 400 naming the field.
func parseChat(body []byte) (*chatBody, error) {
	if !utf8.Valid(body) {
		return nil, badRequest("", "invalid_utf8", "request body is not valid UTF-8")
	}
	cb := &chatBody{raw: body, msgStart: -1}
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, malformed(err, "request body must be a JSON object")
	}
	var msgs json.RawMessage
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, malformed(err, "")
		}
		key, _ := tok.(string)
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, malformed(err, "")
		}
		end := int(dec.InputOffset())
		switch key {
		case "messages":
			msgs, cb.msgStart, cb.msgEnd = val, end-len(val), end
		case "model":
			if err := decodeField(val, &cb.Model, "model", "a string"); err != nil {
				return nil, err
			}
		case "stream":
			if err := decodeField(val, &cb.Stream, "stream", "a boolean"); err != nil {
				return nil, err
			}
		case "user":
			if err := decodeField(val, &cb.User, "user", "a string"); err != nil {
				return nil, err
			}
		case "safety_identifier":
			if err := decodeField(val, &cb.SafetyIdentifier, "safety_identifier", "a string"); err != nil {
				return nil, err
			}
		}
	}
	if _, err := dec.Token(); err != nil { // closing brace
		return nil, malformed(err, "")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, badRequest("", "invalid_json", "request body has data after the JSON object")
	}
	if cb.msgStart < 0 {
		return nil, badRequest("messages", "missing_required_parameter", "missing required parameter: 'messages'")
	}
	var err error
	if cb.Messages, err = parseMessages(msgs); err != nil {
		return nil, err
	}
	return cb, nil
}

func malformed(err error, msg string) error {
	if msg == "" {
		msg = "request body is not valid JSON"
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
			msg += ": " + err.Error()
		}
	}
	return badRequest("", "invalid_json", msg)
}

func decodeField(val json.RawMessage, dst any, name, want string) error {
	if string(val) == "null" {
		return nil
	}
	if json.Unmarshal(val, dst) != nil {
		return badRequest(name, "invalid_type", fmt.Sprintf("invalid type for '%s': expected %s", name, want))
	}
	return nil
}

// wireMessage is one message as decoded for roles and text.
type wireMessage struct {
	Role    *string         `json:"role"`
	Content json.RawMessage `json:"content"`
}

func parseMessages(raw json.RawMessage) ([]Message, error) {
	var items []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return nil, badRequest("messages", "invalid_type", "invalid type for 'messages': expected an array of message objects")
	}
	if len(items) == 0 {
		return nil, badRequest("messages", "empty_array", "'messages' must not be empty")
	}
	out := make([]Message, len(items))
	for i, it := range items {
		param := fmt.Sprintf("messages[%d]", i)
		var wm wireMessage
		if it[0] != '{' || json.Unmarshal(it, &wm) != nil {
			return nil, badRequest(param, "invalid_type", fmt.Sprintf("invalid type for '%s': expected an object", param))
		}
		if wm.Role == nil {
			return nil, badRequest(param+".role", "missing_required_parameter", fmt.Sprintf("missing required parameter: '%s.role'", param))
		}
		out[i] = Message{Role: *wm.Role, Text: contentText(wm.Content), Raw: it}
	}
	return out, nil
}

// contentText returns a content string, or the text parts of a content
// array joined with newlines; other part types are ignored.
func contentText(c json.RawMessage) string {
	if len(c) == 0 {
		return ""
	}
	switch c[0] {
	case '"':
		var s string
		_ = json.Unmarshal(c, &s)
		return s
	case '[':
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		_ = json.Unmarshal(c, &parts)
		var b strings.Builder
		for _, p := range parts {
			if p.Type != "text" && p.Type != "input_text" {
				continue
			}
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(p.Text)
		}
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
