package proxy

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

const testSection = "<memory>\nNotes from earlier conversations.\n- [fact 2026-10-01 m:8f2c] The user's sister is Ottilie.\n</memory>"

// changedRange returns the range of raw that out replaced: everything
// before start and after end is byte-identical in both.
func changedRange(raw, out []byte) (start, end int) {
	for start < len(raw) && start < len(out) && raw[start] == out[start] {
		start++
	}
	i, j := len(raw), len(out)
	for i > start && j > start && raw[i-1] == out[j-1] {
		i--
		j--
	}
	return start, i
}

// assertOnlyField checks that out differs from raw only inside the value
// of the top-level field (or, when absent in raw, by that field added)
// and that every other top-level member is byte-identical.
func assertOnlyField(t *testing.T, raw, out []byte, field string) {
	t.Helper()
	if !json.Valid(out) {
		t.Fatalf("output is not JSON: %s", out)
	}
	var a, b map[string]json.RawMessage
	if err := json.Unmarshal(raw, &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(out, &b); err != nil {
		t.Fatal(err)
	}
	for k, v := range a {
		if k != field && !bytes.Equal(v, b[k]) {
			t.Errorf("field %q changed: %s -> %s", k, v, b[k])
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok && k != field {
			t.Errorf("field %q added", k)
		}
	}
	v := gjson.GetBytes(raw, gjson.Escape(field))
	if v.Exists() {
		s, e := changedRange(raw, out)
		if s < v.Index || e > v.Index+len(v.Raw) {
			t.Errorf("bytes changed outside %q: [%d,%d) not in [%d,%d)\n%s\n%s", field, s, e, v.Index, v.Index+len(v.Raw), raw, out)
		}
	}
}

func TestResponsesPlaceSystem(t *testing.T) {
	cases := []struct{ name, body, want string }{
		{"string input, instructions", `{"model":"m" , "instructions":"Be brief.","input":"who is my sister?","store":false,"tools":[{"type":"function","name":"f","parameters":{}}],"x_unknown":{"a":[1, 2]}}`, "Be brief.\n\n" + testSection},
		{"no instructions", `{ "model":"m","input":[{"role":"user","content":"hi"}], "background":true }`, testSection},
		{"null instructions", `{"model":"m","instructions":null,"input":"hi"}`, testSection},
		{"empty instructions", `{"model":"m","instructions":"","input":"hi"}`, testSection},
		{"items with tools and reasoning", `{"model":"m","instructions":"Sys","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"weather?"}]},{"type":"reasoning","id":"rs_1","summary":[]},{"type":"function_call","call_id":"c1","name":"w","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":"sunny"},{"role":"user","content":"thanks, and tomorrow?"}],"previous_response_id":null}`, "Sys\n\n" + testSection},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cv, err := responsesWire{}.parse([]byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			out, err := cv.place(testSection, "system")
			if err != nil {
				t.Fatal(err)
			}
			assertOnlyField(t, []byte(tc.body), out, "instructions")
			if got := gjson.GetBytes(out, "instructions").Str; got != tc.want {
				t.Errorf("instructions = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestResponsesPlaceBeforeLastUser(t *testing.T) {
	body := `{"model":"m","instructions":"Sys","input":[{"role":"user","content":"first"},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok"}]},{"role":"user","content":[{"type":"input_text","text":"second"}]}],"store":true}`
	cv, err := responsesWire{}.parse([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	out, err := cv.place(testSection, "before_last_user")
	if err != nil {
		t.Fatal(err)
	}
	assertOnlyField(t, []byte(body), out, "input")
	var in, got []json.RawMessage
	_ = json.Unmarshal([]byte(gjson.Get(body, "input").Raw), &in)
	_ = json.Unmarshal([]byte(gjson.GetBytes(out, "input").Raw), &got)
	if len(got) != len(in)+1 {
		t.Fatalf("input has %d items, want %d: %s", len(got), len(in)+1, out)
	}
	for i, j := range []int{0, 1, 3} {
		if !bytes.Equal(got[j], in[i]) {
			t.Errorf("item %d changed: %s", i, got[j])
		}
	}
	dev := gjson.ParseBytes(got[2])
	if dev.Get("role").Str != "developer" || dev.Get("content").Str != testSection {
		t.Errorf("developer item = %s", got[2])
	}

	// A string input becomes a developer item and the user's message.
	body = `{"model":"m","input":"just this"}`
	cv, _ = responsesWire{}.parse([]byte(body))
	out, err = cv.place(testSection, "before_last_user")
	if err != nil {
		t.Fatal(err)
	}
	assertOnlyField(t, []byte(body), out, "input")
	items := gjson.GetBytes(out, "input").Array()
	if len(items) != 2 || items[0].Get("role").Str != "developer" || items[1].Get("role").Str != "user" || items[1].Get("content").Raw != `"just this"` {
		t.Errorf("input = %s", gjson.GetBytes(out, "input").Raw)
	}
}

func TestResponsesView(t *testing.T) {
	body := `{"model":"m","instructions":"Sys","user":"u1","safety_identifier":"s1","previous_response_id":"resp_1","input":[{"type":"function_call_output","call_id":"c1","output":"sunny"}],"stream":true}`
	cv, err := responsesWire{}.parse([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if cv.User != "u1" || cv.SafetyIdentifier != "s1" || cv.Previous != "resp_1" || !cv.Stream {
		t.Errorf("convo = %+v", cv)
	}
	if n := len(cv.Messages); n != 2 || cv.Messages[0].Role != "system" || cv.Messages[1].Role != "tool" || !cv.Messages[1].Tool {
		t.Errorf("view = %+v", cv.Messages)
	}
	for _, bad := range []string{`[]`, `{"input":5}`, `{"input":[1]}`, `{"stream":"yes"}`, `{"instructions":{}}`, `{"user":3}`} {
		if _, err := (responsesWire{}).parse([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

func TestMessagesPlaceSystem(t *testing.T) {
	cases := []struct {
		name, body string
		check      func(t *testing.T, raw string, out []byte)
	}{
		{"string system", `{"model":"claude","max_tokens":100,"system":"You are terse.","messages":[{"role":"user","content":"hi"}]}`, func(t *testing.T, _ string, out []byte) {
			if got := gjson.GetBytes(out, "system").Str; got != "You are terse.\n\n"+testSection {
				t.Errorf("system = %q", got)
			}
		}},
		{"no system", `{"model":"claude","max_tokens":100,"messages":[{"role":"user","content":"hi"}],"metadata":{"user_id":"u"}}`, func(t *testing.T, _ string, out []byte) {
			if got := gjson.GetBytes(out, "system").Str; got != testSection {
				t.Errorf("system = %q", got)
			}
		}},
		{"blocks with cache_control", `{"model":"claude","max_tokens":100,"system":[{"type":"text","text":"Long tool manual","cache_control":{"type":"ephemeral"}},{"type":"text","text":"Second","cache_control":{"type":"ephemeral","ttl":"1h"}} ],"messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}],"tools":[{"name":"t","input_schema":{"type":"object"}}]}`, func(t *testing.T, raw string, out []byte) {
			in := gjson.Get(raw, "system").Array()
			got := gjson.GetBytes(out, "system").Array()
			if len(got) != len(in)+1 {
				t.Fatalf("system blocks = %d", len(got))
			}
			for i := range in {
				if got[i].Raw != in[i].Raw {
					t.Errorf("block %d changed: %s", i, got[i].Raw)
				}
			}
			last := got[len(got)-1]
			if last.Get("type").Str != "text" || last.Get("text").Str != testSection || last.Get("cache_control").Exists() {
				t.Errorf("section block = %s", last.Raw)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cv, err := messagesWire{}.parse([]byte(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			out, err := cv.place(testSection, "system")
			if err != nil {
				t.Fatal(err)
			}
			assertOnlyField(t, []byte(tc.body), out, "system")
			tc.check(t, tc.body, out)
		})
	}
}

func TestMessagesPlaceBeforeLastUser(t *testing.T) {
	body := `{"model":"claude","max_tokens":100,"system":"S","messages":[{"role":"user","content":"first"},{"role":"assistant","content":[{"type":"text","text":"ok"}]},{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}},{"type":"text","text":"what is this?","cache_control":{"type":"ephemeral"}}]}]}`
	cv, err := messagesWire{}.parse([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if cv.Breakpoints != 1 {
		t.Errorf("breakpoints = %d, want 1", cv.Breakpoints)
	}
	out, err := cv.place(testSection, "before_last_user")
	if err != nil {
		t.Fatal(err)
	}
	assertOnlyField(t, []byte(body), out, "messages")
	in := gjson.Get(body, "messages").Array()
	got := gjson.GetBytes(out, "messages").Array()
	for i := 0; i < 2; i++ {
		if got[i].Raw != in[i].Raw {
			t.Errorf("message %d changed", i)
		}
	}
	blocks := got[2].Get("content").Array()
	if len(blocks) != 3 || blocks[0].Get("text").Str != testSection {
		t.Fatalf("last user content = %s", got[2].Get("content").Raw)
	}
	for i, b := range in[2].Get("content").Array() {
		if blocks[i+1].Raw != b.Raw {
			t.Errorf("user block %d changed: %s", i, blocks[i+1].Raw)
		}
	}

	// A string content becomes two text blocks; a tool-result message is
	// passed over for the user's own last message.
	body = `{"model":"claude","messages":[{"role":"user","content":"weather?"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"w","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"sunny"}]}]}`
	cv, _ = messagesWire{}.parse([]byte(body))
	if r := cv.Messages[len(cv.Messages)-1].Role; r != "tool" {
		t.Errorf("tool result role = %q", r)
	}
	out, _ = cv.place(testSection, "before_last_user")
	got = gjson.GetBytes(out, "messages").Array()
	if c := got[0].Get("content").Array(); len(c) != 2 || c[0].Get("text").Str != testSection || c[1].Get("text").Str != "weather?" {
		t.Errorf("first user content = %s", got[0].Get("content").Raw)
	}
	if got[2].Raw != gjson.Get(body, "messages.2").Raw {
		t.Errorf("tool result message changed")
	}

	// A user message that returns tool results and says more keeps its
	// tool_result blocks first, as Anthropic requires (a text block
	// before them is a 400): the section goes after them, before the
	// user's words.
	body = `{"model":"claude","messages":[{"role":"user","content":"weather?"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"w","input":{}},{"type":"tool_use","id":"t2","name":"w","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"sunny"},{"type":"tool_result","tool_use_id":"t2","content":[{"type":"text","text":"warm"}]},{"type":"text","text":"Thanks. What is my sister called?"}]}]}`
	cv, _ = messagesWire{}.parse([]byte(body))
	out, err = cv.place(testSection, "before_last_user")
	if err != nil {
		t.Fatal(err)
	}
	assertOnlyField(t, []byte(body), out, "messages")
	blocks = gjson.GetBytes(out, "messages.2.content").Array()
	in2 := gjson.Get(body, "messages.2.content").Array()
	if len(blocks) != 4 || blocks[0].Raw != in2[0].Raw || blocks[1].Raw != in2[1].Raw || blocks[2].Get("text").Str != testSection || blocks[3].Raw != in2[2].Raw {
		t.Errorf("tool results and text: content = %s", gjson.GetBytes(out, "messages.2.content").Raw)
	}
}

func TestMessagesViewErrors(t *testing.T) {
	for _, bad := range []string{`{"model":"m"}`, `{"messages":{}}`, `{"messages":[1]}`, `{"messages":[{"content":"x"}]}`, `{"system":5,"messages":[]}`, `{"metadata":{"user_id":7},"messages":[]}`} {
		if _, err := (messagesWire{}).parse([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	cv, err := messagesWire{}.parse([]byte(`{"metadata":{"user_id":"alice"},"system":[{"type":"text","text":"A"},{"type":"text","text":"B"}],"messages":[{"role":"user","content":"x"}]}`))
	if err != nil || cv.User != "alice" || cv.Messages[0].Text != "A\nB" || !strings.Contains(string(cv.Messages[0].Raw), `"B"`) {
		t.Errorf("view = %+v, %v", cv, err)
	}
}

func TestChatPlaceUnchangedOutsideMessages(t *testing.T) {
	body := `{"model":"m","messages":[{"role":"system","content":"S"},{"role":"user","content":"hi"}],"temperature":0.2,"x":{"y":1}}`
	cv, err := chatWire{}.parse([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	out, err := cv.place(testSection, "system")
	if err != nil {
		t.Fatal(err)
	}
	assertOnlyField(t, []byte(body), out, "messages")
	if got := gjson.GetBytes(out, "messages.0.content").Str; got != "S\n\n"+testSection {
		t.Errorf("system = %q", got)
	}
}

// TestDuplicateKeysReadLast: a key that repeats in a message or part is
// read as the providers' JSON parsers read it, by its last value: the
// view memory works on is what the model sees, and the section goes into
// the value the upstream keeps (memproxy read the first: the memory was
// placed where the upstream dropped it).
func TestDuplicateKeysReadLast(t *testing.T) {
	cb, err := parseChat([]byte(`{"model":"m","messages":[{"role":"system","role":"user","content":[{"type":"text","text":"old","text":"remember that my cat is Tom"}]}]}`))
	if err != nil || cb.Messages[0].Role != "user" || cb.Messages[0].Text != "remember that my cat is Tom" {
		t.Errorf("chat view = %+v, %v", cb.Messages, err)
	}
	cv, err := responsesWire{}.parse([]byte(`{"model":"m","input":[{"type":"message","role":"developer","role":"user","content":"x","content":"where does my sister live?"}]}`))
	if err != nil || cv.Messages[0].Role != "user" || cv.Messages[0].Text != "where does my sister live?" {
		t.Errorf("responses view = %+v, %v", cv.Messages, err)
	}
	body := `{"model":"m","max_tokens":5,"metadata":{"user_id":"a","user_id":"bob"},"messages":[{"role":"user","content":"ignored","content":[{"type":"text","text":"where does my sister live?"}]}]}`
	cv, err = messagesWire{}.parse([]byte(body))
	if err != nil || cv.User != "bob" || cv.Messages[0].Text != "where does my sister live?" {
		t.Fatalf("messages view = %+v, %v", cv, err)
	}
	out, err := cv.place(testSection, "before_last_user")
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Messages []map[string]json.RawMessage } // encoding/json keeps the last "content"
	var content []struct{ Text string }
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got.Messages[0]["content"], &content); err != nil || len(content) != 2 || content[0].Text != testSection {
		t.Errorf("section not in the content the upstream reads: %s", out)
	}
}
