package eval

import (
	"strings"
	"testing"
)

// TestRequestBlock reads the question and the memory block of an
// upstream request of each API, wherever the placement put the block.
func TestRequestBlock(t *testing.T) {
	const block = "<memory>\\n- [fact 1 Jan 2026] The user's sister is Ottilie.\\n</memory>"
	for _, c := range []struct{ name, path, body string }{
		{"chat system", "/v1/chat/completions", `{"messages":[{"role":"system","content":"` + block + `"},{"role":"user","content":"Who is my sister?"}]}`},
		{"responses instructions", "/v1/responses", `{"instructions":"Be brief.\n\n` + block + `","input":[{"role":"user","content":"Who is my sister?"}]}`},
		{"responses string input", "/v1/responses", `{"instructions":"` + block + `","input":"Who is my sister?"}`},
		{"responses developer item", "/v1/responses", `{"input":[{"role":"developer","content":"` + block + `"},{"role":"user","content":[{"type":"input_text","text":"Who is my sister?"}]}]}`},
		{"messages system", "/v1/messages", `{"system":[{"type":"text","text":"Be kind."},{"type":"text","text":"` + block + `"}],"messages":[{"role":"user","content":"Who is my sister?"}]}`},
		{"messages before last user", "/v1/messages", `{"messages":[{"role":"user","content":[{"type":"text","text":"` + block + `"},{"type":"text","text":"Who is my sister?"}]}]}`},
	} {
		q, b, ok := requestBlock(c.path, []byte(c.body))
		if !ok || q != "Who is my sister?" || !strings.Contains(b, "Ottilie") || !strings.HasSuffix(b, "</memory>") {
			t.Errorf("%s: question %q, block %q, ok %v", c.name, q, b, ok)
		}
	}
	if _, b, ok := requestBlock("/v1/messages", []byte(`{"messages":[{"role":"user","content":"hi"}]}`)); !ok || b != "" {
		t.Errorf("no block: %q, %v", b, ok)
	}
}

func TestReplyText(t *testing.T) {
	for _, c := range []struct{ api, body string }{
		{APIChat, `{"choices":[{"message":{"content":"Ottilie"}}]}`},
		{APIResponses, `{"output":[{"type":"reasoning","content":[]},{"type":"message","content":[{"type":"output_text","text":"Ottilie"}]}]}`},
		{APIMessages, `{"content":[{"type":"tool_use","name":"x"},{"type":"text","text":"Ottilie"}]}`},
	} {
		if got, err := replyText(c.api, []byte(c.body)); err != nil || got != "Ottilie" {
			t.Errorf("%s: %q, %v", c.api, got, err)
		}
		if _, err := replyText(c.api, []byte(`{}`)); err == nil {
			t.Errorf("%s: no error for a reply without text", c.api)
		}
	}
}
