package proxy

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadReply: a reply is read whole whether its announced length is
// right, missing or too small, however the body's reads are cut.
func TestReadReply(t *testing.T) {
	const body = `{"choices":[{"message":{"role":"assistant","content":"hello there"}}]}`
	for _, tc := range []struct {
		name string
		n    int64
	}{{"exact", int64(len(body))}, {"unknown", -1}, {"too small", 10}, {"zero", 0}} {
		for _, half := range []bool{false, true} {
			var r io.Reader = strings.NewReader(body)
			if half {
				r = iotest.HalfReader(r)
			}
			got, err := readReply(&http.Response{ContentLength: tc.n, Body: io.NopCloser(r)})
			if err != nil || string(got) != body {
				t.Errorf("%s (half reads %v): %q, %v", tc.name, half, got, err)
			}
		}
	}
	if _, err := readReply(&http.Response{ContentLength: 100, Body: io.NopCloser(iotest.ErrReader(io.ErrUnexpectedEOF))}); err == nil {
		t.Error("a failed read returned no error")
	}
}
