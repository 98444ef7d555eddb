package background

import (
	"context"
	"fmt"
	"strings"

	"github.com/memproxy/memproxy/facts"
	"github.com/memproxy/memproxy/memory"
)

// explicitRemember stores the note at once: high value, no decay, profile
// tier when it states a standing preference or constraint.
func (q *explicit) explicitRemember(ctx context.Context, t *memory.Turn) error {
	content := q.gate.ExplicitContent(t.User)
	if strings.TrimSpace(content) == "" {
		return nil
	}
	m := &memory.Memory{
		ID:         stableID(t.RequestID, "explicit"),
		Scope:      t.Scope,
		Tier:       memory.TierSemantic,
		Text:       content,
		Value:      0.9,
		Confidence: 1,
		Source:     memory.SourceExplicit,
		Session:    t.Session,
		API:        t.API,
		NoDecay:    true,
		Provenance: memory.Provenance{RequestIDs: union(nil, t.RequestID), TurnRefs: union(nil, t.Refs...)},
		CreatedAt:  t.Time,
		LastUsedAt: t.Time,
		ValidFrom:  t.Time,
	}
	if hasAny(strings.ToLower(t.User), q.pol.Explicit.ProfileCues) {
		m.Tier = memory.TierProfile
	}
	var fp *Fact
	if fs := ExtractFacts(content, q.pol.Reconcile.ChangeCues); len(fs) == 1 {
		fp = &fs[0]
		m.Key = fp.Key()
	}
	if _, err := q.rec.reconcile(ctx, t.Scope, m, fp, "explicit"); err != nil {
		return fmt.Errorf("explicit remember: %w", err)
	}
	return nil
}

// explicitForget deletes the live memories that match what the user asked
// to forget. Deletion, not supersede: the user wants it gone; the audit
// keeps the id and the request, not the text.
func (q *explicit) explicitForget(ctx context.Context, t *memory.Turn) (err error) {
	content := q.gate.ExplicitContent(t.User)
	if len(contentTerms(content)) == 0 {
		return nil
	}
	ids, err := q.matchForget(ctx, t.Scope, content)
	if err != nil {
		return fmt.Errorf("explicit forget: %w", err)
	}
	ms, err := q.cfg.Store.GetMany(ctx, t.Scope, ids)
	if err != nil {
		return fmt.Errorf("explicit forget: %w", err)
	}
	defer func() {
		if err == nil {
			err = q.eraseForgotten(ctx, t, ms)
		}
	}()
	for _, id := range ids {
		if err := q.cfg.Store.Delete(ctx, t.Scope, id); err != nil {
			return fmt.Errorf("explicit forget: %w", err)
		}
		if err := q.audit(ctx, t.Scope, "explicit", "delete", id, "", "", "forgotten on user request "+t.RequestID); err != nil {
			return err
		}
	}
	return nil
}

// matchForget finds live memories the forget request names: most of the
// request's content words appear in the memory, or the vectors are near
// duplicates.
func (q *explicit) matchForget(ctx context.Context, s memory.Scope, content string) ([]string, error) {
	st := q.cfg.Store
	lex, err := st.LexicalSearch(ctx, s, content, memory.SearchOptions{Limit: 50})
	if err != nil {
		return nil, err
	}
	vec, err := q.cfg.Embedder.Embed(ctx, []string{content})
	if err != nil {
		return nil, err
	}
	vs, err := st.VectorSearch(ctx, s, vec[0], memory.SearchOptions{Limit: 20})
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var ids []string
	add := func(m *memory.Memory) {
		if !seen[m.ID] {
			seen[m.ID] = true
			ids = append(ids, m.ID)
		}
	}
	for _, c := range lex {
		if coverage(content, c.Memory.Text) >= 0.6 {
			add(c.Memory)
		}
	}
	for _, c := range vs {
		if c.Score >= q.reconcileDup() {
			add(c.Memory)
		}
	}
	return ids, nil
}

func hasAny(low string, cues []string) bool {
	for _, c := range cues {
		if c != "" && facts.ContainsWord(low, strings.ToLower(c)) {
			return true
		}
	}
	return false
}
