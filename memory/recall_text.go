package memory

import (
	"bytes"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memproxy/memproxy/lexicon"
	"github.com/memproxy/memproxy/text"
)

// stopTerms are query words that carry no topic: without them "what is my
// dog's name" is about {dog, name}, not about {what, is, my, s}.
var stopTerms = map[string]bool{
	"a": true, "an": true, "the": true, "is": true, "are": true, "was": true, "were": true, "be": true,
	"been": true, "am": true, "do": true, "does": true, "did": true, "have": true, "has": true, "had": true,
	"i": true, "me": true, "my": true, "you": true, "your": true, "we": true, "our": true, "he": true,
	"she": true, "it": true, "its": true, "they": true, "them": true, "their": true, "his": true, "her": true,
	"what": true, "which": true, "who": true, "whom": true, "when": true, "where": true, "why": true, "how": true,
	"of": true, "to": true, "in": true, "on": true, "at": true, "for": true, "with": true, "about": true,
	"from": true, "by": true, "as": true, "and": true, "or": true, "but": true, "not": true, "no": true,
	"so": true, "that": true, "this": true, "these": true, "those": true, "there": true, "s": true, "t": true,
	"can": true, "could": true, "would": true, "should": true, "will": true, "shall": true, "may": true,
	"might": true, "any": true, "some": true, "tell": true, "know": true, "please": true, "again": true,
	"remember": true, "recall": true, "said": true, "told": true, "mentioned": true, "last": true,
	"的": true, "了": true, "吗": true, "呢": true, "吧": true, "啊": true, "是": true, "我": true,
	"你": true, "什么": true, "怎么": true, "我的": true, "记得": true, "之前": true, "上次": true,
	// the characters of those, as lone or edge terms (你记得我上次说的 …)
	"记": true, "得": true, "之": true, "前": true, "上": true, "次": true, "说": true,
}

// contentTerms are the query's distinct topic terms: lowercased, stemmed
// words and CJK terms (bigrams, lone characters and those next to a
// function character: eachTerm), stop words out.
func contentTerms(q string) []string { return newQueryTerms(q).terms }

// maxQueryTerms bounds the terms (and so the pairs) a query is matched
// with: coverage and phrase matching keep their state in fixed arrays.
const maxQueryTerms = 64

// queryTerms are a query's content terms (contentTerms) and its phrases:
// the pairs of terms that stand side by side once stop words are out
// ("clothing store" → (cloth, store); "honor the memories" → (honor,
// memori)). They are indices into terms.
type queryTerms struct {
	terms []string
	pairs [][2]int8
	// words are the asked terms (asked) as written, lowercased, by term
	// index ("" for the others): the lexicon is not stemmed.
	words []string
	// hypo maps the stem of a hyponym of one of the query's category
	// words (expand) to the bits of the terms it stands for: "karate"
	// holds "martial" and "art" of "martial arts". nil: none.
	hypo map[string]uint64
	// hypoStarts are the ways the hyponyms begin (matchTexts' filter).
	hypoStarts asciiStarts
	// asked: the terms that name what the query asks for, as a bit per
	// term: the content words (at most two) right after "what", "which",
	// "any", "favourite", "kind of" ("What European countries …", "What
	// kind of art …", not "What did Caroline research?"), the only ones
	// expand looks up; proper: those written capitalised (names, which
	// expand takes only as part of a pair: "European countries", never
	// "John").
	asked, proper uint64
	// many: asked terms after a plural cue ("kinds of", "types of"):
	// asked for as many, whatever their own number.
	many uint64
	// head: asked terms that end their phrase (no content word follows
	// them directly): "countries" of "What European countries has …",
	// not "activity" nor the verb "helps" of "Which activity helps Nate
	// …". A category is its phrase's last word.
	head uint64
	// keys and starts, once index ran (recall matches every candidate
	// against one query): each term's startKey (-1 for one not of ASCII
	// letters), and the ways the terms and the hyponyms begin.
	keys   []int16
	starts asciiStarts
}

// index fills keys and starts; the terms and hyponyms are final.
func (qt *queryTerms) index() {
	terms := qt.terms[:min(len(qt.terms), maxQueryTerms)]
	qt.keys = make([]int16, len(terms))
	qt.starts = termStarts(terms, qt.hypoStarts)
	for i, q := range terms {
		qt.keys[i] = -1
		if asciiLetterStart(q) {
			qt.keys[i] = int16(startKey(q))
		}
	}
}

// asciiLetterStart reports whether q begins with lowercase ASCII letters
// only (one, or two), as startKey takes it.
func asciiLetterStart(q string) bool {
	return len(q) > 0 && q[0] >= 'a' && q[0] <= 'z' && (len(q) == 1 || q[1] >= 'a' && q[1] <= 'z')
}

// termStarts is the set of ways terms begin, with hypo's.
func termStarts(terms []string, hypo asciiStarts) asciiStarts {
	starts := hypo
	for _, q := range terms {
		if asciiLetterStart(q) {
			k := startKey(q)
			starts[k/64] |= 1 << uint(k%64)
		}
	}
	return starts
}

// askCues are the words after which a query names the kind of thing it
// asks for. The content words among them ("kind", "favorite") pass the
// cue on, also over an "of" ("favourite style of dance").
var askCues = map[string]bool{
	"what": true, "which": true, "any": true, "favorite": true, "favourite": true,
	"kind": true, "kinds": true, "type": true, "types": true, "sort": true, "sorts": true,
	"style": true, "styles": true,
}

// pluralCues ask for many of what follows them ("kinds of dance").
var pluralCues = map[string]bool{"kinds": true, "types": true, "sorts": true, "styles": true}

// Hyponym expansion bounds: the most hyponyms taken of one category word
// (the commonest first) and of one query.
const (
	hyponymsPerTerm  = 32
	hyponymsPerQuery = 64
)

// expand looks the query's category words up in the lexicon (package
// lexicon: WordNet's hyponyms of a noun) and returns the hyponyms to
// search for, most common first; matching (matchTexts) then counts a
// hyponym in a memory as its category's term(s). A pair of adjacent
// terms that names a category ("martial arts", "European countries") is
// taken before its words, and its last word is then not expanded alone:
// "arts" alone would bring paintings. Only the terms that name what the
// query asks for (asked) are looked up, "When did Caroline go to the
// support group?" asks for a time, not for kinds of support; and only a
// plural category: "What sports does John like?" asks for its members,
// "What kind of cake did she bake?" for one, which the memory most often
// names by the word itself (expanding it brought other memories in its
// place: LoCoMo dev recall@5 0.7533 plural only, 0.7493 with singulars).
func (qt *queryTerms) expand() []string {
	var words []string
	add := func(bits uint64, category ...string) bool {
		if qt.many&bits == 0 && !lexicon.Plural(category...) {
			return false
		}
		hs := lexicon.Hyponyms(hyponymsPerTerm, category...)
		if len(hs) == 0 {
			return false
		}
		for _, h := range hs {
			if len(words) == hyponymsPerQuery {
				break
			}
			st := Stem(h)
			if slices.Contains(qt.terms, st) {
				continue
			}
			if qt.hypo == nil {
				qt.hypo = make(map[string]uint64)
			}
			if _, ok := qt.hypo[st]; !ok {
				words = append(words, h)
				k := startKey(st) // the lexicon's words are lowercase ASCII letters
				qt.hypoStarts[k/64] |= 1 << uint(k%64)
			}
			qt.hypo[st] |= bits
		}
		return true
	}
	var done uint64 // terms expanded through a pair
	for _, p := range qt.pairs {
		a, b := int(p[0]), int(p[1])
		if qt.asked&(1<<uint(a)) == 0 || qt.head&(1<<uint(b)) == 0 { // asked terms have words
			continue
		}
		if add(1<<uint(a)|1<<uint(b), qt.words[a], qt.words[b]) {
			done |= 1 << uint(b)
		}
	}
	for i, w := range qt.words {
		if done&(1<<uint(i)) != 0 || qt.head&^qt.proper&(1<<uint(i)) == 0 {
			continue
		}
		add(1<<uint(i), w)
	}
	return words
}

func newQueryTerms(q string) queryTerms {
	var qt queryTerms
	prev := -1
	window, afterCue, many := 0, false, false // content terms still asked for after a cue
	last := -1                                // the term just before, when no stop word came between
	eachTerm(q, func(t string, kind int) {
		switch kind {
		case termChar:
			// A character inside a longer CJK piece is no query term (as
			// in text.QueryTerms): 小白 must not match 小黑.
			return
		case termEdge:
			// One next to a function character is (喝 of 平时喝什么), as
			// a lone one is (狗 of 我的狗); outside phrases and asked words.
			if !stopTerms[t] && !slices.Contains(qt.terms, t) && len(qt.terms) < maxQueryTerms {
				qt.terms = append(qt.terms, t)
			}
			return
		}
		capital := t[0] >= 'A' && t[0] <= 'Z'
		t = strings.ToLower(t)
		cue := askCues[t]
		wasCue := afterCue
		afterCue = cue
		if cue {
			window = 2
			many = pluralCues[t]
		}
		if stopTerms[t] {
			if !cue && !(t == "of" && wasCue) {
				window = 0
			}
			last = -1
			return
		}
		w := t
		t = Stem(t)
		i := slices.Index(qt.terms, t)
		if i < 0 {
			if len(qt.terms) == maxQueryTerms {
				prev, last = -1, -1
				return
			}
			i = len(qt.terms)
			qt.terms = append(qt.terms, t)
		}
		if window > 0 && !cue && i < maxQueryTerms {
			for len(qt.words) <= i {
				qt.words = append(qt.words, "")
			}
			qt.words[i] = w
			qt.asked |= 1 << uint(i)
			if capital {
				qt.proper |= 1 << uint(i)
			}
			if many {
				qt.many |= 1 << uint(i)
			}
			window--
		}
		if last >= 0 && last < maxQueryTerms {
			qt.head &^= 1 << uint(last)
		}
		if i < maxQueryTerms && qt.asked&(1<<uint(i)) != 0 {
			qt.head |= 1 << uint(i)
		}
		last = i
		if p := [2]int8{int8(prev), int8(i)}; prev >= 0 && prev != i && len(qt.pairs) < maxQueryTerms && !slices.Contains(qt.pairs, p) {
			qt.pairs = append(qt.pairs, p)
		}
		prev = i
	})
	return qt
}

// coverage is the share of terms (lowercase, stemmed) that occur in text
// (0 with no terms), each word of text stemmed as the stores index it.
func coverage(terms []string, text string) float64 {
	c, _ := queryTerms{terms: terms}.match(text)
	return c
}

// match reads text once (each word stemmed as the stores index it, stop
// words skipped) and reports the share of the query's terms it contains
// and how many of the query's phrases occur in it as adjacent words. It
// allocates nothing: recall runs it on every candidate.
func (qt queryTerms) match(text string) (coverage float64, phrases int) {
	coverage, phrases, _ = qt.matchTerms(text)
	return coverage, phrases
}

// matchTerms is match that also reports which of the query's terms text
// holds, as a bit per term (terms past the 64th are not matched).
func (qt queryTerms) matchTerms(text string) (coverage float64, phrases int, seenMask uint64) {
	return qt.matchTexts(text, "")
}

// asciiStarts is a set of the ways a lowercase ASCII word can begin: its
// first letter, and its second (none for a one-letter word).
type asciiStarts [(26*27 + 63) / 64]uint64

// startKey is the asciiStarts key of an ASCII word (letters only, any case,
// not empty).
func startKey(t string) int {
	k := int(t[0]|0x20-'a') * 27
	if len(t) > 1 {
		k += int(t[1]|0x20-'a') + 1
	}
	return k
}

// matchTexts is matchTerms of a+"\n"+b (b may be ""; a memory's text and
// its context, SearchText) without joining them: the newline ends every
// word and CJK run, so reading a then b emits the same terms.
//
// Most words of a candidate match no query term: an ASCII word whose first
// two letters begin no query term (stemming never changes them) and that
// follows no matched word is passed over without the stop-word lookup and
// the stemming, which could only have told that it matches nothing.
func (qt queryTerms) matchTexts(a, b string) (coverage float64, phrases int, seenMask uint64) {
	terms := qt.terms
	if len(terms) == 0 {
		return 0, 0, 0
	}
	if len(terms) > maxQueryTerms {
		terms = terms[:maxQueryTerms]
	}
	starts, keys := qt.starts, qt.keys
	if keys == nil {
		starts = termStarts(terms, qt.hypoStarts)
	}
	var seen, seenPair [maxQueryTerms]bool
	var buf [maxStemLen]byte
	n, prev := 0, -1
	match := func(t string, kind int) {
		if kind != termPlain {
			// A character of a CJK piece of the memory: it matches a
			// query's lone character, outside phrases.
			for i, q := range terms {
				if q == t {
					if !seen[i] {
						seen[i] = true
						seenMask |= 1 << uint(i)
						n++
					}
					break
				}
			}
			return
		}
		var st []byte
		key := int16(-1)
		if len(t) <= maxStemLen && asciiWord(t) {
			k := startKey(t)
			if prev < 0 && starts[k/64]&(1<<uint(k%64)) == 0 {
				// No term starts so: cur would be -1, and prev is -1
				// already whether or not t is a stop word.
				return
			}
			for i := 0; i < len(t); i++ {
				c := t[i]
				if c >= 'A' && c <= 'Z' {
					c += 'a' - 'A'
				}
				buf[i] = c
			}
			if stopTerms[string(buf[:len(t)])] {
				return
			}
			st = buf[:stemBytes(buf[:len(t)])]
			key = int16(k) // stemming keeps the first two letters
		} else if stopTerms[t] {
			return
		}
		// CJK scripts have no case: their terms compare as bytes, where
		// EqualFold would look up every rune's case orbit against every
		// query term (half of a long CJK-bearing recall's CPU).
		caseless := st == nil && len(t) > 0 && t[0] >= utf8.RuneSelf && cjkScript(firstRune(t))
		cur := -1
		if st != nil && keys != nil {
			// Only a term beginning as the stem does can equal it.
			for i, k := range keys {
				if k == key && string(st) == terms[i] {
					cur = i
					break
				}
			}
		} else {
			for i, q := range terms {
				if st != nil && string(st) == q || caseless && q == t || st == nil && !caseless && strings.EqualFold(q, t) {
					cur = i
					break
				}
			}
		}
		if cur < 0 && st != nil && qt.hypo != nil {
			if bits := qt.hypo[string(st)]; bits != 0 {
				// A kind of what the query asks about stands for its
				// category's terms; it makes no phrase.
				for i := range terms {
					if bits&(1<<uint(i)) != 0 && !seen[i] {
						seen[i] = true
						seenMask |= 1 << uint(i)
						n++
					}
				}
			}
		}
		if cur >= 0 && !seen[cur] {
			seen[cur] = true
			seenMask |= 1 << uint(cur)
			n++
		}
		if cur >= 0 && prev >= 0 {
			for i, p := range qt.pairs {
				if !seenPair[i] && int(p[0]) == prev && int(p[1]) == cur {
					seenPair[i] = true
					phrases++
				}
			}
		}
		prev = cur
	}
	eachTerm(a, match)
	if b != "" {
		eachTerm(b, match)
	}
	return float64(n) / float64(len(terms)), phrases, seenMask
}

// asciiWord reports whether t is made of ASCII letters only (the words
// Stem changes).
func asciiWord(t string) bool {
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// eachTerm splits text into words (letters, digits, marks) and CJK terms
// the way the stores index it (text.EachCJKTerm: a CJK run split at
// Chinese function characters, each piece as its bigrams, then its Han
// characters), and emits them as substrings of text (not lowercased).
func eachTerm(s string, emit func(t string, kind int)) {
	word := -1                      // start of the current word, -1 when none
	piece, prev, runes := -1, -1, 0 // start of the CJK piece, start of its last rune, its runes
	afterFn := false                // the piece follows a function character
	flushWord := func(end int) {
		if word >= 0 {
			emit(s[word:end], termPlain)
			word = -1
		}
	}
	flushCJK := func(end int, beforeFn bool) {
		switch {
		case runes == 1:
			emit(s[piece:end], termPlain) // a lone character
		case runes > 1:
			k := 0
			for i, r := range s[piece:end] {
				if unicode.Is(unicode.Han, r) {
					kind := termChar
					if k == 0 && afterFn || k == runes-1 && beforeFn {
						kind = termEdge
					}
					emit(s[piece+i:piece+i+utf8.RuneLen(r)], kind)
				}
				k++
			}
		}
		piece, prev, runes = -1, -1, 0
	}
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			// ASCII (most text): a word byte or a separator, decided
			// from a table; no CJK piece is open after the first.
			if runes > 0 {
				flushCJK(i, false)
			}
			afterFn = false
			if text.ASCIIWordByte(c) {
				if word < 0 {
					word = i
				}
			} else {
				flushWord(i)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case cjkScript(r) && cjkFunction(r):
			flushWord(i)
			flushCJK(i, true)
			afterFn = true
		case cjkScript(r):
			flushWord(i)
			if prev >= 0 {
				emit(s[prev:i+utf8.RuneLen(r)], termPlain)
			} else {
				piece = i
			}
			prev = i
			runes++
		case termRune(r):
			flushCJK(i, false)
			afterFn = false
			if word < 0 {
				word = i
			}
		default:
			flushWord(i)
			flushCJK(i, false)
			afterFn = false
		}
		i += size
	}
	flushWord(len(s))
	flushCJK(len(s), false)
}

// excluder answers "is this memory already in the request's messages?" by
// substring match over normalised text (case, width, punctuation and
// spacing ignored). A memory of several lines (an event is the user's text,
// then "Assistant: " and the reply, possibly cut short) is in the messages
// when each of its lines, role label removed, is: chat apps resend the
// whole history, and a turn of this very conversation must not come back
// as a memory.
type excluder struct{ hay []byte }

func newExcluder(texts []string) excluder {
	var hay []byte
	for _, t := range texts {
		hay = appendNormalized(hay, t)
		hay = append(hay, '\n') // never produced by appendNormalized: no match spans two messages
	}
	return excluder{hay: hay}
}

// contains is asked of every candidate of every recall, so it normalises
// each line into one scratch buffer instead of a string apiece.
func (e excluder) contains(text string) bool {
	if len(e.hay) == 0 {
		return false
	}
	var scratch [256]byte
	n := scratch[:0]
	found := false
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(line)
		for _, label := range []string{"assistant:", "user:"} {
			if len(line) >= len(label) && strings.EqualFold(line[:len(label)], label) {
				line = line[len(label):]
			}
		}
		// Most candidates are in no message, and a line's normalised
		// form begins with its head's: a head the messages lack rejects
		// the line before the rest of it is normalised.
		head := min(len(line), excludeHead)
		for head < len(line) && !utf8.RuneStart(line[head]) {
			head++
		}
		var space bool
		n, space = appendNormalizedFrom(n[:0], 0, line[:head], false)
		if head < len(line) {
			if len(n) > 0 && !bytes.Contains(e.hay, n) {
				return false
			}
			n, _ = appendNormalizedFrom(n, 0, line[head:], space)
		}
		if len(n) == 0 {
			continue
		}
		if !bytes.Contains(e.hay, n) {
			return false
		}
		found = true
	}
	return found
}

// excludeHead is how many bytes of a line the excluder normalises and
// looks up before the rest.
const excludeHead = 64

// normalizeForMatch lowercases, folds fullwidth ASCII, keeps letters,
// digits and CJK, and turns every other run into one space.
func normalizeForMatch(s string) string {
	return string(appendNormalized(make([]byte, 0, len(s)), s))
}

// appendNormalized appends normalizeForMatch(s) to b.
func appendNormalized(b []byte, s string) []byte {
	b, _ = appendNormalizedFrom(b, len(b), s, false)
	return b
}

// appendNormalizedFrom appends the normalised form of s to b as the
// continuation of a text whose normalised form began at b[start] and whose
// last rune so far was not a term rune when space is set (so a text
// normalised in pieces reads as normalised whole). It reports space for
// the next piece.
func appendNormalizedFrom(b []byte, start int, s string, space bool) ([]byte, bool) {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			i++
			if !text.ASCIIWordByte(c) {
				space = true
				continue
			}
			if space && len(b) > start {
				b = append(b, ' ')
			}
			space = false
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			b = append(b, c)
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r >= 0xff01 && r <= 0xff5e {
			r -= 0xfee0
		}
		if termRune(r) {
			if space && len(b) > start {
				b = append(b, ' ')
			}
			space = false
			b = utf8.AppendRune(b, unicode.ToLower(r))
			continue
		}
		space = true
	}
	return b, space
}

// termRune reports whether r belongs in a word: a letter, digit or
// combining mark (ASCII decided without table lookups).
func termRune(r rune) bool {
	if r < 0x80 {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}
