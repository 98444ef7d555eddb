package inject

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Placements of the memory section (policy inject.placement).
const (
	// PlacementSystem appends the section to the first system or developer
	// message, or inserts a system message at position 0. Every chat
	// server accepts it.
	PlacementSystem = "system"
	// PlacementBeforeLastUser inserts a system message just before the
	// last user message, so every earlier message, and with it the
	// provider's prompt-cache prefix, stays the same from turn to turn.
	PlacementBeforeLastUser = "before_last_user"
)

// ErrPlacement is returned for an unknown placement.
var ErrPlacement = errors.New("unknown placement")

// Apply places section in messages (the raw elements of a chat request's
// "messages" array) and returns the new array. Only one message is added
// or changed; every other element is the caller's bytes, untouched, and
// user messages are never modified. An empty section returns messages as
// they are. With PlacementBeforeLastUser and no user message, Apply falls
// back to PlacementSystem.
//
// Appending to a system message keeps the message's other fields and
// their order: a string content gets "\n\n" + section; a content-part
// array gets one more text part; a null or missing content becomes the
// section.
func Apply(messages []json.RawMessage, section, placement string) ([]json.RawMessage, error) {
	if placement != PlacementSystem && placement != PlacementBeforeLastUser {
		return nil, fmt.Errorf("%w %q: use %q or %q", ErrPlacement, placement, PlacementSystem, PlacementBeforeLastUser)
	}
	if section == "" {
		return messages, nil
	}
	firstSys, lastUser := -1, -1
	for i, raw := range messages {
		role, err := roleOf(raw)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		switch role {
		case "system", "developer":
			if firstSys < 0 {
				firstSys = i
			}
		case "user":
			lastUser = i
		}
	}
	if placement == PlacementBeforeLastUser && lastUser >= 0 {
		return insert(messages, lastUser, systemMessage(section)), nil
	}
	if firstSys < 0 {
		return insert(messages, 0, systemMessage(section)), nil
	}
	changed, err := appendSection(messages[firstSys], section)
	if err != nil {
		return nil, fmt.Errorf("message %d: %w", firstSys, err)
	}
	out := make([]json.RawMessage, len(messages))
	copy(out, messages)
	out[firstSys] = changed
	return out, nil
}

// roleOf reads a message's role; a repeated key is read by its last value,
// as the providers' parsers (and encoding/json) read it. Chat clients put
// "role" first, once, so the common shape is read directly; anything else
// (a "role" further on, even inside a string) is decoded in full.
func roleOf(raw json.RawMessage) (string, error) {
	const head = `{"role":"`
	b := bytes.TrimLeft(raw, " \t\r\n")
	if bytes.HasPrefix(b, []byte(head)) {
		rest := b[len(head):]
		if end := bytes.IndexByte(rest, '"'); end >= 0 && bytes.IndexByte(rest[:end], '\\') < 0 &&
			!bytes.Contains(rest[end:], []byte(`"role"`)) {
			return string(rest[:end]), nil
		}
	}
	var m struct {
		Role string `json:"role"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return "", err
	}
	return m.Role, nil
}

func insert(ms []json.RawMessage, at int, m json.RawMessage) []json.RawMessage {
	out := make([]json.RawMessage, 0, len(ms)+1)
	out = append(out, ms[:at]...)
	out = append(out, m)
	return append(out, ms[at:]...)
}

func systemMessage(section string) json.RawMessage {
	b := []byte(`{"role":"system","content":`)
	b = append(b, encodeString(section)...)
	return append(b, '}')
}

// appendSection adds section to a system message's content, rewriting only
// the bytes of the content value.
func appendSection(raw json.RawMessage, section string) (json.RawMessage, error) {
	start, end, found, err := fieldSpan(raw, "content")
	if err != nil {
		return nil, err
	}
	if !found {
		// Add the field before the closing brace.
		brace := bytes.LastIndexByte(raw, '}')
		body := bytes.TrimSpace(raw[:brace])
		var b []byte
		b = append(b, body...)
		if !bytes.Equal(body, []byte("{")) {
			b = append(b, ',')
		}
		b = append(b, `"content":`...)
		b = append(b, encodeString(section)...)
		b = append(b, raw[brace:]...)
		return b, nil
	}
	val := raw[start:end]
	var repl []byte
	switch val[0] {
	case '"':
		var s string
		if err := json.Unmarshal(val, &s); err != nil {
			return nil, fmt.Errorf("content: %w", err)
		}
		if s != "" {
			s += "\n\n"
		}
		repl = encodeString(s + section)
	case '[':
		arr := bytes.TrimRight(val, " \t\r\n")
		arr = bytes.TrimSpace(arr[:len(arr)-1]) // without "]"
		repl = append(repl, arr...)
		text := section
		if !bytes.Equal(arr, []byte("[")) {
			repl = append(repl, ',')
			text = "\n\n" + section
		}
		repl = append(repl, `{"type":"text","text":`...)
		repl = append(repl, encodeString(text)...)
		repl = append(repl, "}]"...)
	case 'n':
		repl = encodeString(section)
	default:
		return nil, fmt.Errorf("content is neither a string nor an array")
	}
	out := make([]byte, 0, len(raw)+len(repl)-len(val))
	out = append(out, raw[:start]...)
	out = append(out, repl...)
	return append(out, raw[end:]...), nil
}

// fieldSpan finds the byte span of the value of key in a JSON object (the
// last one if the key repeats, as decoders keep the last).
func fieldSpan(raw []byte, key string) (start, end int, found bool, err error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return 0, 0, false, fmt.Errorf("message: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return 0, 0, false, errors.New("message is not a JSON object")
	}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return 0, 0, false, fmt.Errorf("message: %w", err)
		}
		off := int(dec.InputOffset())
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return 0, 0, false, fmt.Errorf("message: %w", err)
		}
		if k, _ := kt.(string); k == key {
			s := off
			for s < len(raw) && (raw[s] == ' ' || raw[s] == '\t' || raw[s] == '\r' || raw[s] == '\n' || raw[s] == ':') {
				s++
			}
			start, end, found = s, int(dec.InputOffset()), true
		}
	}
	return start, end, found, nil
}

// encodeString is the JSON string of s without HTML escaping, so the fence
// reads "<memory>" in the request rather than "\u003cmemory\u003e".
func encodeString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// JSONString is the JSON string of s as the placements write it: without
// HTML escaping, so the fence reads "<memory>" in every wire format.
func JSONString(s string) []byte { return encodeString(s) }
