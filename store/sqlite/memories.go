package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/search"
	"github.com/memproxy/memproxy/store/internal/sqlkit"
)

func provJSON(p memory.Provenance) string {
	b, _ := json.Marshal(p)
	return string(b)
}

const insertMemorySQL = `INSERT INTO memories (` + memCols + `)
	VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING seq`

// Insert writes ms in one transaction (a savepoint of the Batch ctx
// carries): all or none.
func (s *Store) Insert(ctx context.Context, sc memory.Scope, ms ...*memory.Memory) error {
	if err := s.check(sc); err != nil {
		return fmt.Errorf("insert memories: %w", err)
	}
	now := time.Now().UTC()
	for _, m := range ms {
		if err := sqlkit.Prepare(sc, m, s.dim, now); err != nil {
			return fmt.Errorf("insert memory: %w", err)
		}
	}
	if len(ms) == 0 {
		return nil
	}
	// The rows as written refresh the indexes: reading them back cost as
	// much as writing them.
	written := make([]search.Row, 0, len(ms))
	err := s.joinWriteThen(ctx, func(tx *sql.Tx) error {
		written = written[:0]
		for _, m := range ms {
			var seq int64
			emb := encodeVec(m.Embedding)
			if err := tx.QueryRowContext(ctx, insertMemorySQL, m.ID, sc.User, sc.Namespace, string(m.Tier), m.Text, emb,
				m.Value, m.Confidence, string(m.Source), provJSON(m.Provenance), m.Key, m.Session, boolInt(m.NoDecay),
				micros(m.CreatedAt), micros(m.LastUsedAt), m.Hits, micros(m.ValidFrom), nullMicros(m.ValidTo),
				m.SupersededBy, nullMicros(m.ExpiresAt), nullMicros(m.ArchivedAt), nullMicros(m.ConsolidatedAt), m.Context, m.API).Scan(&seq); err != nil {
				if errors.Is(err, sql.ErrNoRows) {
					continue // dropped: its user was deleted after it began (tombstone.go)
				}
				if strings.Contains(err.Error(), "UNIQUE") {
					return fmt.Errorf("%w: memory id %s already exists", memory.ErrInvalid, m.ID)
				}
				return err
			}
			written = append(written, search.RowOf(m, seq))
		}
		return nil
	}, func() { s.idx.Written(sc, written) })
	if err != nil {
		return fmt.Errorf("insert memories: %w", err)
	}
	return nil
}

// Update rewrites every mutable field of m (all but id, scope, created_at).
func (s *Store) Update(ctx context.Context, sc memory.Scope, m *memory.Memory) error {
	if err := s.check(sc); err != nil {
		return fmt.Errorf("update memory: %w", err)
	}
	if err := sqlkit.CheckUpdate(sc, m, s.dim); err != nil {
		return fmt.Errorf("update memory: %w", err)
	}
	err := s.join(ctx, func() { s.idx.Changed(context.WithoutCancel(ctx), sc, []string{m.ID}) }, func(tx *sql.Tx) error {
		var seq int64
		var created int64
		err := tx.QueryRowContext(ctx, `SELECT seq, created_at FROM memories WHERE +user = ? AND +namespace = ? AND id = ?`,
			sc.User, sc.Namespace, m.ID).Scan(&seq, &created)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w: memory %s", memory.ErrNotFound, m.ID)
		}
		if err != nil {
			return err
		}
		lastUsed, validFrom := m.LastUsedAt, m.ValidFrom
		if lastUsed.IsZero() {
			lastUsed = fromMicros(created)
		}
		if validFrom.IsZero() {
			validFrom = fromMicros(created)
		}
		_, err = tx.ExecContext(ctx, `UPDATE memories SET tier = ?, text = ?, embedding = ?, value = ?, confidence = ?,
			source = ?, provenance = ?, key = ?, session = ?, no_decay = ?, last_used_at = ?, hits = ?, valid_from = ?,
			valid_to = ?, superseded_by = ?, expires_at = ?, archived_at = ?, consolidated_at = ?, context = ? WHERE seq = ?`,
			string(m.Tier), m.Text, encodeVec(m.Embedding), m.Value, m.Confidence, string(m.Source), provJSON(m.Provenance),
			m.Key, m.Session, boolInt(m.NoDecay), micros(lastUsed), m.Hits, micros(validFrom), nullMicros(m.ValidTo),
			m.SupersededBy, nullMicros(m.ExpiresAt), nullMicros(m.ArchivedAt), nullMicros(m.ConsolidatedAt), m.Context, seq)
		return err
	})
	if err != nil {
		return fmt.Errorf("update memory: %w", err)
	}
	m.Scope = sc
	return nil
}

// GetMany returns the memories of the scope found among ids, in the order
// given. With a Batch's context it reads through the batch, its own
// uncommitted rows included.
func (s *Store) GetMany(ctx context.Context, sc memory.Scope, ids []string) ([]*memory.Memory, error) {
	if err := s.check(sc); err != nil {
		return nil, fmt.Errorf("get memories: %w", err)
	}
	found, err := readIn(ctx, s, sc, "id", ids)
	if err != nil {
		return nil, fmt.Errorf("get memories: %w", err)
	}
	return sqlkit.InOrder(ids, found), nil
}

// readIn reads the scope's memories whose column col (id or seq) is one of
// keys, keyed by id.
func readIn[K string | int64](ctx context.Context, s *Store, sc memory.Scope, col string, keys []K) (map[string]*memory.Memory, error) {
	found := make(map[string]*memory.Memory, len(keys))
	cond, list := in(col, keys)
	rows, err := s.batchQuery(ctx, `SELECT `+memCols+` FROM memories WHERE +user = ? AND +namespace = ? AND `+cond,
		sc.User, sc.Namespace, list)
	ms, err := sqlkit.Collect(rows, err, scanMemory)
	for _, m := range ms {
		found[m.ID] = m
	}
	return found, err
}

// in is the condition that col is one of keys, with its one argument (a
// JSON array): one statement, prepared once, whatever the number of keys.
func in[K string | int64](col string, keys []K) (string, any) {
	list, _ := json.Marshal(keys)
	return col + " IN (SELECT value FROM json_each(?))", string(list)
}

// Touch records an access of each id: hits+1 and last_used_at=t (never
// moved backwards by a late, older touch).
func (s *Store) Touch(ctx context.Context, sc memory.Scope, ids []string, t time.Time) error {
	if err := s.check(sc); err != nil {
		return fmt.Errorf("touch memories: %w", err)
	}
	if len(ids) == 0 {
		return nil
	}
	// Hits and last use are not part of the indexes: no refresh, but the
	// cached rows are brought up to date (see rowCache), once committed.
	s.idx.BeginTouch(ids)
	cond, args := sqlkit.SQLite.ByIDs(sc, ids)
	err := s.joinWrite(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `UPDATE memories SET hits = hits + 1, last_used_at = max(last_used_at, ?) WHERE `+cond,
			append([]any{micros(t)}, args...)...)
		return err
	})
	end := func(committed bool) { s.idx.EndTouch(sc, ids, fromMicros(micros(t)), committed && err == nil) }
	if b := s.batchOf(ctx); b != nil {
		b.after = append(b.after, end)
	} else {
		end(true)
	}
	if err != nil {
		return fmt.Errorf("touch memories: %w", err)
	}
	return nil
}
