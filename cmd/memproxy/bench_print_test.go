package main

import (
	"strings"
	"testing"
)

// TestPrintOverheadFailures: a run whose background jobs failed says so,
// with the server's first error lines; one without says nothing of it.
func TestPrintOverheadFailures(t *testing.T) {
	var b strings.Builder
	printOverhead(&b, &overheadResult{Stores: []*storeResult{{Store: "sqlite", QueueEmpty: true, JobErrors: 2, ParkedTurns: 1,
		FirstErrors: []string{`level=ERROR msg="background job failed" err="memory text is not valid UTF-8"`}}}})
	out := b.String()
	if !strings.Contains(out, "2 failed job attempts and 1 parked turns") || !strings.Contains(out, "not valid UTF-8") {
		t.Errorf("failures not reported:\n%s", out)
	}
	b.Reset()
	printOverhead(&b, &overheadResult{Stores: []*storeResult{{Store: "sqlite", QueueEmpty: true}}})
	if strings.Contains(b.String(), "failed job") {
		t.Errorf("a clean run reports failures:\n%s", b.String())
	}
}

// TestFirstErrorsKeepsFew: the bench's server log keeps its first error
// lines only, and no warnings.
func TestFirstErrorsKeepsFew(t *testing.T) {
	e := &firstErrors{}
	l := e.logger()
	l.Warn("recall deadline passed")
	for range 10 {
		l.Error("background job failed", "err", "boom")
	}
	got := e.first()
	if len(got) != keptErrors || !strings.Contains(got[0], "background job failed") || strings.Contains(strings.Join(got, "\n"), "deadline") {
		t.Errorf("kept %q", got)
	}
}
