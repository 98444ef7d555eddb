package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"

	"github.com/lib/pq"

	"github.com/memproxy/memproxy/memory"
)

// EmbedFunc embeds memories for Reembed: one vector per memory, in order.
// The memories carry ID, Scope, Tier and Text; the caller decides which
// text the embedder sees (the ingest path embeds an event's user part).
type EmbedFunc func(ctx context.Context, ms []*memory.Memory) ([][]float32, error)

// ReembedBatch is how many memories Reembed embeds per call.
const ReembedBatch = 256

// Reembed re-embeds every memory of the database at dsn with embed and
// records to as its embedder, so a database created for another model or
// dimension opens for to afterwards. It migrates the database first.
//
// One transaction does it all, under the migration lock: the embedding
// column is retyped to to's dimension (halfvec above 2,000), every
// memory's vector rewritten and meta updated. A failure
// leaves the database as it was. The ALTER holds an exclusive lock on
// memories until commit, so memproxy replicas stall meanwhile: run it
// with them stopped. progress, when not nil, is called after each batch
// with the memories done so far and the total.
func Reembed(ctx context.Context, dsn string, to memory.OpenOptions, embed EmbedFunc, progress func(done, total int)) error {
	if err := to.Validate(); err != nil {
		return fmt.Errorf("reembed: %w", err)
	}
	if to.Dim > maxHalfvecDim {
		return fmt.Errorf("reembed: %w: %d dimensions: pgvector indexes at most %d", memory.ErrInvalid, to.Dim, maxHalfvecDim)
	}
	connector, err := pq.NewConnector(dsn)
	if err != nil {
		return fmt.Errorf("reembed: parse dsn: %w", err)
	}
	db := sql.OpenDB(connector)
	defer db.Close()
	if err := db.PingContext(ctx); err != nil {
		return fmt.Errorf("reembed: connect: %w", err)
	}
	if err := ensureVector(ctx, db); err != nil {
		return err
	}
	// A fresh database is created for to directly (nothing to re-embed).
	if _, err := Migrate(ctx, db, to); err != nil {
		return fmt.Errorf("reembed: %w", err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("reembed: begin: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock(hashtext('memproxy.migrate.' || current_schema()))`); err != nil {
		return fmt.Errorf("reembed: lock: %w", err)
	}
	colType := vectorType(to.Dim) + "(" + strconv.Itoa(to.Dim) + ")"
	// A column a trigger watches or a view reads cannot be retyped; the
	// updates below stamp every row through the trigger again.
	for _, q := range []string{
		`DROP TRIGGER memory_stamp ON memories`,
		`DROP VIEW memory_rows`,
		`ALTER TABLE memories ALTER COLUMN embedding TYPE ` + colType + ` USING NULL`,
		stampTrigger,
		memoryRowsView,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("reembed: retype embedding to %s: %w", colType, err)
		}
	}
	var total int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM memories`).Scan(&total); err != nil {
		return fmt.Errorf("reembed: count: %w", err)
	}
	done := 0
	var last *memory.Memory
	for {
		ms, err := reembedPage(ctx, tx, last)
		if err != nil {
			return err
		}
		if len(ms) == 0 {
			break
		}
		vecs, err := embed(ctx, ms)
		if err != nil {
			return fmt.Errorf("reembed: embed: %w", err)
		}
		if len(vecs) != len(ms) {
			return fmt.Errorf("reembed: embedder returned %d vectors for %d memories", len(vecs), len(ms))
		}
		users, nss, ids, vs := make([]string, len(ms)), make([]string, len(ms)), make([]string, len(ms)), make([]string, len(ms))
		for i, m := range ms {
			if len(vecs[i]) != to.Dim {
				return fmt.Errorf("reembed: %w: embedder returned %d dimensions for memory %s, want %d", memory.ErrInvalid, len(vecs[i]), m.ID, to.Dim)
			}
			users[i], nss[i], ids[i] = m.Scope.User, m.Scope.Namespace, m.ID
			vs[i] = vectorArg(vecs[i]).(string)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE memories m SET embedding = v.e::`+colType+`
			FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS v(u, n, id, e)
			WHERE m.user_id = v.u AND m.namespace = v.n AND m.id = v.id`,
			pq.Array(users), pq.Array(nss), pq.Array(ids), pq.Array(vs)); err != nil {
			return fmt.Errorf("reembed: update: %w", err)
		}
		last = ms[len(ms)-1]
		done += len(ms)
		if progress != nil {
			progress(done, total)
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ($1, $2), ($3, $4)
		ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
		memory.MetaEmbedModel, to.Model, memory.MetaEmbedDim, strconv.Itoa(to.Dim)); err != nil {
		return fmt.Errorf("reembed: record embedder: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("reembed: commit: %w", err)
	}
	return nil
}

// reembedPage reads the next batch of memories after last in primary-key
// order (nil: from the start).
func reembedPage(ctx context.Context, tx *sql.Tx, last *memory.Memory) ([]*memory.Memory, error) {
	var u, n, id string
	if last != nil {
		u, n, id = last.Scope.User, last.Scope.Namespace, last.ID
	}
	rows, err := tx.QueryContext(ctx, `SELECT user_id, namespace, id, tier, text FROM memories
		WHERE $1 OR (user_id, namespace, id) > ($2, $3, $4)
		ORDER BY user_id, namespace, id LIMIT $5`, last == nil, u, n, id, ReembedBatch)
	if err != nil {
		return nil, fmt.Errorf("reembed: read: %w", err)
	}
	defer rows.Close()
	var ms []*memory.Memory
	for rows.Next() {
		m := &memory.Memory{}
		if err := rows.Scan(&m.Scope.User, &m.Scope.Namespace, &m.ID, &m.Tier, &m.Text); err != nil {
			return nil, fmt.Errorf("reembed: read: %w", err)
		}
		ms = append(ms, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reembed: read: %w", err)
	}
	return ms, nil
}
