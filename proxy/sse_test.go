package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
)

var sseSeeds = []string{
	"data: {\"a\":1}\n\ndata: [DONE]\n\n",
	"event: x\r\ndata: one\r\ndata: two\r\n\r\n",
	": comment\n\ndata:nospace\n\n",
	"data: unterminated",
	"\n\n\ndata: x\n\n",
	"data: " + strings.Repeat("long", 20000) + "\n\n",
}

func TestSSEReader(t *testing.T) {
	type ev struct{ raw, data string }
	want := [][]ev{
		{{"data: {\"a\":1}\n\n", `{"a":1}`}, {"data: [DONE]\n\n", "[DONE]"}},
		{{"event: x\r\ndata: one\r\ndata: two\r\n\r\n", "one\ntwo"}},
		{{": comment\n\n", ""}, {"data:nospace\n\n", "nospace"}},
		{{"data: unterminated", "unterminated"}},
		{{"\n", ""}, {"\n", ""}, {"\n", ""}, {"data: x\n\n", "x"}},
		{{sseSeeds[5], strings.Repeat("long", 20000)}},
	}
	for i, in := range sseSeeds {
		r := newSSEReader(strings.NewReader(in))
		var got []ev
		for {
			raw, data, err := r.Next()
			if len(raw) > 0 {
				got = append(got, ev{string(raw), string(data)})
			}
			if err != nil {
				break
			}
		}
		if len(got) != len(want[i]) {
			t.Errorf("seed %d: %d events, want %d: %q", i, len(got), len(want[i]), got)
			continue
		}
		for j := range got {
			if got[j] != want[i][j] {
				t.Errorf("seed %d event %d = %q, want %q", i, j, got[j], want[i][j])
			}
		}
	}
}

// FuzzSSEReader checks the reader never changes, drops or adds a byte:
// the relayed events concatenate back to the input.
func FuzzSSEReader(f *testing.F) {
	for _, s := range sseSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r := newSSEReader(bytes.NewReader(in))
		var out []byte
		var asm assembler
		for range len(in) + 2 {
			raw, data, err := r.Next()
			out = append(out, raw...)
			asm.Add(data)
			if err != nil {
				if !errors.Is(err, io.EOF) {
					t.Fatalf("err = %v", err)
				}
				break
			}
		}
		if !bytes.Equal(out, in) {
			t.Fatalf("relayed %q, input %q", out, in)
		}
		asm.Reply()
	})
}

func TestAssembler(t *testing.T) {
	var a assembler
	for _, d := range []string{
		`{"model":"m1","choices":[{"index":0,"delta":{"role":"assistant","content":""}},{"index":1,"delta":{"content":"other"}}]}`,
		`{"choices":[{"index":0,"delta":{"content":"Hel"}}]}`,
		`not json`,
		`{"choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":"stop"}]}`,
		`{"choices":[],"usage":{"total_tokens":3}}`,
		`[DONE]`,
	} {
		a.Add([]byte(d))
	}
	text, fin := a.Reply()
	if text != "Hello" || fin != "stop" || a.model != "m1" || !a.done || string(a.usage) != `{"total_tokens":3}` {
		t.Errorf("got %q %q model=%q done=%v usage=%s", text, fin, a.model, a.done, a.usage)
	}
	var b assembler
	for _, d := range []string{
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"c2","function":{"name":"b","arguments":"{}"}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"a","arguments":"{\"x\""}}]}}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]},"finish_reason":"tool_calls"}]}`,
	} {
		b.Add([]byte(d))
	}
	text, fin = b.Reply()
	if text != "[tool call] a({\"x\":1})\n[tool call] b({})" || fin != "tool_calls" {
		t.Errorf("tool calls = %q %q", text, fin)
	}
}

func TestSplice(t *testing.T) {
	body := []byte(" \n\t{\"a\":1, \"messages\" : [ {\"role\":\"user\",\"content\":\"x\"} ] ,\"z\":[1]}\n")
	cb, err := parseChat(body)
	if err != nil {
		t.Fatal(err)
	}
	got := string(cb.splice([]json.RawMessage{json.RawMessage(`{"role":"system","content":"m"}`), cb.Messages[0].Raw}))
	want := " \n\t{\"a\":1, \"messages\" : [{\"role\":\"system\",\"content\":\"m\"},{\"role\":\"user\",\"content\":\"x\"}] ,\"z\":[1]}\n"
	if raw := string(cb.Messages[0].Raw); raw != `{"role":"user","content":"x"}` {
		t.Errorf("raw message = %q", raw)
	}
	if got != want {
		t.Errorf("splice = %s\nwant      %s", got, want)
	}
}

func TestCompletionReply(t *testing.T) {
	for _, tc := range []struct {
		body, text, finish, model string
		ok                        bool
	}{
		{`{"model":"m","choices":[{"index":1,"message":{"content":"second"}},{"index":0,"message":{"content":"first"},"finish_reason":"stop"}]}`, "first", "stop", "m", true},
		{`{"choices":[{"index":0,"message":{"content":null,"refusal":"I can't"},"finish_reason":"stop"}]}`, "I can't", "stop", "", true},
		{`{"choices":[{"index":0,"message":{"content":null,"tool_calls":[{"id":"c","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`, "[tool call] f({})", "tool_calls", "", true},
		{`{"object":"list"}`, "", "", "", false},
		{`not json`, "", "", "", false},
	} {
		text, finish, model, ok := completionReply([]byte(tc.body))
		if text != tc.text || finish != tc.finish || model != tc.model || ok != tc.ok {
			t.Errorf("%s: got %q %q %q %v", tc.body, text, finish, model, ok)
		}
	}
}
