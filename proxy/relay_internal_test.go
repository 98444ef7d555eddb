package proxy

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"
	"time"
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
			got, err := readReply(&http.Response{ContentLength: tc.n, Body: io.NopCloser(r)}, 1<<20)
			if err != nil || string(got) != body {
				t.Errorf("%s (half reads %v): %q, %v", tc.name, half, got, err)
			}
		}
	}
	if _, err := readReply(&http.Response{ContentLength: 100, Body: io.NopCloser(iotest.ErrReader(io.ErrUnexpectedEOF))}, 1<<20); err == nil {
		t.Error("a failed read returned no error")
	}
}

// TestPastDeadline: a recall that failed at or after its deadline timed
// out, whether or not its context's timer has fired yet (a dial given the
// same deadline fails with "i/o timeout" as it passes); one that failed
// before it is an error.
func TestPastDeadline(t *testing.T) {
	d := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		ctxErr error
		now    time.Time
		want   bool
	}{
		{nil, d.Add(-time.Millisecond), false},
		{nil, d, true},
		{nil, d.Add(time.Microsecond), true},
		{context.DeadlineExceeded, d.Add(-time.Millisecond), true},
		{context.Canceled, d.Add(-time.Millisecond), false},
	} {
		if got := pastDeadline(c.ctxErr, d, c.now); got != c.want {
			t.Errorf("pastDeadline(%v, %v before the deadline) = %v", c.ctxErr, d.Sub(c.now), got)
		}
	}
	if pastDeadline(nil, time.Time{}, d) {
		t.Error("no deadline counted as passed")
	}
}
