package text

// Stem reduces a lowercase English word to a light stem so inflections
// of one word match in lexical search: "hikes", "hiked", "hiking" and
// "hike" all become "hik"; "movies" and "movie" "movi". It strips plural
// and verb endings (-ies, -sses, -es, -s, -ed, -ing, -ings), undoubles a
// consonant left by -ed/-ing ("running" → "run"), turns a final y into i
// and drops a final e, the way Porter's first step does, and nothing
// more: no derivational suffixes, so "family" and "business" stay apart
// from "fami" and "busi". Words of three letters or fewer, stopwords, and
// tokens with anything but ASCII letters (numbers, CJK, accented words)
// are returned unchanged. Both stores index stemmed tokens (LexicalForm)
// and search with stemmed terms (QueryTerms), and recall's term coverage
// stems the same way, so all three agree.
func Stem(tok string) string {
	if len(tok) <= 3 || len(tok) > MaxStemLen || stopwords[tok] || !asciiLower(tok) {
		return tok
	}
	var buf [MaxStemLen]byte
	n := StemBytes(buf[:copy(buf[:], tok)])
	if n == len(tok) && string(buf[:n]) == tok {
		return tok
	}
	return string(buf[:n])
}

// MaxStemLen bounds the words Stem touches; longer tokens (hashes, URLs
// glued together) are left as they are.
const MaxStemLen = 48

func asciiLower(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// StemBytes stems the lowercase ASCII word b in place and returns the
// stem's length. It allocates nothing: recall runs it over every word of
// every candidate.
func StemBytes(b []byte) int {
	n := len(b)
	if n <= 3 || stopwords[string(b)] {
		return n
	}
	has := func(suf string) bool {
		return n >= len(suf) && string(b[n-len(suf):n]) == suf
	}
	// base reports whether cutting k bytes leaves a stem of at least 3.
	base := func(k int) bool { return n-k >= 3 }
	undouble := func() {
		if n >= 3 && b[n-1] == b[n-2] && isConsonant(b[n-1]) && b[n-1] != 'l' && b[n-1] != 's' && b[n-1] != 'z' {
			n--
		}
	}
	switch {
	case has("ies") && base(3):
		n -= 2 // ies → i
		return n
	case has("sses") && base(4):
		n -= 2 // sses → ss
		return n
	case has("ings") && base(4):
		n -= 4
		undouble()
	case has("ing") && base(3):
		n -= 3
		undouble()
	case has("ed") && base(2):
		n -= 2
		undouble()
	case has("es") && base(2):
		n -= 2
	case has("s") && !has("ss") && !has("us") && !has("is") && base(1):
		n--
	}
	if n > 3 && b[n-1] == 'y' {
		b[n-1] = 'i'
	} else if n > 3 && b[n-1] == 'e' {
		n--
	}
	return n
}

func isConsonant(c byte) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u', 'y':
		return false
	}
	return c >= 'a' && c <= 'z'
}
