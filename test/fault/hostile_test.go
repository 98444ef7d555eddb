package fault

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/memproxy/memproxy/internal/fakeupstream"
)

// bigChat is a chat body of about n bytes: one user message of sentences
// with varied words, as a pasted document would be.
func bigChat(n int, stream bool) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"model":"m","stream":%v,"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"`, stream)
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "Line %d: my colleague number %d moved to city%d and prefers tea brand %d. ", i, i%977, i%313, i%101)
	}
	b.WriteString(`"}]}`)
	return b.Bytes()
}

func fakeUpstream(t *testing.T) *fakeupstream.Server {
	f := fakeupstream.New()
	f.Record = false
	return f
}

// TestTenMegabyteBodyBoundedMemory: one 10 MB chat body, its reply and its
// background ingest raise the memproxy process's peak resident size by
// less than 150 MB, measured in a subprocess.
func TestTenMegabyteBodyBoundedMemory(t *testing.T) {
	fake := fakeUpstream(t)
	for range 4 {
		fake.Push(fakeupstream.Reply{Content: "Noted, thanks for the document."})
	}
	up := httptest.NewServer(fake.Handler())
	defer up.Close()
	c := startChild(t, up.URL+"/v1")
	small := bigChat(2000, false)
	if res, body := c.post("/v1/chat/completions", bytes.NewReader(small), int64(len(small))); res.StatusCode != http.StatusOK {
		t.Fatalf("warm-up: %d %s", res.StatusCode, body)
	}
	hwm0, rss0 := c.idle()
	big := bigChat(10<<20, false)
	res, body := c.post("/v1/chat/completions", bytes.NewReader(big), int64(len(big)))
	if res.StatusCode != http.StatusOK || !strings.Contains(body, "Noted") {
		t.Fatalf("10 MB body: %d %.200s", res.StatusCode, body)
	}
	hwm1, rss1 := c.idle()
	growth := hwm1 - hwm0
	t.Logf("10 MB body: peak resident %d MB -> %d MB (growth %d MB); resident after %d MB (before %d MB)",
		hwm0>>20, hwm1>>20, growth>>20, rss1>>20, rss0>>20)
	if growth >= 150<<20 {
		t.Errorf("peak resident growth %d MB for one 10 MB body, want under 150 MB", growth>>20)
	}
}

// TestHostileShapes: deep nesting and very many messages neither crash
// memproxy nor cost it unbounded memory; what it cannot parse gets a clear
// 400 in the API's shape, the rest is forwarded.
func TestHostileShapes(t *testing.T) {
	fake := fakeUpstream(t)
	up := httptest.NewServer(fake.Handler())
	defer up.Close()
	c := startChild(t, up.URL+"/v1")
	hwm0, _ := c.idle()
	nest := func(depth int) string { return strings.Repeat("[", depth) + strings.Repeat("]", depth) }
	msgs := func(n int) string {
		var b strings.Builder
		b.WriteString(`{"model":"m","messages":[`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			role := "user"
			if i%2 == 1 {
				role = "assistant"
			}
			fmt.Fprintf(&b, `{"role":%q,"content":"message %d about topic %d"}`, role, i, i%37)
		}
		b.WriteString(`]}`)
		return b.String()
	}
	for _, tc := range []struct {
		name, body string
		status     int    // 0: forwarded (memproxy set X-Memproxy-Recall)
		code       string // the 400's code
	}{
		{"100k-deep body", nest(100000), 400, "nesting_too_deep"},
		{"8M-deep body", nest(8 << 20), 400, "nesting_too_deep"},
		{"100k-deep extra field", `{"model":"m","messages":[{"role":"user","content":"hi there friend"}],"metadata":` + nest(100000) + `}`, 400, "nesting_too_deep"},
		{"100k-deep content", `{"model":"m","messages":[{"role":"user","content":` + nest(100000) + `}]}`, 400, "nesting_too_deep"},
		{"shallow extra field", `{"model":"m","messages":[{"role":"user","content":"hi there friend"}],"metadata":` + nest(50) + `}`, 0, ""},
		{"10,000 messages", msgs(10000), 0, ""},
		{"10,000 messages ending with the user", msgs(10001), 0, ""},
	} {
		res, body := c.post("/v1/chat/completions", strings.NewReader(tc.body), int64(len(tc.body)))
		switch {
		case tc.status == 0:
			if res.Header.Get("X-Memproxy-Recall") == "" {
				t.Errorf("%s: %d %.200s, want it forwarded", tc.name, res.StatusCode, body)
			}
		case res.StatusCode != tc.status || !strings.Contains(body, `"code":"`+tc.code+`"`) || !strings.Contains(body, `"error"`):
			t.Errorf("%s: %d %.300s, want %d %s", tc.name, res.StatusCode, body, tc.status, tc.code)
		}
	}
	// The Responses and Messages routes: an 8M-deep body overflowed the
	// stack in their parser and killed the process.
	for _, tc := range []struct{ path, body, want string }{
		{"/v1/responses", `{"model":"m","input":"hi there friend","metadata":` + nest(8<<20-64) + `}`, `"code":"nesting_too_deep"`},
		{"/v1/messages", `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi there friend"}],"metadata":` + nest(8<<20-64) + `}`, `{"type":"error","error":{"type":"invalid_request_error"`},
	} {
		res, body := c.post(tc.path, strings.NewReader(tc.body), int64(len(tc.body)))
		if res.StatusCode != 400 || !strings.Contains(body, tc.want) {
			t.Errorf("%s 8M-deep body: %d %.300s, want 400 %s", tc.path, res.StatusCode, body, tc.want)
		}
	}
	hwm1, _ := c.idle()
	t.Logf("hostile shapes: peak resident %d MB -> %d MB", hwm0>>20, hwm1>>20)
	if hwm1-hwm0 >= 150<<20 {
		t.Errorf("peak resident growth %d MB, want under 150 MB", (hwm1-hwm0)>>20)
	}
}
