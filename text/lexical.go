package text

import (
	"strings"
	"unicode"
)

// LexicalForm is the normalised text both stores index for lexical search
// (FTS5 on SQLite, tsvector on PostgreSQL). Neither backend's default
// tokenizer segments Chinese or Japanese, so the form is a space-separated
// list of tokens every tokenizer keeps whole:
//
//   - runs of letters, digits and combining marks outside CJK, lowercased
//     and stemmed (Stem: "hiking" → "hik"), so inflections match;
//   - runs of CJK characters (Han, Hiragana, Katakana, Hangul) as overlapping
//     character bigrams ("记得上次" → "记得 得上 上次"), a lone CJK character
//     as itself.
//
// Everything else (punctuation, symbols, spaces) separates tokens.
func LexicalForm(text string) string {
	var b strings.Builder
	b.Grow(len(text) + len(text)/2)
	emitTokens(text, func(tok string) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(tok)
	})
	return b.String()
}

// QueryTerms returns the distinct lexical tokens of a query, in order of
// first appearance, using the same rules as LexicalForm so a query matches
// what was indexed. An empty result means the query has nothing to match.
func QueryTerms(q string) []string {
	var terms []string
	seen := make(map[string]bool)
	emitTokens(q, func(tok string) {
		if !seen[tok] {
			seen[tok] = true
			terms = append(terms, tok)
		}
	})
	return terms
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

func emitTokens(text string, emit func(string)) {
	var word []rune
	var cjk []rune
	flushWord := func() {
		if len(word) > 0 {
			emit(Stem(strings.ToLower(string(word))))
			word = word[:0]
		}
	}
	flushCJK := func() {
		switch len(cjk) {
		case 0:
		case 1:
			emit(string(cjk))
		default:
			for i := 0; i+1 < len(cjk); i++ {
				emit(string(cjk[i : i+2]))
			}
		}
		cjk = cjk[:0]
	}
	for _, r := range text {
		switch {
		case IsCJK(r):
			flushWord()
			cjk = append(cjk, r)
		case isWordRune(r):
			flushCJK()
			word = append(word, r)
		default:
			flushWord()
			flushCJK()
		}
	}
	flushWord()
	flushCJK()
}
