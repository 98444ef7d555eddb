// Package rx is regexp with a literal prefilter. Most of the patterns
// that read a message (fact extraction runs some 170 of them over every
// sentence) match none of it, and Go's matcher spends as long finding
// that out as finding a match. When compiling, rx reads from the
// pattern's syntax the literals one of which any match must contain (as
// in Russ Cox's "Regular Expression Matching with a Trigram Index", with
// whole literals instead of trigrams): for `\bI (?:moved|relocated) to
// (\w+)` one of "i moved to ", "i relocated to ". A call on text that
// holds none of them (case-insensitively) returns "no match" at once,
// without running the matcher; every other call runs it as regexp would.
// The prefilter is a necessary condition, never a guess: results are
// regexp's own.
package rx

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Regexp is a compiled pattern; its methods not overridden here are
// regexp's, unfiltered.
type Regexp struct {
	*regexp.Regexp
	// need holds lowercase literals one of which every match contains;
	// nil: no such set is known (or it would filter nothing).
	need []string
	// ks: a literal holds k or s, which case folding also matches with
	// a non-ASCII rune (the Kelvin sign, the long s).
	ks bool
	// n is the pattern's place in all (and in the literal index, scan.go);
	// -1 for a pattern not listed (MustCompileLocal).
	n int
}

var (
	mu  sync.Mutex
	all []*Regexp
)

// MustCompile is regexp.MustCompile with the prefilter, for a pattern
// that lives as long as the program (a package's variable): it is listed
// in All and in the literal index every text is scanned against once
// (scan.go).
func MustCompile(expr string) *Regexp {
	re := MustCompileLocal(expr)
	mu.Lock()
	re.n = len(all)
	all = append(all, re)
	mu.Unlock()
	return re
}

// MustCompileLocal is MustCompile for a pattern built for one use (from a
// value seen at run time): it is not listed, so it neither accumulates nor
// makes the literal index be rebuilt, and its prefilter looks for its own
// literals in the text.
func MustCompileLocal(expr string) *Regexp {
	re := &Regexp{Regexp: regexp.MustCompile(expr), n: -1}
	if p, err := syntax.Parse(expr, syntax.Perl); err == nil {
		re.need = usable(needOf(p.Simplify()))
		for _, l := range re.need {
			re.ks = re.ks || strings.ContainsAny(l, "ks")
		}
	}
	return re
}

// All is every Regexp compiled so far (tests check their prefilters).
func All() []*Regexp {
	mu.Lock()
	defer mu.Unlock()
	return append([]*Regexp(nil), all...)
}

// Need is the prefilter's literals (nil: none).
func (re *Regexp) Need() []string { return re.need }

// May reports whether s can hold a match: false only when it holds none
// of the literals every match contains.
func (re *Regexp) May(s string) bool {
	if re.need == nil {
		return true
	}
	if re.ks && (strings.Contains(s, "\u212a") || strings.Contains(s, "\u017f")) {
		return true
	}
	if len(s) < minUseful {
		return false // shorter than every literal
	}
	if re.n < 0 {
		return re.mayDirect(s)
	}
	return re.mayScanned(s)
}

// MatchString is regexp's, after the prefilter.
func (re *Regexp) MatchString(s string) bool { return re.May(s) && re.Regexp.MatchString(s) }

// FindString is regexp's, after the prefilter.
func (re *Regexp) FindString(s string) string {
	if !re.May(s) {
		return ""
	}
	return re.Regexp.FindString(s)
}

// FindStringIndex is regexp's, after the prefilter.
func (re *Regexp) FindStringIndex(s string) []int {
	if !re.May(s) {
		return nil
	}
	return re.Regexp.FindStringIndex(s)
}

// FindStringSubmatch is regexp's, after the prefilter.
func (re *Regexp) FindStringSubmatch(s string) []string {
	if !re.May(s) {
		return nil
	}
	return re.Regexp.FindStringSubmatch(s)
}

// FindStringSubmatchIndex is regexp's, after the prefilter.
func (re *Regexp) FindStringSubmatchIndex(s string) []int {
	if !re.May(s) {
		return nil
	}
	return re.Regexp.FindStringSubmatchIndex(s)
}

// FindAllString is regexp's, after the prefilter.
func (re *Regexp) FindAllString(s string, n int) []string {
	if !re.May(s) {
		return nil
	}
	return re.Regexp.FindAllString(s, n)
}

// FindAllStringIndex is regexp's, after the prefilter.
func (re *Regexp) FindAllStringIndex(s string, n int) [][]int {
	if !re.May(s) {
		return nil
	}
	return re.Regexp.FindAllStringIndex(s, n)
}

// FindAllStringSubmatch is regexp's, after the prefilter.
func (re *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	if !re.May(s) {
		return nil
	}
	return re.Regexp.FindAllStringSubmatch(s, n)
}

// FindAllStringSubmatchIndex is regexp's, after the prefilter.
func (re *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	if !re.May(s) {
		return nil
	}
	return re.Regexp.FindAllStringSubmatchIndex(s, n)
}

// ReplaceAllString is regexp's, after the prefilter.
func (re *Regexp) ReplaceAllString(src, repl string) string {
	if !re.May(src) {
		return src
	}
	return re.Regexp.ReplaceAllString(src, repl)
}

// ReplaceAllLiteralString is regexp's, after the prefilter.
func (re *Regexp) ReplaceAllLiteralString(src, repl string) string {
	if !re.May(src) {
		return src
	}
	return re.Regexp.ReplaceAllLiteralString(src, repl)
}

// ReplaceAllStringFunc is regexp's, after the prefilter.
func (re *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	if !re.May(src) {
		return src
	}
	return re.Regexp.ReplaceAllStringFunc(src, repl)
}

// maxSet bounds the literal sets built from alternations and their
// products.
const maxSet = 64

// minUseful is the shortest literal worth a prefilter: shorter ones
// (a letter, "i ") are in nearly every sentence.
const minUseful = 3

// info is what a sub-pattern tells of its matches: exact, when known, is
// every string it can match (lowercase, at most maxSet); need, when
// known, a set one of which each match contains.
type info struct {
	exact []string
	need  []string
	known bool // exact is known (nil exact then means it matches nothing)
}

func needOf(re *syntax.Regexp) []string {
	in := analyse(re)
	if in.known {
		return in.exact
	}
	return in.need
}

func analyse(re *syntax.Regexp) info {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return info{exact: []string{""}, known: true}
	case syntax.OpLiteral:
		return info{exact: []string{lower(string(re.Rune))}, known: true}
	case syntax.OpCharClass:
		// A small class ([Ii], ['’]) is a few one-rune strings.
		var set []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i+1]-re.Rune[i] >= 4 {
				return info{}
			}
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				set = addUnique(set, lower(string(r)))
			}
		}
		if len(set) == 0 || len(set) > 4 {
			return info{}
		}
		return info{exact: set, known: true}
	case syntax.OpCapture:
		return analyse(re.Sub[0])
	case syntax.OpQuest:
		in := analyse(re.Sub[0])
		if in.known && len(in.exact) < maxSet {
			return info{exact: addUnique(append([]string(nil), in.exact...), ""), known: true}
		}
		return info{}
	case syntax.OpPlus:
		return info{need: needOfInfo(analyse(re.Sub[0]))}
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return info{need: needOfInfo(analyse(re.Sub[0]))}
		}
		return info{}
	case syntax.OpAlternate:
		ins := make([]info, len(re.Sub))
		allExact := true
		for i, sub := range re.Sub {
			ins[i] = analyse(sub)
			allExact = allExact && ins[i].known
		}
		if allExact {
			var exact []string
			for _, in := range ins {
				exact = append(exact, in.exact...)
			}
			if exact = dedupe(exact); len(exact) <= maxSet {
				return info{exact: exact, known: true}
			}
		}
		var need []string
		for _, in := range ins {
			n := needOfInfo(in)
			if n == nil {
				return info{} // a branch with no known literal
			}
			need = append(need, n...)
		}
		if need = dedupe(need); len(need) > maxSet {
			return info{}
		}
		return info{need: need}
	case syntax.OpConcat:
		return concat(re.Sub)
	}
	return info{}
}

// needOfInfo is in's necessary set: its exact set when known.
func needOfInfo(in info) []string {
	if in.known {
		if len(in.exact) == 0 {
			return nil
		}
		return in.exact
	}
	return in.need
}

// concat joins runs of exactly known parts into products (while they
// stay small) and keeps the best necessary set of the parts: the one
// whose shortest literal is longest.
func concat(subs []*syntax.Regexp) info {
	var best []string
	consider := func(set []string) {
		if set != nil && score(set) > score(best) {
			best = set
		}
	}
	run := []string{""}
	allExact := true
	for _, sub := range subs {
		in := analyse(sub)
		if in.known && run != nil {
			if p := product(run, in.exact); p != nil {
				run = p
				continue
			}
			allExact = false // the run breaks: it no longer spans the whole
		}
		if run != nil {
			consider(run)
		}
		run = nil
		if in.known {
			run = in.exact
			continue
		}
		allExact = false
		consider(in.need)
	}
	if run != nil {
		if allExact {
			return info{exact: run, known: true}
		}
		consider(run)
	}
	return info{need: best}
}

// product is every a+b, or nil past maxSet.
func product(as, bs []string) []string {
	if len(as)*len(bs) > maxSet {
		return nil
	}
	out := make([]string, 0, len(as)*len(bs))
	for _, a := range as {
		for _, b := range bs {
			out = addUnique(out, a+b)
		}
	}
	return out
}

// score is the length of set's shortest literal (-1 for none).
func score(set []string) int {
	if set == nil {
		return -1
	}
	m := -1
	for _, s := range set {
		if m < 0 || len(s) < m {
			m = len(s)
		}
	}
	return m
}

// usable keeps set only when it filters: every literal at least
// minUseful bytes and comparable case-insensitively (ASCII, or without
// case, as CJK).
func usable(set []string) []string {
	if score(set) < minUseful || len(set) > maxSet {
		return nil
	}
	for _, s := range set {
		for _, r := range s {
			if r >= utf8.RuneSelf && (unicode.IsUpper(r) || unicode.IsLower(r) || unicode.IsTitle(r)) {
				return nil
			}
		}
	}
	return set
}

// lower lowercases s, the long s and the Kelvin sign (which case folding
// matches with s and k) as s and k: May runs the matcher on any text
// holding either.
func lower(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '\u017f':
			return 's'
		case '\u212a':
			return 'k'
		}
		return unicode.ToLower(r)
	}, s)
}

func addUnique(set []string, s string) []string {
	for _, x := range set {
		if x == s {
			return set
		}
	}
	return append(set, s)
}

func dedupe(set []string) []string {
	var out []string
	for _, s := range set {
		out = addUnique(out, s)
	}
	return out
}

// containsFold reports whether s contains lit (lowercase) with ASCII
// letters compared case-insensitively and every other byte exactly. The
// candidates for lit's first byte, in either case, are found with
// strings.IndexByte (vectorised), then checked.
func containsFold(s, lit string) bool {
	n := len(lit)
	if n == 0 {
		return true
	}
	c0 := lit[0]
	if c0 < 'a' || c0 > 'z' {
		// No case to the first byte: one scan.
		for off := 0; off+n <= len(s); {
			i := strings.IndexByte(s[off:len(s)-n+1], c0)
			if i < 0 {
				return false
			}
			if restFold(s[off+i+1:off+i+n], lit[1:]) {
				return true
			}
			off += i + 1
		}
		return false
	}
	up := c0 - ('a' - 'A')
	end := len(s) - n + 1
	lo, hi := -2, -2 // next candidates of each case; -2: not looked for yet
	for off := 0; off < end; {
		if lo != -1 && lo < off {
			if lo = strings.IndexByte(s[off:end], c0); lo >= 0 {
				lo += off
			}
		}
		if hi != -1 && hi < off {
			if hi = strings.IndexByte(s[off:end], up); hi >= 0 {
				hi += off
			}
		}
		i := lo
		if i < 0 || hi >= 0 && hi < i {
			i = hi
		}
		if i < 0 {
			return false
		}
		if restFold(s[i+1:i+n], lit[1:]) {
			return true
		}
		off = i + 1
	}
	return false
}

// restFold reports whether t equals lit (lowercase, as long) with t's
// ASCII letters lowercased.
func restFold(t, lit string) bool {
	for j := 0; j < len(lit); j++ {
		c := t[j]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lit[j] {
			return false
		}
	}
	return true
}
