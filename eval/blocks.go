package eval

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
)

// BlockRecorder is the upstream transport of an in-process memproxy: it
// keeps, for each chat, Responses or Messages request, the memory block the model was sent,
// keyed by the request's last user message, so the text answer-in-context
// scores is exactly what the model read. The replay asks each question
// once per arm and reads the block right after the reply, so the key is
// unambiguous.
type BlockRecorder struct {
	// Next sends the request on (http.DefaultTransport when nil).
	Next http.RoundTripper

	mu     sync.Mutex
	blocks map[string]string
}

// RoundTrip records the block of a chat completion and sends the request
// on unchanged.
func (b *BlockRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodPost && r.Body != nil && isQuestionPath(r.URL.Path) {
		body, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return nil, err
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		if q, block, ok := requestBlock(r.URL.Path, body); ok {
			b.mu.Lock()
			if b.blocks == nil {
				b.blocks = map[string]string{}
			}
			b.blocks[q] = block
			b.mu.Unlock()
		}
	}
	next := b.Next
	if next == nil {
		next = http.DefaultTransport
	}
	return next.RoundTrip(r)
}

// Block returns the block last sent with the user message q ("" when the
// request carried none); ok is false when no such request was seen.
func (b *BlockRecorder) Block(q string) (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	v, ok := b.blocks[q]
	return v, ok
}

// memoryBlock reads a chat request: its last user message and the fenced
// <memory> block of any message ("" when none).
func memoryBlock(body []byte) (question, block string, ok bool) {
	var req struct {
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil {
		return "", "", false
	}
	for _, m := range req.Messages {
		text := contentText(m.Content)
		if m.Role == "user" {
			question, ok = text, true
		}
		if i := strings.Index(text, "<memory>"); i >= 0 && block == "" && m.Role != "user" {
			block = text[i:]
			if j := strings.Index(block, "</memory>"); j >= 0 {
				block = block[:j+len("</memory>")]
			}
		}
	}
	return question, block, ok
}

func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// linePrefix is the rendered prefix of a memory line: "- [tier date] ",
// "- [date] " or "- [tier] " (blocks written before the id left the line
// may still end in " m:id").
var linePrefix = regexp.MustCompile(`^- \[(?:[A-Za-z][A-Za-z0-9_-]*)?((?: ?\d{1,2} [A-Za-z]{3} \d{4})?)(?: m:[^\]\s]+)?\] ?`)

// MemoryLines is the part of a memory block the score reads: its memory
// lines, each as its date and text. The fences, the guard and the tier
// and id of each line are left out, so their words never count as
// carrying an answer.
func MemoryLines(block string) string {
	var out []string
	for _, l := range strings.Split(block, "\n") {
		m := linePrefix.FindStringSubmatchIndex(l)
		if m == nil {
			// A memory's text that goes on over lines.
			if t := strings.TrimSpace(l); len(out) > 0 && t != "" && t != "</memory>" {
				out[len(out)-1] += " " + t
			}
			continue
		}
		date := strings.TrimSpace(l[m[2]:m[3]])
		out = append(out, strings.TrimSpace(date+" "+l[m[1]:]))
	}
	return strings.Join(out, "\n")
}

// isQuestionPath reports whether an upstream path is one the replay asks
// through (APIs).
func isQuestionPath(p string) bool {
	return strings.HasSuffix(p, "/chat/completions") || strings.HasSuffix(p, "/responses") || strings.HasSuffix(p, "/messages")
}
