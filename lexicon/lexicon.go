// Package lexicon holds what recall knows of English words beyond their
// spelling: for a category noun, the nouns that name its kinds and
// instances (its hyponyms), so a message asking about "martial arts" can
// find a memory that says "karate" and one asking about "European
// countries" a memory that says "Spain".
//
// The table is derived from Princeton WordNet 3.0 by scripts/hyponyms.go
// (see there for what it keeps) and embedded compressed (about 185 KB);
// it is read the first time it is asked for. WordNet's license is in
// LICENSE-WordNet beside this file.
package lexicon

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"io"
	"strings"
	"sync"
)

//go:embed hyponyms.txt.gz
var hyponymsGz []byte

var table = sync.OnceValue(func() map[string]string {
	zr, err := gzip.NewReader(bytes.NewReader(hyponymsGz))
	if err != nil {
		panic("lexicon: " + err.Error()) // the embedded table is ours: a test reads it
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		panic("lexicon: " + err.Error())
	}
	m := make(map[string]string, 4096)
	for line := range strings.SplitSeq(string(raw), "\n") {
		if cat, list, ok := strings.Cut(line, "\t"); ok && !strings.HasPrefix(line, "#") {
			m[cat] = list
		}
	}
	return m
})

// Hyponyms returns the hyponyms of the category named by words (one or
// two lowercase words, "martial arts", "countries"), single lowercase
// words, most common first, at most most of them (all when most ≤ 0);
// nil when they name no category. The last word may be plural: it is
// looked up as written, then as its singulars (WordNet's rules: "-ies"
// → "-y", "-es", "-s", "-men" → "-man", and irregular ones such as
// "children"), so "news" is not "new", nor "plans" "plane".
func Hyponyms(most int, words ...string) []string {
	list, _, ok := find(words)
	if !ok {
		return nil
	}
	var out []string
	for w := range strings.SplitSeq(list, ",") {
		if most > 0 && len(out) == most {
			break
		}
		out = append(out, w)
	}
	return out
}

// Plural reports whether words name a category through a plural of its
// last word ("martial arts", "desserts", not "dessert", nor "news").
func Plural(words ...string) bool {
	_, plural, ok := find(words)
	return ok && plural
}

func find(words []string) (list string, plural, ok bool) {
	switch len(words) {
	case 1:
		return lookup("", words[0])
	case 2:
		return lookup(words[0]+" ", words[1])
	}
	return "", false, false
}

// lookup finds prefix+last, or prefix+ a singular of last (plural).
func lookup(prefix, last string) (list string, plural, ok bool) {
	t := table()
	if l, ok := t[prefix+last]; ok {
		return l, false, true
	}
	if s, ok := irregular[last]; ok {
		l, ok := t[prefix+s]
		return l, ok, ok
	}
	for _, r := range [...]struct{ suf, rep string }{
		{"ies", "y"}, {"ses", "s"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"}, {"men", "man"}, {"s", ""},
	} {
		if len(last) > len(r.suf)+1 && strings.HasSuffix(last, r.suf) {
			if l, ok := t[prefix+last[:len(last)-len(r.suf)]+r.rep]; ok {
				return l, true, true
			}
		}
	}
	return "", false, false
}

// irregular are common plurals the suffix rules miss (WordNet's
// noun.exc has them all; these are the ones a question asks with).
var irregular = map[string]string{
	"children": "child", "people": "person", "mice": "mouse", "geese": "goose", "feet": "foot",
	"teeth": "tooth", "knives": "knife", "leaves": "leaf", "wolves": "wolf", "shelves": "shelf",
	"loaves": "loaf", "calves": "calf", "halves": "half", "lives": "life", "wives": "wife",
	"thieves": "thief", "oxen": "ox", "dice": "die", "fungi": "fungus", "cacti": "cactus",
}

// Has reports whether words name a category with hyponyms.
func Has(words ...string) bool { return Hyponyms(1, words...) != nil }
