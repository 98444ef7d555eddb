package background

import (
	"regexp"
	"strings"

	"github.com/memproxy/memproxy/gate"
	"github.com/memproxy/memproxy/memory"
)

// Gate is what ingest needs from the request gate: the noise classes and
// explicit-intent detection, so the queue and the proxy agree on both.
// *gate.Gate satisfies it.
type Gate interface {
	// Classify reports whether text is noise and which class.
	Classify(text string) (class string, noise bool)
	// Intent detects an explicit remember/forget instruction.
	Intent(text string) memory.Intent
	// ExplicitContent strips the instruction cue ("remember that"),
	// leaving what to store or forget.
	ExplicitContent(text string) string
}

var _ Gate = (*gate.Gate)(nil)

var fenceRe = regexp.MustCompile(`(?s)<memory>.*?</memory>|</?memory>`)

// StripFence removes memproxy's memory block (and stray fence tags) from a
// text so recalled memories are never re-extracted.
func StripFence(s string) string {
	if !strings.Contains(s, "memory>") {
		return s
	}
	return strings.TrimSpace(fenceRe.ReplaceAllString(s, ""))
}
