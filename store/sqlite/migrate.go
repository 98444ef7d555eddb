package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// migrations are applied in order, each once, each in its own transaction;
// schema_migrations records the versions applied. Never edit a released
// migration: append a new one.
var migrations = []struct {
	version int
	sql     string
}{
	{1, `
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) STRICT;

CREATE TABLE memories (
	seq             INTEGER PRIMARY KEY,
	id              TEXT NOT NULL UNIQUE,
	user            TEXT NOT NULL,
	namespace       TEXT NOT NULL,
	tier            TEXT NOT NULL,
	text            TEXT NOT NULL,
	embedding       BLOB,
	value           REAL NOT NULL,
	confidence      REAL NOT NULL,
	source          TEXT NOT NULL,
	provenance      TEXT NOT NULL,
	key             TEXT NOT NULL,
	session         TEXT NOT NULL,
	no_decay        INTEGER NOT NULL,
	created_at      INTEGER NOT NULL,
	last_used_at    INTEGER NOT NULL,
	hits            INTEGER NOT NULL,
	valid_from      INTEGER NOT NULL,
	valid_to        INTEGER,
	superseded_by   TEXT NOT NULL,
	expires_at      INTEGER,
	archived_at     INTEGER,
	consolidated_at INTEGER
) STRICT;
CREATE INDEX memories_scope_created ON memories (user, namespace, created_at DESC, id DESC);
CREATE INDEX memories_scope_key ON memories (user, namespace, key, valid_from) WHERE key <> '';
CREATE INDEX memories_scope_archived ON memories (user, namespace, archived_at) WHERE archived_at IS NOT NULL;
CREATE INDEX memories_scope_expires ON memories (user, namespace, expires_at) WHERE expires_at IS NOT NULL;

CREATE TABLE turns (
	seq        INTEGER PRIMARY KEY,
	user       TEXT NOT NULL,
	namespace  TEXT NOT NULL,
	request_id TEXT NOT NULL,
	session    TEXT NOT NULL,
	time       INTEGER NOT NULL,
	data       TEXT NOT NULL
) STRICT;
CREATE INDEX turns_scope_time ON turns (user, namespace, time, seq);
CREATE INDEX turns_scope_session ON turns (user, namespace, session, time, seq);

CREATE TABLE audit (
	seq       INTEGER PRIMARY KEY,
	user      TEXT NOT NULL,
	namespace TEXT NOT NULL,
	time      INTEGER NOT NULL,
	actor     TEXT NOT NULL,
	action    TEXT NOT NULL,
	memory_id TEXT NOT NULL,
	before    TEXT NOT NULL,
	after     TEXT NOT NULL,
	detail    TEXT NOT NULL
) STRICT;
CREATE INDEX audit_scope_time ON audit (user, namespace, time, seq);
CREATE INDEX audit_user_time ON audit (user, time, seq);
CREATE INDEX audit_time ON audit (time, seq);

CREATE TABLE recall (
	seq        INTEGER PRIMARY KEY,
	user       TEXT NOT NULL,
	namespace  TEXT NOT NULL,
	request_id TEXT NOT NULL,
	time       INTEGER NOT NULL,
	data       TEXT NOT NULL,
	feedback   REAL
) STRICT;
CREATE INDEX recall_scope_request ON recall (user, namespace, request_id);
CREATE INDEX recall_request ON recall (request_id);
CREATE INDEX recall_time ON recall (time, seq);

CREATE TABLE gate_state (
	user      TEXT NOT NULL,
	namespace TEXT NOT NULL,
	threshold REAL NOT NULL,
	PRIMARY KEY (user, namespace)
) STRICT;
`},
	// Versions 1 to 3 also created and rebuilt memories_fts, an FTS5
	// index only tests read (search runs in process); version 6 drops it
	// and their SQL no longer creates it.
	{2, `SELECT 1;`},
	{3, `SELECT 1;`},
	{4, `
-- Version 4: memories.context is search-only text (what the memory answered:
-- an event's date and the exchange before it).
ALTER TABLE memories ADD COLUMN context TEXT NOT NULL DEFAULT '';
`},
	{5, keysMigration},
	{6, `
-- Version 6: the FTS5 index (and its vocabulary table) goes; every write
-- maintained it for a reference only tests read.
DROP TABLE IF EXISTS memories_fts_vocab;
DROP TABLE IF EXISTS memories_fts;
`},
	{7, `
-- Version 7: a turn-log row is keyed by its spooled turn's id, so a turn
-- ingested twice (a retry after a crash) is logged once.
ALTER TABLE turns ADD COLUMN tid TEXT;
CREATE UNIQUE INDEX turns_tid ON turns (tid) WHERE tid IS NOT NULL;
`},
	{8, `
-- Version 8: the API of the turn a memory came from (chat, responses,
-- messages; '' before it was kept, or for memories not from a turn).
ALTER TABLE memories ADD COLUMN api TEXT NOT NULL DEFAULT '';
`},
	// Version 9: a deleted user's late writes land nowhere (tombstone.go).
	{9, tombstoneMigration},
	// Version 10: touches go to narrow usage rows (usageMigration).
	{10, usageMigration},
}

// usageMigration is migration 10: the counters Touch writes (hits, last
// use) move out of the wide memories rows (text, context and a kilobyte
// of vector each, three to a page) into memory_usage, about seventy rows
// to a page: the recall path's touches of a window, spread over many
// scopes, rewrote a memories page (and copied it to the savepoint's
// journal and the WAL) for nearly every memory touched. A usage row is
// keyed by the memory's id and the scope it was touched in, so a touch
// checks the id against the id index alone (not the row: its page is
// another read), and a touch naming another scope's memory adds to no
// row of that scope (the view joins on the scope too). Reads of whole
// memories go through the view memory_rows, which adds the usage to the
// row; an Update of the row (it writes hits) folds them back (the
// trigger); a deleted memory takes its usage rows along (the foreign
// key). The same shape as PostgreSQL's migration 9.
const usageMigration = `
CREATE TABLE memory_usage (
	id           TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
	user         TEXT NOT NULL,
	namespace    TEXT NOT NULL,
	hits         INTEGER NOT NULL,
	last_used_at INTEGER NOT NULL,
	PRIMARY KEY (id, user, namespace)
) STRICT, WITHOUT ROWID;

CREATE TRIGGER memory_usage_fold AFTER UPDATE OF hits ON memories
BEGIN DELETE FROM memory_usage WHERE id = OLD.id; END;

CREATE VIEW memory_rows AS
SELECT m.seq, m.id, m.user, m.namespace, m.tier, m.text, m.embedding, m.value, m.confidence, m.source,
	m.provenance, m.key, m.session, m.no_decay, m.created_at,
	max(m.last_used_at, coalesce(u.last_used_at, 0)) AS last_used_at, m.hits + coalesce(u.hits, 0) AS hits,
	m.valid_from, m.valid_to, m.superseded_by, m.expires_at, m.archived_at, m.consolidated_at, m.context, m.api
FROM memories m LEFT JOIN memory_usage u ON u.id = m.id AND u.user = m.user AND u.namespace = m.namespace;
`

// Migrate applies the pending migrations to db; running it again is a
// no-op. It is what `memproxy migrate` and Open run.
func Migrate(ctx context.Context, db *sql.DB) error {
	if _, err := db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		applied_at INTEGER NOT NULL
	) STRICT`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	for _, m := range migrations {
		if err := apply(ctx, db, m.version, m.sql); err != nil {
			return fmt.Errorf("migrate to version %d: %w", m.version, err)
		}
	}
	return nil
}

func apply(ctx context.Context, db *sql.DB, version int, stmt string) error {
	// The transaction begins IMMEDIATE, so two processes migrating at once
	// serialise and the second sees the version recorded.
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, version).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	if _, err := tx.ExecContext(ctx, stmt); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`, version, time.Now().UnixMicro()); err != nil {
		return err
	}
	return tx.Commit()
}

// keysMigration (version 5) is the client_keys table: memproxy client keys,
// stored as SHA-256 hashes only.
const keysMigration = `
CREATE TABLE client_keys (
	id                TEXT PRIMARY KEY,
	prefix            TEXT NOT NULL,
	hash              TEXT NOT NULL UNIQUE,
	user              TEXT NOT NULL DEFAULT '',
	allow_named_users INTEGER NOT NULL DEFAULT 0,
	label             TEXT NOT NULL DEFAULT '',
	created_at        INTEGER NOT NULL,
	revoked_at        INTEGER
) STRICT;
`
