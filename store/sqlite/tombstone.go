package sqlite

// tombstoneMigration is migration 9: a deleted user's tombstone, and
// triggers that drop the late writes of work that began before the
// deletion (a request still in flight writing its recall row, a job that
// had read the user's turns). A row is dropped when its user has a
// tombstone at or after the row's own time (a turn's or a recall row's
// request time, a memory's created_at, which ingest takes from its turn)
// and the tombstone is younger than tombstoneWindow; a row dated after
// the deletion (the user coming back) is kept. An audit row with content
// is dropped when its memory does not exist. Times are microseconds.
const tombstoneMigration = `
CREATE TABLE IF NOT EXISTS user_tombstones (
	user       TEXT PRIMARY KEY,
	deleted_at INTEGER NOT NULL
) STRICT;

CREATE TRIGGER IF NOT EXISTS memories_tombstone BEFORE INSERT ON memories
WHEN EXISTS (SELECT 1 FROM user_tombstones WHERE user = NEW.user AND deleted_at >= NEW.created_at AND deleted_at > ` + tombstoneCutoff + `)
BEGIN SELECT RAISE(IGNORE); END;

CREATE TRIGGER IF NOT EXISTS turns_tombstone BEFORE INSERT ON turns
WHEN EXISTS (SELECT 1 FROM user_tombstones WHERE user = NEW.user AND deleted_at >= NEW.time AND deleted_at > ` + tombstoneCutoff + `)
BEGIN SELECT RAISE(IGNORE); END;

CREATE TRIGGER IF NOT EXISTS recall_tombstone BEFORE INSERT ON recall
WHEN EXISTS (SELECT 1 FROM user_tombstones WHERE user = NEW.user AND deleted_at >= NEW.time AND deleted_at > ` + tombstoneCutoff + `)
BEGIN SELECT RAISE(IGNORE); END;

CREATE TRIGGER IF NOT EXISTS audit_tombstone BEFORE INSERT ON audit
WHEN (NEW.before <> '' OR NEW.after <> '') AND NEW.memory_id <> ''
	AND EXISTS (SELECT 1 FROM user_tombstones WHERE user = NEW.user AND deleted_at > ` + tombstoneCutoff + `)
	AND NOT EXISTS (SELECT 1 FROM memories WHERE id = NEW.memory_id)
BEGIN SELECT RAISE(IGNORE); END;
`

// tombstoneCutoff is now less sqlkit.TombstoneWindow (an hour), in
// microseconds.
const tombstoneCutoff = `(CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER) - 3600000000)`
