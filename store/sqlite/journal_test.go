package sqlite

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

func journalTurns(sc memory.Scope, from, n int, text string) []*memory.Turn {
	var out []*memory.Turn
	for i := from; i < from+n; i++ {
		out = append(out, &memory.Turn{ID: fmt.Sprintf("t%04d", i), RequestID: fmt.Sprintf("r%d", i), ResponseID: fmt.Sprintf("resp%d", i),
			Session: fmt.Sprintf("s%d", i), Scope: sc, Time: time.Now(), User: text, Assistant: "a reply"})
	}
	return out
}

// spoolAt opens the spool at path, failing the test if it cannot.
func spoolAt(t *testing.T, path string) *Spool {
	t.Helper()
	p, err := OpenSpool(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// tempSpoolPath is a spool path in a directory of the test's own.
func tempSpoolPath(t *testing.T) string {
	return SpoolPath(filepath.Join(t.TempDir(), "memproxy.db"))
}

func segmentFiles(t *testing.T, path string) []string {
	t.Helper()
	names, err := filepath.Glob(path + "-journal-*")
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func claimAll(t *testing.T, p *Spool, sc memory.Scope) []string {
	t.Helper()
	got, err := p.ClaimTurns(context.Background(), sc, "w", time.Minute, 100)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, tu := range got {
		ids = append(ids, tu.ID)
	}
	return ids
}

// A crash leaves captured turns in the journal only; the next open moves
// them into the table, in order, and removes the old segments.
func TestJournalSurvivesCrash(t *testing.T) {
	ctx := context.Background()
	path := tempSpoolPath(t)
	sc := memory.Scope{User: "u", Namespace: "default"}
	p := spoolAt(t, path)
	for g := range 3 {
		if err := p.SpoolTurns(ctx, journalTurns(sc, 2*g, 2, "I moved to Lisbon")); err != nil {
			t.Fatal(err)
		}
	}
	p.abandon()
	if len(segmentFiles(t, path)) == 0 {
		t.Fatal("no journal segment after the crash")
	}
	var n int
	if err := p.c.db.QueryRowContext(ctx, `SELECT count(*) FROM spool`).Err(); err == nil {
		t.Fatal("the spool's pool is still open")
	}
	p = spoolAt(t, path)
	defer p.Close()
	if err := p.c.db.QueryRowContext(ctx, `SELECT count(*) FROM spool`).Scan(&n); err != nil || n != 6 {
		t.Fatalf("table holds %d turns after the open (%v), want 6", n, err)
	}
	if ids := claimAll(t, p, sc); fmt.Sprint(ids) != "[t0000 t0001 t0002 t0003 t0004 t0005]" {
		t.Fatalf("claimed %v", ids)
	}
	if segs := segmentFiles(t, path); len(segs) != 1 {
		t.Fatalf("segments after the open: %v, want the new one only", segs)
	}
}

// A group torn by a crash mid-write is dropped whole: a group is spooled
// all or none.
func TestJournalTornGroup(t *testing.T) {
	ctx := context.Background()
	path := tempSpoolPath(t)
	sc := memory.Scope{User: "u", Namespace: "default"}
	p := spoolAt(t, path)
	if err := p.SpoolTurns(ctx, journalTurns(sc, 0, 2, "first group")); err != nil {
		t.Fatal(err)
	}
	if err := p.SpoolTurns(ctx, journalTurns(sc, 2, 3, "second group")); err != nil {
		t.Fatal(err)
	}
	p.abandon()
	segs := segmentFiles(t, path)
	if len(segs) != 1 {
		t.Fatalf("segments %v", segs)
	}
	st, err := os.Stat(segs[0])
	if err != nil {
		t.Fatal(err)
	}
	// Cut into the second group's last record, then into its first.
	for _, cut := range []int64{5, 300} {
		if err := os.Truncate(segs[0], st.Size()-cut); err != nil {
			t.Fatal(err)
		}
		q := spoolAt(t, path)
		ids := claimAll(t, q, sc)
		q.abandon()
		if fmt.Sprint(ids) != "[t0000 t0001]" {
			t.Fatalf("cut %d bytes: claimed %v, want the first group only", cut, ids)
		}
		// The open moved them and began a new segment: start over.
		os.Remove(path)
		os.Remove(path + "-wal")
		os.Remove(path + "-shm")
		for _, s := range segmentFiles(t, path) {
			os.Remove(s)
		}
		p := spoolAt(t, path)
		p.SpoolTurns(ctx, journalTurns(sc, 0, 2, "first group"))
		p.SpoolTurns(ctx, journalTurns(sc, 2, 3, "second group"))
		p.abandon()
		segs = segmentFiles(t, path)
		if st, err = os.Stat(segs[0]); err != nil {
			t.Fatal(err)
		}
	}
}

// A forget leaves no copy of the text in the journal, before or after it
// reached the table; an ordinary read moves turns without a purge.
func TestJournalForget(t *testing.T) {
	ctx := context.Background()
	path := tempSpoolPath(t)
	sc := memory.Scope{User: "u", Namespace: "default"}
	p := spoolAt(t, path)
	defer p.Close()
	inJournal := func(needle string) bool {
		for _, s := range segmentFiles(t, path) {
			b, err := os.ReadFile(s)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(b, []byte(needle)) {
				return true
			}
		}
		return false
	}
	if err := p.SpoolTurns(ctx, journalTurns(sc, 0, 1, "my passport is X1234567")); err != nil {
		t.Fatal(err)
	}
	if !inJournal("X1234567") {
		t.Fatal("the captured turn is not in the journal")
	}
	if _, err := p.RedactSpooled(ctx, sc, []string{"X1234567"}, "[forgotten]"); err != nil {
		t.Fatal(err)
	}
	if inJournal("X1234567") {
		t.Fatal("redacted text left in the journal")
	}
	if err := p.SpoolTurns(ctx, journalTurns(sc, 1, 1, "my locker code is 9911")); err != nil {
		t.Fatal(err)
	}
	if _, err := p.DeleteSpoolUser(ctx, "u", ""); err != nil {
		t.Fatal(err)
	}
	if inJournal("9911") {
		t.Fatal("a deleted user's text left in the journal")
	}
	var n int
	if err := p.c.db.QueryRowContext(ctx, `SELECT count(*) FROM spool WHERE data LIKE '%9911%' OR data LIKE '%X1234567%'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d rows keep the text (%v)", n, err)
	}
}

// With no reader, the mover brings a full batch into the table.
func TestJournalMover(t *testing.T) {
	ctx := context.Background()
	path := tempSpoolPath(t)
	sc := memory.Scope{User: "u", Namespace: "default"}
	p := spoolAt(t, path)
	defer p.Close()
	moved := make(chan int, 16)
	p.afterMove = func(n int) { moved <- n }
	if err := p.SpoolTurns(ctx, journalTurns(sc, 0, applyBatch, "a turn")); err != nil {
		t.Fatal(err)
	}
	total := 0
	for total < applyBatch {
		total += <-moved
	}
	var n int
	if err := p.c.db.QueryRowContext(ctx, `SELECT count(*) FROM spool`).Scan(&n); err != nil || n != applyBatch {
		t.Fatalf("table holds %d turns (%v), want %d", n, err, applyBatch)
	}
	if p.j.waiting() {
		t.Fatal("turns still wait")
	}
}

// SessionByResponse answers from the journal without moving its turns.
func TestJournalSessionByResponse(t *testing.T) {
	ctx := context.Background()
	path := tempSpoolPath(t)
	sc := memory.Scope{User: "u", Namespace: "default"}
	p := spoolAt(t, path)
	defer p.Close()
	if err := p.SpoolTurns(ctx, journalTurns(sc, 0, 2, "hi")); err != nil {
		t.Fatal(err)
	}
	if !p.j.waiting() {
		t.Skip("the mover moved the turns already")
	}
	if s, ok, err := p.SessionByResponse(ctx, sc, "resp1"); err != nil || !ok || s != "s1" {
		t.Fatalf("SessionByResponse = %q %v %v", s, ok, err)
	}
	if _, ok, _ := p.SessionByResponse(ctx, memory.Scope{User: "other", Namespace: "default"}, "resp1"); ok {
		t.Fatal("another user's response found")
	}
}

// A second process (here a second open) cannot take a spool in use: it
// would move and remove the segments the first still appends to.
func TestJournalOneProcess(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no flock")
	}
	ctx := context.Background()
	path := tempSpoolPath(t)
	p := spoolAt(t, path)
	if q, err := OpenSpool(ctx, path); err == nil || !strings.Contains(err.Error(), "in use") {
		if q != nil {
			q.Close()
		}
		t.Fatalf("second open: %v, want in use", err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	spoolAt(t, path).Close()
}

// After a failed write (here its file closed under it) captures fail
// until every acknowledged turn is in the table; then a new segment
// begins and captures succeed again, the old segment gone.
func TestJournalRecoversFromAFailedWrite(t *testing.T) {
	ctx := context.Background()
	path := tempSpoolPath(t)
	sc := memory.Scope{User: "u", Namespace: "default"}
	p := spoolAt(t, path)
	defer p.Close()
	if err := p.SpoolTurns(ctx, journalTurns(sc, 0, 1, "before")); err != nil {
		t.Fatal(err)
	}
	p.j.mu.Lock()
	broken := p.j.f.Name()
	p.j.f.Close() // the next write fails
	p.j.mu.Unlock()
	if err := p.SpoolTurns(ctx, journalTurns(sc, 1, 1, "lost")); err == nil {
		t.Fatal("a capture on a failed journal succeeded")
	}
	if err := p.SpoolTurns(ctx, journalTurns(sc, 2, 1, "still failing")); err == nil {
		t.Fatal("captures went on after a failed write")
	}
	if err := p.apply(ctx, false); err != nil {
		t.Fatal(err)
	}
	if err := p.SpoolTurns(ctx, journalTurns(sc, 3, 1, "after")); err != nil {
		t.Fatalf("capture after the move: %v", err)
	}
	if ids := claimAll(t, p, sc); fmt.Sprint(ids) != "[t0000 t0003]" {
		t.Fatalf("claimed %v", ids)
	}
	if _, err := os.Stat(broken); !os.IsNotExist(err) {
		t.Fatalf("the failed segment is still there: %v", err)
	}
}
