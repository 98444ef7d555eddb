package background

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/memproxy/memproxy/facts"
	"github.com/memproxy/memproxy/lifecycle"
	"github.com/memproxy/memproxy/memory"
)

// explicitRemember stores the note at once: high value, no decay, profile
// tier when it states a standing preference or constraint.
func (q *explicit) explicitRemember(ctx context.Context, t *memory.Turn) error {
	note := explicitNote(t.User, q.gate.ExplicitContent(t.User), q.gate.Intent, q.pol.Explicit.RememberCues)
	content := facts.ThirdPerson(note)
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
	if fs := q.extractFacts(note, t.Time); len(fs) == 1 {
		fp = &fs[0]
		m.Key = fp.Key()
		if factsIsProfile(*fp) {
			m.Tier = memory.TierProfile // a standing constraint, however it was said
		}
	}
	if _, err := q.rec.reconcile(ctx, t.Scope, m, fp, "explicit"); err != nil {
		return fmt.Errorf("explicit remember: %w", err)
	}
	return nil
}

// explicitNote is what an explicit note says: the payload the gate read,
// or the whole sentence it is part of when the payload leans on the rest
// ("My doctor told me to cut out gluten, so I'm avoiding it from now on":
// the payload "so I'm avoiding it from now on" says nothing alone).
// The instruction itself stays out ("My nutritionist said to skip dairy,
// so please remember I'm avoiding it" → "My nutritionist said to skip
// dairy, so I'm avoiding it").
func explicitNote(msg, payload string, intent func(string) memory.Intent, cues []string) string {
	payload = strings.TrimSpace(payload)
	if payload == "" || !leans(payload) {
		return payload
	}
	for _, s := range splitSentences(msg) {
		i := strings.Index(s, payload)
		if i <= 0 {
			continue
		}
		before := s[:i]
		if intent(before) != memory.IntentNone {
			before = cutCue(before, cues)
			if strings.TrimSpace(before) == "" || intent(before) != memory.IntentNone {
				continue
			}
		}
		if instructionOnly(s[i:], cues) {
			// "I changed my name to Alex, please use that from now on":
			// the clause only asks to keep what came before.
			return strings.TrimRight(strings.TrimSpace(before), ",;:—- ")
		}
		return strings.TrimSpace(strings.TrimSpace(before) + " " + s[i:])
	}
	return payload
}

// instructionOnly reports whether clause, its cues left out, is only an
// instruction about what was said before it ("please use that from now
// on", "so keep it in mind"), with nothing of its own to remember.
func instructionOnly(clause string, cues []string) bool {
	low := strings.ToLower(clause)
	for _, c := range cues {
		low = strings.ReplaceAll(low, strings.ToLower(c), " ")
	}
	for _, w := range strings.Fields(low) {
		switch strings.Trim(w, ".,;:!?'\"") {
		case "", "please", "pls", "kindly", "use", "that", "this", "it", "so", "and", "just", "going", "do", "the",
			"same", "then", "ok", "okay", "thanks", "thank", "you", "keep", "in", "mind", "on":
		default:
			return false
		}
	}
	return true
}

// cutCue drops the last instruction cue of s and what follows it, with
// the politeness just before it ("…, so please remember " → "…, so").
func cutCue(s string, cues []string) string {
	low := strings.ToLower(s)
	at := -1
	for _, c := range cues {
		if i := strings.LastIndex(low, strings.ToLower(c)); i > at {
			at = i
		}
	}
	if at < 0 {
		return s
	}
	s = strings.TrimRight(s[:at], " ")
	for {
		w := strings.Fields(s)
		if len(w) == 0 {
			return ""
		}
		switch strings.ToLower(w[len(w)-1]) {
		case "please", "pls", "kindly", "you", "can", "could", "would", "also", "just", "and":
			s = strings.TrimRight(s[:strings.LastIndex(s, w[len(w)-1])], " ")
			continue
		}
		return s
	}
}

// leans reports whether a clause needs the words before it: it starts
// with a conjunction or refers back with a pronoun ("so …", "… avoiding
// it", 所以…, 这个).
func leans(clause string) bool {
	low := strings.ToLower(clause)
	w := strings.Fields(low)
	if len(w) > 0 {
		switch strings.Trim(w[0], ",;:") {
		case "so", "and", "but", "because", "then", "which", "also", "hence", "therefore", "thus":
			return true
		}
	}
	for _, x := range w {
		switch strings.Trim(x, ".,;:!?'\"") {
		case "it", "them", "they", "there", "he", "she", "him", "her", "these", "those", "that", "this":
			return true
		}
	}
	for _, c := range []string{"所以", "因此", "这个", "那个", "它", "他", "她", "这样", "那样"} {
		if strings.HasPrefix(clause, c) || (c != "所以" && c != "因此" && strings.Contains(clause, c)) {
			return true
		}
	}
	return false
}

// explicitForget deletes the live memories that match what the user asked
// to forget. Deletion, not supersede: the user wants it gone; the audit
// keeps the id and the request, not the text.
func (q *explicit) explicitForget(ctx context.Context, t *memory.Turn) (err error) {
	content := q.gate.ExplicitContent(t.User)
	var ids []string
	switch {
	case facts.ForgetsEverything(content, t.User):
		// "Forget everything you know about me": every memory of the
		// scope, in any state.
		if ids, err = q.scopeIDs(ctx, t.Scope); err != nil {
			return fmt.Errorf("explicit forget: %w", err)
		}
	case len(contentTerms(content)) == 0:
		return nil
	default:
		if ids, err = q.matchForget(ctx, t.Scope, content, t.Time); err != nil {
			return fmt.Errorf("explicit forget: %w", err)
		}
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

// maxForgetAllPages bounds what a forget of everything reads: the first
// 100,000 of the scope's memories (500 a page); a larger scope is for the
// admin API's user deletion.
const maxForgetAllPages = 200

// scopeIDs lists the ids of every memory of the scope, any tier and state.
func (q *explicit) scopeIDs(ctx context.Context, s memory.Scope) ([]string, error) {
	var ids []string
	f := memory.ListFilter{State: memory.StateAny, Limit: 500}
	for page := 0; page < maxForgetAllPages; page++ {
		p, err := q.cfg.Store.List(ctx, s, f)
		if err != nil {
			return nil, err
		}
		for _, m := range p.Data {
			ids = append(ids, m.ID)
		}
		if f.Cursor = p.Next; f.Cursor == "" {
			break
		}
	}
	return ids, nil
}

// matchForget finds the live memories the forget request names: it
// reads the request's topic (facts.ForgetTopic), gathers candidates by
// the topic's words, the slots it names and the request's vector, and
// lets the decision core (lifecycle.DecideForget) choose; then the texts
// holding a specific forgotten value ("42 Harbour Lane") are chased once.
// maxShapedPages bounds the events a forget of a shaped slot reads: at
// most 10,000 of the scope's (500 a page).
const maxShapedPages = 20

func (q *explicit) matchForget(ctx context.Context, s memory.Scope, content string, at time.Time) ([]string, error) {
	st := q.cfg.Store
	topic := facts.ForgetTopic(content)
	var cands []lifecycle.Neighbour
	lexical := func(query string) error {
		if strings.TrimSpace(query) == "" {
			return nil
		}
		lex, err := st.LexicalSearch(ctx, s, query, memory.SearchOptions{Limit: 50})
		if err != nil {
			return err
		}
		for _, c := range lex {
			cands = append(cands, lifecycle.Neighbour{Memory: c.Memory})
		}
		return nil
	}
	query := strings.Join(topic.Phrases, " ")
	if query == "" {
		query = content
	}
	if err := lexical(query); err != nil {
		return nil, err
	}
	// The slots the topic names, whatever their text says ("my job" for
	// "The user works at Initech").
	for _, key := range forgetKeys(topic) {
		h, err := st.History(ctx, s, key)
		if err != nil {
			return nil, err
		}
		for _, m := range h {
			if m.Live(at) {
				cands = append(cands, lifecycle.Neighbour{Memory: m})
			}
		}
	}
	if topic.Shaped() {
		// "my address", "my number": the events that say one, though
		// no fact was read from them and no word of the topic is there.
		f := memory.ListFilter{Tiers: []memory.Tier{memory.TierEvent}, State: memory.StateLive, At: at, Limit: 500}
		for page := 0; page < maxShapedPages; page++ {
			p, err := st.List(ctx, s, f)
			if err != nil {
				return nil, err
			}
			for _, m := range p.Data {
				if facts.ShapedValue(topic, memory.EventUser(m.Text)) != "" {
					cands = append(cands, lifecycle.Neighbour{Memory: m})
				}
			}
			if f.Cursor = p.Next; f.Cursor == "" {
				break
			}
		}
	}
	vec, err := q.cfg.Embedder.Embed(ctx, []string{content})
	if err != nil {
		return nil, err
	}
	vs, err := st.VectorSearch(ctx, s, vec[0], memory.SearchOptions{Limit: 20})
	if err != nil {
		return nil, err
	}
	for _, c := range vs {
		cands = append(cands, lifecycle.Neighbour{Memory: c.Memory, Score: c.Score})
	}
	pol := lifecycle.Policy{DupThreshold: q.reconcileDup()}
	ws := lifecycle.DecideForget(topic, cands, nil, pol, at)
	if vals := lifecycle.SpecificValues(ws); len(vals) > 0 {
		n := len(cands)
		for _, v := range vals {
			if err := lexical(v); err != nil {
				return nil, err
			}
		}
		ws = append(ws, lifecycle.DecideForget(facts.Topic{}, cands[n:], vals, lifecycle.Policy{}, at)...)
	}
	seen := map[string]bool{}
	var ids []string
	for _, w := range ws {
		if w.Op == lifecycle.Forget && !seen[w.Memory.ID] {
			seen[w.Memory.ID] = true
			ids = append(ids, w.Memory.ID)
			q.log.DebugContext(ctx, "forget", "memory", w.Memory.ID, "reason", w.Reason)
		}
	}
	return ids, nil
}

// forgetKeys are the slot keys of the user's facts a topic names by an
// attribute word ("my job": user.works_at, user.job_title), and of the
// facts it states.
func forgetKeys(t facts.Topic) []string {
	var keys []string
	for _, a := range facts.AttributesNamed(t) {
		keys = append(keys, "user."+a)
	}
	for _, f := range t.Facts {
		if !f.Note {
			keys = append(keys, f.Key())
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

func hasAny(low string, cues []string) bool {
	for _, c := range cues {
		if c != "" && facts.ContainsWord(low, strings.ToLower(c)) {
			return true
		}
	}
	return false
}
