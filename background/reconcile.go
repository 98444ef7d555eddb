package background

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/memproxy/memproxy/memory"
)

// Decision is what reconcile did with a new fact.
type Decision string

const (
	DecisionInsert    Decision = "insert"
	DecisionReinforce Decision = "reinforce"
	DecisionSupersede Decision = "supersede"
)

func (q *Queue) reconcileDup() float64 {
	if q.isLocalEmbedder() {
		return q.pol.Reconcile.LocalDupThreshold
	}
	return q.pol.Reconcile.DupThreshold
}

func (q *Queue) reconcileSupersede() float64 {
	if q.isLocalEmbedder() {
		return q.pol.Reconcile.LocalSupersedeThreshold
	}
	return q.pol.Reconcile.SupersedeThreshold
}

// reconcile merges a new fact m into the scope:
//   - same key with the same value, or similarity ≥ dup threshold →
//     reinforce the old one (Touch), no insert;
//   - same key of a single-valued slot with another value, or a change cue
//     with (same key, or similarity ≥ supersede threshold) → insert m and
//     supersede the old ones (they stay as history);
//   - otherwise insert.
//
// f is the rule-extracted fact behind m, nil for model-written facts. It
// returns the decision and the id that now holds the fact.
func (q *Queue) reconcile(ctx context.Context, s memory.Scope, m *memory.Memory, f *Fact, actor string) (Decision, error) {
	st := q.cfg.Store
	if _, err := st.Get(ctx, s, m.ID); err == nil {
		return DecisionReinforce, nil // written by an earlier attempt of this job
	} else if !errors.Is(err, memory.ErrNotFound) {
		return "", err
	}
	if m.Embedding == nil {
		v, err := q.cfg.Embedder.Embed(ctx, []string{m.Text})
		if err != nil {
			return "", fmt.Errorf("embed fact: %w", err)
		}
		m.Embedding = v[0]
	}
	change := HasChangeCue(m.Text, q.pol.Reconcile.ChangeCues)
	if f != nil {
		change = change || f.Change
	}
	at := m.CreatedAt
	var supersede []*memory.Memory

	if m.Key != "" {
		hist, err := st.History(ctx, s, m.Key)
		if err != nil {
			return "", fmt.Errorf("history: %w", err)
		}
		for _, old := range hist {
			if !old.Live(at) {
				continue
			}
			if sameValue(old, m, f, q.reconcileDup()) {
				return DecisionReinforce, q.reinforce(ctx, s, old, m, actor)
			}
			if f == nil || !f.Multi || change {
				supersede = append(supersede, old)
			}
		}
	}
	if len(supersede) == 0 {
		cands, err := st.VectorSearch(ctx, s, m.Embedding, memory.SearchOptions{
			Limit: 5, Tiers: []memory.Tier{memory.TierSemantic, memory.TierProfile}, At: at,
		})
		if err != nil {
			return "", fmt.Errorf("reconcile search: %w", err)
		}
		for _, c := range cands {
			if c.Score >= q.reconcileDup() || normText(c.Memory.Text) == normText(m.Text) {
				return DecisionReinforce, q.reinforce(ctx, s, c.Memory, m, actor)
			}
		}
		for _, c := range cands {
			// Without a key on both sides, a change cue needs a close
			// neighbour; keyed facts of other slots are never touched.
			if change && c.Score >= q.reconcileSupersede() && (m.Key == "" || c.Memory.Key == "" || c.Memory.Key == m.Key) {
				supersede = append(supersede, c.Memory)
				break
			}
		}
	}
	if err := q.insert(ctx, s, m, actor); err != nil {
		return "", err
	}
	if len(supersede) == 0 {
		return DecisionInsert, nil
	}
	for _, old := range supersede {
		if err := q.supersede(ctx, s, old, m, actor); err != nil {
			return "", err
		}
	}
	return DecisionSupersede, nil
}

// insert writes m and its audit row, in one transaction when the store
// can batch them.
func (q *Queue) insert(ctx context.Context, s memory.Scope, m *memory.Memory, actor string) error {
	err := q.together(ctx, func(ctx context.Context) error {
		if err := q.cfg.Store.Insert(ctx, s, m); err != nil {
			return fmt.Errorf("insert %s: %w", m.Tier, err)
		}
		return q.audit(ctx, s, actor, "insert", m.ID, "", snapshot(m), "")
	})
	if err != nil {
		return err
	}
	q.met.memories.WithLabelValues(string(m.Tier)).Inc()
	return nil
}

// together runs fn's store writes (those a Batcher joins) in one
// transaction when the store can batch, else one by one.
func (q *Queue) together(ctx context.Context, fn func(ctx context.Context) error) error {
	if b, ok := q.cfg.Store.(Batcher); ok {
		return b.Batch(ctx, fn)
	}
	return fn(ctx)
}

func (q *Queue) reinforce(ctx context.Context, s memory.Scope, old, by *memory.Memory, actor string) error {
	if err := q.cfg.Store.Touch(ctx, s, []string{old.ID}, by.CreatedAt); err != nil {
		return fmt.Errorf("reinforce: %w", err)
	}
	// Keep the new provenance: the fact was stated again.
	old.Provenance.RequestIDs = union(old.Provenance.RequestIDs, by.Provenance.RequestIDs...)
	old.Provenance.TurnRefs = union(old.Provenance.TurnRefs, by.Provenance.TurnRefs...)
	old.Hits++
	old.LastUsedAt = by.CreatedAt
	if by.NoDecay && !old.NoDecay {
		old.NoDecay, old.Value = true, max(old.Value, by.Value)
	}
	if err := q.cfg.Store.Update(ctx, s, old); err != nil {
		return fmt.Errorf("reinforce: %w", err)
	}
	q.met.reinforced.Inc()
	return q.audit(ctx, s, actor, "reinforce", old.ID, "", "", "restated: "+truncate(by.Text, 200))
}

func (q *Queue) supersede(ctx context.Context, s memory.Scope, old, by *memory.Memory, actor string) error {
	if err := q.cfg.Store.Supersede(ctx, s, old.ID, by.ID, by.CreatedAt); err != nil {
		return fmt.Errorf("supersede: %w", err)
	}
	q.met.superseded.Inc()
	return q.audit(ctx, s, actor, "supersede", old.ID, snapshot(old), by.ID, "superseded by "+by.ID)
}

func (q *Queue) audit(ctx context.Context, s memory.Scope, actor, action, id, before, after, detail string) error {
	err := q.cfg.Store.AppendAudit(ctx, &memory.AuditEntry{
		Scope: s, Time: q.now().UTC(), Actor: actor, Action: action, MemoryID: id,
		Before: before, After: after, Detail: detail,
	})
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	return nil
}

// snapshot is the audit form of a memory: its fields without the vector.
func snapshot(m *memory.Memory) string {
	c := *m
	c.Embedding = nil
	b, _ := json.Marshal(&c)
	return string(b)
}

// sameValue decides whether old states the same value as m for their
// shared key. With a rule-extracted object it is the object's presence in
// the old text ("lives in Berlin" vs "lives in Paris" embed closely but
// are different values); otherwise near-identical text or vectors.
func sameValue(old, m *memory.Memory, f *Fact, dup float64) bool {
	if normText(old.Text) == normText(m.Text) {
		return true
	}
	if f != nil && f.Object != "" {
		return strings.Contains(" "+normText(old.Text)+" ", " "+normText(f.Object)+" ")
	}
	return memory.Cosine(old.Embedding, m.Embedding) >= dup
}
