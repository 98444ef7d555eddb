// Package lifecycle is memproxy's decision core: given a new fact (or a
// note), the relevant memories already stored, the policy and the time,
// it says which writes to make — insert, reinforce, supersede, forget,
// drop — each with its reason. It does no I/O: the background workers
// fetch the memories, call Decide and apply the writes.
package lifecycle

import (
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/memproxy/memproxy/facts"
	"github.com/memproxy/memproxy/memory"
)

// Op is one kind of write.
type Op string

const (
	Insert    Op = "insert"
	Reinforce Op = "reinforce"
	Supersede Op = "supersede"
	Forget    Op = "forget"
	Drop      Op = "drop"
)

// Write is one write of a decision.
type Write struct {
	Op Op
	// Memory is the new memory (insert) or the existing one the write
	// touches (reinforce, supersede, forget).
	Memory *memory.Memory
	// By is the id of the memory that replaces Memory (supersede).
	By string
	// At is when the write takes effect (supersede: the date the new
	// value became true, the old one's valid_to).
	At     time.Time
	Reason string
}

// Policy is what a decision depends on besides the memories.
type Policy struct {
	// DupThreshold: a neighbour at least this similar states the same
	// thing (reinforce instead of insert).
	DupThreshold float64
	// SupersedeThreshold: an open attribute or a free-text note with a
	// change cue supersedes a neighbour at least this similar.
	SupersedeThreshold float64
}

// Candidate is a new memory to reconcile.
type Candidate struct {
	// Memory is the memory to insert (id, text, embedding, times set).
	Memory *memory.Memory
	// Fact is the extracted fact behind it, nil for a free-text note.
	Fact *facts.Fact
	// Change: the statement carries a change cue.
	Change bool
}

// Neighbour is a stored memory close to the candidate.
type Neighbour struct {
	Memory *memory.Memory
	Score  float64
}

// Decide reconciles c with the memories of its slot (every memory of the
// fact's key, live or not) and its nearest semantic neighbours:
//
//   - the same value again (the same triple, or near-identical text)
//     reinforces the live memory instead of inserting a copy;
//   - a new value of a single-valued attribute of the vocabulary
//     supersedes the slot's live values, change cue or not ("I moved to
//     Lisbon" closes "lives in Berlin");
//   - a multi-valued attribute accumulates ("I also use Go"), unless the
//     statement replaces ("I switched to Rust") or ends ("I no longer use
//     Python") a value;
//   - an open attribute (outside the vocabulary) supersedes only its own
//     slot, with a change cue and a close value;
//   - a free-text note supersedes only a free-text neighbour, with a
//     change cue and a close vector, never an explicit note and never a
//     fact of a slot: a change cue alone does not decide.
func Decide(c Candidate, slot []*memory.Memory, near []Neighbour, p Policy, now time.Time) []Write {
	m := c.Memory
	at := m.ValidFrom
	if at.IsZero() {
		at = now
	}
	for _, n := range near {
		// A switch stated again still replaces (below), so its slot
		// decides.
		if n.Memory.Live(now) && normText(n.Memory.Text) == normText(m.Text) && (c.Fact == nil || !c.Fact.Replace) {
			return []Write{{Op: Reinforce, Memory: n.Memory, At: now, Reason: "the same text is stored"}}
		}
	}
	if c.Fact == nil {
		return decideFree(c, near, p, now, at)
	}
	f := c.Fact
	var live []*memory.Memory
	for _, old := range slot {
		if old.ID != m.ID && old.Live(now) {
			live = append(live, old)
		}
	}
	for _, old := range live {
		if !opposite(old, f) && sameValue(old, f) && ended(old, f) == f.Ended {
			if datesValue(m, old) {
				// "I've lived in Lisbon since 2019" after "I live in
				// Lisbon": the same value, said now with when it began,
				// takes the old one's place (a reinforce kept the
				// undated text and lost the date).
				return []Write{
					{Op: Insert, Memory: m, At: now, Reason: f.Key() + " " + f.Value + " dated"},
					{Op: Supersede, Memory: old, By: m.ID, At: now, Reason: f.Key() + " " + f.Value + " said again with its date"},
				}
			}
			ws := []Write{{Op: Reinforce, Memory: old, At: now, Reason: "the same value of " + f.Key() + " is stored"}}
			if f.Replace && f.Multi && !f.Ended {
				// "I only play piano now" after "I play guitar and piano":
				// piano is reinforced, and it replaces guitar.
				for _, other := range live {
					if other.ID != old.ID && replaces(other, f) {
						ws = append(ws, Write{Op: Supersede, Memory: other, By: old.ID, At: at, Reason: f.Key() + " replaced by " + f.Value})
					}
				}
			}
			return ws
		}
	}
	if f.Attribute == "pet" && !f.Ended && !c.Change && facts.BarePet(f.Value) {
		// "… which is why we have a dog" beside "a border collie named
		// Pepper": the pet the user has, said by its kind (a pet got or
		// adopted is a change, and a new one).
		for _, old := range live {
			if of := old.Fact(); of != nil && !of.Ended && facts.PetKindOf(of.Value) != "" && facts.PetKindOf(of.Value) == facts.PetKindOf(f.Value) {
				return []Write{{Op: Reinforce, Memory: old, At: now, Reason: f.Key() + " " + f.Value + " is " + of.Value}}
			}
		}
	}
	if !f.Multi && !f.Ended && !c.Change && facts.Generic(f.Value) {
		// "I work at a hospital" after "I work at St Mary's": said
		// without a change, a described value is the named one in other
		// words, not a new one.
		for _, old := range live {
			if of := old.Fact(); of != nil && !of.Ended && of.Value != "" && !facts.Generic(of.Value) && old.ExpiresAt == nil && !opposite(old, f) {
				return []Write{{Op: Reinforce, Memory: old, At: now, Reason: f.Key() + " " + f.Value + " describes " + of.Value}}
			}
		}
	}
	var out []Write
	sup := func(old *memory.Memory, why string) {
		out = append(out, Write{Op: Supersede, Memory: old, By: m.ID, At: at, Reason: why})
	}
	for _, old := range live {
		// A temporary state ("in Tokyo this week") never takes the place
		// of a lasting fact.
		if m.ExpiresAt != nil && old.ExpiresAt == nil {
			continue
		}
		same := sameValue(old, f)
		if opposite(old, f) {
			// "I no longer like coffee" after "I like coffee".
			if same {
				sup(old, f.Key()+" "+f.Value+" contradicts "+old.Key)
			}
			continue
		}
		switch {
		case f.Ended:
			// ("I'm no longer a developer" ends "software developer".)
			if same || leadsValue(old, f.Value) || !f.Multi && tailsValue(old, f.Value) {
				sup(old, f.Key()+" "+f.Value+" ended")
			}
		case same && ended(old, f):
			sup(old, f.Key()+" "+f.Value+" holds again")
		case f.Open:
			// (A value said to replace a named old one, "on Wednesdays,
			// not Mondays", replaces it whatever the vectors.)
			if c.Change && (old.Embedding == nil || m.Embedding == nil || memory.Cosine(old.Embedding, m.Embedding) >= p.SupersedeThreshold ||
				f.Prior != "" && namesValue(old, f.Prior)) {
				sup(old, "open attribute "+f.Key()+" changed")
			}
		case !f.Multi:
			sup(old, "single-valued "+f.Key()+" has a new value")
		case f.Replace:
			if replaces(old, f) {
				sup(old, f.Key()+" replaced by "+f.Value)
			}
		}
	}
	if f.Ended && len(out) == 0 && slices.ContainsFunc(slot, func(old *memory.Memory) bool {
		return old.ID != m.ID && !old.Live(now) && !opposite(old, f) && sameValue(old, f) && !ended(old, f)
	}) {
		// "I quit Acme and joined Globex": Globex already closed Acme, so
		// the ending is history from the start too, not a live "no
		// longer works at Acme".
		end := at
		m.ValidTo = &end
		return []Write{{Op: Insert, Memory: m, At: now, Reason: f.Key() + " " + f.Value + " ended, already closed"}}
	}
	if f.Ended && len(out) > 0 {
		// "I no longer work at Deloitte" closes the live value; the
		// statement itself is history from the start (valid_to = when it
		// ended), not a live fact naming the old value.
		end := at
		m.ValidTo = &end
		return append([]Write{{Op: Insert, Memory: m, At: now, Reason: f.Key() + " " + f.Value + " ended"}}, out...)
	}
	return append([]Write{{Op: Insert, Memory: m, At: now, Reason: insertReason(f, len(out))}}, out...)
}

// datesValue reports whether m, a fact of old's value, says when the
// value began where old did not: m holds from a day before old's start
// (a date said, not the day it was said) and reads otherwise.
func datesValue(m, old *memory.Memory) bool {
	return !m.ValidFrom.IsZero() && m.ValidFrom.Before(old.ValidFrom.AddDate(0, 0, -1)) && m.ExpiresAt == nil &&
		old.ExpiresAt == nil && normText(m.Text) != normText(old.Text)
}

// StaleEvents says which events go with the facts ws supersedes: an event
// of the same turn as a superseded fact that states its value ("I live
// in Berlin. The winters here are brutal.") is as outdated as the fact,
// so "Where do I live?" no longer reads it beside the new home. An event
// that does not say the value (the fact was read from another sentence
// of a longer turn, or said in other words) stays. events are the
// candidates: the events of the superseded facts' turns.
func StaleEvents(ws []Write, events []*memory.Memory, now time.Time) []Write {
	var out []Write
	seen := map[string]bool{}
	// A value said again with its date replaces its memory but still
	// holds: what its turn said of it is not stale.
	holds := map[string]bool{}
	for _, w := range ws {
		if f := w.Memory.Fact(); w.Op == Insert && f != nil && !f.Ended {
			holds[w.Memory.Key+"\x00"+strings.ToLower(f.Value)] = true
		}
	}
	for _, w := range ws {
		f := w.Memory.Fact()
		if w.Op != Supersede || f == nil || f.Value == "" || f.Ended || holds[w.Memory.Key+"\x00"+strings.ToLower(f.Value)] {
			continue
		}
		for _, e := range events {
			if seen[e.ID] || e.Tier != memory.TierEvent || !e.Live(now) || !shareTurn(e, w.Memory) || !valueIn(&memory.Memory{Text: memory.EventUser(e.Text)}, f.Value) {
				continue
			}
			seen[e.ID] = true
			out = append(out, Write{Op: Supersede, Memory: e, By: w.By, At: w.At, Reason: "states " + f.Value + ", superseded with " + w.Memory.Key})
		}
	}
	return out
}

func shareTurn(a, b *memory.Memory) bool {
	return slices.ContainsFunc(a.Provenance.RequestIDs, func(r string) bool { return slices.Contains(b.Provenance.RequestIDs, r) })
}

// replaces reports whether a switch f closes the live value old of its
// slot: a value of its own kind ("I switched to Rust" closes Python, not
// vim), or the one it names as replaced ("from Python").
func replaces(old *memory.Memory, f *facts.Fact) bool {
	if f.Prior == "" && old.Fact() != nil && facts.ValueKind(old.Fact().Value) != facts.ValueKind(f.Value) {
		return false
	}
	return f.Prior == "" || valueIn(old, f.Prior)
}

func insertReason(f *facts.Fact, superseded int) string {
	switch {
	case superseded > 0:
		return "new value of " + f.Key()
	case f.Multi:
		return "another value of " + f.Key()
	}
	return "first value of " + f.Key()
}

func decideFree(c Candidate, near []Neighbour, p Policy, now, at time.Time) []Write {
	m := c.Memory
	for _, n := range near {
		if n.Memory.Live(now) && n.Score >= p.DupThreshold {
			return []Write{{Op: Reinforce, Memory: n.Memory, At: now, Reason: "a near-identical memory is stored"}}
		}
	}
	ins := Write{Op: Insert, Memory: m, At: now, Reason: "new note"}
	if !c.Change {
		return []Write{ins}
	}
	for _, n := range near {
		o := n.Memory
		if !o.Live(now) || n.Score < p.SupersedeThreshold {
			continue
		}
		// A fact of a slot is changed only through its slot, and an
		// explicit note only by its own slot or a forget.
		if o.Key != "" || o.Fact() != nil || o.Source == memory.SourceExplicit {
			continue
		}
		if m.Key != "" && o.Key != m.Key {
			continue
		}
		return []Write{ins, {Op: Supersede, Memory: o, By: m.ID, At: at, Reason: "changed note close to this one"}}
	}
	return []Write{ins}
}

// opposite reports whether old is of the attribute contrary to f's
// (the worker hands both in the slot).
func opposite(old *memory.Memory, f *facts.Fact) bool {
	o := facts.Opposite(f.Attribute)
	return o != "" && facts.NormKey(old.Key) == f.Subject+"."+o
}

// sameValue reports whether old states f's value: the same words, or the
// same name ("a golden retriever named Max" and "a dog named Max" are one
// pet).
func sameValue(old *memory.Memory, f *facts.Fact) bool {
	if old.Fact() != nil {
		n := facts.NameOf(f.Value)
		return normText(old.Fact().Value) == normText(f.Value) || n != "" && strings.EqualFold(facts.NameOf(old.Fact().Value), n)
	}
	return valueIn(old, f.Value)
}

// leadsValue reports whether v is the first words of old's value: an
// ending that names a value by its make or first name ("I sold the
// Mazda" for "Mazda 3") ends it.
func leadsValue(old *memory.Memory, v string) bool {
	f := old.Fact()
	return f != nil && v != "" && strings.HasPrefix(normText(f.Value), normText(v)+" ")
}

// tailsValue reports whether v is the last words of old's value, its
// head: "developer" of "software developer".
func tailsValue(old *memory.Memory, v string) bool {
	f := old.Fact()
	return f != nil && v != "" && strings.HasSuffix(" "+normText(f.Value), " "+normText(v))
}

// valueIn reports whether old's value (its triple, or else its text) is v.
func valueIn(old *memory.Memory, v string) bool {
	if old.Fact() != nil {
		return normText(old.Fact().Value) == normText(v)
	}
	return strings.Contains(" "+normText(old.Text)+" ", " "+normText(v)+" ")
}

// namesValue reports whether v is words of old's value (its text, when
// it holds no triple): "Mondays" of "on Mondays".
func namesValue(old *memory.Memory, v string) bool {
	in := old.Text
	if f := old.Fact(); f != nil {
		in = f.Value
	}
	return v != "" && strings.Contains(" "+normText(in)+" ", " "+normText(v)+" ")
}

// ended reports whether old states that its value stopped being true.
func ended(old *memory.Memory, f *facts.Fact) bool {
	if old.Fact() != nil {
		return old.Fact().Ended
	}
	low := strings.ToLower(old.Text)
	return strings.Contains(low, "no longer") || strings.Contains(low, "不再")
}

func normText(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsPunct(r)
	}), " ")
}

// DecideCorrection: the user corrected a value they stated ("I meant
// Tuesday, not Monday"). fixed is target with the value corrected; it
// replaces target, which stays as history. Without a target (nothing
// stored says the old value) there is nothing to write.
func DecideCorrection(target, fixed *memory.Memory, now time.Time) []Write {
	if target == nil || !target.Live(now) {
		return []Write{{Op: Drop, Reason: "no stored fact carries the corrected value"}}
	}
	return []Write{
		{Op: Insert, Memory: fixed, At: now, Reason: "corrected by the user"},
		{Op: Supersede, Memory: target, By: fixed.ID, At: fixed.ValidFrom, Reason: "corrected by the user"},
	}
}

// Turn is what the event decision knows about one captured turn.
type Turn struct {
	// Event is the event memory the turn would become.
	Event *memory.Memory
	// OnlyAsks: every sentence of the user's message asks (text.OnlyAsks).
	OnlyAsks bool
	// Stated is how many facts the turn stated.
	Stated int
	// ReplyInformative: the reply says something worth keeping by itself.
	ReplyInformative bool
	// Imported: history handed over through the turn import (a
	// conversation between people, kept as it was said).
	Imported bool
}

// DecideEvent says whether a turn becomes an event. A turn that only asks
// and is answered by nothing worth keeping ("What's the capital of
// Australia?" — "Thanks, noted.") leaves nothing to remember: no event,
// so a question asked again is never served back as a memory. A question
// whose reply is informative is kept for the reply (it never starts or
// joins a consolidation cluster), and imported history is kept as said.
func DecideEvent(t Turn) Write {
	if t.OnlyAsks && t.Stated == 0 && !t.ReplyInformative && !t.Imported {
		return Write{Op: Drop, Reason: "the turn only asks and the reply says nothing to keep"}
	}
	return Write{Op: Insert, Memory: t.Event, Reason: "a turn"}
}

// DecideForget says which memories a forget request takes, each with its
// reason (no I/O: the worker finds the candidates by the topic's words,
// the slots it names and the request's vector):
//
//   - a fact the topic names: its slot ("my address" takes the home
//     address), the person it is about ("my sister"), its value (an
//     entity: "Biscuit"), or the same fact stated ("that I work at
//     Initech");
//   - a text about the topic (facts.Topic.Covers: "what I said about the
//     therapist" takes "I'm seeing a therapist on Thursdays"). When the
//     topic is a slot, a text must rather hold a value being forgotten
//     ("42 Harbour Lane"): "forget my address" leaves "the IP address of
//     the router" alone;
//   - a near-duplicate of the request (score ≥ the policy's
//     DupThreshold).
//
// values are the specific values (a number, an e-mail, several words) of
// the facts forgotten so far: texts holding one go too, wherever they
// are. The memories of the same turns and the same slots' history go
// with them when the worker erases them.
func DecideForget(t facts.Topic, cands []Neighbour, values []string, p Policy, now time.Time) []Write {
	// The topic is a slot when it names one of the vocabulary or of a
	// stored fact (an open attribute: "address" for home_address).
	slot := t.NamesSlot()
	for _, c := range cands {
		if f := c.Memory.Fact(); !slot && f != nil && strings.HasPrefix(t.Names(f), facts.NamesSlotReason) {
			slot = true
		}
	}
	var out []Write
	seen := map[string]bool{}
	for _, c := range cands {
		m := c.Memory
		if seen[m.ID] {
			continue
		}
		why := ""
		switch {
		case m.Fact() != nil && t.Names(m.Fact()) != "":
			why = t.Names(m.Fact())
		case holdsValue(m.Text, values) != "":
			why = "holds the forgotten value " + holdsValue(m.Text, values)
		case slot && m.Fact() == nil && facts.ShapedValue(t, memory.EventUser(m.Text)) != "":
			// "you can reach me on 555 0199": the slot's value, said
			// where no fact was read from it.
			why = "holds " + strings.Join(t.Phrases, ", ") + " " + facts.ShapedValue(t, memory.EventUser(m.Text))
		case m.Fact() == nil && (!slot || m.Tier != memory.TierEvent) && t.Covers(m.Text):
			why = "is about " + strings.Join(t.Phrases, ", ")
		case m.Fact() != nil && !slot && t.Covers(m.Text):
			why = "is about " + strings.Join(t.Phrases, ", ")
		case p.DupThreshold > 0 && c.Score >= p.DupThreshold:
			why = "near-identical to the request"
		}
		if why != "" {
			seen[m.ID] = true
			out = append(out, Write{Op: Forget, Memory: m, At: now, Reason: why})
		}
	}
	return out
}

// KeptBeside reports a fact of a forgotten turn that says nothing of what
// is forgotten: another slot's value that holds none of the forgotten
// values ("I live at 14 Baker Street and I work at Acme": forgetting the
// address keeps "works at Acme"). The turn's event and notes, which are
// its words, go; so does anything of a forgotten single-valued slot, while
// the other values of a multi-valued one stay.
func KeptBeside(m *memory.Memory, ms []*memory.Memory) bool {
	f := m.Fact()
	if f == nil || m.Key == "" || m.Tier == memory.TierEvent || m.Source == memory.SourceExplicit {
		return false
	}
	low := strings.ToLower(m.Text)
	for _, g := range ms {
		if g.Key != "" && facts.NormKey(g.Key) == facts.NormKey(m.Key) && !(facts.IsMulti(f.Attribute) && g.Fact() != nil && !strings.EqualFold(g.Fact().Value, f.Value)) {
			// (one value of a multi-valued slot forgotten, "forget that I
			// speak Russian", keeps the others said with it)
			return false
		}
		if gf := g.Fact(); gf != nil && gf.Value != "" && strings.Contains(low, strings.ToLower(gf.Value)) {
			return false
		}
		if g.Fact() == nil && strings.Contains(strings.ToLower(g.Text), strings.ToLower(f.Value)) && !strings.Contains(strings.ToLower(g.Text), "\nassistant:") {
			return false // a note that says this value
		}
	}
	return true
}

// SpecificValues are the values of the forgotten facts worth chasing in
// other texts: one with a digit or an @, or of several words ("42
// Harbour Lane", "jane@example.com"), not a common word ("Go") that
// other texts use for other things.
func SpecificValues(ws []Write) []string {
	var out []string
	for _, w := range ws {
		f := w.Memory.Fact()
		if w.Op != Forget || f == nil {
			continue
		}
		v := strings.TrimSpace(f.Value)
		if strings.ContainsAny(v, "0123456789@") || len(strings.Fields(v)) >= 2 || (len([]rune(v)) >= 3 && strings.IndexFunc(v, unicode.IsLetter) >= 0 && !isASCII(v)) {
			out = append(out, v)
		}
	}
	return out
}

func holdsValue(s string, values []string) string {
	low := normText(s)
	for _, v := range values {
		if nv := normText(v); nv != "" && strings.Contains(" "+low+" ", " "+nv+" ") {
			return v
		}
	}
	return ""
}

func isASCII(s string) bool {
	for _, r := range s {
		if r > unicode.MaxASCII {
			return false
		}
	}
	return true
}
