package fault

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memproxy/memproxy/internal/app"
	"github.com/memproxy/memproxy/policy"
)

// TestSlowBodiesDefaultPolicy measures the body rule at its shipped
// defaults: a body trickling a byte a second is cut (408, connection
// closed) and a 16 MiB upload at 1 MB/s passes. It takes about 40 s, so it
// runs only with MEMPROXY_FAULT_LONG=1 (docs/reliability.md); the same
// rule is tested scaled down in proxy.
func TestSlowBodiesDefaultPolicy(t *testing.T) {
	if os.Getenv("MEMPROXY_FAULT_LONG") == "" {
		t.Skip("set MEMPROXY_FAULT_LONG=1 to measure the body rule at the default policy (about 40 s)")
	}
	s := newStack(t, app.Options{Policy: policy.Default(), DB: filepath.Join(t.TempDir(), "m.db")})
	addr := strings.TrimPrefix(s.front.URL, "http://")

	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n")
	go func() {
		tk := time.NewTicker(time.Second)
		defer tk.Stop()
		for range tk.C {
			if _, err := conn.Write([]byte(" ")); err != nil {
				return
			}
		}
	}()
	br := bufio.NewReader(conn)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	_, eof := br.ReadByte()
	t.Logf("slowloris (1 byte/s): %d after %v, connection closed: %v", res.StatusCode, time.Since(start).Round(100*time.Millisecond), eof == io.EOF)
	if res.StatusCode != http.StatusRequestTimeout || eof != io.EOF || time.Since(start) > 35*time.Second {
		t.Errorf("slowloris not cut within ~30 s")
	}

	body := bigChat(16<<20-1024, false)
	pr, pw := io.Pipe()
	go func() {
		tk := time.NewTicker(10 * time.Millisecond)
		defer tk.Stop()
		r := bytes.NewReader(body)
		buf := make([]byte, 10000) // 1 MB/s
		for range tk.C {
			n, err := r.Read(buf)
			if n > 0 {
				pw.Write(buf[:n])
			}
			if err != nil {
				pw.Close()
				return
			}
		}
	}()
	req, _ := http.NewRequest(http.MethodPost, s.front.URL+"/v1/chat/completions", pr)
	req.ContentLength = int64(len(body))
	req.Header.Set("X-Memproxy-User", "uploader")
	start = time.Now()
	up, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, up.Body)
	up.Body.Close()
	t.Logf("16 MiB at 1 MB/s: %d after %v", up.StatusCode, time.Since(start).Round(100*time.Millisecond))
	if up.StatusCode != http.StatusOK {
		t.Errorf("honest slow upload refused: %d", up.StatusCode)
	}
}
