package background

import (
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // ingest.time_zone resolves without the system database

	"github.com/memproxy/memproxy/facts"
	"github.com/memproxy/memproxy/lifecycle"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/text"
)

// Fact is a statement extracted from a user message: a dated triple and
// its third-person sentence (package facts).
type Fact = facts.Fact

// ExtractFacts returns the facts a user message states, dated against at
// in the policy's time zone.
func (q *core) extractFacts(msg string, at time.Time) []Fact {
	return facts.Extract(msg, facts.Options{At: at, Loc: q.loc(), ChangeCues: q.pol.Reconcile.ChangeCues})
}

// turnFacts returns the facts a turn's user message states, dated against
// the turn's own time; a pronoun ("switched to it") may name what the
// exchange before it mentioned.
func (q *core) turnFacts(t *memory.Turn) []Fact {
	fs := facts.Extract(t.User, facts.Options{At: t.Time, Loc: q.loc(), ChangeCues: q.pol.Reconcile.ChangeCues, Before: t.Context})
	if n := q.pol.Ingest.MaxFactsPerTurn; n > 0 && len(fs) > n {
		fs = fs[:n] // ingest.max_facts_per_turn: the first said
	}
	return fs
}

// ExtractFacts reads msg's facts with UTC dates and the given change cues.
func ExtractFacts(msg string, cues []string) []Fact {
	return facts.Extract(msg, facts.Options{At: time.Now(), ChangeCues: cues})
}

// HasChangeCue reports whether s carries one of the cues (facts.HasChangeCue).
func HasChangeCue(s string, cues []string) bool { return facts.HasChangeCue(s, cues) }

func splitSentences(s string) []string { return text.Sentences(s) }

// loc is the users' time zone (policy ingest.time_zone, UTC by default).
func (q *core) loc() *time.Location {
	if q.pol == nil {
		return time.UTC
	}
	z := q.pol.Ingest.TimeZone
	if z == "" || z == "UTC" {
		return time.UTC
	}
	if l, ok := zones.Load(z); ok {
		return l.(*time.Location)
	}
	l, err := time.LoadLocation(z)
	if err != nil {
		l = time.UTC // policy validation rejects unknown zones
	}
	zones.Store(z, l)
	return l
}

var zones sync.Map // zone name → *time.Location

func factsIsProfile(f Fact) bool { return facts.IsProfile(f.Subject, f.Attribute) && !f.Ended }

// turnEvent is the event a turn becomes, or nil when the decision core
// (lifecycle.DecideEvent) drops it: a question answered by nothing worth
// keeping. stated is how many facts the turn stated.
func (q *ingester) turnEvent(t *memory.Turn, stated int) *memory.Memory {
	w := lifecycle.DecideEvent(lifecycle.Turn{
		Event:            q.eventMemory(t),
		OnlyAsks:         text.OnlyAsks(t.User),
		Stated:           stated,
		ReplyInformative: Informativeness(novel(t.Assistant, t.User)) >= keepReplyValue,
		Imported:         t.Arm == importArm,
	})
	if w.Op != lifecycle.Insert {
		q.met.dropped.WithLabelValues("question").Inc()
		return nil
	}
	return w.Memory
}

// novel is what a reply says beyond the message it answers: its words
// that are not the message's ("You said: what's the capital of
// Australia?" says nothing new).
func novel(reply, msg string) string {
	said := map[string]bool{}
	for _, w := range contentTerms(msg) {
		said[w] = true
	}
	var out []string
	for _, w := range strings.Fields(reply) {
		// A word, or a run of Chinese (one field, several bigrams), all
		// of whose terms the message said: "You said: 同学聚会是哪天？".
		if ts := contentTerms(w); len(ts) > 0 && allSaid(ts, said) {
			continue
		}
		out = append(out, w)
	}
	return strings.Join(out, " ")
}

func allSaid(ts []string, said map[string]bool) bool {
	for _, t := range ts {
		if !said[t] {
			return false
		}
	}
	return true
}
