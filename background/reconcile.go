package background

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/memproxy/memproxy/facts"
	"github.com/memproxy/memproxy/lifecycle"
	"github.com/memproxy/memproxy/memory"
)

// Decision is what reconcile did with a new fact.
type Decision string

const (
	DecisionInsert    Decision = "insert"
	DecisionReinforce Decision = "reinforce"
	DecisionSupersede Decision = "supersede"
)

func (q *core) reconcileDup() float64 {
	if q.isLocalEmbedder() {
		return q.pol.Reconcile.LocalDupThreshold
	}
	return q.pol.Reconcile.DupThreshold
}

func (q *core) reconcileSupersede() float64 {
	if q.isLocalEmbedder() {
		return q.pol.Reconcile.LocalSupersedeThreshold
	}
	return q.pol.Reconcile.SupersedeThreshold
}

// reconcile merges a new memory m into the scope: it reads the memories
// of m's slot (its key, and the key's legacy form) and m's nearest facts,
// lets the decision core (lifecycle.Decide) choose the writes and applies
// them. f is the extracted fact behind m, nil for free text. Supersedes
// are written before the insert that replaces them, so a retried job
// (m's id is stable) never leaves the old and the new value both live.
func (q *reconciler) reconcile(ctx context.Context, s memory.Scope, m *memory.Memory, f *Fact, actor string) (Decision, error) {
	if f != nil && f.Note {
		f = nil // a dated statement is free text
	}
	st := q.cfg.Store
	if _, err := st.Get(ctx, s, m.ID); err == nil {
		return DecisionReinforce, nil // written by an earlier attempt of this job
	} else if !errors.Is(err, memory.ErrNotFound) {
		return "", err
	}
	if f != nil && f.Succeeds {
		// "I left Acme for Globex": the value takes the slot that holds
		// the one it replaces live (the employer, the home, a school);
		// with none, the employer when the user's memories know either
		// name as an organisation; else there is nothing to tell.
		attr, _, err := q.liveSlot(ctx, s, f.Subject, append([]string{f.Attribute}, f.Alts...), f.Prior, m.CreatedAt)
		if err != nil {
			return "", err
		}
		for _, v := range []string{f.Prior, f.Value} {
			if attr != "" {
				break
			}
			known, err := q.knownOrganisation(ctx, s, v, m.CreatedAt)
			if err != nil {
				return "", err
			}
			if known {
				attr = "works_at"
			}
		}
		if attr == "" {
			return DecisionReinforce, nil
		}
		f.SucceedAs(attr)
		m.Text, m.Key, m.Embedding = f.Text, f.Key(), nil
		if facts.IsProfile(f.Subject, attr) {
			m.Tier = memory.TierProfile
		}
	}
	if f != nil && f.Ended && len(f.Alts) > 0 {
		// "I left Acme": the named value ends in the slot that holds it
		// live (the employer, a school, a club); about nothing stored,
		// there is no slot to end.
		attr, value, err := q.liveSlot(ctx, s, f.Subject, append([]string{f.Attribute}, f.Alts...), f.Value, m.CreatedAt)
		if err != nil {
			return "", err
		}
		if attr == "" {
			return DecisionReinforce, nil
		}
		f.EndAs(attr, value)
		m.Text, m.Key, m.Embedding = f.Text, f.Key(), nil
	}
	if f != nil && f.Destination {
		// "I moved to Globex": a destination the user's memories know as
		// an organisation is the new employer, not a home.
		known, err := q.knownOrganisation(ctx, s, f.Value, m.CreatedAt)
		if err != nil {
			return "", err
		}
		if known {
			f.AsEmployer()
			m.Text, m.Key, m.Embedding, m.Provenance.Fact = f.Text, f.Key(), nil, nil
		}
	}
	var linked *memory.Memory
	if f != nil && f.Attribute == "age" && !f.Ended {
		// "My son is 12." then "Leo turned 13.": the named age updates
		// the unnamed one it can only be (facts.LinkAge).
		var err error
		if linked, err = q.linkAge(ctx, s, f, m.CreatedAt); err != nil {
			return "", err
		}
		if linked != nil {
			f.NameAge(linked)
			m.Text, m.Embedding = f.Text, nil
		}
	}
	if m.Embedding == nil {
		v, err := q.cfg.Embedder.Embed(ctx, []string{m.Text})
		if err != nil {
			return "", fmt.Errorf("embed fact: %w", err)
		}
		m.Embedding = v[0]
	}
	c := lifecycle.Candidate{Memory: m, Fact: f, Change: HasChangeCue(m.Text, q.pol.Reconcile.ChangeCues)}
	if f != nil {
		c.Change = c.Change || f.Change
		t := f.Triple
		t.Prior = f.Prior
		m.Provenance.Fact = &t
		m.Key = f.Key()
	}
	var slot []*memory.Memory
	if m.Key != "" {
		keys := []string{m.Key}
		if f != nil && facts.Opposite(f.Attribute) != "" {
			keys = append(keys, f.Subject+"."+facts.Opposite(f.Attribute))
		}

		for old, nk := range facts.LegacyKeys {
			if sub, a, _ := strings.Cut(m.Key, "."); a == nk {
				keys = append(keys, sub+"."+old)
			}
		}
		for _, k := range keys {
			hist, err := st.History(ctx, s, k)
			if err != nil {
				return "", fmt.Errorf("history: %w", err)
			}
			slot = append(slot, hist...)
		}
	}
	if linked != nil {
		slot = append(slot, linked)
	}
	if f != nil && facts.Retired(f.Triple) {
		// "My dad retired last year": he works nowhere now; the employer
		// he had before this turn is closed with his job (not one the
		// same turn names: "I work part-time at Costco since I retired").
		hist, err := st.History(ctx, s, f.Subject+".works_at")
		if err != nil {
			return "", fmt.Errorf("history: %w", err)
		}
		for _, old := range hist {
			if old.CreatedAt.Before(m.CreatedAt) {
				slot = append(slot, old)
			}
		}
	}
	if f != nil && f.Subject != "user" && !facts.Named(f.Subject) && facts.LinksOne(f.Subject) {
		// "My sister moved to Rome" after "my sister Anna lives in
		// Porto": the fact is the one sister's the user named, in her
		// slot.
		name, named, err := q.oneNamed(ctx, s, f.Subject, f.Attribute, m.CreatedAt)
		if err != nil {
			return "", err
		}
		if name != "" {
			f.NameSubject(name)
			v, err := q.cfg.Embedder.Embed(ctx, []string{f.Text})
			if err != nil {
				return "", fmt.Errorf("embed fact: %w", err)
			}
			t := f.Triple
			t.Prior = f.Prior
			m.Text, m.Key, m.Embedding, m.Provenance.Fact = f.Text, f.Key(), v[0], &t
			slot = named
		}
	}
	if f != nil && f.Ended && (f.Multi || f.AnyValue) {
		// "I no longer have a dog", 我已经不养狗了, "our dog died": the
		// ended value names the live one by its kind ("dog named Rex",
		// 狗（名叫旺财）); "I quit my job", 我们分手了 name none and end
		// the slot's one live value.
		var match []string
		for _, old := range slot {
			of := old.Fact()
			if of == nil || !old.Live(m.CreatedAt) || of.Ended || old.ExpiresAt != nil || of.Value == "" || slices.Contains(match, of.Value) {
				continue
			}
			if f.AnyValue && facts.NormKey(old.Key) == f.Key() || facts.KindOf(of.Value, f.Value) {
				match = append(match, of.Value)
			}
		}
		if len(match) == 1 {
			text := m.Text
			f.EndValue(match[0])
			if f.Text != "" {
				m.Text = f.Text
			}
			t := f.Triple
			t.Prior = f.Prior
			m.Provenance.Fact = &t
			if m.Text != text {
				v, err := q.cfg.Embedder.Embed(ctx, []string{m.Text})
				if err != nil {
					return "", fmt.Errorf("embed fact: %w", err)
				}
				m.Embedding = v[0]
			}
		}
	}
	cands, err := st.VectorSearch(ctx, s, m.Embedding, memory.SearchOptions{
		Limit: 5, Tiers: []memory.Tier{memory.TierSemantic, memory.TierProfile}, At: m.CreatedAt,
	})
	if err != nil {
		return "", fmt.Errorf("reconcile search: %w", err)
	}
	near := make([]lifecycle.Neighbour, len(cands))
	for i, c := range cands {
		near[i] = lifecycle.Neighbour{Memory: c.Memory, Score: c.Score}
	}
	pol := lifecycle.Policy{DupThreshold: q.reconcileDup(), SupersedeThreshold: q.reconcileSupersede()}
	ws, err := q.withStaleEvents(ctx, s, lifecycle.Decide(c, slot, near, pol, m.CreatedAt), m.CreatedAt)
	if err != nil {
		return "", err
	}
	return q.apply(ctx, s, m, ws, actor)
}

// oneNamed is the name of the relative of relation rel the user has
// named and the history of its attribute, when they named exactly one:
// Anna and Anna.lives_in for the sister Anna. None when no one or
// several are named.
func (q *reconciler) oneNamed(ctx context.Context, s memory.Scope, rel, attribute string, at time.Time) (string, []*memory.Memory, error) {
	hist, err := q.cfg.Store.History(ctx, s, "user."+rel)
	if err != nil {
		return "", nil, fmt.Errorf("history: %w", err)
	}
	name := ""
	for _, m := range hist {
		if f := m.Fact(); f != nil && m.Live(at) && !f.Ended && f.Value != "" && f.Value != name {
			if name != "" {
				return "", nil, nil // two named: which one is not said
			}
			name = f.Value
		}
	}
	if name == "" || !facts.Named(name) {
		return "", nil, nil
	}
	named, err := q.cfg.Store.History(ctx, s, name+"."+attribute)
	if err != nil {
		return "", nil, fmt.Errorf("history: %w", err)
	}
	return name, named, nil
}

// withStaleEvents adds to a decision's writes the supersedes of the events
// that said a value it supersedes (lifecycle.StaleEvents): the events of
// the superseded facts' turns, read by their stable ids.
func (q *reconciler) withStaleEvents(ctx context.Context, s memory.Scope, ws []lifecycle.Write, at time.Time) ([]lifecycle.Write, error) {
	var ids []string
	for _, w := range ws {
		if w.Op == lifecycle.Supersede {
			for _, r := range w.Memory.Provenance.RequestIDs {
				ids = append(ids, stableID(r, "event"))
			}
		}
	}
	if len(ids) == 0 {
		return ws, nil
	}
	evs, err := q.cfg.Store.GetMany(ctx, s, ids)
	if err != nil {
		return nil, fmt.Errorf("reconcile: events: %w", err)
	}
	return append(ws, lifecycle.StaleEvents(ws, evs, at)...), nil
}

// apply makes a decision's writes and their audit rows in one
// transaction (the store's Batch: Insert, Supersede, Touch, Update and
// AppendAudit join it), so a failure between them leaves nothing written
// and a retry finds the scope as it was. A retried insert decision finds
// its memory (the id is stable) and writes nothing; a retried reinforce
// finds the restatement's provenance in place and writes nothing.
func (q *reconciler) apply(ctx context.Context, s memory.Scope, m *memory.Memory, ws []lifecycle.Write, actor string) (Decision, error) {
	d := DecisionInsert
	var ins, rein *memory.Memory
	var sups []lifecycle.Write
	for _, w := range ws {
		switch w.Op {
		case lifecycle.Reinforce:
			rein = w.Memory
		case lifecycle.Insert:
			ins = w.Memory
		case lifecycle.Supersede:
			sups = append(sups, w)
			d = DecisionSupersede
		}
	}
	if rein != nil && len(sups) == 0 {
		return DecisionReinforce, q.reinforce(ctx, s, rein, m, actor)
	}
	if ins == nil && rein == nil && len(sups) == 0 {
		return DecisionReinforce, nil
	}
	err := q.together(ctx, func(ctx context.Context) error {
		if rein != nil {
			// The value stated again replaces others of its slot.
			rein.Provenance.RequestIDs = union(rein.Provenance.RequestIDs, m.Provenance.RequestIDs...)
			rein.Provenance.TurnRefs = union(rein.Provenance.TurnRefs, m.Provenance.TurnRefs...)
			rein.Hits++
			rein.LastUsedAt = m.CreatedAt
			if err := q.reinforceWrites(ctx, s, rein, m, actor); err != nil {
				return err
			}
		}
		for _, w := range sups {
			if err := q.supersedeAt(ctx, s, w.Memory, w.By, w.At, w.Reason, actor); err != nil {
				return err
			}
		}
		if ins != nil {
			return q.insertAudited(ctx, s, ins, actor)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	q.met.superseded.Add(float64(len(sups)))
	if ins != nil {
		q.met.memories.WithLabelValues(string(ins.Tier)).Inc()
	}
	// The request path caches a scope's profile: a decision that ends or
	// replaces a profile memory ("I'm not vegan anymore" is itself no
	// profile fact) or adds one must not leave the old one injected.
	profile := ins != nil && ins.Tier == memory.TierProfile
	for _, w := range sups {
		profile = profile || w.Memory.Tier == memory.TierProfile
	}
	if profile {
		q.invalidate(s)
	}
	return d, nil
}

// insert writes m and its audit row in one transaction.
func (q *reconciler) insert(ctx context.Context, s memory.Scope, m *memory.Memory, actor string) error {
	if err := q.together(ctx, func(ctx context.Context) error { return q.insertAudited(ctx, s, m, actor) }); err != nil {
		return err
	}
	q.met.memories.WithLabelValues(string(m.Tier)).Inc()
	return nil
}

// insertAudited is insert's writes, in the transaction ctx carries.
func (q *reconciler) insertAudited(ctx context.Context, s memory.Scope, m *memory.Memory, actor string) error {
	if err := q.cfg.Store.Insert(ctx, s, m); err != nil {
		return fmt.Errorf("insert %s: %w", m.Tier, err)
	}
	return q.audit(ctx, s, actor, "insert", m.ID, "", snapshot(m), "")
}

// together runs fn's store writes (those a Batcher joins) in one
// transaction when the store can batch, else one by one. fn must make
// fewer than a few dozen writes: PostgreSQL's Batch commits every 48.
func (q *core) together(ctx context.Context, fn func(ctx context.Context) error) error {
	if b, ok := q.cfg.Store.(Batcher); ok {
		return b.Batch(ctx, fn)
	}
	return fn(ctx)
}

// reinforce records that by restated old: a touch, the new provenance and
// the audit row, in one transaction. A restatement already recorded (its
// request ids are in old's provenance: a retried job, or a second fact of
// one turn) writes nothing.
func (q *reconciler) reinforce(ctx context.Context, s memory.Scope, old, by *memory.Memory, actor string) error {
	if len(by.Provenance.RequestIDs) > 0 && !slices.ContainsFunc(by.Provenance.RequestIDs, func(id string) bool {
		return !slices.Contains(old.Provenance.RequestIDs, id)
	}) {
		return nil
	}
	// Keep the new provenance: the fact was stated again.
	old.Provenance.RequestIDs = union(old.Provenance.RequestIDs, by.Provenance.RequestIDs...)
	old.Provenance.TurnRefs = union(old.Provenance.TurnRefs, by.Provenance.TurnRefs...)
	if old.Provenance.Fact == nil && by.Provenance.Fact != nil && old.Key == by.Key {
		old.Provenance.Fact = by.Provenance.Fact // a fact stored before triples gains its triple
	}
	old.Hits++
	old.LastUsedAt = by.CreatedAt
	if by.NoDecay && !old.NoDecay {
		old.NoDecay, old.Value = true, max(old.Value, by.Value)
	}
	if err := q.together(ctx, func(ctx context.Context) error { return q.reinforceWrites(ctx, s, old, by, actor) }); err != nil {
		return err
	}
	q.met.reinforced.Inc()
	return nil
}

// reinforceWrites writes a reinforced memory and its audit row, inside
// the caller's transaction.
func (q *reconciler) reinforceWrites(ctx context.Context, s memory.Scope, old, by *memory.Memory, actor string) error {
	// Update writes hits and last use as given (the touch is in them).
	if err := q.cfg.Store.Update(ctx, s, old); err != nil {
		return fmt.Errorf("reinforce: %w", err)
	}
	return q.audit(ctx, s, actor, "reinforce", old.ID, "", "", "restated: "+truncate(by.Text, 200))
}

// supersede closes old, replaced by by, with its audit row in one
// transaction.
func (q *reconciler) supersede(ctx context.Context, s memory.Scope, old, by *memory.Memory, actor string) error {
	err := q.together(ctx, func(ctx context.Context) error {
		return q.supersedeAt(ctx, s, old, by.ID, by.CreatedAt, "", actor)
	})
	if err != nil {
		return err
	}
	q.met.superseded.Inc()
	return nil
}

// supersedeAt closes old at at (the date its successor became true), in
// the transaction ctx carries.
func (q *reconciler) supersedeAt(ctx context.Context, s memory.Scope, old *memory.Memory, by string, at time.Time, why, actor string) error {
	if at.Before(old.ValidFrom) {
		at = old.ValidFrom
	}
	if err := q.cfg.Store.Supersede(ctx, s, old.ID, by, at); err != nil {
		return fmt.Errorf("supersede: %w", err)
	}
	detail := "superseded by " + by
	if why != "" {
		detail += ": " + why
	}
	return q.audit(ctx, s, actor, "supersede", old.ID, snapshot(old), by, detail)
}

func (q *core) audit(ctx context.Context, s memory.Scope, actor, action, id, before, after, detail string) error {
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

// correct applies a user's correction ("I meant Tuesday, not Monday") to
// the newest live fact that carries the old value.
// correctWindow is how far back a correction that names only its new
// value ("Sorry, I meant Tuesday.") looks for the fact it corrects.
const correctWindow = time.Hour

// correctLatest applies a correction naming only its new value v to the
// last fact stated within correctWindow that holds a value of v's kind
// (facts.CorrectedIn): "My piano lesson is on Monday." then "Sorry, I meant
// Tuesday." corrects Monday. Nothing is written when there is none.
func (q *reconciler) correctLatest(ctx context.Context, t *memory.Turn, v string) error {
	page, err := q.cfg.Store.List(ctx, t.Scope, memory.ListFilter{
		Tiers: []memory.Tier{memory.TierSemantic, memory.TierProfile, memory.TierEvent}, State: memory.StateLive, At: t.Time,
		Since: t.Time.Add(-correctWindow), Until: t.Time, Limit: 50,
	})
	if err != nil {
		return fmt.Errorf("correction list: %w", err)
	}
	var last *memory.Memory
	old := ""
	for _, m := range page.Data {
		if o := facts.CorrectedIn(m.Text, v); o != "" && (last == nil || m.CreatedAt.After(last.CreatedAt)) {
			last, old = m, o
		}
	}
	if last == nil {
		return nil
	}
	c, ok := facts.NewCorrection(v, old)
	if !ok {
		return nil
	}
	return q.correct(ctx, t, c)
}

// correct applies correction c to the newest live fact that holds its old
// value; when the message is the correction alone (one sentence), an
// event stated within correctWindow may be the one corrected ("My flight
// lands at 6pm." then "Oops, I meant 8pm, not 6pm."), never an older one
// or one corrected in passing in a longer message.
func (q *reconciler) correct(ctx context.Context, t *memory.Turn, c facts.Correction) error {
	s := t.Scope
	tiers := []memory.Tier{memory.TierSemantic, memory.TierProfile}
	alone := len(splitSentences(t.User)) == 1
	if alone {
		tiers = append(tiers, memory.TierEvent)
	}
	cands, err := q.cfg.Store.LexicalSearch(ctx, s, c.Old, memory.SearchOptions{
		Limit: 20, Tiers: tiers, At: t.Time,
	})
	if err != nil {
		return fmt.Errorf("correction search: %w", err)
	}
	var target *memory.Memory
	var text string
	for _, cand := range cands {
		m := cand.Memory
		if !m.Live(t.Time) || (target != nil && !m.CreatedAt.After(target.CreatedAt)) {
			continue
		}
		if m.Tier == memory.TierEvent && (!alone || m.CreatedAt.Before(t.Time.Add(-correctWindow))) {
			continue
		}
		if fixed, ok := c.Apply(m.Text); ok {
			target, text = m, fixed
		}
	}
	if target == nil {
		return nil
	}
	fixed := *target
	fixed.ID = stableID(t.RequestID, "correction")
	fixed.Text = text
	fixed.Embedding = nil
	fixed.Hits = 0
	fixed.CreatedAt, fixed.LastUsedAt, fixed.ValidFrom = t.Time, t.Time, t.Time
	fixed.ValidTo, fixed.SupersededBy = nil, ""
	fixed.Provenance = memory.Provenance{RequestIDs: union(nil, t.RequestID), TurnRefs: union(nil, t.Refs...)}
	if f := target.Fact(); f != nil {
		tr := *f
		tr.Value, _ = c.Apply(tr.Value)
		fixed.Provenance.Fact = &tr
	}
	if _, err := q.cfg.Store.Get(ctx, s, fixed.ID); err == nil {
		return nil // an earlier attempt wrote it
	}
	v, err := q.cfg.Embedder.Embed(ctx, []string{fixed.Text})
	if err != nil {
		return fmt.Errorf("embed correction: %w", err)
	}
	fixed.Embedding = v[0]
	ws, err := q.withStaleEvents(ctx, s, lifecycle.DecideCorrection(target, &fixed, t.Time), t.Time)
	if err != nil {
		return err
	}
	_, err = q.apply(ctx, s, &fixed, ws, "background")
	return err
}

// liveSlot is the first of the subject's attributes attrs whose slot
// holds value live at t (case aside), with the value as stored; "" when
// none does.
func (q *reconciler) liveSlot(ctx context.Context, s memory.Scope, subject string, attrs []string, value string, t time.Time) (string, string, error) {
	for _, a := range attrs {
		hist, err := q.cfg.Store.History(ctx, s, subject+"."+a)
		if err != nil {
			return "", "", fmt.Errorf("history: %w", err)
		}
		for _, old := range hist {
			if of := old.Fact(); of != nil && old.Live(t) && !of.Ended && (strings.EqualFold(of.Value, value) || a == "pet" && facts.PetNamed(of.Value, value)) {
				return a, of.Value, nil
			}
		}
	}
	return "", "", nil
}

// knownOrganisation reports whether the scope's memories (any tier, any
// state) name value as an organisation: the value of an employer, school
// or group slot, or a text that names it as an employer
// (facts.KnownOrganisation).
func (q *reconciler) knownOrganisation(ctx context.Context, s memory.Scope, value string, at time.Time) (bool, error) {
	cands, err := q.cfg.Store.LexicalSearch(ctx, s, value, memory.SearchOptions{Limit: 20, IncludeDead: true, At: at})
	if err != nil {
		return false, fmt.Errorf("organisation search: %w", err)
	}
	var vals, texts []string
	for _, c := range cands {
		if tr := c.Memory.Fact(); tr != nil {
			switch tr.Attribute {
			case "works_at", "studies_at", "member_of":
				vals = append(vals, tr.Value)
			}
			continue
		}
		texts = append(texts, c.Memory.Text)
	}
	return facts.KnownOrganisation(value, vals, texts), nil
}

// linkAge reads what facts.LinkAge needs for a named age with no live
// age of that name: the scope's live ages and the live facts that name
// the subject.
func (q *reconciler) linkAge(ctx context.Context, s memory.Scope, f *Fact, at time.Time) (*memory.Memory, error) {
	if !facts.Named(f.Subject) {
		return nil, nil
	}
	st := q.cfg.Store
	hist, err := st.History(ctx, s, f.Key())
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	for _, old := range hist {
		if old.Live(at) {
			return nil, nil // the name's own age: its slot decides
		}
	}
	tiers := []memory.Tier{memory.TierSemantic, memory.TierProfile}
	var ages []*memory.Memory
	for _, word := range []string{"old", "岁"} {
		p, err := st.List(ctx, s, memory.ListFilter{Tiers: tiers, State: memory.StateLive, At: at, Query: word, Limit: 100})
		if err != nil {
			return nil, fmt.Errorf("ages: %w", err)
		}
		ages = append(ages, p.Data...)
	}
	about, err := st.List(ctx, s, memory.ListFilter{Tiers: tiers, State: memory.StateLive, At: at, Query: f.Subject, Limit: 100})
	if err != nil {
		return nil, fmt.Errorf("relatives: %w", err)
	}
	return facts.LinkAge(f, ages, about.Data, at), nil
}
