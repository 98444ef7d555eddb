package sqlite

import (
	"context"
	"fmt"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/store/internal/sqlkit"
)

// EmbedFunc embeds memories for Reembed (sqlkit.EmbedFunc).
type EmbedFunc = sqlkit.EmbedFunc

// Reembed re-embeds every memory of the store at path with embed and then
// records to as the store's embedder, so a store created for another model
// or dimension opens for to afterwards. It migrates the file first.
//
// Everything happens in one IMMEDIATE transaction: a failure (or a
// cancelled ctx) leaves the store exactly as it was, and no other writer
// can slip a vector of the old embedder in between. It is an offline
// operation: stop memproxy first, since its writers wait for the lock and
// its in-memory vector indexes would hold the old vectors. The index is
// rebuilt from the new vectors on the next Open. progress, when not nil,
// is called after each batch with the memories done so far and the total.
func Reembed(ctx context.Context, path string, to memory.OpenOptions, embed EmbedFunc, progress func(done, total int)) error {
	if err := to.Validate(); err != nil {
		return fmt.Errorf("reembed: %w", err)
	}
	db, err := OpenDB(path)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := Migrate(ctx, db); err != nil {
		return err
	}
	tx, err := db.BeginTx(ctx, nil) // IMMEDIATE (OpenDB's _txlock)
	if err != nil {
		return fmt.Errorf("reembed: begin: %w", err)
	}
	defer tx.Rollback()
	var after int64 = -1
	var seqs []int64
	next := func() ([]*memory.Memory, error) {
		rows, err := tx.QueryContext(ctx, `SELECT seq, id, user, namespace, tier, text FROM memories
			WHERE seq > ? ORDER BY seq LIMIT ?`, after, sqlkit.ReembedBatch)
		seqs = seqs[:0]
		return sqlkit.Collect(rows, err, func(r sqlkit.Scanner) (*memory.Memory, error) {
			var seq int64
			m := &memory.Memory{}
			err := r.Scan(&seq, &m.ID, &m.Scope.User, &m.Scope.Namespace, &m.Tier, &m.Text)
			seqs, after = append(seqs, seq), seq
			return m, err
		})
	}
	write := func(ms []*memory.Memory, vecs [][]float32) error {
		for i, v := range vecs {
			if _, err := tx.ExecContext(ctx, `UPDATE memories SET embedding = ? WHERE seq = ?`, sqlkit.LittleEndian(v), seqs[i]); err != nil {
				return fmt.Errorf("%s: %w", ms[i].ID, err)
			}
		}
		return nil
	}
	return sqlkit.Reembed(ctx, tx, sqlkit.SQLite, to, next, embed, write, progress)
}
