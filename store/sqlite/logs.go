package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// AppendTurn adds a turn to its scope's log.
func (s *logs) AppendTurn(ctx context.Context, t *memory.Turn) error {
	if t == nil {
		return fmt.Errorf("append turn: %w: nil turn", memory.ErrInvalid)
	}
	if err := s.check(t.Scope); err != nil {
		return fmt.Errorf("append turn: %w", err)
	}
	if t.Time.IsZero() {
		t.Time = time.Now().UTC()
	}
	data, err := json.Marshal(t)
	if err != nil {
		return fmt.Errorf("append turn: %w", err)
	}
	err = s.joinWrite(ctx, func(tx *sql.Tx) error {
		// A turn keyed by its spool id is logged once (a retried ingest).
		_, err := s.txExec(ctx, tx, `INSERT INTO turns (user, namespace, request_id, session, time, data, tid) VALUES (?, ?, ?, ?, ?, ?, NULLIF(?, ''))
			ON CONFLICT (tid) WHERE tid IS NOT NULL DO NOTHING`,
			t.Scope.User, t.Scope.Namespace, t.RequestID, t.Session, micros(t.Time), string(data), t.ID)
		return err
	})
	if err != nil {
		return fmt.Errorf("append turn: %w", err)
	}
	return nil
}

// Turns pages the scope's turn log, oldest first.
func (s *logs) Turns(ctx context.Context, sc memory.Scope, f memory.TurnFilter) (memory.Page[*memory.Turn], error) {
	var page memory.Page[*memory.Turn]
	if err := s.check(sc); err != nil {
		return page, fmt.Errorf("read turns: %w", err)
	}
	q := `SELECT seq, time, data FROM turns WHERE user = ? AND namespace = ?`
	args := []any{sc.User, sc.Namespace}
	if f.Session != "" {
		q += ` AND session = ?`
		args = append(args, f.Session)
	}
	if !f.Since.IsZero() {
		q += ` AND time >= ?`
		args = append(args, micros(f.Since))
	}
	if f.Cursor != "" {
		ct, cseq, err := decodeCursor(f.Cursor)
		seq, perr := strconv.ParseInt(cseq, 10, 64)
		if err != nil || perr != nil {
			return page, fmt.Errorf("read turns: %w: bad cursor", memory.ErrInvalid)
		}
		q += ` AND (time, seq) > (?, ?)`
		args = append(args, ct, seq)
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	rows, err := s.db.QueryContext(ctx, q+` ORDER BY time, seq LIMIT ?`, append(args, limit+1)...)
	if err != nil {
		return page, fmt.Errorf("read turns: %w", err)
	}
	defer rows.Close()
	type key struct{ t, seq int64 }
	var keys []key
	for rows.Next() {
		var k key
		var data string
		if err := rows.Scan(&k.seq, &k.t, &data); err != nil {
			return page, fmt.Errorf("read turns: %w", err)
		}
		var t memory.Turn
		if err := json.Unmarshal([]byte(data), &t); err != nil {
			return page, fmt.Errorf("read turns: decode: %w", err)
		}
		t.Scope = sc
		t.Time = fromMicros(k.t)
		page.Data = append(page.Data, &t)
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		return page, fmt.Errorf("read turns: %w", err)
	}
	if len(page.Data) > limit {
		page.Data = page.Data[:limit]
		k := keys[limit-1]
		page.Next = encodeCursor(k.t, strconv.FormatInt(k.seq, 10))
	}
	return page, nil
}

// AppendRecall records one request's recall.
func (s *logs) AppendRecall(ctx context.Context, r *memory.RecallRecord) error {
	if r == nil {
		return fmt.Errorf("append recall: %w: nil record", memory.ErrInvalid)
	}
	if err := s.check(r.Scope); err != nil {
		return fmt.Errorf("append recall: %w", err)
	}
	if r.Time.IsZero() {
		r.Time = time.Now().UTC()
	}
	data, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("append recall: %w", err)
	}
	var fb any
	if r.Feedback != nil {
		fb = *r.Feedback
	}
	err = s.joinWrite(ctx, func(tx *sql.Tx) error {
		_, err := s.txExec(ctx, tx, `INSERT INTO recall (user, namespace, request_id, time, data, feedback) VALUES (?, ?, ?, ?, ?, ?)`,
			r.Scope.User, r.Scope.Namespace, r.RequestID, micros(r.Time), string(data), fb)
		return err
	})
	if err != nil {
		return fmt.Errorf("append recall: %w", err)
	}
	return nil
}

const recallCols = `user, namespace, time, data, feedback`

func scanRecall(r scanner) (*memory.RecallRecord, error) {
	var (
		rec  memory.RecallRecord
		sc   memory.Scope
		t    int64
		data string
		fb   sql.NullFloat64
	)
	if err := r.Scan(&sc.User, &sc.Namespace, &t, &data, &fb); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(data), &rec); err != nil {
		return nil, fmt.Errorf("decode recall row: %w", err)
	}
	rec.Scope, rec.Time, rec.Feedback = sc, fromMicros(t), nil
	if fb.Valid {
		rec.Feedback = &fb.Float64
	}
	return &rec, nil
}

// RecallByRequest returns the latest recall row of a request in the scope.
func (s *logs) RecallByRequest(ctx context.Context, sc memory.Scope, requestID string) (*memory.RecallRecord, error) {
	if err := s.check(sc); err != nil {
		return nil, fmt.Errorf("read recall: %w", err)
	}
	r, err := scanRecall(s.db.QueryRowContext(ctx, `SELECT `+recallCols+` FROM recall WHERE user = ? AND namespace = ? AND request_id = ?
		ORDER BY seq DESC LIMIT 1`, sc.User, sc.Namespace, requestID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("read recall: %w: request %s", memory.ErrNotFound, requestID)
	}
	if err != nil {
		return nil, fmt.Errorf("read recall: %w", err)
	}
	return r, nil
}

// SetFeedback attaches an app's score to a request's recall rows.
func (s *logs) SetFeedback(ctx context.Context, sc memory.Scope, requestID string, score float64) error {
	if err := s.check(sc); err != nil {
		return fmt.Errorf("set feedback: %w", err)
	}
	err := s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE recall SET feedback = ? WHERE user = ? AND namespace = ? AND request_id = ?`,
			score, sc.User, sc.Namespace, requestID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("%w: request %s", memory.ErrNotFound, requestID)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("set feedback: %w", err)
	}
	return nil
}
