package gate

import (
	"unicode"
	"unicode/utf8"

	"github.com/memproxy/memproxy/text"
)

// isCJK reports whether r belongs to a script written without spaces, where
// phrases may abut and need no word boundary.
func isCJK(r rune) bool {
	if r < 0x2E80 {
		return false
	}
	return text.CJKScript(r)
}

// isWord reports whether r is part of a word: letters, digits and the
// apostrophes of contractions ("don't", "don’t").
func isWord(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiWord[r]
	}
	if 0x4E00 <= r && r <= 0x9FFF {
		return true
	}
	if 0xFE00 <= r && r <= 0xFE0F || 0xE0100 <= r && r <= 0xE01EF {
		return false // variation selectors dress emoji ("❤️"), they are not letters
	}
	return r == '’' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// isLatinWord is a word rune of a script that separates words with spaces.
func isLatinWord(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiWord[r]
	}
	return isWord(r) && !isCJK(r)
}

// asciiWord is isWord for ASCII, as a table: the scanners call it per byte.
var asciiWord = [utf8.RuneSelf]bool{
	'\'': true,
	'0':  true, '1': true, '2': true, '3': true, '4': true, '5': true, '6': true, '7': true, '8': true, '9': true,
	'A': true, 'B': true, 'C': true, 'D': true, 'E': true, 'F': true, 'G': true, 'H': true, 'I': true,
	'J': true, 'K': true, 'L': true, 'M': true, 'N': true, 'O': true, 'P': true, 'Q': true, 'R': true,
	'S': true, 'T': true, 'U': true, 'V': true, 'W': true, 'X': true, 'Y': true, 'Z': true,
	'a': true, 'b': true, 'c': true, 'd': true, 'e': true, 'f': true, 'g': true, 'h': true, 'i': true,
	'j': true, 'k': true, 'l': true, 'm': true, 'n': true, 'o': true, 'p': true, 'q': true, 'r': true,
	's': true, 't': true, 'u': true, 'v': true, 'w': true, 'x': true, 'y': true, 'z': true,
}

// isSymbol reports runes that make a message "emoji only": emoji and other
// pictographic symbols (So/Sk), as opposed to plain punctuation.
func isSymbol(r rune) bool {
	if r < utf8.RuneSelf {
		return false
	}
	return unicode.In(r, unicode.So, unicode.Sk) || (r >= 0x1F000 && r <= 0x1FAFF)
}

// lowerASCII folds one ASCII byte to lower case.
func lowerASCII(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// runeAt decodes the rune at s[i] (utf8.RuneError, 0 past the end).
func runeAt(s string, i int) (rune, int) {
	if i >= len(s) {
		return utf8.RuneError, 0
	}
	if s[i] < utf8.RuneSelf {
		return rune(s[i]), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// runeBefore decodes the rune ending at s[i] (utf8.RuneError, 0 at the start).
func runeBefore(s string, i int) (rune, int) {
	if i <= 0 {
		return utf8.RuneError, 0
	}
	if s[i-1] < utf8.RuneSelf {
		return rune(s[i-1]), 1
	}
	return utf8.DecodeLastRuneInString(s[:i])
}

// boundaryAfter reports whether a latin phrase may end at s[i]: end of
// text, a separator, or a CJK rune.
func boundaryAfter(s string, i int) bool {
	r, n := runeAt(s, i)
	return n == 0 || !isLatinWord(r)
}

// boundaryBefore reports whether a latin phrase may start at s[i].
func boundaryBefore(s string, i int) bool {
	r, n := runeBefore(s, i)
	return n == 0 || !isLatinWord(r)
}

// skipSeparators returns the index of the first word rune at or after i.
func skipSeparators(s string, i int) int {
	for i < len(s) {
		r, n := runeAt(s, i)
		if isWord(r) {
			return i
		}
		i += n
	}
	return i
}

// matchFold reports whether the normalised phrase p (lower case, single
// spaces, ASCII apostrophes) occurs in s at i, and where the match ends.
// ASCII letters fold case; a space in p matches one or more separators; an
// apostrophe matches ' and ’.
func matchFold(s string, i int, p string) (int, bool) {
	for j := 0; j < len(p); {
		c := p[j]
		switch c {
		case ' ':
			k := i
			for k < len(s) {
				r, n := runeAt(s, k)
				if isWord(r) {
					break
				}
				k += n
			}
			if k == i {
				return 0, false
			}
			i = k
			j++
			continue
		case '\'':
			if i < len(s) && s[i] == '\'' {
				i++
			} else if i+3 <= len(s) && s[i:i+3] == "’" {
				i += 3
			} else {
				return 0, false
			}
			j++
			continue
		}
		if i >= len(s) || lowerASCII(s[i]) != c {
			return 0, false
		}
		i++
		j++
	}
	return i, true
}

// hasPrefixFoldAt is matchFold without the end position.
func hasPrefixFoldAt(s string, i int, p string) bool {
	_, ok := matchFold(s, i, p)
	return ok
}
