package background

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/memproxy/memproxy/memory"
)

// Turns that arrive while their scope's last ingest job still waits in the
// queue join that job instead of making one of their own (SQLite). Live
// traffic makes a job per turn, and River's cost per job (fetch, complete,
// the executor) is as large as ingesting a turn: when ingest falls behind,
// a backlog of single-turn jobs would keep it behind. Joining turns to the
// waiting job batches exactly when a backlog forms and never otherwise (a
// job fetched at once takes nothing more). A job only takes turns of its
// own scope, so a user's deletion finds all of their turns by the job tags
// as before.
//
// The turns are appended in the enqueue's own transaction on River's
// database, so Enqueue still returns only once they are committed. The
// append is conditional: a job a worker fetched meanwhile (running, or
// attempted before) or a full one is left alone, and the turns go into a
// new job. PostgreSQL keeps a job per commit and scope: its River client
// serves many connections and replicas, and jobs are fetched at once.

// appendTurnSQL appends one turn to a waiting ingest job. River stores
// args as JSONB on SQLite.
const appendTurnSQL = `UPDATE river_job SET args = jsonb_insert(args, '$.turns[#]', jsonb(?))
WHERE id = ? AND kind = '` + kindIngest + `' AND state = 'available' AND attempt = 0
  AND json_array_length(args, '$.turns') < ?`

// waitingJob is the last ingest job this process committed for a scope.
type waitingJob struct {
	id int64
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
// still waiting in the queue, and removes them from g; the turns left need
// jobs of their own. A scope whose job was taken (or is full) is
// forgotten at its first refused turn, so its later turns keep their
// order in the new job. It runs on the committer's goroutine, which owns
// q.waiting. On any error nothing was appended and g is as given.
func (q *Queue) joinWaiting(ctx context.Context, g scopeTurns) (scopeTurns, error) {
	if len(q.waiting) == 0 {
		return g, nil
	}
	type change struct {
		s    memory.Scope
		left []memory.Turn
		gone bool
	}
	var changes []change
	err := q.riverTx(ctx, func(tx *sql.Tx) error {
		for _, s := range g.order {
			w, ok := q.waiting[s]
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
				res, err := tx.ExecContext(ctx, appendTurnSQL, string(data), w.id, maxTurnsPerJob)
				if err != nil {
					return err
				}
				if k, err := res.RowsAffected(); err != nil || k != 1 {
					break
				}
				n++
			}
			changes = append(changes, change{s: s, left: ts[n:], gone: n < len(ts)})
		}
		return nil
	})
	if err != nil {
		return g, fmt.Errorf("join waiting jobs: %w", err)
	}
	out := scopeTurns{turns: make(map[memory.Scope][]memory.Turn, len(g.turns))}
	for s, ts := range g.turns {
		out.turns[s] = ts
	}
	for _, c := range changes {
		out.turns[c.s] = c.left
		if c.gone {
			delete(q.waiting, c.s)
		}
	}
	for _, s := range g.order {
		if len(out.turns[s]) > 0 {
			out.order = append(out.order, s)
		} else {
			delete(out.turns, s)
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
