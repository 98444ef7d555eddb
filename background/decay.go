package background

import (
	"context"
	"fmt"
	"time"

	"github.com/memproxy/memproxy/memory"
	"github.com/riverqueue/river"
)

type decayWorker struct {
	river.WorkerDefaults[DecayArgs]
	q *Queue
}

func (w *decayWorker) Work(ctx context.Context, job *river.Job[DecayArgs]) error {
	at := job.Args.At
	if at.IsZero() {
		at = w.q.now()
	}
	// Paced like ingest (pace.go): a pass reads every live memory, and
	// the periodic one runs at start-up too. Its wait counts from the
	// job's insert, so it is never held past max_lag.
	h := w.q.pace.handle()
	defer h.release()
	h.round(max(0, time.Since(job.CreatedAt)))
	start := time.Now()
	st, err := w.q.decay.RunDecay(withPace(ctx, h), at)
	w.q.met.jobLatency.WithLabelValues(kindDecay).Observe(time.Since(start).Seconds())
	if err == nil {
		w.q.decay.runs.Add(1)
		w.q.log.InfoContext(ctx, "decay pass", "at", at, "scanned", st.Scanned, "archived", st.Archived, "expired", st.Expired, "purged", st.Purged)
	}
	return err
}

// DecayStats reports one decay pass.
type DecayStats struct {
	Scopes   int            `json:"scopes"`
	Scanned  int            `json:"scanned"`
	Archived int            `json:"archived"`
	Expired  int            `json:"expired"`
	Purged   int            `json:"purged"`
	ByTier   map[string]int `json:"by_tier"` // live memories after the pass
}

// RunDecay runs one decay-and-forget pass at a given time (the maintenance
// endpoint and replays call it directly; the periodic job calls it with
// the queue clock): low-value faded memories are archived, TTL-expired ones
// deleted, archived ones past archive_retention purged.
func (q *decayer) RunDecay(ctx context.Context, at time.Time) (DecayStats, error) {
	st := DecayStats{ByTier: map[string]int{}}
	if q.cfg.Admin == nil {
		return st, fmt.Errorf("decay: no Admin configured to list scopes")
	}
	scopes, err := q.cfg.Admin.Scopes(ctx)
	if err != nil {
		return st, fmt.Errorf("decay: scopes: %w", err)
	}
	for _, s := range scopes {
		pace(ctx)
		if err := q.decayScope(ctx, s, at, &st); err != nil {
			return st, fmt.Errorf("decay %s: %w", s, err)
		}
		handOver(ctx)
		st.Scopes++
	}
	for _, t := range memory.Tiers {
		q.met.tierGauge.WithLabelValues(string(t)).Set(float64(st.ByTier[string(t)]))
	}
	q.met.archived.Add(float64(st.Archived))
	return st, nil
}

func (q *decayer) decayScope(ctx context.Context, s memory.Scope, at time.Time, st *DecayStats) error {
	d := q.pol.Decay
	var archive []string
	f := memory.ListFilter{State: memory.StateLive, At: at, Limit: 500}
	for {
		pace(ctx) // between pages: nothing is held
		page, err := q.cfg.Store.List(ctx, s, f)
		if err != nil {
			return err
		}
		for _, m := range page.Data {
			st.Scanned++
			if memory.ShouldArchive(m, at, d) {
				archive = append(archive, m.ID)
				continue
			}
			st.ByTier[string(m.Tier)]++
		}
		if page.Next == "" {
			break
		}
		f.Cursor = page.Next
	}
	if len(archive) > 0 {
		if err := q.cfg.Store.Archive(ctx, s, archive, at); err != nil {
			return err
		}
		st.Archived += len(archive)
		if err := q.audit(ctx, s, "background", "archive", "", "", "", fmt.Sprintf("decay archived %d: %v", len(archive), truncIDs(archive))); err != nil {
			return err
		}
	}
	// Hard TTL: expired memories go now, not after the archive retention.
	f = memory.ListFilter{State: memory.StateExpired, At: at, Limit: 500}
	for {
		page, err := q.cfg.Store.List(ctx, s, f)
		if err != nil {
			return err
		}
		for _, m := range page.Data {
			if err := q.cfg.Store.Delete(ctx, s, m.ID); err != nil {
				return err
			}
			st.Expired++
			if err := q.audit(ctx, s, "background", "expire", m.ID, "", "", "ttl expired"); err != nil {
				return err
			}
		}
		if page.Next == "" {
			break
		}
		f.Cursor = page.Next
	}
	n, err := q.cfg.Store.Purge(ctx, s, at.Add(-d.ArchiveRetention.D()))
	if err != nil {
		return err
	}
	if n > 0 {
		st.Purged += n
		if err := q.audit(ctx, s, "background", "purge", "", "", "", fmt.Sprintf("purged %d archived memories", n)); err != nil {
			return err
		}
	}
	return nil
}

func truncIDs(ids []string) []string {
	if len(ids) > 20 {
		return ids[:20]
	}
	return ids
}

// RunDecay runs one decay-and-forget pass over every known scope at at
// (zero: the queue clock).
func (q *Queue) RunDecay(ctx context.Context, at time.Time) (DecayStats, error) {
	return q.decay.RunDecay(ctx, at)
}
