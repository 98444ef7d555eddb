package background

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"strings"
	"unicode"

	"github.com/memproxy/memproxy/text"
)

// contentTerms are a text's content words (text.ContentWords).
func contentTerms(s string) []string { return text.ContentWords(s) }

// coverage is the share of a's content terms present in b.
func coverage(a, b string) float64 { return text.Coverage(a, b) }

// Informativeness scores how much a user message says (0..1): length,
// numbers, names and CJK content raise it. It sets an event's value, so
// chatter is what decay archives first.
func Informativeness(s string) float64 {
	terms := contentTerms(s)
	score := 0.1 + math.Min(0.35, float64(len(terms))*0.03)
	digits, caps := false, 0
	prevSpace := true
	for _, r := range s {
		switch {
		case unicode.IsDigit(r):
			digits = true
		case unicode.IsUpper(r) && !prevSpace:
		case unicode.IsUpper(r):
			caps++
		}
		prevSpace = unicode.IsSpace(r)
	}
	if digits {
		score += 0.15
	}
	score += math.Min(0.15, float64(max(caps-1, 0))*0.05)
	return math.Round(math.Min(0.75, score)*100) / 100
}

// stableID derives a memory id from its origin so a retried job writes
// the same row instead of a duplicate.
func stableID(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	return hex.EncodeToString(h[:8])
}

func normText(s string) string {
	return strings.Join(strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsPunct(r)
	}), " ")
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

func union(a []string, b ...string) []string {
	seen := make(map[string]bool, len(a)+len(b))
	out := make([]string, 0, len(a)+len(b))
	for _, l := range [][]string{a, b} {
		for _, s := range l {
			if s != "" && !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}
