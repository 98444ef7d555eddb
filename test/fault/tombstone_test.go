package fault

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memproxy/memproxy/internal/app"
	"github.com/memproxy/memproxy/internal/fakeupstream"
	"github.com/memproxy/memproxy/internal/testpg"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
	"github.com/memproxy/memproxy/store/postgres"
	"github.com/memproxy/memproxy/store/sqlite"
)

// After a whole user is deleted, writes of work that began before the
// deletion land nowhere on either store: memories dated before it, turns
// and recall rows of requests that began before it, audit rows with
// content about memories that are gone. Rows dated after it (the user
// coming back) are kept; a delete without the tombstone (a namespace)
// fences nothing; an import (ClearTombstone) restores old rows.
func TestLateWritesAfterForgetUser(t *testing.T) {
	type backend interface {
		memory.Store
		memory.Admin
		memory.Erasing
	}
	for name, open := range map[string]func(t *testing.T) backend{
		"sqlite": func(t *testing.T) backend {
			s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "m.db"), memory.OpenOptions{Model: "m", Dim: 2})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
		"postgres": func(t *testing.T) backend {
			s, err := postgres.Open(t.Context(), testpg.New(t), memory.OpenOptions{Model: "m", Dim: 2})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
	} {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			st := open(t)
			sc := memory.Scope{User: "gone", Namespace: memory.DefaultNamespace}
			other := memory.Scope{User: "gone-ns-only", Namespace: memory.DefaultNamespace}
			before := time.Now().Add(-time.Minute).UTC()
			write := func(s memory.Scope, at time.Time, tag string) {
				t.Helper()
				id := memory.NewID()
				if err := st.Insert(ctx, s, &memory.Memory{ID: id, Tier: memory.TierEvent, Text: "secret " + tag, Embedding: []float32{1, 0}, CreatedAt: at, LastUsedAt: at, ValidFrom: at}); err != nil {
					t.Fatal(err)
				}
				if err := st.AppendTurn(ctx, &memory.Turn{Scope: s, RequestID: "r-" + tag, Time: at, User: "secret " + tag, Assistant: "ok"}); err != nil {
					t.Fatal(err)
				}
				if err := st.AppendRecall(ctx, &memory.RecallRecord{Scope: s, RequestID: "r-" + tag, Time: at, Status: "skipped"}); err != nil {
					t.Fatal(err)
				}
				// An audit row with content about a memory that is not
				// there (its insert was dropped, or it went with the user).
				if err := st.AppendAudit(ctx, &memory.AuditEntry{Scope: s, Time: time.Now(), Actor: "background", Action: "insert", MemoryID: "missing-" + tag, After: "secret " + tag}); err != nil {
					t.Fatal(err)
				}
			}
			count := func(s memory.Scope) (mems, turns, recalls, audits int) {
				t.Helper()
				ms, err := st.List(ctx, s, memory.ListFilter{Limit: 100})
				if err != nil {
					t.Fatal(err)
				}
				ts, err := st.Turns(ctx, s, memory.TurnFilter{Limit: 100})
				if err != nil {
					t.Fatal(err)
				}
				for _, tag := range []string{"early", "late", "back"} {
					if r, err := st.RecallByRequest(ctx, s, "r-"+tag); err == nil && r != nil {
						recalls++
					}
				}
				as, err := st.Audit(ctx, s, time.Time{}, 100)
				if err != nil {
					t.Fatal(err)
				}
				for _, a := range as {
					if a.After != "" {
						audits++
					}
				}
				return len(ms.Data), len(ts.Data), recalls, audits
			}
			write(sc, before, "early")
			write(other, before, "early")
			// What forget-user does: the tombstone, then the rows.
			if err := st.Eraser().TombstoneUser(ctx, sc.User); err != nil {
				t.Fatal(err)
			}
			if _, err := st.DeleteUser(ctx, sc.User, ""); err != nil {
				t.Fatal(err)
			}
			if _, err := st.DeleteUser(ctx, other.User, other.Namespace); err != nil {
				t.Fatal(err)
			}
			// Late writes of work that began before the deletion.
			write(sc, before, "late")
			if m, tu, r, a := count(sc); m+tu+r+a != 0 {
				t.Errorf("after the delete: %d memories, %d turns, %d recall rows, %d audit rows with content landed", m, tu, r, a)
			}
			// A delete without the tombstone (a namespace delete) fences
			// nothing: its scope takes writes.
			write(other, before, "late")
			if m, tu, r, _ := count(other); m != 1 || tu != 1 || r != 1 {
				t.Errorf("after a namespace delete: %d memories, %d turns, %d recall rows, want 1 each", m, tu, r)
			}
			// The user coming back: rows dated after the deletion stay.
			write(sc, time.Now().Add(time.Second).UTC(), "back")
			if m, tu, r, _ := count(sc); m != 1 || tu != 1 || r != 1 {
				t.Errorf("the user back after the delete: %d memories, %d turns, %d recall rows, want 1 each", m, tu, r)
			}
			// An import restoring the user ends the tombstone: old rows land.
			if err := st.Eraser().ClearTombstone(ctx, sc.User); err != nil {
				t.Fatal(err)
			}
			write(sc, before, "early")
			if m, tu, r, _ := count(sc); m != 2 || tu != 2 || r != 2 {
				t.Errorf("after the tombstone was cleared: %d memories, %d turns, %d recall rows, want 2 each", m, tu, r)
			}
		})
	}
}

// A chat of a user is held mid-stream while the user is deleted: on
// PostgreSQL by another memproxy instance on the same store (the serving
// one knows nothing of the delete: its own fence is empty), on SQLite by
// the same one. Nothing of that chat lands: no turn, memory, recall row,
// spool row or audit content after the delete. The same user chatting
// again afterwards is remembered.
func TestForgetUserInFlight(t *testing.T) {
	for _, backend := range []string{"postgres", "sqlite"} {
		t.Run(backend, func(t *testing.T) { forgetInFlight(t, backend) })
	}
}

func forgetInFlight(t *testing.T, backend string) {
	fake := fakeupstream.New()
	fake.Record = false
	up := newUpstream(t, fake)
	const token = "admin-secret-token-for-tests"
	var a, b *stack
	var db *sql.DB
	var err error
	userCol, tables := "user_id", []string{"memories", "turns", "recall", "turn_spool", "audit"}
	if backend == "postgres" {
		dsn := testpg.New(t)
		mk := func() *stack {
			return newStack(t, app.Options{DatabaseURL: dsn, Policy: policy.Default(), Upstream: up, AdminToken: token})
		}
		a, b = mk(), mk()
		db, err = sql.Open("postgres", dsn)
	} else {
		path := filepath.Join(t.TempDir(), "m.db")
		a = newStack(t, app.Options{DB: path, Policy: policy.Default(), Upstream: up, AdminToken: token})
		b = a
		db, err = sql.Open("sqlite", path)
		userCol, tables = "user", []string{"memories", "turns", "recall", "audit"}
	}
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const user = "leaving"
	rows := func() map[string]int {
		out := map[string]int{}
		for _, table := range tables {
			q := `SELECT count(*) FROM ` + table + ` WHERE ` + userCol + ` = $1`
			if table == "audit" {
				q += ` AND action <> 'forget_user'`
			}
			var n int
			if err := db.QueryRow(q, user).Scan(&n); err != nil {
				t.Fatal(err)
			}
			out[table] = n
		}
		return out
	}

	// The user's earlier chat, ingested.
	if _, ok, _, err := a.chat(user, "my sister's name is Ines and I live in Porto", false); err != nil || !ok {
		t.Fatalf("first chat: %v", err)
	}
	waitIdle(t, a, b)
	if got := rows(); got["turns"] != 1 || got["recall"] != 1 {
		t.Fatalf("before the delete: %v, want 1 turn and 1 recall row", got)
	}

	// A chat on B, held mid-stream while A deletes the user.
	hold := make(chan struct{})
	started := make(chan struct{})
	fake.Push(fakeupstream.Reply{Hold: hold, Chunks: []string{"noted: ", "your new address"}, OnStart: func(*http.Request) { close(started) }})
	done := make(chan error, 1)
	go func() {
		body := `{"model":"m","stream":true,"messages":[{"role":"user","content":"remember that I moved to Lisbon last week"}]}`
		req, _ := http.NewRequest(http.MethodPost, b.front.URL+"/v1/chat/completions", strings.NewReader(body))
		req.Header.Set("X-Memproxy-User", user)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			done <- err
			return
		}
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		last := ""
		for sc.Scan() {
			if sc.Text() != "" {
				last = sc.Text()
			}
		}
		if last != "data: [DONE]" {
			err = fmt.Errorf("stream ended with %q", last)
		}
		done <- err
	}()
	<-started
	req, _ := http.NewRequest(http.MethodDelete, a.front.URL+"/admin/v1/users/"+user, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("delete: %v %v", res, err)
	}
	res.Body.Close()
	close(hold)
	if err := <-done; err != nil {
		t.Fatalf("held chat: %v", err)
	}
	waitIdle(t, a, b)
	for table, n := range rows() {
		if n != 0 {
			t.Errorf("after the delete, %d %s rows of the chat in flight", n, table)
		}
	}

	// Back later: remembered again.
	if _, ok, _, err := b.chat(user, "I live in Lisbon now", false); err != nil || !ok {
		t.Fatalf("chat after the delete: %v", err)
	}
	waitIdle(t, a, b)
	if got := rows(); got["turns"] != 1 || got["recall"] != 1 {
		t.Errorf("the user's chat after the delete: %v, want 1 turn and 1 recall row", got)
	}
}

// waitIdle waits for every stack's captures and queue.
func waitIdle(t *testing.T, stacks ...*stack) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	for _, s := range stacks {
		if err := s.app.Proxy.WaitCaptures(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range stacks {
		if err := s.app.Queue.WaitIdle(ctx); err != nil {
			t.Fatal(err)
		}
		if err := s.app.Hook.Flush(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// newUpstream serves fake on loopback until t ends and returns its base
// URL.
func newUpstream(t *testing.T, fake *fakeupstream.Server) string {
	up := httptest.NewServer(fake.Handler())
	t.Cleanup(up.Close)
	return up.URL + "/v1"
}

// On SQLite a deleted user's text is gone from the database file itself
// (secure_delete zeroes freed content; a checkpoint moves the WAL's
// pages into the file): nothing is left to read with a hex editor.
func TestForgetUserLeavesNoBytesOnSQLite(t *testing.T) {
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "m.db")
	st, err := sqlite.Open(ctx, path, memory.OpenOptions{Model: "m", Dim: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var on int
	if err := st.DB().QueryRowContext(ctx, `PRAGMA secure_delete`).Scan(&on); err != nil || on != 1 {
		t.Fatalf("secure_delete = %d (%v), want 1", on, err)
	}
	const marker = "zebra-quokka-7731-passphrase"
	sc := memory.Scope{User: "bytes", Namespace: memory.DefaultNamespace}
	// Enough rows that pages are freed and reused, not just one cell.
	for i := range 50 {
		text := fmt.Sprintf("%s number %d with some padding text to fill the page", marker, i)
		if err := st.Insert(ctx, sc, &memory.Memory{Tier: memory.TierEvent, Text: text, Embedding: []float32{1, 0}}); err != nil {
			t.Fatal(err)
		}
		if err := st.AppendTurn(ctx, &memory.Turn{Scope: sc, RequestID: fmt.Sprintf("r%d", i), Time: time.Now(), User: text, Assistant: "ok"}); err != nil {
			t.Fatal(err)
		}
	}
	found := func() bool {
		t.Helper()
		if _, err := st.DB().ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{path, path + "-wal"} {
			b, err := os.ReadFile(p)
			if err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
			if strings.Contains(string(b), marker) {
				return true
			}
		}
		return false
	}
	if !found() {
		t.Fatal("the marker is not in the file before the delete: the check cannot see it")
	}
	if _, err := st.DeleteUser(ctx, sc.User, ""); err != nil {
		t.Fatal(err)
	}
	if found() {
		t.Error("a deleted user's text is still in the database file")
	}
}
