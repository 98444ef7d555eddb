package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// undo reverts the schema changes of migrations 4 and later, so tests can
// rebuild an older schema and upgrade it. Version 11's undo rebuilds what
// versions 4, 5 and 10 left before it (their SQL is a no-op now).
var undo = map[int][]string{
	19: {
		`ALTER TABLE memory_usage ADD FOREIGN KEY (user_id, namespace, id) REFERENCES memories ON DELETE CASCADE`,
		strings.Replace(memoryDeletedFunc, "\tDELETE FROM memory_usage u USING gone g WHERE u.user_id = g.user_id AND u.namespace = g.namespace AND u.id = g.id;\n", "", 1),
	},
	16: {
		`ALTER TABLE turns DROP COLUMN data, ADD COLUMN user_text text NOT NULL DEFAULT '', ADD COLUMN assistant text NOT NULL DEFAULT '',
			ADD COLUMN finish_reason text NOT NULL DEFAULT '', ADD COLUMN model text NOT NULL DEFAULT '', ADD COLUMN arm text NOT NULL DEFAULT '',
			ADD COLUMN refs jsonb NOT NULL DEFAULT '[]', ADD COLUMN injected jsonb NOT NULL DEFAULT '[]', ADD COLUMN intent text NOT NULL DEFAULT '',
			ADD COLUMN api text NOT NULL DEFAULT ''`,
		`ALTER TABLE recall DROP COLUMN data, ADD COLUMN session text NOT NULL DEFAULT '', ADD COLUMN arm text NOT NULL DEFAULT '',
			ADD COLUMN status text NOT NULL DEFAULT '', ADD COLUMN gate_reason text NOT NULL DEFAULT '',
			ADD COLUMN injected jsonb NOT NULL DEFAULT '[]', ADD COLUMN candidates jsonb NOT NULL DEFAULT '[]',
			ADD COLUMN injected_tokens integer NOT NULL DEFAULT 0, ADD COLUMN overhead_ms double precision NOT NULL DEFAULT 0,
			ADD COLUMN api text NOT NULL DEFAULT ''`,
	},
	14: {`DROP VIEW memory_rows`, `ALTER TABLE memories DROP COLUMN api`, memoryRowsView9},
	11: {
		`DROP VIEW memory_rows`,
		`ALTER TABLE memories ADD COLUMN lex tsvector NOT NULL DEFAULT ''`,
		`CREATE INDEX memories_lex ON memories USING gin (lex)`,
		`CREATE TABLE memory_vectors (user_id text, namespace text, id text, embedding halfvec)`,
		`CREATE FUNCTION memory_vectors_sync() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$`,
		`CREATE TRIGGER memory_vectors_sync AFTER INSERT ON memories FOR EACH ROW EXECUTE FUNCTION memory_vectors_sync()`,
		`CREATE FUNCTION memory_scoped_lex(u text, n text, lex tsvector) RETURNS tsvector IMMUTABLE LANGUAGE sql AS $$ SELECT lex $$`,
		`CREATE FUNCTION memory_scoped_query(u text, n text, q tsquery) RETURNS tsquery IMMUTABLE LANGUAGE sql AS $$ SELECT q $$`,
		`CREATE INDEX memories_scoped_lex ON memories USING gin (memory_scoped_lex(user_id, namespace, lex))`,
		`CREATE INDEX memories_embedding ON memories USING hnsw (embedding vector_cosine_ops)`,
		memoryRowsView9,
	},
	9: {`DROP VIEW memory_rows`, `DROP TABLE memory_usage`},
	8: {`DROP TABLE memory_deletions`, `DROP FUNCTION memory_deleted CASCADE`},
	7: {
		`DROP TRIGGER memory_stamp ON memories`,
		`DROP FUNCTION memory_stamp`,
		`ALTER TABLE memories DROP COLUMN xid, DROP COLUMN ver`,
	},
}

// downgrade takes st's schema back to version v (at least 3, or 2 for the
// caller to revert migration 3 itself).
func downgrade(t *testing.T, st *Store, v int) {
	t.Helper()
	for m := len(migrations); m > v; m-- {
		for _, q := range undo[m] {
			if _, err := st.db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := st.db.Exec(`DELETE FROM schema_migrations WHERE version > $1`, v); err != nil {
		t.Fatal(err)
	}
}

// upgrade opens st's schema again, which runs the migrations downgrade
// undid; the store is closed when t ends.
func upgrade(t *testing.T, st *Store) *Store {
	t.Helper()
	st2, err := Open(context.Background(), testDSN(t, st), memory.OpenOptions{Model: "test-model", Dim: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st2.Close() })
	return st2
}

// TestMigrateFromVersion2 upgrades a version 2 schema, whose lex holds
// unstemmed words and which has no context column, and checks that
// version 3 added the column and that search stems (in process, from the
// text: lex is gone).
func TestMigrateFromVersion2(t *testing.T) {
	st := openTest(t, 8)
	ctx := context.Background()
	sc := memory.Scope{User: "alice", Namespace: "default"}
	if err := st.Insert(ctx, sc, &memory.Memory{ID: "a", Tier: memory.TierEvent, Text: "We hiked up the mountains"}); err != nil {
		t.Fatal(err)
	}
	// Back to version 2: no context column, the old lexical form.
	downgrade(t, st, 2)
	for _, q := range []string{
		`ALTER TABLE memories DROP COLUMN context`,
		`UPDATE memories SET lex = to_tsvector('simple', 'we hiked up the mountains')`,
	} {
		if _, err := st.db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	st2 := upgrade(t, st)
	got, err := st2.LexicalSearch(ctx, sc, "hiking in the mountain", memory.SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Memory.ID != "a" || got[0].Memory.Context != "" {
		t.Errorf("searching inflected words after the migration: %v, want [a]", candIDs(got))
	}
}

// TestMigrateDropsSQLSearch upgrades a version 10 schema that holds the
// SQL search path (the lex column and its GIN indexes, memory_vectors and
// its trigger, an HNSW index) and checks that version 11 dropped them all
// and that the memories still search and write.
func TestMigrateDropsSQLSearch(t *testing.T) {
	st := openTest(t, 8)
	ctx := context.Background()
	sc := memory.Scope{User: "alice", Namespace: "default"}
	near := &memory.Memory{ID: "near", Tier: memory.TierEvent, Text: "we hiked near the lake", Embedding: []float32{1, 0, 0, 0, 0, 0, 0, 0}}
	if err := st.Insert(ctx, sc, near); err != nil {
		t.Fatal(err)
	}
	downgrade(t, st, 10)
	st2 := upgrade(t, st)
	var left []string
	rows, err := st2.db.Query(`SELECT 'column ' || attname FROM pg_attribute WHERE attrelid = 'memories'::regclass AND attname = 'lex' AND NOT attisdropped
		UNION ALL SELECT 'index ' || indexname FROM pg_indexes WHERE schemaname = current_schema() AND (indexdef ILIKE '%hnsw%' OR indexdef ILIKE '%gin%')
		UNION ALL SELECT 'table ' || tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename = 'memory_vectors'
		UNION ALL SELECT 'function ' || proname FROM pg_proc WHERE pronamespace = current_schema()::regnamespace
			AND proname IN ('memory_vectors_sync', 'memory_scoped_lex', 'memory_scoped_query')`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var what string
		if err := rows.Scan(&what); err != nil {
			t.Fatal(err)
		}
		left = append(left, what)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	if len(left) > 0 {
		t.Errorf("after version 11 the schema still has %v", left)
	}
	if err := st2.Insert(ctx, sc, &memory.Memory{ID: "far", Tier: memory.TierEvent, Text: "far away", Embedding: []float32{0, 1, 0, 0, 0, 0, 0, 0}}); err != nil {
		t.Fatal(err)
	}
	got, err := st2.VectorSearch(ctx, sc, []float32{1, 0.1, 0, 0, 0, 0, 0, 0}, memory.SearchOptions{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(candIDs(got), []string{"near", "far"}) {
		t.Errorf("vector search after the migration: %v, want [near far]", candIDs(got))
	}
	got, err = st2.LexicalSearch(ctx, sc, "hiking", memory.SearchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(candIDs(got), []string{"near"}) {
		t.Errorf("lexical search after the migration: %v, want [near]", candIDs(got))
	}
}

// TestTouchRoom: every memories partition leaves room for in-place
// (HOT) touches.
func TestTouchRoom(t *testing.T) {
	st := openTest(t, 8)
	var n int
	if err := st.db.QueryRow(`SELECT count(*) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
		WHERE i.inhparent = 'memories'::regclass AND 'fillfactor=85' = ANY(c.reloptions)`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != partitions {
		t.Errorf("%d of %d memories partitions have fillfactor 85", n, partitions)
	}
}

// TestMigrateMemoryAPI upgrades a version 13 schema, whose memories have
// no api column, and checks that version 14 added it: an old memory reads
// with no API, a new one keeps its, through the view every read uses.
func TestMigrateMemoryAPI(t *testing.T) {
	st := openTest(t, 8)
	ctx := context.Background()
	sc := memory.Scope{User: "alice", Namespace: "default"}
	downgrade(t, st, 13)
	if _, err := st.db.Exec(`INSERT INTO memories (user_id, namespace, id, tier, text, value, confidence, created_at, last_used_at, valid_from)
		VALUES ('alice', 'default', 'old', 'event', 'an old turn', 0.5, 1, now(), now(), now())`); err != nil {
		t.Fatal(err)
	}
	st2 := upgrade(t, st)
	if err := st2.Insert(ctx, sc, &memory.Memory{ID: "new", Tier: memory.TierEvent, Text: "a new turn", API: "responses"}); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string]string{"old": "", "new": "responses"} {
		m, err := st2.Get(ctx, sc, id)
		if err != nil || m.API != want {
			t.Errorf("memory %s after version 14: api %q, %v; want %q", id, m.API, err, want)
		}
	}
	page, err := st2.List(ctx, sc, memory.ListFilter{})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range page.Data {
		if m.ID == "new" && m.API != "responses" {
			t.Errorf("List: memory new has api %q", m.API)
		}
	}
}

// TestMigrateLogsToJSON upgrades a version 15 schema, whose turn-log and
// recall rows are columns, and checks that version 16 converted every
// row to JSON without loss: each reads back as it was written, and new
// rows go in beside them.
func TestMigrateLogsToJSON(t *testing.T) {
	st := openTest(t, 8)
	ctx := context.Background()
	sc := memory.Scope{User: "alice", Namespace: "default"}
	downgrade(t, st, 15)
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 123456000, time.UTC)
	if _, err := st.db.Exec(`INSERT INTO turns (user_id, namespace, request_id, session, time, user_text, assistant,
		finish_reason, model, arm, refs, injected, intent, tid, api) VALUES
		('alice', 'default', 'r1', 's1', $1, 'I moved to Lisbon', 'Nice!', 'stop', 'gpt', 'on', '["m-1","m-2"]', '["x"]', 'remember', 't1', 'responses'),
		('alice', 'default', 'r2', '', $2, 'plain', 'reply', '', '', '', '[]', '[]', '', NULL, '')`, t0, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := st.db.Exec(`INSERT INTO recall (user_id, namespace, request_id, session, time, arm, status, gate_reason,
		injected, candidates, injected_tokens, overhead_ms, feedback, api) VALUES
		('alice', 'default', 'r1', 's1', $1, 'on', 'injected', 'question', '["x"]',
			'[{"id":"x","tier":"semantic","score":0.5,"sim":0.8,"retention":1,"freq":0,"value":0.5,"rank":1,"injected":true}]', 12, 1.5, 0.25, 'responses'),
		('alice', 'default', 'r2', '', $2, 'off', 'off', '', '[]', '[]', 0, 0, NULL, '')`, t0, t0.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	st2 := upgrade(t, st)
	page, err := st2.Turns(ctx, sc, memory.TurnFilter{})
	if err != nil {
		t.Fatal(err)
	}
	want := []memory.Turn{
		{ID: "t1", API: "responses", RequestID: "r1", Scope: sc, Session: "s1", Time: t0, User: "I moved to Lisbon", Assistant: "Nice!",
			FinishReason: "stop", Model: "gpt", Arm: "on", Refs: []string{"m-1", "m-2"}, Injected: []string{"x"}, Intent: memory.IntentRemember},
		{RequestID: "r2", Scope: sc, Time: t0.Add(time.Minute), User: "plain", Assistant: "reply"},
	}
	if len(page.Data) != len(want) {
		t.Fatalf("%d turns after version 16, want %d", len(page.Data), len(want))
	}
	for i, got := range page.Data {
		if !reflect.DeepEqual(*got, want[i]) {
			t.Errorf("turn %d after version 16:\n got %+v\nwant %+v", i, *got, want[i])
		}
	}
	fb := 0.25
	wantRecall := map[string]memory.RecallRecord{
		"r1": {API: "responses", RequestID: "r1", Scope: sc, Session: "s1", Time: t0, Arm: "on", Status: "injected", GateReason: "question",
			Injected: []string{"x"}, Candidates: []memory.RankedCandidate{{ID: "x", Tier: memory.TierSemantic, Score: 0.5, Sim: 0.8, Retention: 1,
				Value: 0.5, Rank: 1, Injected: true}}, InjectedTokens: 12, OverheadMs: 1.5, Feedback: &fb},
		"r2": {RequestID: "r2", Scope: sc, Time: t0.Add(time.Minute), Arm: "off", Status: "off"},
	}
	for id, w := range wantRecall {
		got, err := st2.RecallByRequest(ctx, sc, id)
		if err != nil || !reflect.DeepEqual(*got, w) {
			t.Errorf("recall %s after version 16: %+v, %v\nwant %+v", id, got, err, w)
		}
	}
	// New rows go in beside the converted ones; a request's second
	// recall row still replaces its first.
	if err := st2.AppendTurn(ctx, &memory.Turn{ID: "t3", RequestID: "r3", Scope: sc, Time: t0.Add(2 * time.Minute), User: "new"}); err != nil {
		t.Fatal(err)
	}
	if err := st2.AppendRecall(ctx, &memory.RecallRecord{RequestID: "r2", Scope: sc, Time: t0.Add(3 * time.Minute), Arm: "on", Status: "skipped"}); err != nil {
		t.Fatal(err)
	}
	if page, err = st2.Turns(ctx, sc, memory.TurnFilter{}); err != nil || len(page.Data) != 3 || page.Data[2].User != "new" {
		t.Errorf("turns after a new append: %d, %v", len(page.Data), err)
	}
	if got, err := st2.RecallByRequest(ctx, sc, "r2"); err != nil || got.Status != "skipped" {
		t.Errorf("recall r2 after a second append: %+v, %v", got, err)
	}
}

// TestJSONRecordsCompressWithLZ4: the spool's, turn log's and recall
// log's JSON records past PostgreSQL's 2 KB threshold are compressed with
// lz4 (migration 18), on a server that has it.
func TestJSONRecordsCompressWithLZ4(t *testing.T) {
	st := openTest(t, 8)
	ctx := context.Background()
	if _, err := st.db.ExecContext(ctx, `CREATE TEMP TABLE lz4_probe (d text COMPRESSION lz4)`); err != nil {
		t.Skipf("this server has no lz4: %v", err)
	}
	sc := memory.Scope{User: "alice", Namespace: "default"}
	rec := &memory.RecallRecord{RequestID: "r1", Scope: sc, Time: time.Now(), Arm: "on", Status: "injected"}
	for i := range 25 {
		rec.Candidates = append(rec.Candidates, memory.RankedCandidate{ID: fmt.Sprintf("%016x", i*7919), Tier: memory.TierEvent,
			Score: 0.1234567 * float64(i), Sim: 0.5, Retention: 0.9, Freq: 0.2, Value: 0.5, Rank: i + 1, Refs: []string{fmt.Sprintf("conv:%d", i)}})
	}
	if err := st.AppendRecall(ctx, rec); err != nil {
		t.Fatal(err)
	}
	turn := &memory.Turn{ID: "t1", RequestID: "r1", Scope: sc, Time: time.Now(), User: strings.Repeat("I like hiking in the mountains. ", 80), Assistant: "Noted."}
	if err := st.Spool().SpoolTurns(ctx, []*memory.Turn{turn}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`SELECT pg_column_compression(data) FROM recall WHERE request_id = 'r1'`,
		`SELECT pg_column_compression(data) FROM turn_spool WHERE tid = 't1'`,
	} {
		var c sql.NullString
		if err := st.db.QueryRowContext(ctx, q).Scan(&c); err != nil {
			t.Fatal(err)
		}
		if c.String != "lz4" {
			t.Errorf("%s: %q, want lz4", q, c.String)
		}
	}
	var c string
	if err := st.db.QueryRowContext(ctx, `SELECT attcompression::text FROM pg_attribute WHERE attrelid = 'turns'::regclass AND attname = 'data'`).Scan(&c); err != nil || c != "l" {
		t.Errorf("turns.data compression %q (%v), want l (lz4)", c, err)
	}
}
