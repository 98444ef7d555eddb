package background

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/memproxy/memproxy/memory"
)

// Turns that arrive while their scope's last ingest job still waits in the
// queue join that job instead of making one of their own. Live traffic
// makes a job per turn, and River's cost per job (fetch, complete, the
// executor) is as large as ingesting a turn: when ingest falls behind, a
// backlog of single-turn jobs would keep it behind. Joining turns to the
// waiting job batches exactly when a backlog forms and never otherwise (a
// job fetched at once takes nothing more). A job only takes turns of its
// own scope, so a user's deletion finds all of their turns by the job tags
// as before.
//
// The turns are appended in a transaction on River's database before the
// enqueue's new jobs are inserted, so Enqueue still returns only once they
// are committed. The append is conditional: a job a worker fetched
// meanwhile (running, or attempted before) or a full one is left alone,
// and the turns go into a new job. On PostgreSQL a fetch locks the rows it
// takes (FOR UPDATE SKIP LOCKED): it skips a job while an append holds
// it, and an append waiting for a fetch finds the job running and is
// refused; a job another replica's worker took is refused the same way.

// appendTurnSQL appends one turn to a waiting ingest job, by driver. River
// stores args as JSONB on both.
var appendTurnSQL = map[Driver]string{
	DriverSQLite: `UPDATE river_job SET args = jsonb_insert(args, '$.turns[#]', jsonb(?))
WHERE id = ? AND kind = '` + kindIngest + `' AND state = 'available' AND attempt = 0
  AND json_array_length(args, '$.turns') < ?`,
	DriverPostgres: `UPDATE river_job SET args = jsonb_set(args, '{turns}', (args->'turns') || jsonb_build_array($1::jsonb))
WHERE id = $2 AND kind = '` + kindIngest + `' AND state = 'available' AND attempt = 0
  AND jsonb_array_length(args->'turns') < $3`,
}

// waitingJobs holds the last ingest job this process committed for each
// scope, while it may still wait in the queue: the committer sets them,
// and forgets one when the job refuses a turn or a worker here starts it
// (so a scope whose job was taken costs no append attempt).
type waitingJobs struct {
	mu sync.Mutex
	m  map[memory.Scope]int64
}

// maxWaitingScopes bounds the scopes remembered.
const maxWaitingScopes = 10_000

func newWaitingJobs() *waitingJobs { return &waitingJobs{m: map[memory.Scope]int64{}} }

// of returns the waiting jobs of the scopes.
func (w *waitingJobs) of(scopes []memory.Scope) map[memory.Scope]int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[memory.Scope]int64{}
	for _, s := range scopes {
		if id, ok := w.m[s]; ok {
			out[s] = id
		}
	}
	return out
}

// set records id as the scope's last job (the highest id is the last).
func (w *waitingJobs) set(s memory.Scope, id int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if id > w.m[s] {
		if len(w.m) >= maxWaitingScopes {
			clear(w.m) // scopes long idle; their next turns make new jobs
		}
		w.m[s] = id
	}
}

// forget drops the scope's job id, if it is still the one recorded.
func (w *waitingJobs) forget(s memory.Scope, id int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.m[s] == id {
		delete(w.m, s)
	}
}

func (w *waitingJobs) clear() {
	w.mu.Lock()
	defer w.mu.Unlock()
	clear(w.m)
}

// scopeTurns are a commit's turns by scope, scopes in arrival order.
type scopeTurns struct {
	order []memory.Scope
	turns map[memory.Scope][]memory.Turn
}

func groupTurns(batch []*enqueueReq) scopeTurns {
	g := scopeTurns{turns: map[memory.Scope][]memory.Turn{}}
	for _, r := range batch {
		for _, t := range r.turns {
			if _, ok := g.turns[t.Scope]; !ok {
				g.order = append(g.order, t.Scope)
			}
			g.turns[t.Scope] = append(g.turns[t.Scope], *t)
		}
	}
	return g
}

// joinWaiting appends each scope's turns, in order, to the scope's job
// still waiting in the queue, and returns the turns left, which need jobs
// of their own. A scope whose job was taken (or is full) is forgotten at
// its first refused turn, so its later turns keep their order in the new
// job. On any error nothing was appended and g is returned as given.
func (q *Queue) joinWaiting(ctx context.Context, g scopeTurns) (scopeTurns, error) {
	jobs := q.waiting.of(g.order)
	if len(jobs) == 0 {
		return g, nil
	}
	left := map[memory.Scope][]memory.Turn{}
	var refused []memory.Scope
	err := q.riverTx(ctx, func(tx *sql.Tx) error {
		clear(left)
		refused = refused[:0]
		for _, s := range g.order {
			id, ok := jobs[s]
			if !ok {
				continue
			}
			ts := g.turns[s]
			n := 0
			for n < len(ts) {
				data, err := json.Marshal(&ts[n])
				if err != nil {
					return err
				}
				res, err := tx.ExecContext(ctx, appendTurnSQL[q.cfg.Driver], string(data), id, maxTurnsPerJob)
				if err != nil {
					return err
				}
				if k, err := res.RowsAffected(); err != nil || k != 1 {
					refused = append(refused, s)
					break
				}
				n++
			}
			left[s] = ts[n:]
		}
		return nil
	})
	if err != nil {
		return g, fmt.Errorf("join waiting jobs: %w", err)
	}
	for _, s := range refused {
		q.waiting.forget(s, jobs[s])
	}
	out := scopeTurns{turns: make(map[memory.Scope][]memory.Turn, len(g.turns))}
	for _, s := range g.order {
		ts, ok := left[s]
		if !ok {
			ts = g.turns[s]
		}
		if len(ts) > 0 {
			out.order = append(out.order, s)
			out.turns[s] = ts
		}
	}
	return out, nil
}

// riverTx runs fn in a transaction on River's database.
func (q *Queue) riverTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := q.cfg.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}
