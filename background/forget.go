package background

import (
	"context"
	"fmt"
	"github.com/memproxy/memproxy/lifecycle"
	"regexp"
	"slices"
	"strings"

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
		if gone[m.ID] || lifecycle.KeptBeside(m, ms) {
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
	er := es.Eraser()
	// The later turns of the same conversations carry the forgotten
	// turns' words as their context (the exchange before them): their
	// rows go too, and their events lose that context. The forget
	// request's own turn names what to forget, not its value; it is not
	// erased (and is logged after this), but loses the same context.
	later, err := q.scrubContexts(ctx, t, all(gone, related, ms), reqs)
	if err != nil {
		return fmt.Errorf("forget: %w", err)
	}
	reqs = union(reqs, later...)
	if _, err := er.EraseTurns(ctx, s, reqs); err != nil {
		return fmt.Errorf("forget: %w", err)
	}
	eraseNamedValues(t, all(gone, related, ms))
	ids = ids[:0]
	for id := range gone {
		ids = append(ids, id)
	}
	if _, err := er.EraseAudit(ctx, s, ids); err != nil {
		return fmt.Errorf("forget: %w", err)
	}
	return nil
}

// eraseNamedValues erases the forget request's own text (user message,
// reply) where it names a forgotten fact's value ("Can you forget about my
// penicillin allergy?"): its turn-log row, written after the ingest, must
// not keep what it asked to forget. A request that names only the slot
// ("Forget my passport number") keeps its text.
func eraseNamedValues(t *memory.Turn, ms []*memory.Memory) {
	for _, m := range ms {
		f := m.Fact()
		if f == nil || len([]rune(f.Value)) < 3 {
			continue
		}
		for _, s := range []*string{&t.User, &t.Assistant} {
			if *s != memory.ErasedText && strings.Contains(strings.ToLower(*s), strings.ToLower(f.Value)) {
				*s = memory.ErasedText
			}
		}
	}
}

// all is every memory forgotten: the ones asked for and the related ones
// deleted with them.
func all(gone map[string]bool, related, ms []*memory.Memory) []*memory.Memory {
	out := append([]*memory.Memory(nil), ms...)
	for _, m := range related {
		if gone[m.ID] {
			out = append(out, m)
		}
	}
	return out
}

// maxScrubTurns bounds the turns of one conversation a forget reads.
const maxScrubTurns = 200

// scrubContexts finds the turns after the forgotten ones, in the same
// conversations, whose context (the exchange before them) holds the
// forgotten turns' words, and returns their request ids; their events'
// context and the forget turn's own lose those words.
func (q *explicit) scrubContexts(ctx context.Context, t *memory.Turn, ms []*memory.Memory, reqs []string) ([]string, error) {
	st := q.cfg.Store
	sessions := map[string]bool{}
	for _, m := range ms {
		if m.Session != "" {
			sessions[m.Session] = true
		}
	}
	var values []string
	for _, m := range ms {
		if f := m.Fact(); f != nil && len([]rune(f.Value)) >= 3 {
			values = append(values, f.Value)
		}
	}
	forgotten := map[string]bool{}
	for _, r := range reqs {
		forgotten[r] = true
	}
	var later, events []string
	var needles []string
	for sess := range sessions {
		rows, err := st.Turns(ctx, t.Scope, memory.TurnFilter{Session: sess, Limit: maxScrubTurns})
		if err != nil {
			return nil, fmt.Errorf("turns: %w", err)
		}
		var ns []string
		for _, r := range rows.Data {
			if forgotten[r.RequestID] {
				ns = append(ns, needlesOf(r.User)...)
				// A reply marks a context only where it repeats a
				// forgotten value ("Got it, 07700 900123"): "Thanks,
				// noted." is in every context.
				for _, n := range needlesOf(r.Assistant) {
					if holdsAny(n, values) {
						ns = append(ns, n)
					}
				}
			}
		}
		slices.SortFunc(rows.Data, func(a, b *memory.Turn) int { return a.Time.Compare(b.Time) })
		for i, r := range rows.Data {
			if forgotten[r.RequestID] || r.RequestID == t.RequestID {
				continue
			}
			switch {
			case holdsAny(r.Context, ns):
				later = append(later, r.RequestID) // the row holds the words
			case i > 0 && forgotten[rows.Data[i-1].RequestID]:
				// A store that logs no context: the turn after a
				// forgotten one still made an event with it.
				events = append(events, r.RequestID)
			}
		}
		needles = append(needles, ns...)
	}
	// What the forgotten memories say marks a context too: with the turn
	// log off (policy ingest.turn_log) there are no rows to read the
	// words from, and a fact's value is the forgotten word itself.
	for _, m := range ms {
		if m.Tier == memory.TierEvent {
			for _, piece := range annotation.Split(userPart(m.Text), -1) {
				needles = append(needles, needlesOf(piece)...)
			}
		}
	}
	needles = append(needles, values...)
	if holdsAny(t.Context, needles) {
		t.Context = ""
	}
	var ids []string
	for _, r := range append(events, later...) {
		ids = append(ids, stableID(r, "event"))
	}
	evs, err := st.GetMany(ctx, t.Scope, ids)
	if err != nil {
		return nil, fmt.Errorf("events: %w", err)
	}
	// The conversations' own events: without turn-log rows they are the
	// only record of which turns came after the forgotten ones.
	seen := map[string]bool{}
	for _, ev := range evs {
		seen[ev.ID] = true
	}
	for _, m := range ms {
		seen[m.ID] = true
	}
	for sess := range sessions {
		page, err := st.List(ctx, t.Scope, memory.ListFilter{Tiers: []memory.Tier{memory.TierEvent}, Session: sess, Limit: maxScrubTurns})
		if err != nil {
			return nil, fmt.Errorf("events: %w", err)
		}
		for _, ev := range page.Data {
			if !seen[ev.ID] {
				seen[ev.ID] = true
				evs = append(evs, ev)
			}
		}
	}
	for _, ev := range evs {
		if !holdsAny(ev.Context, needles) {
			continue
		}
		date, _, _ := strings.Cut(ev.Context, "\n")
		ev.Context = date + "\n" + memory.ErasedText
		if err := st.Update(ctx, t.Scope, ev); err != nil {
			return nil, fmt.Errorf("event context: %w", err)
		}
	}
	return later, nil
}

// needlesOf are the pieces of a forgotten text that mark it in another
// text's context: its sentences (a context may be cut short).
func needlesOf(s string) []string {
	var out []string
	for _, sent := range splitSentences(s) {
		if sent = strings.TrimSpace(sent); len([]rune(sent)) >= 8 {
			out = append(out, truncate(sent, 60))
		}
	}
	return out
}

// annotation is a date the ingest wrote after a relative expression of
// an event's text (" (9 Mar 2026)", "（2026年3月9日）"): the context holds
// the words as said, without it.
var annotation = regexp.MustCompile(` ?\([^()]*\d{4}\)|（[^（）]*\d{4}[^（）]*）`)

func holdsAny(s string, needles []string) bool {
	for _, n := range needles {
		if strings.Contains(s, strings.TrimSuffix(n, "…")) {
			return true
		}
	}
	return false
}
