package proxy

import (
	"encoding/json"
	"testing"
)

// BenchmarkParseChat is the hot-path parse of an ordinary request.
func BenchmarkParseChat(b *testing.B) {
	body := []byte(`{"model":"gpt-4o-mini","messages":[{"role":"system","content":"You are a helpful assistant."},` +
		`{"role":"user","content":"I am planning a trip to Lisbon in May with my sister."},{"role":"assistant","content":"Great! How long will you stay, and what do you enjoy?"},` +
		`{"role":"user","content":"Five days. We like small hotels near the old town, seafood, and walking tours. Can you suggest an itinerary?"}],"temperature":0.7}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseChat(body); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzParseChat checks the parser never panics and that what it accepts
// is located exactly: the messages range and every raw message are valid
// JSON cut from the body.
func FuzzParseChat(f *testing.F) {
	for _, s := range []string{
		`{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
		" {\"messages\" : [ {\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"a\"}]} ] }\n",
		`{"messages":"x"}`, `{"messages":[1]}`, `{"stream":1,"messages":[]}`, `[]`, `{"\u006dessages":[{"role":"a"}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		cb, err := parseChat(body)
		if err != nil {
			return
		}
		if !json.Valid(body[cb.msgStart:cb.msgEnd]) || body[cb.msgStart] != '[' {
			t.Fatalf("messages range %d:%d = %q", cb.msgStart, cb.msgEnd, body[cb.msgStart:cb.msgEnd])
		}
		for _, m := range cb.Messages {
			if !json.Valid(m.Raw) || m.Raw[0] != '{' {
				t.Fatalf("raw message %q", m.Raw)
			}
		}
		if out := cb.splice(rawsOf(cb.Messages)); !json.Valid(out) {
			t.Fatalf("splice made invalid JSON: %q", out)
		}
	})
}

func rawsOf(ms []Message) []json.RawMessage {
	out := make([]json.RawMessage, len(ms))
	for i, m := range ms {
		out[i] = m.Raw
	}
	return out
}
