package text

import (
	"hash/maphash"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// LexicalForm is the normalised text both stores index for lexical search
// (FTS5 on SQLite, tsvector on PostgreSQL). Neither backend's default
// tokenizer segments Chinese or Japanese, so the form is a space-separated
// list of tokens every tokenizer keeps whole:
//
//   - runs of letters, digits and combining marks outside CJK, lowercased
//     and stemmed (Stem: "hiking" → "hik"), so inflections match;
//   - runs of CJK characters (Han, Hiragana, Katakana, Hangul) split at
//     Chinese function characters (CJKFunction: 的, 了, 我, 吗 …), each
//     piece as its overlapping character bigrams and then its Han characters
//     ("我记得上次" → "记得 得上 上次 记 得 上 次"; "我的狗" → "狗"), so a
//     one-character word of a query (狗, 车, 茶) matches inside a longer
//     one (宠物狗) and no term spans a particle (的狗, 考的).
//
// Everything else (punctuation, symbols, spaces) separates tokens.
func LexicalForm(text string) string {
	var b strings.Builder
	b.Grow(len(text) + len(text)/2)
	emitTokens(text, true, func(tok string) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(tok)
	})
	return b.String()
}

// QueryTerms returns the distinct lexical tokens of a query, in order of
// first appearance, using the same rules as LexicalForm so a query matches
// what was indexed, except that a CJK piece of several characters gives
// only its bigrams and the characters at its edges next to a function
// character (EachCJKTerm): a lone character (the 狗 of 我的狗, the 喝 of
// 平时喝什么) matches the same character inside an indexed word (宠物狗,
// 喝茶), while a two-character word (小白) does not match every text
// sharing one of its characters (小黑).
// An empty result means the query has nothing to match.
func QueryTerms(q string) []string {
	// About a term in every six bytes of prose: one allocation for most
	// texts instead of a doubling for every few terms.
	terms := make([]string, 0, min(len(q)/6+2, 2*linearTerms))
	// Repeats are found by a look along terms while they are few, then
	// in a table of their indexes on the stack, and past tableTerms in a
	// map: a map for every text past 32 terms (an event with its reply)
	// was a third of what the background allocated.
	var table termTable
	tabled := 0 // terms in table
	var seen map[string]bool
	emitTokens(q, false, func(tok string) {
		switch {
		case seen != nil:
			if seen[tok] {
				return
			}
			seen[tok] = true
		case len(terms) < linearTerms:
			if slices.Contains(terms, tok) {
				return
			}
		case len(terms) < tableTerms:
			for ; tabled < len(terms); tabled++ {
				table.add(terms, terms[tabled], tabled)
			}
			if !table.add(terms, tok, len(terms)) {
				return
			}
			tabled++
		default:
			seen = make(map[string]bool, 2*len(terms))
			for _, t := range terms {
				seen[t] = true
			}
			if seen[tok] {
				return
			}
			seen[tok] = true
		}
		terms = append(terms, tok)
	})
	return terms
}

// linearTerms is how many distinct terms QueryTerms keeps in a slice
// alone: looking along a short one is cheaper than hashing.
const linearTerms = 32

// tableTerms is how many distinct terms a termTable holds (its slots half
// full at most).
const tableTerms = 256

// termTable is an open-addressed set of terms held as indexes into the
// caller's terms slice, small enough for the stack.
type termTable struct {
	slot [2 * tableTerms]uint16 // index+1 into terms; 0: empty
}

// termSeed hashes termTable's terms.
var termSeed = maphash.MakeSeed()

// add puts tok, to be terms[i], in the table; false when an equal term
// is there already.
func (t *termTable) add(terms []string, tok string, i int) bool {
	const mask = len(termTable{}.slot) - 1
	for h := int(maphash.String(termSeed, tok)) & mask; ; h = (h + 1) & mask {
		switch j := t.slot[h]; {
		case j == 0:
			t.slot[h] = uint16(i + 1)
			return true
		case terms[j-1] == tok:
			return false
		}
	}
}

// IsCJK reports whether r is written without spaces between words (Han,
// Hiragana, Katakana, Hangul, and the CJK prolonged sound and iteration
// marks), and so is indexed as character bigrams.
func IsCJK(r rune) bool {
	switch {
	case r < 0x1100: // below Hangul Jamo, the lowest of the four (most text: no table search)
		return false
	case unicode.Is(unicode.Han, r), unicode.Is(unicode.Hiragana, r),
		unicode.Is(unicode.Katakana, r), unicode.Is(unicode.Hangul, r):
		return true
	case r == 'ー' || r == '々' || r == '〆':
		return true
	}
	return false
}

func isWordRune(r rune) bool {
	if r < 0x300 { // below the first mark (Mn 0300; Mc starts at 0903)
		return unicode.IsLetter(r) || unicode.IsDigit(r)
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r)
}

// emitTokens emits text's lexical tokens; unigrams: also the inner
// characters of CJK pieces (the indexed form has them, a query's terms do
// not: see QueryTerms).
func emitTokens(text string, unigrams bool, emit func(string)) {
	var cjk []rune
	word := -1 // start of the current word in text, -1 when none
	flushWord := func(end int) {
		if word >= 0 {
			emit(wordToken(text[word:end]))
			word = -1
		}
	}
	flushCJK := func() {
		if len(cjk) == 0 {
			return
		}
		EachCJKTerm(cjk, func(t []rune, kind int) {
			if unigrams || kind != CJKChar {
				emit(string(t))
			}
		})
		cjk = cjk[:0]
	}
	for i := 0; i < len(text); {
		if c := text[i]; c < utf8.RuneSelf {
			// ASCII (most text): no CJK, and a word byte is a letter
			// or a digit.
			flushCJK()
			if asciiWordByte[c] {
				if word < 0 {
					word = i
				}
			} else {
				flushWord(i)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		switch {
		case IsCJK(r):
			flushWord(i)
			cjk = append(cjk, r)
		case isWordRune(r):
			flushCJK()
			if word < 0 {
				word = i
			}
		default:
			flushWord(i)
			flushCJK()
		}
		i += size
	}
	flushWord(len(text))
	flushCJK()
}

// asciiWordByte marks the ASCII letters and digits (isWordRune's ASCII).
var asciiWordByte = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = isWordRune(rune(c))
	}
	return t
}()

// ASCIIWordByte reports whether c, an ASCII byte, is a letter or a digit:
// the bytes of a word, for tokenisers reading ASCII a byte at a time.
func ASCIIWordByte(c byte) bool { return asciiWordByte[c] }

// wordToken is a word's token: lowercased and stemmed (Stem). An ASCII
// word is lowercased and stemmed in a buffer, with one allocation for the
// token.
func wordToken(w string) string {
	if len(w) > MaxStemLen {
		return Stem(strings.ToLower(w))
	}
	var buf [MaxStemLen]byte
	letters, lower := true, true
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case c >= utf8.RuneSelf:
			return Stem(strings.ToLower(w))
		case c >= 'A' && c <= 'Z':
			c += 'a' - 'A'
			lower = false
		case c < 'a' || c > 'z':
			letters = false
		}
		buf[i] = c
	}
	n := len(w)
	if n > 3 && letters {
		n = StemBytes(buf[:n])
	}
	if lower && string(buf[:n]) == w[:n] {
		return w[:n] // the word, or a prefix of it: no copy
	}
	return string(buf[:n])
}

// CJK term kinds (EachCJKTerm).
const (
	// CJKPlain: a bigram of a piece, or a piece of one character.
	CJKPlain = iota
	// CJKChar: a Han character inside a longer piece; indexed, no query
	// term (小白 must not match 小黑).
	CJKChar
	// CJKEdge: a Han character of a longer piece next to a function
	// character, which bounds a word there (喝 of 平时喝什么, 车 of 开车吗):
	// a query term too, as a one-character word often stands there.
	CJKEdge
)

// EachCJKTerm emits the lexical terms of a run of CJK characters: the run
// is split at Chinese function characters (CJKFunction); a piece of one
// character is emitted as itself, a longer one as its overlapping bigrams
// and then each of its Han characters (kana and Hangul syllables alone are
// mostly particles and endings), as CJKEdge where a function character
// stands next to it and CJKChar elsewhere. Pairs of adjacent terms
// (phrases) are read from the CJKPlain terms only.
func EachCJKTerm(run []rune, emit func(t []rune, kind int)) {
	for start := 0; start < len(run); {
		if CJKFunction(run[start]) {
			start++
			continue
		}
		end := start + 1
		for end < len(run) && !CJKFunction(run[end]) {
			end++
		}
		piece := run[start:end]
		if len(piece) == 1 {
			emit(piece, CJKPlain)
		} else {
			for i := 0; i+1 < len(piece); i++ {
				emit(piece[i:i+2], CJKPlain)
			}
			for i, r := range piece {
				if !unicode.Is(unicode.Han, r) {
					continue
				}
				kind := CJKChar
				if i == 0 && start > 0 || i == len(piece)-1 && end < len(run) {
					kind = CJKEdge // the run goes on with a function character
				}
				emit(piece[i:i+1], kind)
			}
		}
		start = end
	}
}

// CJKFunction reports whether r is a Chinese function character: a
// particle, pronoun or the copula, which carries no topic and is read as a
// separator, the way English stopwords are (的, 了, 吗, 呢, 吧, 啊, 呀, 嘛,
// 么, 什, 怎, 这, 那, 我, 你, 他, 她, 它, 们, 是, and 叫 of 叫什么, 名叫).
func CJKFunction(r rune) bool {
	switch r {
	case '的', '了', '吗', '呢', '吧', '啊', '呀', '嘛', '么', '什', '怎', '这', '那', '我', '你', '他', '她', '它', '们', '是', '叫':
		return true
	}
	return false
}
