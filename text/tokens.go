package text

import (
	"unicode"
	"unicode/utf8"
)

// CountTokens estimates how many tokens s costs a model. It is the one
// counter used for the injection budget and the evaluation's "tokens
// injected", so both agree; it is a deliberate, documented approximation of
// a BPE tokenizer (cl100k/o200k style), not a tokenizer, calibrated against
// cl100k_base (TestCountTokensMatchesBPE; docs/memory.md "Token budget"):
//
//   - whitespace is free and separates runs;
//   - every CJK character (Han, Hiragana, Katakana, Hangul, CJK and
//     fullwidth punctuation) counts 1 (cl100k spends about 1.15 a Han
//     character, o200k about 0.8);
//   - a run of ASCII letters counts ceil(runes/8), so 1 per word of up to
//     eight letters: BPE vocabularies hold common English words whole
//     (cl100k spends 1.00–1.07 tokens on a word of 1–8 letters, about 1.1
//     on one of 9–11);
//   - a run of letters with any other letter in it (accented Latin, other
//     scripts, combining marks included) counts ceil(runes/4): BPE splits
//     those into pieces of a few characters;
//   - a run of digits counts ceil(digits/3): BPE splits numbers into groups
//     of up to three digits;
//   - every other character (punctuation, symbols, emoji) counts 1.
//
// Because whitespace ends every run, the count of lines joined by newlines
// is the sum of the counts of the lines.
func CountTokens(s string) int {
	n := 0
	letters, digits := 0, 0
	wide := false // the letter run holds a non-ASCII letter
	flush := func() {
		if wide {
			n += (letters + 3) / 4
		} else {
			n += (letters + 7) / 8
		}
		n += (digits + 2) / 3
		letters, digits, wide = 0, 0, false
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
				if digits > 0 {
					flush()
				}
				letters++
			case c >= '0' && c <= '9':
				if letters > 0 {
					flush()
				}
				digits++
			case c == ' ', c == '\n', c == '\t', c == '\r', c == '\f', c == '\v':
				flush()
			default:
				flush()
				n++
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case tokenCJK(r):
			flush()
			n++
		case unicode.IsLetter(r), r >= 0x300 && (unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r)):
			if digits > 0 {
				flush()
			}
			letters++
			wide = true
		case unicode.IsDigit(r):
			if letters > 0 {
				flush()
			}
			digits++
		case unicode.IsSpace(r):
			flush()
		default:
			flush()
			n++
		}
	}
	flush()
	return n
}

// tokenCJK reports whether r is counted as one token on its own: CJK
// scripts and the CJK/fullwidth punctuation blocks that go with them.
func tokenCJK(r rune) bool {
	switch {
	case r >= 0x3000 && r <= 0x303f, // CJK symbols and punctuation
		r >= 0xff00 && r <= 0xffef: // halfwidth and fullwidth forms
		return true
	}
	return CJKScript(r)
}

// cjkScript reports whether r belongs to a script written without spaces
// between words: Han, Hiragana, Katakana, Hangul.
func CJKScript(r rune) bool {
	if r < 0x1100 {
		return false
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}
