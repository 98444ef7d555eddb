package proxy

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/memproxy/memproxy/inject"
)

// FuzzWireParse runs every API's request parser and placement on
// arbitrary bodies: none may panic, and a body the parser accepts comes
// back, with the memory section placed either way, as valid JSON that
// carries the section and the client's model.
func FuzzWireParse(f *testing.F) {
	for _, s := range []string{
		`{"model":"m","messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hi"}]}`,
		`{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"a"}]}]}`,
		`{"model":"m","input":"hello","instructions":"be kind"}`,
		`{"model":"m","input":[{"role":"user","content":[{"type":"input_text","text":"x"}]},{"type":"function_call_output","call_id":"c","output":"o"}],"previous_response_id":"resp_1"}`,
		`{"model":"m","input":[{"type":"message","role":"developer","content":"d"}],"conversation":{"id":"conv_1"}}`,
		`{"model":"m","max_tokens":10,"system":"s","messages":[{"role":"user","content":"q"}]}`,
		`{"model":"m","max_tokens":10,"system":[{"type":"text","text":"s","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":[{"type":"text","text":"q","cache_control":{"type":"ephemeral"}}]},{"role":"assistant","content":"a"},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"r"}]}]}`,
		`{"messages":[],"input":[],"system":1}`, `{}`, `[]`, `{"input":{"a":1}}`,
	} {
		f.Add([]byte(s))
	}
	section := inject.OpenFence + "\nnote \"quoted\" \\ \u2028 line\n" + inject.CloseFence
	wires := []wire{chatWire{}, responsesWire{}, messagesWire{}}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, w := range wires {
			_ = w.bodyReply(body)
			cv, err := w.parse(body)
			if err != nil {
				continue
			}
			for _, placement := range []string{"system", "before_last_user"} {
				out, err := cv.place(section, placement)
				if err != nil {
					continue
				}
				if !json.Valid(out) {
					t.Fatalf("%s %s: placed body is not JSON: %q", w.api(), placement, out)
				}
				var v any
				_ = json.Unmarshal(out, &v)
				all, _ := json.Marshal(v)
				if !strings.Contains(string(all), "note \\\"quoted\\\"") {
					t.Fatalf("%s %s: section not in %q", w.api(), placement, out)
				}
				again, err := w.parse(out)
				if err != nil {
					t.Fatalf("%s %s: placed body no longer parses: %v\n%q", w.api(), placement, err, out)
				}
				if again.Model != cv.Model {
					t.Fatalf("%s %s: model %q became %q", w.api(), placement, cv.Model, again.Model)
				}
			}
		}
	})
}
