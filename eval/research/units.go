package research

import (
	"strings"
	"time"

	"github.com/memproxy/memproxy/eval/locomo"
)

// Unit is one memory as a design stores it.
type Unit struct {
	// Text is what would be injected.
	Text string
	// Index is what search sees (Text plus any context the design adds).
	Index   string
	Refs    []string
	Time    time.Time
	Session int
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
				base = append(base, Unit{Text: dl.ChatText(), Refs: []string{dl.DiaID}, Time: sess.Date, Session: sess.N})
			}
		default:
			for _, t := range sess.ChatTurns(s.SpeakerA) {
				base = append(base, Unit{Text: PairText(t), Refs: t.Refs, Time: sess.Date, Session: sess.N})
			}
		}
		if d.Kind == "window" && d.Size > 1 {
			base = windows(base, d.Size)
		}
		for i := range base {
			u := base[i]
			var idx []string
			for j := max(0, i-d.Before); j < i; j++ {
				idx = append(idx, base[j].Text)
			}
			idx = append(idx, u.Text)
			for j := i + 1; j <= min(len(base)-1, i+d.After); j++ {
				idx = append(idx, base[j].Text)
			}
			u.Index = strings.Join(idx, "\n")
			if d.DatePrefix {
				u.Index = u.Time.Format("2 January 2006") + "\n" + u.Index
			}
			out = append(out, u)
		}
	}
	return out
}

// PairText is a chat turn as the product stores an event: the user message
// then the reply.
func PairText(t locomo.Turn) string {
	switch {
	case t.User == "":
		return t.Assistant
	case t.Assistant == "":
		return t.User
	}
	return t.User + "\n" + t.Assistant
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
