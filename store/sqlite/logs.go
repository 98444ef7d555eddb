package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/store/internal/sqlkit"
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
		_, err := tx.ExecContext(ctx, `INSERT INTO turns (user, namespace, request_id, session, time, data, tid) VALUES (?, ?, ?, ?, ?, ?, NULLIF(?, ''))
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
	if err := s.check(sc); err != nil {
		return memory.Page[*memory.Turn]{}, fmt.Errorf("read turns: %w", err)
	}
	return sqlkit.Turns(ctx, sqlkit.SQLite, s.db.QueryContext, sc, f, `SELECT seq, time, data FROM turns`,
		func(r sqlkit.Scanner) (*memory.Turn, int64, error) {
			var (
				t       memory.Turn
				seq, at int64
				data    string
			)
			if err := r.Scan(&seq, &at, &data); err != nil {
				return nil, 0, err
			}
			if err := json.Unmarshal([]byte(data), &t); err != nil {
				return nil, 0, fmt.Errorf("decode: %w", err)
			}
			t.Time = fromMicros(at)
			return &t, seq, nil
		})
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
		_, err := tx.ExecContext(ctx, `INSERT INTO recall (user, namespace, request_id, time, data, feedback) VALUES (?, ?, ?, ?, ?, ?)`,
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
