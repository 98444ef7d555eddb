package background

import (
	"context"
	"fmt"

	"github.com/memproxy/memproxy/memory"
)

// Forget means gone. An explicit forget deletes the live memories it
// names (explicitForget decides which); eraseForgotten then removes what
// else still holds their text:
//   - the other memories of the same slot (the superseded history of a
//     keyed fact: "forget my passport number" takes the old numbers too)
//     and of the same turns (the event and facts a turn that stated it
//     became), whose provenance shares a request id with a forgotten one;
//   - the turn-log rows of those turns (their text replaced by
//     memory.ErasedText, the rows kept);
//   - the audit after- and before-images of every memory deleted (the
//     entries keep who, when and which ids).
//
// Queue rows hold no text: a drain job names only a scope, and a spooled
// turn's text is dropped when it is ingested (a scope's turns are
// ingested in order, so the turn that stated the secret is done before
// the forget that names it).

// maxTurnFacts bounds the facts one turn may have made (their ids are
// stableID(request, "fact", i)).
const maxTurnFacts = 16

// eraseForgotten completes the forget of ms (already deleted) asked by
// turn t.
func (q *explicit) eraseForgotten(ctx context.Context, t *memory.Turn, ms []*memory.Memory) error {
	if len(ms) == 0 {
		return nil
	}
	s := t.Scope
	st := q.cfg.Store
	gone := map[string]bool{}
	var reqs []string
	for _, m := range ms {
		gone[m.ID] = true
		reqs = union(reqs, m.Provenance.RequestIDs...)
	}
	// Related memories: the same turns' memories (ids derive from the
	// request id) and the same slots' history.
	var ids []string
	for _, r := range reqs {
		ids = append(ids, stableID(r, "event"), stableID(r, "explicit"))
		for i := range maxTurnFacts {
			ids = append(ids, stableID(r, "fact", fmt.Sprint(i)))
		}
	}
	related, err := st.GetMany(ctx, s, ids)
	if err != nil {
		return fmt.Errorf("forget: related memories: %w", err)
	}
	for _, m := range ms {
		if m.Key == "" {
			continue
		}
		h, err := st.History(ctx, s, m.Key)
		if err != nil {
			return fmt.Errorf("forget: history: %w", err)
		}
		related = append(related, h...)
	}
	for _, m := range related {
		if gone[m.ID] {
			continue
		}
		gone[m.ID] = true
		reqs = union(reqs, m.Provenance.RequestIDs...)
		if err := st.Delete(ctx, s, m.ID); err != nil && err != memory.ErrNotFound {
			return fmt.Errorf("forget: %w", err)
		}
		if err := q.audit(ctx, s, "explicit", "delete", m.ID, "", "", "forgotten on user request "+t.RequestID); err != nil {
			return err
		}
	}
	es, ok := st.(memory.Erasing)
	if !ok {
		q.log.WarnContext(ctx, "forget: the store cannot erase turn-log and audit text")
		return nil
	}
	// The forget request's own turn names what to forget, not its value;
	// it is not erased (and is logged after this).
	er := es.Eraser()
	if _, err := er.EraseTurns(ctx, s, reqs); err != nil {
		return fmt.Errorf("forget: %w", err)
	}
	all := make([]string, 0, len(gone))
	for id := range gone {
		all = append(all, id)
	}
	if _, err := er.EraseAudit(ctx, s, all); err != nil {
		return fmt.Errorf("forget: %w", err)
	}
	return nil
}
