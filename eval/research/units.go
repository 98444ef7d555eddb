package research

import (
	"cmp"
	"strings"

	"github.com/memproxy/memproxy/gate"
	"github.com/memproxy/memproxy/policy"
	"time"

	"github.com/memproxy/memproxy/eval/locomo"
)

// Unit is one memory as a design stores it.
type Unit struct {
	// Text is what would be injected.
	Text string
	// User is the user message alone (what the product embeds today).
	User string
	// Ctx is the context the design indexes beside the text (neighbour
	// turns, the date), for field-weighted search.
	Ctx string
	// Index is what search sees (Text plus any context the design adds).
	Index   string
	Refs    []string
	Time    time.Time
	Session int
	last    string
}

// UnitDesign builds a sample's memory units.
type UnitDesign struct {
	Name string
	// Kind: "turn" (one utterance), "pair" (user message + reply, the
	// product's chat turn), "window" (Size consecutive pairs, stride 1).
	Kind string
	Size int
	// Context indexes the neighbouring pairs' text with each pair (Before
	// pairs before, After pairs after) without injecting it.
	Before, After int
	// DatePrefix prefixes the session date to the indexed text.
	DatePrefix bool
	// PrevUtterance indexes only the last utterance before the unit (the
	// message the user was answering) instead of whole previous pairs.
	PrevUtterance bool
	// OwnWeight repeats the unit's own text in the index (1 when 0), so
	// context counts less than the turn itself.
	OwnWeight int
	// DropNoise leaves out the turns ingest drops today: an empty user
	// message, or one the gate classifies as noise or a greeting (the
	// reply goes with it). Context still sees them (the turn log has them).
	DropNoise bool
	// AssistantCap cuts the stored reply at this many characters (400, the
	// product's cut, when 0).
	AssistantCap int
}

// Build returns the units of sample s.
func (d UnitDesign) Build(s *locomo.Sample) []Unit {
	var out []Unit
	for si := range s.Sessions {
		sess := &s.Sessions[si]
		var base []Unit
		switch d.Kind {
		case "turn":
			for _, dl := range sess.Turns {
				base = append(base, Unit{Text: dl.ChatText(), User: dl.ChatText(), Refs: []string{dl.DiaID}, Time: sess.Date, Session: sess.N})
			}
		default:
			for _, t := range sess.ChatTurns(s.SpeakerA) {
				base = append(base, Unit{Text: pairText(t, cmp.Or(d.AssistantCap, 400)), User: t.User, Refs: t.Refs, Time: sess.Date, Session: sess.N, last: lastLine(t)})
			}
		}
		if d.Kind == "window" && d.Size > 1 {
			base = windows(base, d.Size)
		}
		for i := range base {
			u := base[i]
			var idx []string
			if d.PrevUtterance && i > 0 {
				idx = append(idx, base[i-1].last)
			}
			for j := max(0, i-d.Before); j < i; j++ {
				idx = append(idx, base[j].Text)
			}
			for range max(1, d.OwnWeight) {
				idx = append(idx, u.Text)
			}
			for j := i + 1; j <= min(len(base)-1, i+d.After); j++ {
				idx = append(idx, base[j].Text)
			}
			u.Index = strings.Join(idx, "\n")
			var ctx []string
			if d.DatePrefix {
				u.Index = u.Time.Format("2 January 2006") + "\n" + u.Index
				ctx = append(ctx, u.Time.Format("2 January 2006"))
			}
			if d.PrevUtterance && i > 0 {
				ctx = append(ctx, base[i-1].last)
			}
			for j := max(0, i-d.Before); j < i; j++ {
				ctx = append(ctx, base[j].Text)
			}
			for j := i + 1; j <= min(len(base)-1, i+d.After); j++ {
				ctx = append(ctx, base[j].Text)
			}
			u.Ctx = strings.Join(ctx, "\n")
			if d.DropNoise && d.Kind != "turn" && dropped(u.User) {
				continue
			}
			out = append(out, u)
		}
	}
	return out
}

// PairText is a chat turn as the product stores an event (background's
// eventText): the user message, then "Assistant: " and the reply cut at
// 400 characters.
func PairText(t locomo.Turn) string { return pairText(t, 400) }

func pairText(t locomo.Turn, limit int) string {
	u, a := strings.TrimSpace(t.User), strings.TrimSpace(t.Assistant)
	if a == "" {
		return u
	}
	if r := []rune(a); len(r) > limit {
		a = string(r[:limit]) + "…"
	}
	return strings.TrimSpace(u + "\nAssistant: " + a)
}

// lastLine is the last utterance of a turn.
func lastLine(t locomo.Turn) string {
	if t.Assistant != "" {
		return t.Assistant
	}
	return t.User
}

func windows(base []Unit, n int) []Unit {
	if len(base) <= n {
		return []Unit{merge(base)}
	}
	var out []Unit
	for i := 0; i+n <= len(base); i++ {
		out = append(out, merge(base[i:i+n]))
	}
	return out
}

func merge(us []Unit) Unit {
	m := Unit{Time: us[0].Time, Session: us[0].Session}
	var texts []string
	for _, u := range us {
		texts = append(texts, u.Text)
		m.Refs = append(m.Refs, u.Refs...)
	}
	m.Text = strings.Join(texts, "\n")
	return m
}

var ingestGate = func() *gate.Gate {
	p := policy.Default()
	return gate.New(p.Gate, p.Explicit)
}()

// dropped mirrors background ingest's drop rule for a turn's user text.
func dropped(user string) bool {
	class, noise := ingestGate.Classify(user)
	return noise || class == gate.ClassGreeting || strings.TrimSpace(user) == ""
}
