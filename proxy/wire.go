package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/tidwall/gjson"

	"github.com/memproxy/memproxy/inject"
)

// APIs memproxy gives memory to (ChatRequest.API, memory.Turn.API).
const (
	APIChat      = "chat"
	APIResponses = "responses"
	APIMessages  = "messages"
)

// wire is one API's adapter: pure functions between its bytes and the
// neutral conversation view the memory pipeline runs on.
type wire interface {
	api() string
	// parse reads a request body into the view, rejecting bad input
	// with a 400 naming the field.
	parse(body []byte) (*convo, error)
	// bodyReply rebuilds the reply from a non-streamed response body.
	bodyReply(body []byte) reply
	// stream returns a fresh reply builder for a streamed response.
	stream() streamReply
}

// convo is a parsed request: the neutral view plus what its adapter needs
// to splice the memory section back.
type convo struct {
	raw              []byte
	Model            string
	Stream           bool
	User             string
	SafetyIdentifier string
	// Messages is the neutral view, in order: roles user, assistant,
	// system, developer and tool (tool output and tool results); other
	// item kinds keep their own type as role and no text.
	Messages []Message
	// Previous is the provider-side history this request continues
	// (Responses previous_response_id), "" when none.
	Previous string
	// Conversation is the provider-side conversation this request belongs
	// to (Responses "conversation", an id or {"id": …}), "" when none.
	Conversation string
	// Background marks a Responses request run in the background.
	Background bool
	// Breakpoints counts cache_control markers inside Anthropic messages.
	Breakpoints int
	// place returns the body with section placed per placement; every
	// byte outside the carrying field is the client's.
	place func(section, placement string) ([]byte, error)
	// spliceMessages replaces a chat request's messages array (a
	// Rewriter that returns Rewrite.Messages); nil for other APIs.
	spliceMessages func(msgs []json.RawMessage) []byte
}

// reply is the assistant's answer rebuilt for capture.
type reply struct {
	Text   string
	Finish string
	Model  string
	// ID is the provider's id of the response (Responses: resp_...).
	ID string
	// OK says the reply is complete and worth capturing.
	OK bool
	// Pending says the response is not finished yet (a background
	// Responses request answered "queued"): it is captured when fetched.
	Pending bool
}

// streamReply rebuilds a reply from stream events, one data field at a
// time.
type streamReply interface {
	Add(data []byte)
	// Done reports that the terminal event was just added: the turn is
	// queued before that event is relayed.
	Done() bool
	Reply() reply
}

// parseRoot validates a request body and returns its root object and the
// offset to add to gjson's Index to get a body offset.
func parseRoot(body []byte) (gjson.Result, int, error) {
	if !utf8.Valid(body) {
		return gjson.Result{}, 0, badRequest("", "invalid_utf8", "request body is not valid UTF-8")
	}
	// Before any parser runs: gjson recurses per level, and a 16 MiB
	// body of "[" on /v1/responses or /v1/messages overflowed the stack
	// and killed the process.
	if err := checkDepth(body); err != nil {
		return gjson.Result{}, 0, err
	}
	if !gjson.ValidBytes(body) {
		return gjson.Result{}, 0, invalidJSON(body)
	}
	root := gjson.Parse(unsafe.String(unsafe.SliceData(body), len(body)))
	if !root.IsObject() {
		return gjson.Result{}, 0, badRequest("", "invalid_json", "request body must be a JSON object")
	}
	return root, len(body) - len(root.Raw) - root.Index, nil
}

// span is a byte range of a request body; start < 0 means absent.
type span struct{ start, end int }

func spanOf(base int, v gjson.Result) span { return span{base + v.Index, base + v.Index + len(v.Raw)} }

func (s span) ok() bool { return s.start >= 0 }

// splice returns raw with [s.start, s.end) replaced by repl.
func splice(raw []byte, s span, repl ...[]byte) []byte {
	n := len(raw) - (s.end - s.start)
	for _, r := range repl {
		n += len(r)
	}
	out := make([]byte, 0, n)
	out = append(out, raw[:s.start]...)
	for _, r := range repl {
		out = append(out, r...)
	}
	return append(out, raw[s.end:]...)
}

// addMember adds "key":value as the last member of the root object.
func addMember(raw []byte, key string, value []byte) []byte {
	end := bytes.LastIndexByte(raw, '}')
	head := bytes.TrimRight(raw[:end], " \t\r\n")
	var m []byte
	if !bytes.HasSuffix(head, []byte("{")) {
		m = append(m, ',')
	}
	m = append(m, inject.JSONString(key)...)
	m = append(m, ':')
	m = append(m, value...)
	return splice(raw, span{len(head), len(head)}, m)
}

// appendText is a string value with section added after a blank line.
func appendText(s, section string) []byte {
	if strings.TrimSpace(s) != "" {
		return inject.JSONString(s + "\n\n" + section)
	}
	return inject.JSONString(section)
}

// textBlock is {"type":T,"text":section}.
func textBlock(typ, section string) []byte {
	b := []byte(`{"type":"` + typ + `","text":`)
	b = append(b, inject.JSONString(section)...)
	return append(b, '}')
}

// partsText joins the text of content parts whose type is one of types.
func partsText(c gjson.Result, types ...string) string {
	if c.Type == gjson.String {
		return strings.Clone(c.Str)
	}
	if !c.IsArray() {
		return ""
	}
	var b strings.Builder
	c.ForEach(func(_, p gjson.Result) bool {
		typ, text := members2(p, "type", "text")
		for _, want := range types {
			if typ.Str == want {
				if b.Len() > 0 {
					b.WriteByte('\n')
				}
				b.WriteString(text.Str)
				break
			}
		}
		return true
	})
	return b.String()
}

// jsonData returns the parsed object of an event's data, ok false for
// anything else.
func jsonData(data []byte) (gjson.Result, bool) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || !validJSON(data) {
		return gjson.Result{}, false
	}
	ev := gjson.ParseBytes(data)
	return ev, ev.IsObject()
}

// validJSON reports that b is JSON memproxy may parse: valid and nested
// at most MaxJSONDepth deep. Replies and stream events are read with it,
// so a reply nested past the bound is relayed but not parsed (gjson
// recurses per level: a deep enough one would overflow the stack).
func validJSON(b []byte) bool {
	return checkDepth(b) == nil && gjson.ValidBytes(b)
}

// invalidJSON is the 400 for a body that is not JSON, saying where and
// why it is not (encoding/json's syntax error: its scanner does not
// recurse, and the depth was checked before), as the APIs themselves
// say it, rather than only that it is not.
func invalidJSON(body []byte) *APIError {
	msg := "request body is not valid JSON"
	var v struct{}
	var se *json.SyntaxError
	switch err := json.Unmarshal(body, &v); {
	case len(bytes.TrimSpace(body)) == 0:
		msg += ": the body is empty"
	case errors.As(err, &se):
		msg += fmt.Sprintf(": %s (at byte %d)", se.Error(), se.Offset)
	}
	return badRequest("", "invalid_json", msg)
}

// member is obj's value for key; members2 and members3 read several keys
// in one pass. A key that repeats reads its last value, as the
// providers' JSON parsers (and encoding/json) do; gjson's Get returns
// the first, so memproxy saw another role or content than the model did
// ({"role":"system","role":"user",…} was a system message to memproxy,
// a user message upstream) and placed the section in a value the
// upstream then ignored.
func member(obj gjson.Result, key string) gjson.Result {
	var v gjson.Result
	obj.ForEach(func(k, val gjson.Result) bool {
		if k.Str == key {
			v = val
		}
		return true
	})
	return v
}

func members2(obj gjson.Result, k1, k2 string) (v1, v2 gjson.Result) {
	obj.ForEach(func(k, val gjson.Result) bool {
		switch k.Str {
		case k1:
			v1 = val
		case k2:
			v2 = val
		}
		return true
	})
	return v1, v2
}

func members3(obj gjson.Result, k1, k2, k3 string) (v1, v2, v3 gjson.Result) {
	obj.ForEach(func(k, val gjson.Result) bool {
		switch k.Str {
		case k1:
			v1 = val
		case k2:
			v2 = val
		case k3:
			v3 = val
		}
		return true
	})
	return v1, v2, v3
}
