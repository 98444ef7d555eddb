package background

import (
	"regexp"
	"strings"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
)

// Gate is what ingest needs from the request gate: the noise classes and
// explicit-intent detection, so the queue and the proxy agree on both. The
// gate package's classifier satisfies it (through GateFuncs when its types
// differ).
type Gate interface {
	// Noise reports whether text is noise and which class.
	Noise(text string) (class string, noise bool)
	// Intent detects an explicit remember/forget instruction.
	Intent(text string) memory.Intent
	// ExplicitContent strips the instruction cue ("remember that"),
	// leaving what to store or forget.
	ExplicitContent(text string) string
}

// GateFuncs adapts plain functions to Gate.
type GateFuncs struct {
	NoiseFunc    func(text string) (string, bool)
	IntentFunc   func(text string) memory.Intent
	ExplicitFunc func(text string) string
}

func (g GateFuncs) Noise(t string) (string, bool)  { return g.NoiseFunc(t) }
func (g GateFuncs) Intent(t string) memory.Intent   { return g.IntentFunc(t) }
func (g GateFuncs) ExplicitContent(t string) string { return g.ExplicitFunc(t) }

var _ Gate = GateFuncs{}
var _ Gate = (*ruleGate)(nil)

// ruleGate is the fallback when no gate is wired: the policy's cue lists
// read literally. The server wires the real gate; this keeps the queue
// usable alone (tools, tests of other packages).
type ruleGate struct {
	g policy.Gate
	e policy.Explicit
}

func newRuleGate(p *policy.Policy) *ruleGate { return &ruleGate{g: p.Gate, e: p.Explicit} }

func (r *ruleGate) Noise(text string) (string, bool) {
	t := strings.ToLower(strings.TrimSpace(text))
	t = strings.TrimRight(t, ".!?~。！？～ ")
	switch {
	case len([]rune(t)) < r.g.MinChars:
		return "short", true
	case hasPrefixAny(t, r.g.CommandPrefixes):
		return "command", true
	case inList(t, r.g.Acknowledgements):
		return "ack", true
	case inList(t, r.g.Negations):
		return "negation", true
	case inList(t, r.g.Greetings):
		return "greeting", true
	case isLaughter(t, r.g.Laughter):
		return "laughter", true
	case !strings.ContainsFunc(t, func(c rune) bool { return c < 0x2000 || memory.IsCJK(c) }):
		return "emoji", true
	}
	return "", false
}

func (r *ruleGate) Intent(text string) memory.Intent {
	low := strings.ToLower(text)
	for _, c := range r.e.ForgetCues {
		if strings.Contains(low, strings.ToLower(c)) {
			return memory.IntentForget
		}
	}
	for _, c := range r.e.RememberCues {
		if strings.Contains(low, strings.ToLower(c)) {
			return memory.IntentRemember
		}
	}
	return memory.IntentNone
}

func (r *ruleGate) ExplicitContent(text string) string {
	return stripCues(text, append(append([]string{}, r.e.ForgetCues...), r.e.RememberCues...))
}

// stripCues removes the first cue found and the filler around it.
func stripCues(text string, cues []string) string {
	low := strings.ToLower(text)
	for _, c := range cues {
		lc := strings.ToLower(c)
		if i := strings.Index(low, lc); i >= 0 {
			rest := text[:i] + text[i+len(lc):]
			rest = strings.TrimSpace(rest)
			rest = strings.TrimLeft(rest, ":：,，、 ")
			for _, p := range []string{"that ", "about ", "我", "，"} {
				if p != "我" {
					rest = strings.TrimPrefix(rest, p)
				}
			}
			return strings.TrimSpace(rest)
		}
	}
	return strings.TrimSpace(text)
}

func hasPrefixAny(s string, ps []string) bool {
	for _, p := range ps {
		if p != "" && strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func inList(s string, l []string) bool {
	for _, x := range l {
		if s == strings.ToLower(x) {
			return true
		}
	}
	return false
}

func isLaughter(s string, toks []string) bool {
	s = strings.ReplaceAll(s, " ", "")
	if s == "" {
		return false
	}
	for s != "" {
		ok := false
		for _, t := range toks {
			if t != "" && strings.HasPrefix(s, t) {
				s, ok = s[len(t):], true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

var fenceRe = regexp.MustCompile(`(?s)<memory>.*?</memory>|</?memory>`)

// StripFence removes memproxy's memory block (and stray fence tags) from a
// text so recalled memories are never re-extracted.
func StripFence(s string) string {
	if !strings.Contains(s, "memory>") {
		return s
	}
	return strings.TrimSpace(fenceRe.ReplaceAllString(s, ""))
}
