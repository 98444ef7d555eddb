package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/lib/pq"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/store/internal/sqlkit"
)

// insertCols are the columns Insert writes, in insertValues order.
const insertCols = `user_id, namespace, id, tier, text, embedding, value, confidence, source, provenance,
	key, session, no_decay, created_at, last_used_at, hits, valid_from, valid_to, superseded_by,
	expires_at, archived_at, consolidated_at, context, api`

// insertBatch bounds the rows of one INSERT (24 parameters each, well under
// PostgreSQL's 65,535).
const insertBatch = 500

// Insert writes ms in one transaction, all or none (or joins the Batch of
// ctx).
func (s *Store) Insert(ctx context.Context, sc memory.Scope, ms ...*memory.Memory) error {
	if err := s.check(sc); err != nil {
		return fmt.Errorf("insert memories: %w", err)
	}
	now := micro(time.Now())
	for _, m := range ms {
		if err := sqlkit.Prepare(sc, m, s.opts.Dim, now); err != nil {
			return fmt.Errorf("insert memories: %w", err)
		}
	}
	if len(ms) == 0 {
		return nil
	}
	err := s.joined(ctx, len(ms) > insertBatch, nil, func(q dbtx) error {
		for start := 0; start < len(ms); start += insertBatch {
			if err := insertRows(ctx, q, ms[start:min(start+insertBatch, len(ms))]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("insert memories: %w", err)
	}
	return nil
}

func insertRows(ctx context.Context, tx dbtx, ms []*memory.Memory) error {
	var b strings.Builder
	b.WriteString("INSERT INTO memories (" + insertCols + ") VALUES ")
	args := make([]any, 0, len(ms)*24)
	for i, m := range ms {
		vals, err := insertValues(m)
		if err != nil {
			return err
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('(')
		for j := range vals {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString("$" + strconv.Itoa(len(args)+j+1))
		}
		b.WriteByte(')')
		args = append(args, vals...)
	}
	if _, err := tx.ExecContext(ctx, b.String(), args...); err != nil {
		var pqErr *pq.Error
		if errors.As(err, &pqErr) && pqErr.Code == "23505" {
			return fmt.Errorf("%w: duplicate memory id: %w", memory.ErrInvalid, err)
		}
		return err
	}
	return nil
}

func insertValues(m *memory.Memory) ([]any, error) {
	prov, err := jsonArg(m.Provenance)
	if err != nil {
		return nil, err
	}
	return []any{m.Scope.User, m.Scope.Namespace, m.ID, string(m.Tier), m.Text, vectorArg(m.Embedding),
		m.Value, m.Confidence, string(m.Source), prov, m.Key, m.Session, m.NoDecay,
		micro(m.CreatedAt), micro(m.LastUsedAt), m.Hits, micro(m.ValidFrom), timeArg(m.ValidTo), m.SupersededBy,
		timeArg(m.ExpiresAt), timeArg(m.ArchivedAt), timeArg(m.ConsolidatedAt), m.Context, m.API}, nil
}

// Update rewrites every mutable field of m (all but id, scope, created_at).
func (s *Store) Update(ctx context.Context, sc memory.Scope, m *memory.Memory) error {
	if err := s.check(sc); err != nil {
		return fmt.Errorf("update memory: %w", err)
	}
	if err := sqlkit.CheckUpdate(sc, m, s.opts.Dim); err != nil {
		return fmt.Errorf("update memory: %w", err)
	}
	prov, err := jsonArg(m.Provenance)
	if err != nil {
		return fmt.Errorf("update memory: %w", err)
	}
	if m.LastUsedAt.IsZero() {
		m.LastUsedAt = m.CreatedAt
	}
	if m.ValidFrom.IsZero() {
		m.ValidFrom = m.CreatedAt
	}
	// The usage counters (migration 9) are folded into the row written.
	var res sql.Result
	err = s.joined(ctx, false, nil, func(q dbtx) error {
		var err error
		res, err = q.ExecContext(ctx, `WITH folded AS (DELETE FROM memory_usage WHERE user_id = $1 AND namespace = $2 AND id = $3)
		UPDATE memories SET tier = $4, text = $5, embedding = $6,
		value = $7, confidence = $8, source = $9, provenance = $10,
		key = $11, session = $12, no_decay = $13, last_used_at = $14, hits = $15, valid_from = $16,
		valid_to = $17, superseded_by = $18, expires_at = $19, archived_at = $20, consolidated_at = $21,
		context = $22
		WHERE user_id = $1 AND namespace = $2 AND id = $3`,
			sc.User, sc.Namespace, m.ID, string(m.Tier), m.Text, vectorArg(m.Embedding),
			m.Value, m.Confidence, string(m.Source), prov, m.Key, m.Session, m.NoDecay, micro(m.LastUsedAt), m.Hits,
			micro(m.ValidFrom), timeArg(m.ValidTo), m.SupersededBy, timeArg(m.ExpiresAt), timeArg(m.ArchivedAt),
			timeArg(m.ConsolidatedAt), m.Context)
		return err
	})
	if err != nil {
		return fmt.Errorf("update memory: %w", err)
	}
	return oneRow(res, "update memory", m.ID)
}

// oneRow turns "no row affected" into ErrNotFound.
func oneRow(res sql.Result, op, id string) error {
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if n == 0 {
		return fmt.Errorf("%s %s: %w", op, id, memory.ErrNotFound)
	}
	return nil
}

// GetMany returns the memories found among ids, in the order given.
func (s *Store) GetMany(ctx context.Context, sc memory.Scope, ids []string) ([]*memory.Memory, error) {
	if err := s.check(sc); err != nil {
		return nil, fmt.Errorf("get memories: %w", err)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	found, err := s.query(ctx, `SELECT `+s.cols+` FROM memory_rows
		WHERE user_id = $1 AND namespace = $2 AND id = ANY($3)`, sc.User, sc.Namespace, pq.Array(ids))
	if err != nil {
		return nil, fmt.Errorf("get memories: %w", err)
	}
	byID := make(map[string]*memory.Memory, len(found))
	for _, m := range found {
		byID[m.ID] = m
	}
	return sqlkit.InOrder(ids, byID), nil
}

// query runs a memCols query and scans every row.
func (s *conn) query(ctx context.Context, q string, args ...any) ([]*memory.Memory, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	return sqlkit.Collect(rows, err, scanRow)
}

// Touch records an access of every id: hits+1, last_used_at=t, in the
// narrow memory_usage rows (migration 9), which reads add to the memories
// row. The increment happens in the upsert itself, so concurrent touches
// never lose a hit; ids not in the scope are ignored. Rows are upserted in
// id order, so two batches sharing ids lock them in the same order.
func (s *Store) Touch(ctx context.Context, sc memory.Scope, ids []string, t time.Time) error {
	if err := s.check(sc); err != nil {
		return fmt.Errorf("touch memories: %w", err)
	}
	if len(ids) == 0 {
		return nil
	}
	after := func() { s.local.EndTouch(sc, ids, micro(t), true) }
	err := s.joined(ctx, false, after, func(q dbtx) error {
		_, err := q.ExecContext(ctx, `INSERT INTO memory_usage AS u (user_id, namespace, id, hits, last_used_at)
			SELECT user_id, namespace, id, 1, $4 FROM memories WHERE user_id = $1 AND namespace = $2 AND id = ANY($3) ORDER BY id
			ON CONFLICT (user_id, namespace, id) DO UPDATE SET hits = u.hits + 1, last_used_at = excluded.last_used_at`,
			sc.User, sc.Namespace, pq.Array(ids), micro(t))
		return err
	})
	if err != nil {
		return fmt.Errorf("touch memories: %w", err)
	}
	return nil
}
