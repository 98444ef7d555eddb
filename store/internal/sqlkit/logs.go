package sqlkit

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// The turn and recall logs keep what their reads select or order by as
// columns (the scope, request id, time; a turn's session and spool id, a
// recall row's feedback) and the record itself as JSON (data), in both
// stores alike (PostgreSQL's migration 16 moved its rows to that form).

// turnBatch bounds the turns of one INSERT (7 parameters each, under
// SQLite's 32,766 and PostgreSQL's 65,535).
const turnBatch = 1000

// AppendTurn adds a turn to its scope's log; it joins the Batch of ctx.
func (s Store) AppendTurn(ctx context.Context, t *memory.Turn) error {
	return Wrap("append turn", s.appendTurns(ctx, []*memory.Turn{t}))
}

// AppendTurns writes turns to their scopes' logs in one statement (an
// ingest round's turns: one joined call of a Batch instead of one a
// turn). A turn keyed by its spool id is logged once (a retried ingest).
func (s Store) AppendTurns(ctx context.Context, ts []*memory.Turn) error {
	for len(ts) > 0 {
		n := min(len(ts), turnBatch)
		if err := s.appendTurns(ctx, ts[:n]); err != nil {
			return fmt.Errorf("append turns: %w", err)
		}
		ts = ts[n:]
	}
	return nil
}

func (s Store) appendTurns(ctx context.Context, ts []*memory.Turn) error {
	args := make([]any, 0, 7*len(ts))
	now := time.Now()
	for _, t := range ts {
		if t == nil {
			return fmt.Errorf("%w: nil turn", memory.ErrInvalid)
		}
		if err := s.check(t.Scope); err != nil {
			return err
		}
		if t.Time.IsZero() {
			t.Time = now
		}
		t.Time = Micro(t.Time)
		data, err := json.Marshal(t)
		if err != nil {
			return err
		}
		args = append(args, t.Scope.User, t.Scope.Namespace, t.RequestID, t.Session, s.Time(t.Time), string(data), t.ID)
	}
	values := strings.Repeat(", (?, ?, ?, ?, ?, ?, NULLIF(?, ''))", len(ts))[2:]
	return s.Join(ctx, nil, func(q Execer) error {
		// The only unique key a turn can collide on is its spool id.
		_, err := q.ExecContext(ctx, s.Rebind(`INSERT INTO turns (user_id, namespace, request_id, session, time, data, tid)
			VALUES `+values+` ON CONFLICT DO NOTHING`), args...)
		return err
	})
}

// Turns pages the scope's turn log, oldest first.
func (s Store) Turns(ctx context.Context, sc memory.Scope, f memory.TurnFilter) (memory.Page[*memory.Turn], error) {
	var page memory.Page[*memory.Turn]
	if err := s.check(sc); err != nil {
		return page, fmt.Errorf("read turns: %w", err)
	}
	q, args := `SELECT seq, time, data FROM turns WHERE user_id = ? AND namespace = ?`, []any{sc.User, sc.Namespace}
	if f.Session != "" {
		q += ` AND session = ?`
		args = append(args, f.Session)
	}
	if !f.Since.IsZero() {
		q += ` AND time >= ?`
		args = append(args, s.Time(f.Since))
	}
	if f.Cursor != "" {
		t, tie, err := ParseCursor(f.Cursor)
		seq, perr := strconv.ParseInt(tie, 10, 64)
		if err != nil || perr != nil {
			return page, fmt.Errorf("read turns: %w: bad cursor", memory.ErrInvalid)
		}
		q += ` AND (time, seq) > (?, ?)`
		args = append(args, s.Time(t), seq)
	}
	type row struct {
		t   *memory.Turn
		seq int64
	}
	limit := Limit(f.Limit)
	rows, err := s.query(ctx, q+` ORDER BY time, seq LIMIT ?`, append(args, limit+1)...)
	rs, err := Collect(rows, err, func(r Scanner) (row, error) {
		x := row{t: &memory.Turn{}}
		var at time.Time
		var data string
		if err := r.Scan(&x.seq, Time(&at), &data); err != nil {
			return x, err
		}
		if err := json.Unmarshal([]byte(data), x.t); err != nil {
			return x, fmt.Errorf("decode: %w", err)
		}
		x.t.Scope, x.t.Time = sc, at
		return x, nil
	})
	if err != nil {
		return page, fmt.Errorf("read turns: %w", err)
	}
	p := Paged(rs, limit, func(r row) string { return Cursor(r.t.Time, strconv.FormatInt(r.seq, 10)) })
	page.Next = p.Next
	for _, r := range p.Data {
		page.Data = append(page.Data, r.t)
	}
	return page, nil
}

// EraseTurns implements memory.Eraser: the turns of the request ids keep
// their metadata and lose their text.
func (s Eraser) EraseTurns(ctx context.Context, sc memory.Scope, requestIDs []string) (int, error) {
	if err := s.check(sc); err != nil {
		return 0, err
	}
	n := 0
	err := s.Write(ctx, func(tx *sql.Tx) error {
		type row struct {
			seq  int64
			data []byte
		}
		in, list := s.In("request_id", requestIDs)
		rows, err := tx.QueryContext(ctx, s.Rebind(`SELECT seq, data FROM turns WHERE user_id = ? AND namespace = ? AND `+in+`
			AND request_id <> ''`), sc.User, sc.Namespace, list)
		rs, err := Collect(rows, err, func(r Scanner) (row, error) {
			var x row
			if err := r.Scan(&x.seq, &x.data); err != nil {
				return x, err
			}
			var t memory.Turn
			if err := json.Unmarshal(x.data, &t); err != nil {
				return x, err
			}
			t.User, t.Assistant, t.Context = memory.ErasedText, memory.ErasedText, ""
			x.data, err = json.Marshal(&t)
			return x, err
		})
		if err != nil {
			return err
		}
		for _, r := range rs {
			if _, err := tx.ExecContext(ctx, s.Rebind(`UPDATE turns SET data = ? WHERE user_id = ? AND namespace = ? AND seq = ?`),
				string(r.data), sc.User, sc.Namespace, r.seq); err != nil {
				return err
			}
		}
		n = len(rs)
		return nil
	})
	return Wrapped("erase turns", n, err)
}

// AppendRecall records one request's recall; it joins the Batch of ctx.
// On PostgreSQL a second row for the same request replaces the first
// (Dialect.RecallUpsert).
func (s Store) AppendRecall(ctx context.Context, r *memory.RecallRecord) error {
	return s.AppendRecalls(ctx, []*memory.RecallRecord{r})
}

// AppendRecalls is AppendRecall of several requests (the recall path's
// writer hands it a flush window's rows) in a few multi-row statements:
// one statement and its savepoint per row cost PostgreSQL a tenth of a
// millisecond a request. Every record is checked first: an invalid one
// writes none.
func (s Store) AppendRecalls(ctx context.Context, rs []*memory.RecallRecord) error {
	args := make([]any, 0, 6*len(rs))
	var buf []byte
	last := map[memory.Scope]map[string]int{} // by request: its row, for the upsert
	for _, r := range rs {
		if r == nil {
			return fmt.Errorf("append recall: %w: nil record", memory.ErrInvalid)
		}
		if err := s.check(r.Scope); err != nil {
			return fmt.Errorf("append recall: %w", err)
		}
		if r.RequestID == "" && s.RecallUpsert != "" {
			return fmt.Errorf("append recall: %w: empty request id", memory.ErrInvalid)
		}
		if r.Time.IsZero() {
			r.Time = time.Now()
		}
		r.Time = Micro(r.Time)
		buf = memory.AppendRecallJSON(buf[:0], r)
		row := []any{r.Scope.User, r.Scope.Namespace, r.RequestID, s.Time(r.Time), string(buf), r.Feedback}
		if s.RecallUpsert != "" {
			// One statement cannot upsert a row twice: the later record
			// of a request takes the earlier one's place.
			if last[r.Scope] == nil {
				last[r.Scope] = map[string]int{}
			}
			if i, ok := last[r.Scope][r.RequestID]; ok {
				copy(args[i:i+6], row)
				continue
			}
			last[r.Scope][r.RequestID] = len(args)
		}
		args = append(args, row...)
	}
	err := s.Join(ctx, nil, func(q Execer) error {
		for len(args) > 0 {
			n := recallChunk(len(args) / 6)
			_, err := q.ExecContext(ctx, s.Rebind(`INSERT INTO recall (user_id, namespace, request_id, time, data, feedback) VALUES `+
				strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?, ?, ?), ", n), ", ")+s.RecallUpsert), args[:6*n]...)
			if err != nil {
				return err
			}
			args = args[6*n:]
		}
		return nil
	})
	return Wrap("append recall", err)
}

// recallChunk is the rows of the next recall INSERT for rows left: one
// of a few sizes, so a connection's statement cache holds few texts.
func recallChunk(rows int) int {
	for _, n := range []int{64, 16, 4} {
		if rows >= n {
			return n
		}
	}
	return 1
}

// recallCols are the recall columns scanRecall reads.
const recallCols = `user_id, namespace, time, data, feedback`

func scanRecall(r Scanner) (*memory.RecallRecord, error) {
	var (
		rec  memory.RecallRecord
		sc   memory.Scope
		at   time.Time
		data []byte
		fb   sql.NullFloat64
	)
	if err := r.Scan(&sc.User, &sc.Namespace, Time(&at), &data, &fb); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("decode recall row: %w", err)
	}
	rec.Scope, rec.Time, rec.Feedback = sc, at, nil
	if fb.Valid {
		rec.Feedback = &fb.Float64
	}
	return &rec, nil
}
