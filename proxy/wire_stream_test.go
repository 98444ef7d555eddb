package proxy

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// The documented event sequences of the two providers (the Responses API
// streaming events and the Anthropic Messages stream), written out as a
// client receives them; they seed the fuzz tests too.
const responsesTextStream = "event: response.created\n" +
	`data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_1","object":"response","status":"in_progress","model":"gpt-5","output":[]}}` + "\n\n" +
	"event: response.in_progress\n" +
	`data: {"type":"response.in_progress","sequence_number":1,"response":{"id":"resp_1","object":"response","status":"in_progress","model":"gpt-5","output":[]}}` + "\n\n" +
	"event: response.output_item.added\n" +
	`data: {"type":"response.output_item.added","sequence_number":2,"output_index":0,"item":{"id":"msg_1","type":"message","status":"in_progress","role":"assistant","content":[]}}` + "\n\n" +
	"event: response.content_part.added\n" +
	`data: {"type":"response.content_part.added","sequence_number":3,"item_id":"msg_1","output_index":0,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}}` + "\n\n" +
	"event: response.output_text.delta\n" +
	`data: {"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Your sister "}` + "\n\n" +
	"event: response.output_text.delta\n" +
	`data: {"type":"response.output_text.delta","sequence_number":5,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"is Ottilie."}` + "\n\n" +
	"event: response.output_text.done\n" +
	`data: {"type":"response.output_text.done","sequence_number":6,"item_id":"msg_1","output_index":0,"content_index":0,"text":"Your sister is Ottilie."}` + "\n\n" +
	"event: response.output_item.done\n" +
	`data: {"type":"response.output_item.done","sequence_number":7,"output_index":0,"item":{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Your sister is Ottilie.","annotations":[]}]}}` + "\n\n" +
	"event: response.completed\n" +
	`data: {"type":"response.completed","sequence_number":8,"response":{"id":"resp_1","object":"response","status":"completed","model":"gpt-5-2026","output":[{"id":"msg_1","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Your sister is Ottilie.","annotations":[]}]}],"usage":{"input_tokens":5,"output_tokens":6,"total_tokens":11}}}` + "\n\n"

const responsesToolStream = "event: response.created\n" +
	`data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_2","object":"response","status":"in_progress","model":"gpt-5","output":[]}}` + "\n\n" +
	"event: response.output_item.added\n" +
	`data: {"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"","status":"in_progress"}}` + "\n\n" +
	"event: response.function_call_arguments.delta\n" +
	`data: {"type":"response.function_call_arguments.delta","sequence_number":2,"item_id":"fc_1","output_index":0,"delta":"{\"city\":"}` + "\n\n" +
	"event: response.function_call_arguments.delta\n" +
	`data: {"type":"response.function_call_arguments.delta","sequence_number":3,"item_id":"fc_1","output_index":0,"delta":"\"Paris\"}"}` + "\n\n" +
	"event: response.function_call_arguments.done\n" +
	`data: {"type":"response.function_call_arguments.done","sequence_number":4,"item_id":"fc_1","output_index":0,"arguments":"{\"city\":\"Paris\"}"}` + "\n\n" +
	"event: response.completed\n" +
	`data: {"type":"response.completed","sequence_number":5,"response":{"id":"resp_2","object":"response","status":"completed","model":"gpt-5","output":[]}}` + "\n\n"

const responsesFailedStream = "event: response.created\n" +
	`data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_3","object":"response","status":"in_progress","output":[]}}` + "\n\n" +
	"event: response.output_text.delta\n" +
	`data: {"type":"response.output_text.delta","sequence_number":1,"output_index":0,"content_index":0,"delta":"Par"}` + "\n\n" +
	"event: response.failed\n" +
	`data: {"type":"response.failed","sequence_number":2,"response":{"id":"resp_3","object":"response","status":"failed","error":{"code":"server_error","message":"boom"},"output":[]}}` + "\n\n"

const messagesTextStream = "event: message_start\n" +
	`data: {"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":25,"output_tokens":1}}}` + "\n\n" +
	"event: content_block_start\n" +
	`data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}` + "\n\n" +
	"event: ping\n" +
	`data: {"type": "ping"}` + "\n\n" +
	"event: content_block_delta\n" +
	`data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Your sister "}}` + "\n\n" +
	"event: content_block_delta\n" +
	`data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"is Ottilie."}}` + "\n\n" +
	"event: content_block_stop\n" +
	`data: {"type":"content_block_stop","index":0}` + "\n\n" +
	"event: message_delta\n" +
	`data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15}}` + "\n\n" +
	"event: message_stop\n" +
	`data: {"type":"message_stop"}` + "\n\n"

const messagesToolStream = "event: message_start\n" +
	`data: {"type":"message_start","message":{"id":"msg_02","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null}}` + "\n\n" +
	"event: content_block_start\n" +
	`data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_01","name":"get_weather","input":{}}}` + "\n\n" +
	"event: content_block_delta\n" +
	`data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"location\": \"San Fra"}}` + "\n\n" +
	"event: content_block_delta\n" +
	`data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"ncisco\"}"}}` + "\n\n" +
	"event: content_block_stop\n" +
	`data: {"type":"content_block_stop","index":0}` + "\n\n" +
	"event: message_delta\n" +
	`data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":89}}` + "\n\n" +
	"event: message_stop\n" +
	`data: {"type":"message_stop"}` + "\n\n"

const messagesErrorStream = "event: message_start\n" +
	`data: {"type":"message_start","message":{"id":"msg_03","type":"message","role":"assistant","content":[],"model":"claude"}}` + "\n\n" +
	"event: error\n" +
	`data: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}` + "\n\n"

// feed relays stream through the SSE reader into sr, as relayStream does,
// and returns the relayed bytes and the index of the event after which
// Done first held (-1: never).
func feed(t testing.TB, stream []byte, sr streamReply) (relayed []byte, doneAt int) {
	r := newSSEReader(bytes.NewReader(stream))
	doneAt = -1
	for i := 0; ; i++ {
		raw, data, err := r.Next()
		relayed = append(relayed, raw...)
		if len(raw) > 0 {
			sr.Add(data)
			if doneAt < 0 && sr.Done() {
				doneAt = i
			}
		}
		if errors.Is(err, io.EOF) {
			return relayed, doneAt
		}
		if err != nil {
			t.Fatalf("read: %v", err)
		}
	}
}

func TestResponsesStreamReply(t *testing.T) {
	cases := []struct {
		name, stream, text, finish, id, model string
		ok                                    bool
	}{
		{"text", responsesTextStream, "Your sister is Ottilie.", "completed", "resp_1", "gpt-5-2026", true},
		{"tool call", responsesToolStream, `[tool call] get_weather({"city":"Paris"})`, "completed", "resp_2", "gpt-5", true},
		{"failed", responsesFailedStream, "", "failed", "resp_3", "", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sr := responsesWire{}.stream()
			relayed, doneAt := feed(t, []byte(tc.stream), sr)
			if string(relayed) != tc.stream {
				t.Errorf("relayed bytes differ")
			}
			if want := strings.Count(tc.stream, "\n\n") - 1; doneAt != want {
				t.Errorf("done after event %d, want the last (%d)", doneAt, want)
			}
			r := sr.Reply()
			if r.Text != tc.text || r.Finish != tc.finish || r.ID != tc.id || r.Model != tc.model || r.OK != tc.ok {
				t.Errorf("reply = %+v", r)
			}
		})
	}
}

func TestMessagesStreamReply(t *testing.T) {
	cases := []struct {
		name, stream, text, finish, id string
		ok                             bool
	}{
		{"text", messagesTextStream, "Your sister is Ottilie.", "end_turn", "msg_01", true},
		{"tool use", messagesToolStream, `[tool call] get_weather({"location": "San Francisco"})`, "tool_use", "msg_02", true},
		{"error", messagesErrorStream, "", "", "msg_03", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sr := messagesWire{}.stream()
			relayed, doneAt := feed(t, []byte(tc.stream), sr)
			if string(relayed) != tc.stream {
				t.Errorf("relayed bytes differ")
			}
			if want := strings.Count(tc.stream, "\n\n") - 1; doneAt != want {
				t.Errorf("done after event %d, want the last (%d)", doneAt, want)
			}
			r := sr.Reply()
			if r.Text != tc.text || r.Finish != tc.finish || r.ID != tc.id || r.OK != tc.ok {
				t.Errorf("reply = %+v", r)
			}
		})
	}
}

func TestBodyReplies(t *testing.T) {
	r := responsesWire{}.bodyReply([]byte(`{"id":"resp_9","object":"response","status":"completed","model":"gpt-5","output":[{"type":"reasoning","id":"rs","summary":[]},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Hi"}]}]}`))
	if r.Text != "Hi" || !r.OK || r.ID != "resp_9" {
		t.Errorf("responses = %+v", r)
	}
	r = responsesWire{}.bodyReply([]byte(`{"id":"resp_b","object":"response","status":"queued","output":[]}`))
	if r.OK || !r.Pending {
		t.Errorf("queued = %+v", r)
	}
	r = messagesWire{}.bodyReply([]byte(`{"id":"msg_9","type":"message","role":"assistant","model":"claude","content":[{"type":"text","text":"Hi "},{"type":"text","text":"there"}],"stop_reason":"end_turn"}`))
	if r.Text != "Hi there" || !r.OK || r.Finish != "end_turn" {
		t.Errorf("messages = %+v", r)
	}
	r = messagesWire{}.bodyReply([]byte(`{"type":"error","error":{"type":"api_error","message":"x"}}`))
	if r.OK {
		t.Errorf("error body captured: %+v", r)
	}
}

// fuzzStream checks what must hold for any byte stream: the relay gives
// back exactly the bytes it read, the parser never panics, and the text
// it rebuilds is never longer than the stream carried.
func fuzzStream(f *testing.F, newReply func() streamReply, seeds ...string) {
	for _, s := range seeds {
		f.Add([]byte(s))
		f.Add([]byte(strings.ReplaceAll(s, "\n", "\r\n")))
		f.Add([]byte(s[:len(s)/2]))
	}
	f.Fuzz(func(t *testing.T, stream []byte) {
		sr := newReply()
		relayed, _ := feed(t, stream, sr)
		if !bytes.Equal(relayed, stream) {
			t.Fatalf("relayed %q, read %q", relayed, stream)
		}
		r := sr.Reply()
		if len(r.Text) > 2*len(stream)+64 {
			t.Fatalf("rebuilt %d bytes of text from a %d-byte stream", len(r.Text), len(stream))
		}
	})
}

func FuzzResponsesStream(f *testing.F) {
	fuzzStream(f, responsesWire{}.stream, responsesTextStream, responsesToolStream, responsesFailedStream)
}

func FuzzMessagesStream(f *testing.F) {
	fuzzStream(f, messagesWire{}.stream, messagesTextStream, messagesToolStream, messagesErrorStream)
}

// TestDeepRepliesNotParsed: a reply or stream event nested past
// MaxJSONDepth is relayed but not parsed, on every API (the parser
// recurses per level: deep enough, it overflows the stack and kills the
// process), so it is not captured.
func TestDeepRepliesNotParsed(t *testing.T) {
	deep := strings.Repeat("[", MaxJSONDepth+1) + strings.Repeat("]", MaxJSONDepth+1)
	bodies := map[string]string{
		APIChat:      `{"model":"m","x":` + deep + `,"choices":[{"index":0,"message":{"role":"assistant","content":"Hi"},"finish_reason":"stop"}]}`,
		APIResponses: `{"id":"resp_9","object":"response","status":"completed","x":` + deep + `,"output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Hi"}]}]}`,
		APIMessages:  `{"id":"msg_9","type":"message","x":` + deep + `,"content":[{"type":"text","text":"Hi"}],"stop_reason":"end_turn"}`,
	}
	for _, wf := range []wire{chatWire{}, responsesWire{}, messagesWire{}} {
		if r := wf.bodyReply([]byte(bodies[wf.api()])); r.OK || r.Text != "" {
			t.Errorf("%s body: %+v, want nothing read", wf.api(), r)
		}
	}
	events := map[string][]string{
		APIChat: {`{"choices":[{"index":0,"delta":{"content":"Hi"},"x":` + deep + `}]}`, `{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`, `[DONE]`},
		APIResponses: {`{"type":"response.output_text.delta","output_index":0,"delta":"Hi","x":` + deep + `}`,
			`{"type":"response.completed","response":{"id":"resp_1","object":"response","status":"completed","output":[]}}`},
		APIMessages: {`{"type":"message_start","message":{"id":"msg_1"}}`, `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"},"x":` + deep + `}`, `{"type":"message_stop"}`},
	}
	for _, wf := range []wire{chatWire{}, responsesWire{}, messagesWire{}} {
		sr := wf.stream()
		for _, ev := range events[wf.api()] {
			sr.Add([]byte(ev))
		}
		if r := sr.Reply(); r.Text != "" {
			t.Errorf("%s stream: %+v, want the deep event not read", wf.api(), r)
		}
	}
}
