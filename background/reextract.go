package background

import (
	"context"
	"fmt"

	"github.com/memproxy/memproxy/memory"
)

// ReextractResult counts what Reextract did in one scope.
type ReextractResult struct {
	Turns   int `json:"turns"`   // turn-log rows read
	Removed int `json:"removed"` // extracted facts deleted first
	Facts   int `json:"facts"`   // facts extracted again
}

// Reextract rebuilds a scope's extracted facts from its turn log (memproxy
// reextract, offline: nothing else may write the scope meanwhile). Every
// memory whose source is extraction is deleted (audited), then each turn
// of the log, oldest first, goes through ingest's own extraction and
// reconcile, so supersede chains are rebuilt in the order the user said
// things. Events, explicit notes, consolidated and admin memories are
// kept; explicit instructions and noise in the log extract nothing, as on
// ingest.
func (q *Queue) Reextract(ctx context.Context, s memory.Scope) (ReextractResult, error) {
	var res ReextractResult
	st := q.cfg.Store
	f := memory.ListFilter{Source: memory.SourceExtracted, Limit: 500}
	var old []string
	for {
		page, err := st.List(ctx, s, f)
		if err != nil {
			return res, fmt.Errorf("reextract: list facts: %w", err)
		}
		for _, m := range page.Data {
			old = append(old, m.ID)
		}
		if page.Next == "" {
			break
		}
		f.Cursor = page.Next
	}
	for _, id := range old {
		if err := st.Delete(ctx, s, id); err != nil {
			return res, fmt.Errorf("reextract: %w", err)
		}
		if err := q.audit(ctx, s, "background", "delete", id, "", "", "reextract"); err != nil {
			return res, err
		}
		res.Removed++
	}
	tf := memory.TurnFilter{Limit: 200}
	for {
		page, err := st.Turns(ctx, s, tf)
		if err != nil {
			return res, fmt.Errorf("reextract: read turns: %w", err)
		}
		for _, t := range page.Data {
			res.Turns++
			n, err := q.reextractTurn(ctx, t)
			if err != nil {
				return res, fmt.Errorf("reextract: turn %s: %w", t.RequestID, err)
			}
			res.Facts += n
		}
		if page.Next == "" {
			break
		}
		tf.Cursor = page.Next
	}
	q.invalidate(s)
	return res, nil
}

// reextractTurn runs ingest's fact extraction and reconcile on one logged
// turn and returns the facts it reconciled.
func (q *Queue) reextractTurn(ctx context.Context, src *memory.Turn) (int, error) {
	t := *src
	t.User = StripFence(t.User)
	if t.RequestID == "" && t.ID != "" {
		t.RequestID = "turn-" + t.ID
	}
	intent := t.Intent
	if intent == memory.IntentNone {
		intent = q.gate.Intent(t.User)
	}
	if intent != memory.IntentNone {
		return 0, nil
	}
	if _, noise := q.gate.Classify(t.User); noise {
		return 0, nil
	}
	facts := q.extractFacts(t.User, t.Time) // as ingestTurn does
	for i, f := range facts {
		m := q.factMemory(&t, f, memory.SourceExtracted, stableID(t.RequestID, "fact", fmt.Sprint(i)))
		if _, err := q.ing.rec.reconcile(ctx, t.Scope, m, &f, "background"); err != nil {
			return i, err
		}
	}
	return len(facts), nil
}
