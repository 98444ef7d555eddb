package proxy

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sort"
	"strings"
)

// sseReader splits a server-sent-event stream into events without changing
// a byte: Next returns each event's raw bytes (its lines and the blank line
// ending it) and its data field.
type sseReader struct {
	r   *bufio.Reader
	buf []byte
}

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

// chunk is the part of a chat.completion.chunk the assembler reads.
type chunk struct {
	Model   string `json:"model"`
	Choices []struct {
		Index int `json:"index"`
		Delta struct {
			Content   *string    `json:"content"`
			Refusal   *string    `json:"refusal"`
			ToolCalls []toolCall `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage json.RawMessage `json:"usage"`
}

type toolCall struct {
	Index    int    `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
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
// the same).
func (a *assembler) Add(data []byte) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return
	}
	if string(data) == "[DONE]" {
		a.done = true
		return
	}
	var ch chunk
	if json.Unmarshal(data, &ch) != nil {
		return
	}
	if ch.Model != "" {
		a.model = ch.Model
	}
	if len(ch.Usage) > 0 && string(ch.Usage) != "null" {
		a.usage = append(a.usage[:0], ch.Usage...)
	}
	for _, c := range ch.Choices {
		st := a.choice(c.Index)
		if c.Delta.Content != nil {
			st.content.WriteString(*c.Delta.Content)
		}
		if c.Delta.Refusal != nil {
			st.refusal.WriteString(*c.Delta.Refusal)
		}
		if c.FinishReason != nil && *c.FinishReason != "" {
			st.finish = *c.FinishReason
		}
		for _, tc := range c.Delta.ToolCalls {
			if st.calls == nil {
				st.calls = map[int]*toolCall{}
			}
			cur := st.calls[tc.Index]
			if cur == nil {
				cur = &toolCall{Index: tc.Index}
				st.calls[tc.Index] = cur
			}
			if tc.ID != "" {
				cur.ID = tc.ID
			}
			cur.Function.Name += tc.Function.Name
			cur.Function.Arguments += tc.Function.Arguments
		}
	}
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
		b.WriteString("[tool call] " + tc.Function.Name + "(" + tc.Function.Arguments + ")")
	}
	return b.String()
}

// completionReply reads the first choice of a non-streamed chat completion.
func completionReply(body []byte) (text, finish, model string, ok bool) {
	var cc struct {
		Model   string `json:"model"`
		Choices []struct {
			Index   int `json:"index"`
			Message struct {
				Content   *string    `json:"content"`
				Refusal   *string    `json:"refusal"`
				ToolCalls []toolCall `json:"tool_calls"`
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
	}
	if json.Unmarshal(body, &cc) != nil || len(cc.Choices) == 0 {
		return "", "", "", false
	}
	c := cc.Choices[0]
	for _, ch := range cc.Choices {
		if ch.Index == 0 {
			c = ch
			break
		}
	}
	switch {
	case c.Message.Content != nil && *c.Message.Content != "":
		text = *c.Message.Content
	case c.Message.Refusal != nil && *c.Message.Refusal != "":
		text = *c.Message.Refusal
	case len(c.Message.ToolCalls) > 0:
		text = summariseCalls(c.Message.ToolCalls)
	}
	return text, c.FinishReason, cc.Model, true
}
