package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/memproxy/memproxy/memory"
)

// partitions is the number of hash partitions of the memories table. It is
// fixed by the first migration: changing it later means a new migration
// that rewrites the table.
const partitions = 8

// maxHalfvecDim is the largest dimension a store accepts (halfvec).
const maxHalfvecDim = 4000

// maxVectorDim is the largest dimension stored as a full vector; larger
// models are stored as halfvec, half the bytes.
const maxVectorDim = 2000

// vectorType returns the column type for dim.
func vectorType(dim int) string {
	if dim > maxVectorDim {
		return "halfvec"
	}
	return "vector"
}

// migration is one schema version. sql receives the embedding dimension,
// which the first migration bakes into the vector column.
type migration struct {
	version int
	name    string
	sql     func(dim int) string
}

var migrations = []migration{
	{1, "initial schema", initialSchema},
	{2, "client keys", func(int) string { return clientKeysSchema }},
	// memories.context is search-only text (an event's date and the
	// exchange it answered). Versions 3 to 5 also built the SQL search
	// path's lexical column and indexes and a narrow vector table, which
	// version 11 drops: they are no-ops now.
	{3, "memory context, stemmed lexical form", func(int) string { return contextSchema }},
	{4, "compact vector table for exact search", func(int) string { return `SELECT 1;` }},
	{5, "scope-prefixed lexical index", func(int) string { return `SELECT 1;` }},
	{6, "room for in-place touches, statistics", func(int) string { return touchSchema }},
	{7, "change stamps for in-process indexes", func(int) string { return stampSchema }},
	{8, "deletion stamps for in-process indexes", func(int) string { return deletionSchema }},
	{9, "usage counters apart from memories", usageSchema},
	// The HNSW index serves only the SQL search path (Options.SQLSearch),
	// which builds it when it opens (ensureVectorIndex); see Options.
	{10, "HNSW index only for SQL search", func(int) string { return `DROP INDEX IF EXISTS memories_embedding;` }},
	{11, "drop the SQL search path", func(int) string { return dropSQLSearch }},
	// The background queue's input (spool.go).
	{12, "turn spool, turn-log rows keyed by turn id", func(int) string { return spoolSchema }},
	// The API a turn or request came through (chat, responses,
	// messages); '' for rows written before it was kept (chat).
	{13, "api of turns and recall rows", func(int) string {
		return `ALTER TABLE turns ADD COLUMN IF NOT EXISTS api TEXT NOT NULL DEFAULT '';
ALTER TABLE recall ADD COLUMN IF NOT EXISTS api TEXT NOT NULL DEFAULT '';`
	}},
	// The API of the turn a memory came from ('' before it was kept, or
	// for memories not from a turn); the view reads it.
	{14, "api of memories", func(int) string {
		return `ALTER TABLE memories ADD COLUMN IF NOT EXISTS api text NOT NULL DEFAULT '';
DROP VIEW memory_rows;` + memoryRowsView
	}},
	// A deleted user's late writes from any replica land nowhere
	// (tombstone.go).
	{15, "user tombstones", func(int) string { return tombstoneSchema }},
	{16, "turn and recall rows as JSON", func(int) string { return logsAsJSON }},
	// The spool's leased rows, which the lease bookkeeping reads (a
	// claim's check for another worker's lease, renew, complete,
	// release), apart from the scope's backlog of pending ones.
	{17, "index of leased spool rows", func(int) string {
		return `CREATE INDEX IF NOT EXISTS turn_spool_leased ON turn_spool (user_id, namespace) WHERE NOT done AND owner <> '';`
	}},
	{18, "lz4 for the JSON records", func(int) string { return lz4Records }},
	{19, "usage rows deleted by the deletion trigger", func(int) string { return usageWithoutFK }},
}

// usageWithoutFK drops memory_usage's foreign key to memories: its check
// ran once for every usage row a touch inserted (a memory's first touch
// since its last update), each a query of its own against the
// partitioned memories table that also locked the row: 1,000 first
// touches took the server 121 ms with it and 22 ms without, and every
// ordinary message touches the memories it injected. The touch statement
// joins memories, so it writes usage only for a memory that is there;
// the statement trigger that records deletions now deletes the deleted
// memories' usage rows, as the cascade did. A touch whose statement began
// before a deletion committed can leave a usage row behind for the
// memory; no read sees it (every read goes from a memory to its usage),
// and it holds no text.
const usageWithoutFK = `
ALTER TABLE memory_usage DROP CONSTRAINT IF EXISTS memory_usage_user_id_namespace_id_fkey;
` + memoryDeletedFunc

// memoryDeletedFunc is the deletion trigger's function as migration 19
// leaves it: the change feed's record of each deleted memory, and its
// usage rows deleted.
const memoryDeletedFunc = `
CREATE OR REPLACE FUNCTION memory_deleted() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
	INSERT INTO memory_deletions (user_id, namespace, id) SELECT user_id, namespace, id FROM gone;
	DELETE FROM memory_usage u USING gone g WHERE u.user_id = g.user_id AND u.namespace = g.namespace AND u.id = g.id;
	DELETE FROM memory_deletions WHERE at < now() - interval '1 day';
	RETURN NULL;
END $$;
`

// lz4Records compresses the JSON records of the spool, the turn log and
// the recall log, which pass PostgreSQL's 2 KB threshold, with lz4
// instead of the default pglz: a 6 KB recall-log record took 100 µs of
// the server's CPU to compress with pglz and 20 µs with lz4 (every
// request writes one, and every capture's spool insert waits for its
// turn's). Values already stored stay as they are. A server built
// without lz4, or older than PostgreSQL 14 (which has no SET COMPRESSION:
// the statements are run by EXECUTE so that it never parses them), keeps
// pglz.
const lz4Records = `
DO $$
BEGIN
	IF current_setting('server_version_num')::int >= 140000 THEN
		EXECUTE 'ALTER TABLE turn_spool ALTER COLUMN data SET COMPRESSION lz4';
		EXECUTE 'ALTER TABLE turns ALTER COLUMN data SET COMPRESSION lz4';
		EXECUTE 'ALTER TABLE recall ALTER COLUMN data SET COMPRESSION lz4';
	END IF;
EXCEPTION WHEN feature_not_supported THEN
	RAISE NOTICE 'memproxy: this server has no lz4; the JSON records stay compressed with pglz';
END
$$;`

// logsAsJSON keeps a turn-log or recall row as SQLite does, the record as
// JSON (data) beside the columns reads select or order by, so both stores
// share one implementation (store/internal/sqlkit/logs.go). Existing rows
// are converted in place: the JSON has the keys of memory.Turn and
// memory.RecallRecord, empty optional fields left out as Go leaves them.
const logsAsJSON = `
ALTER TABLE turns ADD COLUMN data text;
UPDATE turns SET data = jsonb_strip_nulls(jsonb_build_object('id', tid, 'api', NULLIF(api, ''), 'request_id', request_id,
	'scope', jsonb_build_object('user', user_id, 'namespace', namespace), 'session', NULLIF(session, ''), 'time', time,
	'user', user_text, 'assistant', assistant, 'finish_reason', NULLIF(finish_reason, ''), 'model', NULLIF(model, ''),
	'arm', NULLIF(arm, ''), 'refs', NULLIF(refs, '[]'), 'injected', NULLIF(injected, '[]'), 'intent', NULLIF(intent, '')))::text;
ALTER TABLE turns ALTER COLUMN data SET NOT NULL, DROP COLUMN user_text, DROP COLUMN assistant, DROP COLUMN finish_reason,
	DROP COLUMN model, DROP COLUMN arm, DROP COLUMN refs, DROP COLUMN injected, DROP COLUMN intent, DROP COLUMN api;

ALTER TABLE recall ADD COLUMN data text;
UPDATE recall SET data = jsonb_strip_nulls(jsonb_build_object('api', NULLIF(api, ''), 'request_id', request_id,
	'scope', jsonb_build_object('user', user_id, 'namespace', namespace), 'session', NULLIF(session, ''), 'time', time,
	'arm', arm, 'status', status, 'gate_reason', gate_reason, 'injected', NULLIF(injected, '[]'),
	'candidates', NULLIF(candidates, '[]'), 'injected_tokens', injected_tokens, 'overhead_ms', overhead_ms))::text;
ALTER TABLE recall ALTER COLUMN data SET NOT NULL, DROP COLUMN session, DROP COLUMN arm, DROP COLUMN status,
	DROP COLUMN gate_reason, DROP COLUMN injected, DROP COLUMN candidates, DROP COLUMN injected_tokens,
	DROP COLUMN overhead_ms, DROP COLUMN api;
`

// dropSQLSearch removes what only the SQL search path read: the narrow
// vector copy (memory_vectors and its trigger), the lexical column with
// its GIN indexes and scoping functions, and any HNSW index. Searches run
// in process (package search); nothing reads these any more, and each
// write maintained them.
var dropSQLSearch = `
DROP TRIGGER IF EXISTS memory_vectors_sync ON memories;
DROP FUNCTION IF EXISTS memory_vectors_sync();
DROP TABLE IF EXISTS memory_vectors;
DROP INDEX IF EXISTS memories_scoped_lex;
DROP INDEX IF EXISTS memories_lex;
DROP INDEX IF EXISTS memories_embedding;
DROP VIEW memory_rows;
ALTER TABLE memories DROP COLUMN IF EXISTS lex;
DROP FUNCTION IF EXISTS memory_scoped_lex(text, text, tsvector);
DROP FUNCTION IF EXISTS memory_scoped_query(text, text, tsquery);
` + memoryRowsView9

// touchSchema leaves room on memories pages (fillfactor 85, set on each
// partition: a partitioned table takes no storage parameters) so that
// usage writes can update rows in place (HOT).
const touchSchema = `
DO $$
DECLARE p regclass;
BEGIN
	FOR p IN SELECT inhrelid::regclass FROM pg_inherits WHERE inhparent = 'memories'::regclass LOOP
		EXECUTE format('ALTER TABLE %s SET (fillfactor = 85)', p);
	END LOOP;
END $$;
ANALYZE memories;
`

// stampSchema stamps every memories row with the transaction that last
// changed what a search reads of it (xid) and a per-row version (ver,
// since transactions do not commit in xid order): the change feed of
// feed.go. Usage columns are not watched, so a touch neither restamps a
// row nor stops it being updated in place. Existing rows keep xid 0.
const stampSchema = `
ALTER TABLE memories ADD COLUMN xid xid8 NOT NULL DEFAULT '0', ADD COLUMN ver bigint NOT NULL DEFAULT 0;

CREATE FUNCTION memory_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	NEW.xid := pg_current_xact_id();
	IF TG_OP = 'UPDATE' THEN
		NEW.ver := OLD.ver + 1;
	END IF;
	RETURN NEW;
END $$;

` + stampTrigger + `
CREATE INDEX memories_changed ON memories (user_id, namespace, xid);
`

// deletionSchema records each deleted memory's id with the deleting
// transaction (memory_deletions), the change feed's deletions. A record
// holds no content and is kept a day (a cached row is re-read sooner);
// the trigger is per statement, one INSERT per DELETE.
const deletionSchema = `
CREATE TABLE memory_deletions (
	user_id   text NOT NULL,
	namespace text NOT NULL,
	id        text NOT NULL,
	xid       xid8 NOT NULL DEFAULT pg_current_xact_id(),
	at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX memory_deletions_scope ON memory_deletions (user_id, namespace, xid);
CREATE INDEX memory_deletions_at ON memory_deletions (at);

CREATE FUNCTION memory_deleted() RETURNS trigger LANGUAGE plpgsql
SET search_path FROM CURRENT AS $$
BEGIN
	INSERT INTO memory_deletions (user_id, namespace, id) SELECT user_id, namespace, id FROM gone;
	DELETE FROM memory_deletions WHERE at < now() - interval '1 day';
	RETURN NULL;
END $$;

CREATE TRIGGER memory_deleted AFTER DELETE ON memories
REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION memory_deleted();
`

// usageSchema moves the counters Touch writes out of memories into the
// small memory_usage rows (a touched memory's hits since its last Update
// and its last use), which update in place; reads go through the view
// memory_rows, which adds them to the row. Update folds them back
// (Dialect.FoldUsage); a deletion takes them along (the foreign key;
// the deletion trigger since migration 19).
func usageSchema(int) string {
	var b strings.Builder
	b.WriteString(`
CREATE TABLE memory_usage (
	user_id      text NOT NULL,
	namespace    text NOT NULL,
	id           text NOT NULL,
	hits         integer NOT NULL,
	last_used_at timestamptz NOT NULL,
	PRIMARY KEY (user_id, namespace, id),
	FOREIGN KEY (user_id, namespace, id) REFERENCES memories ON DELETE CASCADE
) PARTITION BY HASH (user_id);
`)
	for i := range partitions {
		fmt.Fprintf(&b, "CREATE TABLE memory_usage_p%d PARTITION OF memory_usage FOR VALUES WITH (MODULUS %d, REMAINDER %d) WITH (fillfactor = 70);\n", i, partitions, i)
	}
	b.WriteString(memoryRowsView9)
	return b.String()
}

// memoryRowsView is what every read of whole memories selects from
// (usageSchema); re-embedding recreates it around the column's retyping.
// Each row looks its usage up by its full key (the LIMIT keeps it a key
// lookup the planner does not flatten into a scan of the scope's usage).
const memoryRowsView = `
CREATE VIEW memory_rows AS
SELECT m.user_id, m.namespace, m.id, m.tier, m.text, m.embedding, m.value, m.confidence, m.source,
	m.provenance, m.key, m.session, m.no_decay, m.created_at,
	coalesce(u.last_used_at, m.last_used_at) AS last_used_at, m.hits + coalesce(u.hits, 0) AS hits,
	m.valid_from, m.valid_to, m.superseded_by, m.expires_at, m.archived_at, m.consolidated_at, m.context,
	m.xid, m.ver, m.api
FROM memories m LEFT JOIN LATERAL (
	SELECT hits, last_used_at FROM memory_usage u
	WHERE u.user_id = m.user_id AND u.namespace = m.namespace AND u.id = m.id
	LIMIT 1
) u ON true;
`

// memoryRowsView9 is the view as migrations 9 and 11 created it, before
// memories had an api column (migration 14 replaces it); released
// migrations keep their SQL.
var memoryRowsView9 = strings.Replace(memoryRowsView, "m.xid, m.ver, m.api", "m.xid, m.ver", 1)

// stampTrigger stamps memories rows (stampSchema); re-embedding drops and
// recreates it around the column's retyping.
const stampTrigger = `
CREATE TRIGGER memory_stamp
BEFORE INSERT OR UPDATE OF user_id, namespace, id, tier, text, context, embedding, valid_to, expires_at, archived_at, consolidated_at, created_at
ON memories FOR EACH ROW EXECUTE FUNCTION memory_stamp();
`

const contextSchema = `ALTER TABLE memories ADD COLUMN context text NOT NULL DEFAULT '';`

func initialSchema(dim int) string {
	var b strings.Builder
	fmt.Fprintf(&b, `
CREATE TABLE meta (
	key   text PRIMARY KEY,
	value text NOT NULL
);

CREATE TABLE memories (
	user_id         text NOT NULL,
	namespace       text NOT NULL,
	id              text NOT NULL,
	tier            text NOT NULL,
	text            text NOT NULL,
	embedding       %[1]s(%[2]d),
	value           double precision NOT NULL,
	confidence      double precision NOT NULL,
	source          text NOT NULL DEFAULT '',
	provenance      jsonb NOT NULL DEFAULT '{}',
	key             text NOT NULL DEFAULT '',
	session         text NOT NULL DEFAULT '',
	no_decay        boolean NOT NULL DEFAULT false,
	created_at      timestamptz NOT NULL,
	last_used_at    timestamptz NOT NULL,
	hits            integer NOT NULL DEFAULT 0,
	valid_from      timestamptz NOT NULL,
	valid_to        timestamptz,
	superseded_by   text NOT NULL DEFAULT '',
	expires_at      timestamptz,
	archived_at     timestamptz,
	consolidated_at timestamptz,
	PRIMARY KEY (user_id, namespace, id)
) PARTITION BY HASH (user_id);
`, vectorType(dim), dim)
	for i := range partitions {
		fmt.Fprintf(&b, "CREATE TABLE memories_p%d PARTITION OF memories FOR VALUES WITH (MODULUS %d, REMAINDER %d);\n", i, partitions, i)
	}
	b.WriteString(`
CREATE INDEX memories_created ON memories (user_id, namespace, created_at DESC, id DESC);
CREATE INDEX memories_key ON memories (user_id, namespace, key, valid_from) WHERE key <> '';
CREATE INDEX memories_session ON memories (user_id, namespace, session) WHERE session <> '';

CREATE TABLE turns (
	user_id       text NOT NULL,
	namespace     text NOT NULL,
	seq           bigserial,
	request_id    text NOT NULL,
	session       text NOT NULL DEFAULT '',
	time          timestamptz NOT NULL,
	user_text     text NOT NULL,
	assistant     text NOT NULL,
	finish_reason text NOT NULL DEFAULT '',
	model         text NOT NULL DEFAULT '',
	arm           text NOT NULL DEFAULT '',
	refs          jsonb NOT NULL DEFAULT '[]',
	injected      jsonb NOT NULL DEFAULT '[]',
	intent        text NOT NULL DEFAULT '',
	PRIMARY KEY (user_id, namespace, seq)
);
CREATE INDEX turns_time ON turns (user_id, namespace, time, seq);
CREATE INDEX turns_session ON turns (user_id, namespace, session, time, seq);

CREATE TABLE audit (
	user_id   text NOT NULL,
	namespace text NOT NULL,
	id        bigserial,
	time      timestamptz NOT NULL,
	actor     text NOT NULL,
	action    text NOT NULL,
	memory_id text NOT NULL DEFAULT '',
	before    text NOT NULL DEFAULT '',
	after     text NOT NULL DEFAULT '',
	detail    text NOT NULL DEFAULT '',
	PRIMARY KEY (user_id, namespace, id)
);
CREATE INDEX audit_time ON audit (user_id, namespace, time, id);
-- AuditAll (operator-wide) reads across scopes by time.
CREATE INDEX audit_all_time ON audit (time, id);

CREATE TABLE recall (
	user_id         text NOT NULL,
	namespace       text NOT NULL,
	request_id      text NOT NULL,
	session         text NOT NULL DEFAULT '',
	time            timestamptz NOT NULL,
	arm             text NOT NULL DEFAULT '',
	status          text NOT NULL DEFAULT '',
	gate_reason     text NOT NULL DEFAULT '',
	injected        jsonb NOT NULL DEFAULT '[]',
	candidates      jsonb NOT NULL DEFAULT '[]',
	injected_tokens integer NOT NULL DEFAULT 0,
	overhead_ms     double precision NOT NULL DEFAULT 0,
	feedback        double precision,
	seq             bigserial,
	PRIMARY KEY (user_id, namespace, request_id)
);
-- FindRecall and RecallSince are operator-wide (Admin): no scope to lead.
CREATE INDEX recall_request ON recall (request_id);
CREATE INDEX recall_time ON recall (time, seq);

CREATE TABLE gate_state (
	user_id   text NOT NULL,
	namespace text NOT NULL,
	threshold double precision NOT NULL,
	PRIMARY KEY (user_id, namespace)
);
`)
	return b.String()
}

const clientKeysSchema = `
CREATE TABLE client_keys (
	id                text PRIMARY KEY,
	prefix            text NOT NULL,
	hash              text NOT NULL UNIQUE,
	user_id           text NOT NULL DEFAULT '',
	allow_named_users boolean NOT NULL DEFAULT false,
	label             text NOT NULL DEFAULT '',
	created_at        timestamptz NOT NULL,
	revoked_at        timestamptz
);
`

// Migrate applies the pending migrations to db for the embedder o and
// returns how many it applied. A fresh database records o's model and
// dimension in meta in the same transaction that creates the vector column,
// so the two can never disagree. It holds a transaction-scoped
// advisory lock keyed by the current schema, so replicas that start together
// wait for each other instead of colliding, and everything applies in one
// transaction: a failed migration leaves the schema as it was.
func Migrate(ctx context.Context, db *sql.DB, o memory.OpenOptions) (applied int, err error) {
	if err := o.Validate(); err != nil {
		return 0, fmt.Errorf("migrate: %w", err)
	}
	if o.Dim > maxHalfvecDim {
		return 0, fmt.Errorf("migrate: %w: %d dimensions: pgvector indexes at most %d", memory.ErrInvalid, o.Dim, maxHalfvecDim)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, fmt.Errorf("migrate: begin: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext('memproxy.migrate.' || current_schema()))`); err != nil {
		return 0, fmt.Errorf("migrate: lock: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    integer PRIMARY KEY,
		name       text NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		return 0, fmt.Errorf("migrate: schema_migrations: %w", err)
	}
	var current int
	if err := tx.QueryRowContext(ctx, `SELECT coalesce(max(version), 0) FROM schema_migrations`).Scan(&current); err != nil {
		return 0, fmt.Errorf("migrate: read version: %w", err)
	}
	for _, m := range migrations {
		if m.version <= current {
			continue
		}
		if _, err := tx.ExecContext(ctx, m.sql(o.Dim)); err != nil {
			return 0, fmt.Errorf("migrate: version %d (%s): %w", m.version, m.name, err)
		}
		if m.version == 1 {
			if _, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ($1, $2), ($3, $4)`,
				memory.MetaEmbedModel, o.Model, memory.MetaEmbedDim, strconv.Itoa(o.Dim)); err != nil {
				return 0, fmt.Errorf("migrate: record embedder: %w", err)
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name) VALUES ($1, $2)`, m.version, m.name); err != nil {
			return 0, fmt.Errorf("migrate: record version %d: %w", m.version, err)
		}
		applied++
	}
	if err := tx.Commit(); err != nil {
		return 0, fmt.Errorf("migrate: commit: %w", err)
	}
	return applied, nil
}
