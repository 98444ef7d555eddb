package memory

import "github.com/memproxy/memproxy/text"

// The lexical rules live in package text (one tokeniser, stopword list and
// stemmer for gate, memory, background and embed's callers); these names
// stay for the stores and the request path that call them here.

// CountTokens estimates how many tokens s costs a model (text.CountTokens).
func CountTokens(s string) int { return text.CountTokens(s) }

// Stem reduces a lowercase English word to its light stem (text.Stem).
func Stem(tok string) string { return text.Stem(tok) }

// Stopwords returns the English function words ContentTerms drops.
func Stopwords() []string { return text.Stopwords() }

// IsStopword reports whether a lexical token is an English function word.
func IsStopword(tok string) bool { return text.IsStopword(tok) }

// ContentTerms drops stopwords from query terms unless nothing would remain.
func ContentTerms(terms []string) []string { return text.ContentTerms(terms) }

// LexicalForm is the normalised text both stores index (text.LexicalForm).
func LexicalForm(s string) string { return text.LexicalForm(s) }

// QueryTerms returns the distinct lexical tokens of a query (text.QueryTerms).
func QueryTerms(q string) []string { return text.QueryTerms(q) }

// IsCJK reports whether r is indexed as character bigrams (text.IsCJK).
func IsCJK(r rune) bool { return text.IsCJK(r) }

const maxStemLen = text.MaxStemLen

func stemBytes(b []byte) int { return text.StemBytes(b) }

func cjkScript(r rune) bool { return text.CJKScript(r) }

func cjkFunction(r rune) bool { return text.CJKFunction(r) }

// Term kinds eachTerm emits: words and CJK bigrams and lone characters
// (termPlain), the characters of longer CJK pieces, inside (termChar) or
// next to a function character (termEdge); see text.EachCJKTerm.
const (
	termPlain = text.CJKPlain
	termChar  = text.CJKChar
	termEdge  = text.CJKEdge
)
