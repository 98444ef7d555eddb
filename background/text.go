package background

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"strings"
	"unicode"

	"github.com/memproxy/memproxy/memory"
)

// stopwords are left out of lexical overlap (forget matching, usage
// feedback): they match everything.
var stopwords = buildStopwords()

func buildStopwords() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the i me my mine we our you your he she it its they them their is am are was were be been being
	to of in on at for with and or but so that this these those do does did have has had not no as by from about
	user user's will would can could should just also really very please note remember forget that's i'm i've
	我 你 的 了 是 在 和 也 都 就 很 吧 吗 呢 啊`) {
		m[w] = true
	}
	return m
}

// contentTerms are a text's lexical tokens without stopwords, with a
// trailing English plural/verb "s" dropped so lives≈live.
func contentTerms(s string) []string {
	var out []string
	for _, t := range memory.QueryTerms(s) {
		if stopwords[t] {
			continue
		}
		if len(t) > 3 && strings.HasSuffix(t, "s") && !strings.HasSuffix(t, "ss") && t[0] < 0x80 {
			t = t[:len(t)-1]
		}
		out = append(out, t)
	}
	return out
}

// coverage is the share of a's content terms present in b.
func coverage(a, b string) float64 {
	at := contentTerms(a)
	if len(at) == 0 {
		return 0
	}
	bs := map[string]bool{}
	for _, t := range contentTerms(b) {
		bs[t] = true
	}
	n := 0
	for _, t := range at {
		if bs[t] {
			n++
		}
	}
	return float64(n) / float64(len(at))
}

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
