package postgres

// tombstoneSchema is migration 15: a deleted user's tombstone, and
// triggers that drop the late writes of work that began before the
// deletion, whichever replica does it (a request in flight elsewhere, a
// job that had claimed the user's turns). A row is dropped when its
// user has a tombstone at or after the row's own time (a turn's or a
// recall row's request time, a memory's created_at, which ingest takes
// from its turn) and the tombstone is younger than tombstoneWindow; a
// row dated after the deletion (the user coming back) is kept. An audit
// row with content (before or after) is dropped when its memory does not
// exist (it went with the user, or its insert was dropped).
const tombstoneSchema = `
CREATE TABLE IF NOT EXISTS user_tombstones (
	user_id    text PRIMARY KEY,
	deleted_at timestamptz NOT NULL
);

CREATE OR REPLACE FUNCTION memproxy_tombstoned(u text, t timestamptz) RETURNS boolean LANGUAGE sql STABLE AS $$
	SELECT EXISTS (SELECT 1 FROM user_tombstones
		WHERE user_id = u AND deleted_at >= t AND deleted_at > now() - interval '` + tombstoneWindow + `')
$$;

CREATE OR REPLACE FUNCTION memproxy_drop_late_memory() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF memproxy_tombstoned(NEW.user_id, NEW.created_at) THEN
		RETURN NULL;
	END IF;
	RETURN NEW;
END $$;

CREATE OR REPLACE FUNCTION memproxy_drop_late_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF memproxy_tombstoned(NEW.user_id, NEW.time) THEN
		RETURN NULL;
	END IF;
	RETURN NEW;
END $$;

CREATE OR REPLACE FUNCTION memproxy_drop_late_audit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF (NEW.before <> '' OR NEW.after <> '') AND NEW.memory_id <> ''
		AND memproxy_tombstoned(NEW.user_id, '-infinity')
		AND NOT EXISTS (SELECT 1 FROM memories WHERE user_id = NEW.user_id AND namespace = NEW.namespace AND id = NEW.memory_id) THEN
		RETURN NULL;
	END IF;
	RETURN NEW;
END $$;

DROP TRIGGER IF EXISTS memories_tombstone ON memories;
CREATE TRIGGER memories_tombstone BEFORE INSERT ON memories FOR EACH ROW EXECUTE FUNCTION memproxy_drop_late_memory();
DROP TRIGGER IF EXISTS turns_tombstone ON turns;
CREATE TRIGGER turns_tombstone BEFORE INSERT ON turns FOR EACH ROW EXECUTE FUNCTION memproxy_drop_late_row();
DROP TRIGGER IF EXISTS recall_tombstone ON recall;
CREATE TRIGGER recall_tombstone BEFORE INSERT ON recall FOR EACH ROW EXECUTE FUNCTION memproxy_drop_late_row();
DROP TRIGGER IF EXISTS turn_spool_tombstone ON turn_spool;
CREATE TRIGGER turn_spool_tombstone BEFORE INSERT ON turn_spool FOR EACH ROW EXECUTE FUNCTION memproxy_drop_late_row();
DROP TRIGGER IF EXISTS audit_tombstone ON audit;
CREATE TRIGGER audit_tombstone BEFORE INSERT ON audit FOR EACH ROW EXECUTE FUNCTION memproxy_drop_late_audit();
`

// tombstoneWindow is sqlkit.TombstoneWindow as an interval.
const tombstoneWindow = "1 hour"
