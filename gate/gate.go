package gate

import (
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
)

// Skip classes returned by Classify. The first six are noise: never worth
// a recall and never worth storing. ClassGreeting is a skip class for recall
// only; a caller dropping turns may drop it too.
const (
	ClassAcknowledgement = "acknowledgement"
	ClassEmojiOnly       = "emoji_only"
	ClassCommand         = "command"
	ClassTooShort        = "too_short"
	ClassNegation        = "negation"
	ClassLaughter        = "laughter"
	ClassGreeting        = "greeting"
)

// Decision reasons besides "noise:<class>" and "cue:<cue>".
const (
	ReasonGreeting      = "greeting"
	ReasonNotUser       = "not_user_message"
	ReasonAdaptive      = "adaptive"
	reasonNoisePrefix   = "noise:"
	reasonCuePrefix     = "cue:"
	roleUser            = "user"
	defaultMinChars     = 3
	maxCoverableMessage = 512 // longer messages are never whole-message noise
	maxPrefixBeforeCue  = 64  // bytes of politeness allowed before an explicit cue
	explicitWindow      = 600 // bytes read at each end of a long message for explicit cues
)

// View is what the gate sees of a request: the last message.
type View struct {
	// Role of the last message ("user", "assistant", "tool", ...).
	Role string
	// Text of the last message; the caller joins the text parts of a
	// content array.
	Text string
}

// Decision is the gate's verdict for one request.
type Decision struct {
	// Recall is true when memories should be retrieved.
	Recall bool
	// Force is true when the user referred to the past ("last time",
	// "我的 …"): recall should not be suppressed by a raised adaptive
	// threshold; callers use the policy's base min_score (or the lower of
	// the two).
	Force bool
	// Reason is "noise:<class>", "greeting", "not_user_message",
	// "cue:<cue>" or "adaptive".
	Reason string
}

// Gate holds the compiled word lists of one policy. It is immutable and
// safe for concurrent use.
type Gate struct {
	minChars int
	commands []string
	noise    phraseSet // acknowledgements, negations, greetings, laughter, fillers
	cues     phraseSet // recall cues
	explicit phraseSet // remember and forget cues
	prefixes phraseSet // politeness allowed before an explicit cue
	// cueReason holds the precomputed "cue:<cue>" reasons so Decide does
	// not concatenate strings on the hot path.
	cueReason map[string]string
}

// New compiles the gate's word lists from policy.
func New(g policy.Gate, e policy.Explicit) *Gate {
	gt := &Gate{minChars: g.MinChars, cueReason: map[string]string{}}
	if gt.minChars < 0 {
		gt.minChars = defaultMinChars
	}
	for _, c := range g.CommandPrefixes {
		if c != "" {
			gt.commands = append(gt.commands, c)
		}
	}
	gt.compileNoise(g)
	for _, c := range g.RecallCues {
		gt.cues.add(c, 0, false)
		n := normalise(c)
		gt.cueReason[n] = reasonCuePrefix + n
	}
	gt.cues.sort()
	gt.compileExplicit(e)
	return gt
}

// Decide is the recall decision for one request.
func (g *Gate) Decide(v View) Decision {
	if v.Role != roleUser {
		return Decision{Reason: ReasonNotUser}
	}
	if class, _ := g.Classify(v.Text); class != "" {
		if class == ClassGreeting {
			return Decision{Reason: ReasonGreeting}
		}
		return Decision{Reason: noiseReason(class)}
	}
	if cue, ok := g.RecallCue(v.Text); ok {
		return Decision{Recall: true, Force: true, Reason: g.cueReason[cue]}
	}
	return Decision{Recall: true, Reason: ReasonAdaptive}
}

// RecallCue returns the first recall cue (normalised, as in policy) found
// in text.
func (g *Gate) RecallCue(text string) (string, bool) {
	p, _, _, ok := g.cues.scan(text, 0)
	return p.s, ok
}

func noiseReason(class string) string {
	switch class {
	case ClassAcknowledgement:
		return "noise:acknowledgement"
	case ClassEmojiOnly:
		return "noise:emoji_only"
	case ClassCommand:
		return "noise:command"
	case ClassTooShort:
		return "noise:too_short"
	case ClassNegation:
		return "noise:negation"
	case ClassLaughter:
		return "noise:laughter"
	}
	return reasonNoisePrefix + class
}

// Classify compiles g and e and classifies text; see (*Gate).Classify.
// Hot paths should build a Gate once with New.
func Classify(text string, g policy.Gate) (class string, noise bool) {
	return New(g, policy.Explicit{}).Classify(text)
}

// Decide compiles g and decides; see (*Gate).Decide.
func Decide(v View, g policy.Gate) Decision {
	return New(g, policy.Explicit{}).Decide(v)
}

// Intent compiles e and detects an explicit instruction; see (*Gate).Intent.
func Intent(text string, e policy.Explicit) memory.Intent {
	return New(policy.Gate{}, e).Intent(text)
}

// ExplicitContent compiles e and returns the payload of an explicit
// instruction; see (*Gate).ExplicitContent.
func ExplicitContent(text string, e policy.Explicit) string {
	return New(policy.Gate{}, e).ExplicitContent(text)
}
