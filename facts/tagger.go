package facts

import (
	"bytes"
	"encoding/gob"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/jdkato/prose/v2"
	"github.com/mingrammer/commonregex"
)

// The part-of-speech tagger is prose's averaged perceptron, read from
// prose's own model data, with its prediction done over arrays: prose
// builds a map of the features of every word and adds the weights of each
// into a map of scores (three quarters of a sentence's tagging, and a
// tenth of a loaded scope's ingest). Here a word's features are looked up
// with one reused buffer and their weights, kept per feature as a list of
// (class, weight), are added into an array, in the features' fixed order,
// so a sentence always gets the same tags (prose adds them in map order:
// the sums of two near-equal classes could come out either way). Words
// prose tags by rule (emoticons, links, e-mail addresses, "-", "0", *-
// traces) get the rule's tag, as in prose. The model is held in tables
// without pointers (strtable.go) and prose's own model is never loaded:
// its maps were a third of the objects the collector marked on every
// cycle of a loaded server. tagger_test.go checks the two taggers against
// each other.

// perceptron is prose's tagging model in array form.
type perceptron struct {
	classes []string
	words   *strTable     // words with one tag, as prose keeps them: word → class
	feats   *strTable     // feature → weights[a:a+b], its classes' weights
	weights []classWeight // every feature's, end to end
}

type classWeight struct {
	class int32
	w     float64
}

var (
	fastOnce sync.Once
	fast     *perceptron
)

// fastTagger loads the model once; nil when prose's data cannot be read
// (tagging then stays prose's).
func fastTagger() *perceptron {
	fastOnce.Do(func() { fast = loadPerceptron() })
	return fast
}

func loadPerceptron() *perceptron {
	var classes []string
	var tags map[string]string
	var wts map[string]map[string]float64
	for _, a := range []struct {
		name string
		into any
	}{{"classes.gob", &classes}, {"tags.gob", &tags}, {"weights.gob", &wts}} {
		b, err := prose.Asset("model/AveragedPerceptron/" + a.name)
		if err != nil {
			return nil
		}
		if err := gob.NewDecoder(bytes.NewReader(b)).Decode(a.into); err != nil {
			return nil
		}
	}
	p := &perceptron{}
	index := map[string]int32{}
	class := func(c string) int32 {
		if i, ok := index[c]; ok {
			return i
		}
		index[c] = int32(len(p.classes))
		p.classes = append(p.classes, c)
		return index[c]
	}
	for _, c := range classes {
		class(c)
	}
	size, n := 0, 0
	for w := range tags {
		size += len(w)
	}
	p.words = newStrTable(len(tags), size)
	for w, t := range tags {
		p.words.put(w, uint32(class(t)), 0)
	}
	size = 0
	for feat, ws := range wts {
		size += len(feat)
		n += len(ws)
	}
	p.feats = newStrTable(len(wts), size)
	p.weights = make([]classWeight, 0, n)
	for feat, ws := range wts {
		labels := make([]string, 0, len(ws))
		for l := range ws {
			labels = append(labels, l)
		}
		slices.Sort(labels)
		p.feats.put(feat, uint32(len(p.weights)), uint32(len(labels)))
		for _, l := range labels {
			p.weights = append(p.weights, classWeight{class(l), ws[l]})
		}
	}
	return p
}

// plainWord reports whether w is made of letters, digits and apostrophes
// (or is one punctuation mark), so that no rule of prose's tags it
// (ruleTag) but the emoticons spelled so ("xD", "8D").
func plainWord(w string) bool {
	if w == "" || w == "0" {
		return false
	}
	if len(w) == 1 && strings.ContainsRune(`,.;:!?"'()`, rune(w[0])) {
		return true
	}
	for _, r := range w {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' {
			return false
		}
	}
	return true
}

// The rules prose's tagger applies before its model (its tag.go).
var (
	noneWord = regexp.MustCompile(`^(?:0|\*[\w?]\*|\*\-\d{1,3}|\*[A-Z]+\*\-\d{1,3}|\*)$`)
	keepWord = regexp.MustCompile(`^\-[A-Z]{3}\-$`)
)

// ruleTag is the tag prose gives w by rule, in prose's order; false when
// the model tags it.
func ruleTag(w string) (string, bool) {
	switch {
	case w == "-":
		return "-", true
	case emoticons[w]:
		return "SYM", true
	case plainWord(w):
		return "", false
	case commonregex.LinkRegex.MatchString(w) || commonregex.EmailRegex.MatchString(w) || strings.HasPrefix(w, "@"):
		return "NN", true
	case noneWord.MatchString(w):
		return "-NONE-", true
	case keepWord.MatchString(w):
		return w, true
	}
	return "", false
}

// tag tags words as prose's tagger does.
func (p *perceptron) tag(words []string, tags []string) {
	ctx := make([]string, len(words)+4)
	ctx[0], ctx[1] = "-START-", "-START2-"
	for i, w := range words {
		ctx[i+2] = normalizeWord(w)
	}
	ctx[len(ctx)-2], ctx[len(ctx)-1] = "-END-", "-END2-"
	p1, p2 := "-START-", "-START2-"
	scores := make([]float64, len(p.classes))
	touched := make([]bool, len(p.classes))
	var key []byte
	for i, w := range words {
		t, ok := ruleTag(w)
		if !ok {
			if c, _, found := p.words.get(w); found {
				t = p.classes[c]
			} else {
				t = p.predict(i, ctx, w, p1, p2, scores, touched, &key)
			}
		}
		tags[i] = t
		p2, p1 = p1, t
	}
}

// predict is prose's featurize and predict for word i.
func (p *perceptron) predict(i int, ctx []string, w, p1, p2 string, scores []float64, touched []bool, key *[]byte) string {
	clear(scores)
	clear(touched)
	i += 2
	suffix := func(s string) string { return s[len(s)-min(len(s), 3):] }
	any := false
	feature := func(parts ...string) {
		k := (*key)[:0]
		for j, s := range parts {
			if j > 0 {
				k = append(k, ' ')
			}
			k = append(k, s...)
		}
		*key = k
		at, n, _ := p.feats.getBytes(k)
		for _, cw := range p.weights[at : at+n] {
			scores[cw.class] += cw.w
			touched[cw.class] = true
			any = true
		}
	}
	feature("bias")
	feature("i suffix", suffix(w))
	feature("i pref1", string(rune(w[0])))
	feature("i-1 tag", p1)
	feature("i-2 tag", p2)
	feature("i tag+i-2 tag", p1, p2)
	feature("i word", ctx[i])
	feature("i-1 tag+i word", p1, ctx[i])
	feature("i-1 word", ctx[i-1])
	feature("i-1 suffix", suffix(ctx[i-1]))
	feature("i-2 word", ctx[i-2])
	feature("i+1 word", ctx[i+1])
	feature("i+1 suffix", suffix(ctx[i+1]))
	feature("i+2 word", ctx[i+2])
	if !any {
		return ""
	}
	best, top := -1, math.Inf(-1)
	for c, s := range scores {
		if touched[c] && s > top {
			best, top = c, s
		}
	}
	if best < 0 {
		return ""
	}
	return p.classes[best]
}

// normalizeWord is prose's normalisation of a context word.
func normalizeWord(w string) string {
	if w == "" {
		return w
	}
	if strings.Contains(w, "-") && w[0] != '-' {
		return "!HYPHEN"
	}
	if _, err := strconv.Atoi(w); err == nil && len(w) == 4 {
		return "!YEAR"
	}
	if r, _ := utf8.DecodeRuneInString(w); r >= '0' && r <= '9' {
		return "!DIGITS"
	}
	return strings.ToLower(w)
}
