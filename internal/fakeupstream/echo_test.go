package fakeupstream

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestEchoSystem: with EchoSystem the default reply of each API carries
// the system text the request had (what memproxy injected shows there).
func TestEchoSystem(t *testing.T) {
	s := New()
	s.EchoSystem = true
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	for path, body := range map[string]string{
		"/v1/chat/completions": `{"model":"m","messages":[{"role":"system","content":"be brief"},{"role":"developer","content":[{"type":"text","text":"notes"}]},{"role":"user","content":"hi"}]}`,
		"/v1/responses":        `{"model":"m","instructions":"be brief\nnotes","input":"hi"}`,
		"/v1/messages":         `{"model":"m","max_tokens":5,"system":"be brief\nnotes","messages":[{"role":"user","content":"hi"}]}`,
	} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+path, bytes.NewReader([]byte(body)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Anthropic-Version", "2023-06-01")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		err = json.NewDecoder(resp.Body).Decode(&v)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		raw, _ := json.Marshal(v)
		if !strings.Contains(string(raw), `You said: hi\n[system] be brief\nnotes`) {
			t.Errorf("%s: reply %s lacks the system text", path, raw)
		}
	}
}
