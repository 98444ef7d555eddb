package proxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sort"
	"strings"

	"github.com/tidwall/gjson"
)

// sseReader splits a server-sent-event stream into events without changing
// a byte: Next returns each event's raw bytes (its lines and the blank line
// ending it) and its data field.
type sseReader struct {
	r   *bufio.Reader
	buf []byte
	// max, when positive, bounds the bytes held of one event: past it
	// Next returns what it holds with errEventTooLong, and the event's
	// rest comes as further events.
	max int64
}

// errEventTooLong says an event was longer than sseReader.max: its bytes
// so far are returned, not its data.
var errEventTooLong = errors.New("server-sent event longer than memproxy reads")

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 32<<10)}
}

// Next returns the next event. At the end of the stream it returns the
// trailing bytes (if any) as a last event with err == io.EOF; raw is only
// valid until the next call.
func (s *sseReader) Next() (raw, data []byte, err error) {
	s.buf = s.buf[:0]
	for {
		line, err := s.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			s.buf = append(s.buf, line...)
			if s.max > 0 && int64(len(s.buf)) > s.max {
				return s.buf, nil, errEventTooLong
			}
			continue
		}
		start := len(s.buf)
		s.buf = append(s.buf, line...)
		if err != nil {
			return s.buf, eventData(s.buf), err
		}
		// A line holding only "\n" or "\r\n" ends the event; a blank line
		// right at the start (stray separator) is relayed on its own.
		if l := s.buf[start:]; len(l) == 1 || (len(l) == 2 && l[0] == '\r') {
			return s.buf, eventData(s.buf), nil
		}
		if s.max > 0 && int64(len(s.buf)) > s.max {
			return s.buf, nil, errEventTooLong
		}
	}
}

// eventData joins the event's data lines with "\n", as the SSE spec says.
func eventData(ev []byte) []byte {
	var out []byte
	n := 0
	for len(ev) > 0 {
		line := ev
		if i := bytes.IndexByte(ev, '\n'); i >= 0 {
			line, ev = ev[:i], ev[i+1:]
		} else {
			ev = nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		v, ok := bytes.CutPrefix(line, []byte("data:"))
		if !ok {
			continue
		}
		v = bytes.TrimPrefix(v, []byte(" "))
		if n > 0 {
			out = append(out, '\n')
		}
		out = append(out, v...)
		n++
	}
	return out
}

type toolCall struct {
	Index     int
	ID        string
	Name      string
	Arguments string
}

// assembler rebuilds the assistant message(s) from stream chunks, for the
// capture.
type assembler struct {
	model   string
	done    bool // saw [DONE]
	usage   json.RawMessage
	choices map[int]*choiceState
}

type choiceState struct {
	content strings.Builder
	refusal strings.Builder
	finish  string
	calls   map[int]*toolCall
}

func (a *assembler) choice(i int) *choiceState {
	if a.choices == nil {
		a.choices = map[int]*choiceState{}
	}
	c := a.choices[i]
	if c == nil {
		c = &choiceState{}
		a.choices[i] = c
	}
	return c
}

// Add feeds one event's data; non-JSON data is ignored (it is relayed all
// the same). Chunks are read in place with gjson: this runs per event.
func (a *assembler) Add(data []byte) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return
	}
	if string(data) == "[DONE]" {
		a.done = true
		return
	}
	if !validJSON(data) {
		return
	}
	ch := gjson.ParseBytes(data)
	if !ch.IsObject() {
		return
	}
	if m := ch.Get("model"); m.Type == gjson.String && m.Str != "" {
		a.model = m.Str
	}
	if u := ch.Get("usage"); u.IsObject() {
		a.usage = append(a.usage[:0], u.Raw...)
	}
	ch.Get("choices").ForEach(func(_, c gjson.Result) bool {
		st := a.choice(int(c.Get("index").Int()))
		delta := c.Get("delta")
		if v := delta.Get("content"); v.Type == gjson.String {
			st.content.WriteString(v.Str)
		}
		if v := delta.Get("refusal"); v.Type == gjson.String {
			st.refusal.WriteString(v.Str)
		}
		if v := c.Get("finish_reason"); v.Type == gjson.String && v.Str != "" {
			st.finish = v.Str
		}
		delta.Get("tool_calls").ForEach(func(_, tc gjson.Result) bool {
			i := int(tc.Get("index").Int())
			if st.calls == nil {
				st.calls = map[int]*toolCall{}
			}
			cur := st.calls[i]
			if cur == nil {
				cur = &toolCall{Index: i}
				st.calls[i] = cur
			}
			if id := tc.Get("id").Str; id != "" {
				cur.ID = id
			}
			cur.Name += tc.Get("function.name").Str
			cur.Arguments += tc.Get("function.arguments").Str
			return true
		})
		return true
	})
}

// Reply returns the first choice's text (tool calls summarised when there
// is no content) and finish reason.
func (a *assembler) Reply() (text, finish string) {
	c := a.choices[0]
	if c == nil {
		return "", ""
	}
	text = c.content.String()
	if text == "" {
		text = c.refusal.String()
	}
	if text == "" && len(c.calls) > 0 {
		idx := make([]int, 0, len(c.calls))
		for i := range c.calls {
			idx = append(idx, i)
		}
		sort.Ints(idx)
		calls := make([]toolCall, len(idx))
		for j, i := range idx {
			calls[j] = *c.calls[i]
		}
		text = summariseCalls(calls)
	}
	return text, c.finish
}

// summariseCalls renders tool calls as text so a turn that only called
// tools still records what the assistant did.
func summariseCalls(calls []toolCall) string {
	var b strings.Builder
	for i, tc := range calls {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString("[tool call] " + tc.Name + "(" + tc.Arguments + ")")
	}
	return b.String()
}

// completionReply reads the first choice of a non-streamed chat completion.
func completionReply(body []byte) (text, finish, model string, ok bool) {
	if !validJSON(body) {
		return "", "", "", false
	}
	cc := gjson.ParseBytes(body)
	choices := cc.Get("choices")
	if !choices.IsArray() {
		return "", "", "", false
	}
	var c gjson.Result
	choices.ForEach(func(_, ch gjson.Result) bool {
		if !c.Exists() || ch.Get("index").Int() == 0 {
			c = ch
		}
		return ch.Get("index").Int() != 0
	})
	if !c.Exists() {
		return "", "", "", false
	}
	msg := c.Get("message")
	switch {
	case msg.Get("content").Str != "":
		text = msg.Get("content").Str
	case msg.Get("refusal").Str != "":
		text = msg.Get("refusal").Str
	default:
		var calls []toolCall
		msg.Get("tool_calls").ForEach(func(_, tc gjson.Result) bool {
			calls = append(calls, toolCall{ID: tc.Get("id").Str, Name: tc.Get("function.name").Str, Arguments: tc.Get("function.arguments").Str})
			return true
		})
		if len(calls) > 0 {
			text = summariseCalls(calls)
		}
	}
	return text, c.Get("finish_reason").Str, cc.Get("model").Str, true
}
