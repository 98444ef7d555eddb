package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/lib/pq"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/store/internal/sqlkit"
)

// AppendTurn writes one turn to the scope's turn log.
func (s *logs) AppendTurn(ctx context.Context, t *memory.Turn) error {
	return s.AppendTurns(ctx, []*memory.Turn{t})
}

// AppendTurns writes turns to their scopes' turn logs in one statement
// (an ingest round's turns: one joined call of a Batch instead of one a
// turn), each keyed by its spool id as AppendTurn does.
func (s *logs) AppendTurns(ctx context.Context, ts []*memory.Turn) error {
	if len(ts) == 0 {
		return nil
	}
	n := len(ts)
	col := func() []string { return make([]string, n) }
	users, nss, reqs, sess, times, ut, as, fr, models, arms, refs, inj, intents, tids, apis :=
		col(), col(), col(), col(), col(), col(), col(), col(), col(), col(), col(), col(), col(), col(), col()
	now := time.Now()
	for i, t := range ts {
		if t == nil {
			return fmt.Errorf("append turns: %w: nil turn", memory.ErrInvalid)
		}
		if err := s.check(t.Scope); err != nil {
			return fmt.Errorf("append turns: %w", err)
		}
		if t.Time.IsZero() {
			t.Time = now
		}
		t.Time = micro(t.Time)
		r, err := jsonArg(nonNil(t.Refs))
		if err != nil {
			return fmt.Errorf("append turns: %w", err)
		}
		in, err := jsonArg(nonNil(t.Injected))
		if err != nil {
			return fmt.Errorf("append turns: %w", err)
		}
		users[i], nss[i], reqs[i], sess[i], times[i] = t.Scope.User, t.Scope.Namespace, t.RequestID, t.Session, t.Time.Format(time.RFC3339Nano)
		ut[i], as[i], fr[i], models[i], arms[i], refs[i], inj[i] = t.User, t.Assistant, t.FinishReason, t.Model, t.Arm, r, in
		intents[i], tids[i], apis[i] = string(t.Intent), t.ID, t.API
	}
	err := s.joined(ctx, false, nil, func(q dbtx) error {
		_, err := q.ExecContext(ctx, `INSERT INTO turns (user_id, namespace, request_id, session, time, user_text,
			assistant, finish_reason, model, arm, refs, injected, intent, tid, api)
			SELECT u, ns, r, se, tm, ut, a, fr, mo, ar, rf::jsonb, ij::jsonb, it, NULLIF(ti, ''), ap
			FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::text[], $7::text[], $8::text[],
				$9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[])
				AS x(u, ns, r, se, tm, ut, a, fr, mo, ar, rf, ij, it, ti, ap)
			ON CONFLICT (user_id, namespace, tid) WHERE tid IS NOT NULL DO NOTHING`,
			pq.Array(users), pq.Array(nss), pq.Array(reqs), pq.Array(sess), pq.Array(times), pq.Array(ut), pq.Array(as),
			pq.Array(fr), pq.Array(models), pq.Array(arms), pq.Array(refs), pq.Array(inj), pq.Array(intents), pq.Array(tids), pq.Array(apis))
		return err
	})
	if err != nil {
		return fmt.Errorf("append turns: %w", err)
	}
	return nil
}

func nonNil(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}

// Turns pages the scope's turn log oldest first.
func (s *logs) Turns(ctx context.Context, sc memory.Scope, f memory.TurnFilter) (memory.Page[*memory.Turn], error) {
	if err := s.check(sc); err != nil {
		return memory.Page[*memory.Turn]{}, fmt.Errorf("read turns: %w", err)
	}
	return sqlkit.Turns(ctx, sqlkit.Postgres, s.db.QueryContext, sc, f, `SELECT seq, request_id, session, time, user_text,
		assistant, finish_reason, model, arm, refs, injected, intent, api FROM turns`, func(r sqlkit.Scanner) (*memory.Turn, int64, error) {
		var (
			t              memory.Turn
			seq            int64
			refs, injected []byte
		)
		if err := r.Scan(&seq, &t.RequestID, &t.Session, &t.Time, &t.User, &t.Assistant, &t.FinishReason, &t.Model,
			&t.Arm, &refs, &injected, &t.Intent, &t.API); err != nil {
			return nil, 0, err
		}
		return &t, seq, errors.Join(unmarshalList(refs, &t.Refs), unmarshalList(injected, &t.Injected))
	})
}

// unmarshalList reads a jsonb string array, leaving nil for an empty one.
func unmarshalList(b []byte, dst *[]string) error {
	if err := json.Unmarshal(b, dst); err != nil {
		return err
	}
	if len(*dst) == 0 {
		*dst = nil
	}
	return nil
}

// AppendRecall stores a request's recall row; a second row for the same
// request replaces the first.
func (s *logs) AppendRecall(ctx context.Context, r *memory.RecallRecord) error {
	if r == nil {
		return fmt.Errorf("append recall: %w: nil record", memory.ErrInvalid)
	}
	if err := s.check(r.Scope); err != nil {
		return fmt.Errorf("append recall: %w", err)
	}
	if r.RequestID == "" {
		return fmt.Errorf("append recall: %w: empty request id", memory.ErrInvalid)
	}
	if r.Time.IsZero() {
		r.Time = time.Now()
	}
	r.Time = micro(r.Time)
	injected, err := jsonArg(nonNil(r.Injected))
	if err != nil {
		return fmt.Errorf("append recall: %w", err)
	}
	cands := r.Candidates
	if cands == nil {
		cands = []memory.RankedCandidate{}
	}
	candidates, err := jsonArg(cands)
	if err != nil {
		return fmt.Errorf("append recall: %w", err)
	}
	err = s.joined(ctx, false, nil, func(q dbtx) error {
		_, err := q.ExecContext(ctx, `INSERT INTO recall (user_id, namespace, request_id, session, time, arm, status,
			gate_reason, injected, candidates, injected_tokens, overhead_ms, feedback, api)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
			ON CONFLICT (user_id, namespace, request_id) DO UPDATE SET session = excluded.session, time = excluded.time,
			arm = excluded.arm, status = excluded.status, gate_reason = excluded.gate_reason, injected = excluded.injected,
			candidates = excluded.candidates, injected_tokens = excluded.injected_tokens,
			overhead_ms = excluded.overhead_ms, feedback = excluded.feedback, api = excluded.api`,
			r.Scope.User, r.Scope.Namespace, r.RequestID, r.Session, r.Time, r.Arm, r.Status, r.GateReason, injected,
			candidates, r.InjectedTokens, r.OverheadMs, r.Feedback, r.API)
		return err
	})
	if err != nil {
		return fmt.Errorf("append recall: %w", err)
	}
	return nil
}

const recallCols = `user_id, namespace, request_id, session, time, arm, status, gate_reason, injected, candidates,
	injected_tokens, overhead_ms, feedback, api`

func scanRecall(r scanner) (*memory.RecallRecord, error) {
	var (
		rec             memory.RecallRecord
		injected, cands []byte
		feedback        sql.NullFloat64
	)
	if err := r.Scan(&rec.Scope.User, &rec.Scope.Namespace, &rec.RequestID, &rec.Session, &rec.Time, &rec.Arm,
		&rec.Status, &rec.GateReason, &injected, &cands, &rec.InjectedTokens, &rec.OverheadMs, &feedback, &rec.API); err != nil {
		return nil, err
	}
	rec.Time = rec.Time.UTC()
	if err := unmarshalList(injected, &rec.Injected); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(cands, &rec.Candidates); err != nil {
		return nil, err
	}
	if len(rec.Candidates) == 0 {
		rec.Candidates = nil
	}
	if feedback.Valid {
		rec.Feedback = &feedback.Float64
	}
	return &rec, nil
}
