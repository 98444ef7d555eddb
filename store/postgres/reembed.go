package postgres

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"

	"github.com/lib/pq"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/store/internal/sqlkit"
)

// EmbedFunc embeds memories for Reembed (sqlkit.EmbedFunc).
type EmbedFunc = sqlkit.EmbedFunc

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
	// Migrate checks to; a fresh database is created for it directly
	// (nothing to re-embed).
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
	var last *memory.Memory
	next := func() ([]*memory.Memory, error) {
		var u, n, id string
		if last != nil {
			u, n, id = last.Scope.User, last.Scope.Namespace, last.ID
		}
		rows, err := tx.QueryContext(ctx, `SELECT user_id, namespace, id, tier, text FROM memories
			WHERE $1 OR (user_id, namespace, id) > ($2, $3, $4)
			ORDER BY user_id, namespace, id LIMIT $5`, last == nil, u, n, id, sqlkit.ReembedBatch)
		return sqlkit.Collect(rows, err, func(r sqlkit.Scanner) (*memory.Memory, error) {
			last = &memory.Memory{}
			return last, r.Scan(&last.Scope.User, &last.Scope.Namespace, &last.ID, &last.Tier, &last.Text)
		})
	}
	write := func(ms []*memory.Memory, vecs [][]float32) error {
		users, nss, ids, vs := make([]string, len(ms)), make([]string, len(ms)), make([]string, len(ms)), make([]string, len(ms))
		for i, m := range ms {
			users[i], nss[i], ids[i], vs[i] = m.Scope.User, m.Scope.Namespace, m.ID, sqlkit.PGVector(vecs[i]).(string)
		}
		_, err := tx.ExecContext(ctx, `UPDATE memories m SET embedding = v.e::`+colType+`
			FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS v(u, n, id, e)
			WHERE m.user_id = v.u AND m.namespace = v.n AND m.id = v.id`,
			pq.Array(users), pq.Array(nss), pq.Array(ids), pq.Array(vs))
		return err
	}
	return sqlkit.Reembed(ctx, tx, sqlkit.Postgres, to, next, embed, write, progress)
}
