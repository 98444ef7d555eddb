package gate

import (
	"sort"
	"strings"
	"unicode/utf8"
)

// phrase is one compiled word-list entry.
type phrase struct {
	s     string // normalised: lower case, single spaces, ASCII apostrophes
	class uint8
	// inword phrases may abut other phrases inside one word and stretch
	// ("hahaha", "2333", "lolll"); the others need a word boundary after a
	// latin ending.
	inword bool
	last   rune // stretchable last rune ("okkk", "noooo", "哈哈哈")
	latin  bool // ends with a latin word rune: needs a boundary after
}

// phraseSet indexes phrases by their first byte, longest first, so a
// lookup at a text position scans only the few phrases that can match.
type phraseSet struct {
	byFirst [256][]phrase
	n       int
}

// normalise lower-cases a list entry, unifies apostrophes and collapses
// whitespace, the form matchFold expects.
func normalise(s string) string {
	s = strings.ReplaceAll(strings.ToLower(s), "’", "'")
	return strings.Join(strings.Fields(s), " ")
}

func (ps *phraseSet) add(s string, class uint8, inword bool) {
	s = normalise(s)
	if s == "" {
		return
	}
	last, _ := utf8.DecodeLastRuneInString(s)
	p := phrase{s: s, class: class, inword: inword, last: last, latin: isLatinWord(last)}
	b := s[0]
	for _, q := range ps.byFirst[b] {
		if q.s == p.s && q.class == p.class && q.inword == p.inword {
			return
		}
	}
	ps.byFirst[b] = append(ps.byFirst[b], p)
	ps.n++
}

// sort orders each bucket longest first (greedy longest match), keeping
// insertion order, which is class priority, among equals.
func (ps *phraseSet) sort() {
	for i := range ps.byFirst {
		sort.SliceStable(ps.byFirst[i], func(a, b int) bool {
			return len(ps.byFirst[i][a].s) > len(ps.byFirst[i][b].s)
		})
	}
}

// matchAt finds the longest phrase matching s at i (i at a word rune) and
// returns it with the end of the match, stretching included.
func (ps *phraseSet) matchAt(s string, i int) (phrase, int, bool) {
	for _, p := range ps.byFirst[lowerASCII(s[i])] {
		if p.s[0] >= utf8.RuneSelf && (i+1 >= len(s) || s[i+1] != p.s[1]) {
			continue // multi-byte first rune: the second byte rules most out cheaply
		}
		end, ok := matchFold(s, i, p.s)
		if !ok {
			continue
		}
		end = stretch(s, end, p)
		if p.latin && !p.inword && !boundaryAfter(s, end) {
			continue
		}
		return p, end, true
	}
	return phrase{}, 0, false
}

// stretch consumes repeats of the phrase's last rune ("okkk", "2333") and,
// for in-word phrases, a trailing partial repeat ending the word ("hahah").
func stretch(s string, end int, p phrase) int {
	for {
		r, n := runeAt(s, end)
		if n == 0 || foldRune(r) != p.last {
			break
		}
		end += n
	}
	if !p.inword || !p.latin {
		return end
	}
	k := end
	for k < len(s) && k-end < len(p.s) {
		r, n := runeAt(s, k)
		if !isLatinWord(r) {
			break
		}
		k += n
	}
	if k > end && k-end < len(p.s) && boundaryAfter(s, k) && hasPrefixFoldAt(p.s, 0, lowerString(s[end:k])) {
		return k
	}
	return end
}

func foldRune(r rune) rune {
	if 'A' <= r && r <= 'Z' {
		return r + 'a' - 'A'
	}
	return r
}

// lowerString lower-cases ASCII without allocating when s is already lower.
func lowerString(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return strings.ToLower(s)
		}
	}
	return s
}

// scan finds the first phrase occurring in s at or after i. Latin phrases
// start only at a word boundary ("my" matches "my sister", not "economy");
// CJK phrases match anywhere.
func (ps *phraseSet) scan(s string, i int) (p phrase, start, end int, ok bool) {
	if ps.n == 0 {
		return phrase{}, 0, 0, false
	}
	prevLatin := !boundaryBefore(s, i)
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf { // ASCII fast path: most of English text
			latin := asciiWord[c]
			if !(latin && prevLatin) && len(ps.byFirst[lowerASCII(c)]) > 0 {
				if p, end, ok := ps.matchAt(s, i); ok {
					return p, i, end, true
				}
			}
			prevLatin = latin
			i++
			continue
		}
		r, n := runeAt(s, i)
		latin := isLatinWord(r)
		if !(latin && prevLatin) && len(ps.byFirst[lowerASCII(s[i])]) > 0 {
			if p, end, ok := ps.matchAt(s, i); ok {
				return p, i, end, true
			}
		}
		prevLatin = latin
		i += n
	}
	return phrase{}, 0, 0, false
}
