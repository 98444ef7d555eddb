package sqlkit

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"

	"github.com/memproxy/memproxy/memory"
)

// EmbedFunc embeds memories for a re-embedding: one vector per memory,
// in order. The memories carry ID, Scope, Tier and Text; the caller
// decides which text the embedder sees (the ingest path embeds an event's
// user part).
type EmbedFunc func(ctx context.Context, ms []*memory.Memory) ([][]float32, error)

// ReembedBatch is how many memories a re-embedding embeds per call.
const ReembedBatch = 256

// Reembed is a store's re-embedding, in tx (which it commits): next reads
// the batch after the previous one (none: done), embed embeds it, write
// stores its vectors, each checked to be one per memory of to's
// dimensions; then meta records to as the store's embedder. progress,
// when not nil, is called after each batch with the memories done and
// the total.
func Reembed(ctx context.Context, tx *sql.Tx, d Dialect, to memory.OpenOptions, next func() ([]*memory.Memory, error),
	embed EmbedFunc, write func(ms []*memory.Memory, vecs [][]float32) error, progress func(done, total int)) error {
	var total int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM memories`).Scan(&total); err != nil {
		return fmt.Errorf("reembed: count: %w", err)
	}
	if err := reembed(ctx, to.Dim, total, next, embed, write, progress); err != nil {
		return err
	}
	for k, v := range map[string]string{memory.MetaEmbedModel: to.Model, memory.MetaEmbedDim: strconv.Itoa(to.Dim)} {
		if _, err := tx.ExecContext(ctx, d.Rebind(`INSERT INTO meta (key, value) VALUES (?, ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`), k, v); err != nil {
			return fmt.Errorf("reembed: record embedder: %w", err)
		}
	}
	return Wrap("reembed: commit", tx.Commit())
}

func reembed(ctx context.Context, dim, total int, next func() ([]*memory.Memory, error), embed EmbedFunc,
	write func(ms []*memory.Memory, vecs [][]float32) error, progress func(done, total int)) error {
	for done := 0; ; {
		ms, err := next()
		if err != nil {
			return fmt.Errorf("reembed: read: %w", err)
		}
		if len(ms) == 0 {
			return nil
		}
		vecs, err := embed(ctx, ms)
		if err != nil {
			return fmt.Errorf("reembed: embed: %w", err)
		}
		if len(vecs) != len(ms) {
			return fmt.Errorf("reembed: embedder returned %d vectors for %d memories", len(vecs), len(ms))
		}
		for i, v := range vecs {
			if len(v) != dim {
				return fmt.Errorf("reembed: %w: embedder returned %d dimensions for memory %s, want %d", memory.ErrInvalid, len(v), ms[i].ID, dim)
			}
		}
		if err := write(ms, vecs); err != nil {
			return fmt.Errorf("reembed: update: %w", err)
		}
		done += len(ms)
		if progress != nil {
			progress(done, total)
		}
	}
}
