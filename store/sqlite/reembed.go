package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"

	"github.com/memproxy/memproxy/memory"
)

// EmbedFunc embeds memories for Reembed: one vector per memory, in order.
// The memories carry ID, Scope, Tier and Text; the caller decides which
// text the embedder sees (the ingest path embeds an event's user part).
type EmbedFunc func(ctx context.Context, ms []*memory.Memory) ([][]float32, error)

// ReembedBatch is how many memories Reembed embeds per call.
const ReembedBatch = 256

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
	var total int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM memories`).Scan(&total); err != nil {
		return fmt.Errorf("reembed: count: %w", err)
	}
	done := 0
	var after int64 = -1
	for {
		seqs, ms, err := reembedPage(ctx, tx, after)
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
		for i, v := range vecs {
			if len(v) != to.Dim {
				return fmt.Errorf("reembed: %w: embedder returned %d dimensions for memory %s, want %d", memory.ErrInvalid, len(v), ms[i].ID, to.Dim)
			}
			if _, err := tx.ExecContext(ctx, `UPDATE memories SET embedding = ? WHERE seq = ?`, encodeVec(v), seqs[i]); err != nil {
				return fmt.Errorf("reembed: update %s: %w", ms[i].ID, err)
			}
		}
		after = seqs[len(seqs)-1]
		done += len(ms)
		if progress != nil {
			progress(done, total)
		}
	}
	for k, v := range map[string]string{memory.MetaEmbedModel: to.Model, memory.MetaEmbedDim: strconv.Itoa(to.Dim)} {
		if _, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES (?, ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, k, v); err != nil {
			return fmt.Errorf("reembed: record embedder: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("reembed: commit: %w", err)
	}
	return nil
}

// reembedPage reads the next batch of memories after seq, in seq order.
func reembedPage(ctx context.Context, tx *sql.Tx, after int64) ([]int64, []*memory.Memory, error) {
	rows, err := tx.QueryContext(ctx, `SELECT seq, id, user, namespace, tier, text FROM memories
		WHERE seq > ? ORDER BY seq LIMIT ?`, after, ReembedBatch)
	if err != nil {
		return nil, nil, fmt.Errorf("reembed: read: %w", err)
	}
	defer rows.Close()
	var seqs []int64
	var ms []*memory.Memory
	for rows.Next() {
		var seq int64
		m := &memory.Memory{}
		if err := rows.Scan(&seq, &m.ID, &m.Scope.User, &m.Scope.Namespace, &m.Tier, &m.Text); err != nil {
			return nil, nil, fmt.Errorf("reembed: read: %w", err)
		}
		seqs = append(seqs, seq)
		ms = append(ms, m)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("reembed: read: %w", err)
	}
	return seqs, ms, nil
}
