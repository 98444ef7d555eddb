//go:build ignore

// Hyponyms derives lexicon/hyponyms.txt.gz, the noun hyponym table recall
// expands a query's category words with ("martial arts" → karate, judo;
// "European countries" → Spain, France), from a WordNet 3.0 database
// (Debian's wordnet-base: `apt-get install wordnet-base`). Usage:
//
//	go run scripts/hyponyms.go /usr/share/wordnet lexicon/hyponyms.txt.gz
//
// A category is a noun lemma of one or two words; its senses are the
// first and those tagged at least a quarter as often as the first
// (cntlist.rev), so "pet" is the animal, not the favourite. Its hyponyms
// are the lemmas of the synsets below those senses (hyponym and instance
// hyponym pointers), at most maxDepth steps down and at most maxHyponyms
// in all: the deepest level that fits (a category whose direct hyponyms
// alone do not fit is left out, and so is a sense with more than
// maxSubtree synsets below it, such as "person" or "animal": it names
// too much).
// Each line is "category<TAB>hyponym,hyponym,…", the hyponyms most common
// first (tag counts), lowercase, one to three words joined by spaces.
package main

import (
	"bufio"
	"cmp"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

const (
	// maxSubtree: a sense with more synsets below it names too much to
	// be asked about by its kinds ("animal", "food", "person": their
	// direct hyponyms are "male", "young", "feed").
	maxSubtree  = 1000
	maxDepth    = 3
	maxHyponyms = 120
	minHyponyms = 2
)

// kinds are the lexicographer files of the senses that are categories:
// things one has, does, eats, visits or knows (noun.act: sports, dances;
// noun.animal; noun.artifact: instruments, shoes, cars;
// noun.communication: books, songs, genres; noun.food; noun.location:
// countries, cities; noun.person: friends, artists; noun.plant).
// Feelings, states, times, attributes, relations and the like are left
// out: their kinds ("nostalgia" under "longing", "instant" under "time")
// are not what a question about them asks for.
var kinds = map[int]bool{4: true, 5: true, 6: true, 10: true, 13: true, 15: true, 18: true, 20: true}

type synset struct {
	lexFile int // WordNet's lexicographer file: 4 noun.act, 5 noun.animal, …
	words   []string
	hypo    []string // offsets of hyponym and instance-hyponym synsets
}

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: go run scripts/hyponyms.go WORDNET_DIR OUT.txt.gz")
		os.Exit(2)
	}
	dir, out := os.Args[1], os.Args[2]
	syn := readData(filepath.Join(dir, "data.noun"))
	senses := readIndex(filepath.Join(dir, "index.noun"))
	counts := readCounts(filepath.Join(dir, "cntlist.rev"))

	freq := func(lemma string) int { // a lemma's noun tag count, all senses
		n := 0
		for _, c := range counts[lemma] {
			n += c
		}
		return n
	}
	lemmas := make([]string, 0, len(senses))
	for l := range senses {
		lemmas = append(lemmas, l)
	}
	slices.Sort(lemmas)

	f, err := os.Create(out)
	check(err)
	zw, err := gzip.NewWriterLevel(f, gzip.BestCompression)
	check(err)
	w := bufio.NewWriter(zw)
	fmt.Fprintln(w, "# Noun hyponyms derived from Princeton WordNet 3.0 by scripts/hyponyms.go (license: lexicon/LICENSE-WordNet).")
	written := 0
	for _, lemma := range lemmas {
		if !plain(lemma) || strings.Count(lemma, "_") > 1 || !strings.Contains(lemma, "_") && freq(lemma) == 0 {
			continue
		}
		offs := senses[lemma]
		cnt := counts[lemma]
		var roots, rest []string
		for i, off := range offs {
			if !kinds[syn[off].lexFile] || subtree(syn, off) > maxSubtree {
				continue
			}
			c, top := 0, 0
			if i < len(cnt) {
				c = cnt[i]
			}
			if len(cnt) > 0 {
				top = cnt[0]
			}
			switch {
			case i == 0 || c > 0 && 2*c >= top:
				roots = append(roots, off)
			case c > 0:
				rest = append(rest, off)
			}
		}
		// The common senses first; when they have no kinds worth the
		// name, the next sense in WordNet's order that was ever tagged
		// ("dance" the art form has none, "dance" the act has ballet and
		// mambo; "pet" the animal has none, and "pet" the favourite is
		// no answer to "What pets …").
		words := hyponymWords(syn, senses, freq, roots, lemma)
		for len(words) < minHyponyms && len(rest) > 0 {
			roots, rest = append(roots, rest[0]), rest[1:]
			words = hyponymWords(syn, senses, freq, roots, lemma)
		}
		if len(words) < minHyponyms {
			continue
		}
		fmt.Fprintf(w, "%s\t%s\n", strings.ReplaceAll(lemma, "_", " "), strings.Join(words, ","))
		written++
	}
	check(w.Flush())
	check(zw.Close())
	check(f.Close())
	fmt.Fprintf(os.Stderr, "%d categories\n", written)
}

// subtree counts the synsets at and below off.
func subtree(syn map[string]*synset, off string) int {
	seen := map[string]bool{off: true}
	stack := []string{off}
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, h := range syn[x].hypo {
			if !seen[h] {
				seen[h] = true
				stack = append(stack, h)
			}
		}
	}
	return len(seen)
}

// hyponymWords are the words the table lists for lemma with senses
// roots: the hyponyms' lemmas, most common first, each a single word.
func hyponymWords(syn map[string]*synset, senses map[string][]string, freq func(string) int, roots []string, lemma string) []string {
	hyps, reached := closure(syn, roots, lemma)
	// Most common first, then nearest.
	slices.SortStableFunc(hyps, func(a, b hyp) int {
		return cmp.Or(cmp.Compare(freq(b.lemma), freq(a.lemma)), cmp.Compare(a.depth, b.depth))
	})
	// A multi-word hyponym is searched by its head, its last word
	// ("rock climbing" → climbing, "the netherlands" → netherlands),
	// unless that is the category's own ("contact sport").
	head := lemma[strings.LastIndexByte(lemma, '_')+1:]
	var words []string
	for _, h := range hyps {
		wd := h.lemma
		if i := strings.Index(wd, "_of_"); i >= 0 {
			wd = wd[:i] // "game of chance" is a game
		}
		wd = wd[strings.LastIndexByte(wd, '_')+1:]
		// A word whose commonest sense lies elsewhere ("piece",
		// "view" under "art") would find the wrong memories.
		if s := senses[wd]; len(s) == 0 || !reached[s[0]] {
			continue
		}
		if wd != head && len(wd) > 2 && !slices.Contains(words, wd) {
			words = append(words, wd)
		}
	}
	return words
}

type hyp struct {
	lemma string
	depth int
}

// closure is the hyponym lemmas below roots at the deepest level ≤
// maxDepth whose total fits maxHyponyms (nil when the first does not),
// and the synsets of those levels.
func closure(syn map[string]*synset, roots []string, self string) ([]hyp, map[string]bool) {
	seen := map[string]bool{}
	reached := map[string]bool{}
	have := map[string]bool{self: true}
	var out []hyp
	level := roots
	for _, r := range roots {
		seen[r] = true
	}
	for depth := 1; depth <= maxDepth; depth++ {
		var next []string
		var add []hyp
		for _, off := range level {
			for _, h := range syn[off].hypo {
				if seen[h] {
					continue
				}
				seen[h] = true
				next = append(next, h)
				for _, wd := range syn[h].words {
					l := strings.ToLower(wd)
					if !plain(l) || strings.Count(l, "_") > 2 || have[l] {
						continue
					}
					have[l] = true
					add = append(add, hyp{l, depth})
				}
			}
		}
		if len(out)+len(add) > maxHyponyms {
			if depth == 1 {
				return nil, nil
			}
			break
		}
		out = append(out, add...)
		for _, h := range next {
			reached[h] = true
		}
		if len(next) == 0 {
			break
		}
		level = next
	}
	return out, reached
}

// plain: letters (and underscores between words) only.
func plain(l string) bool {
	if l == "" || l[0] == '_' || l[len(l)-1] == '_' {
		return false
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
			return false
		}
	}
	return true
}

func readData(path string) map[string]*synset {
	f, err := os.Open(path)
	check(err)
	defer f.Close()
	out := map[string]*synset{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "  ") {
			continue // license header
		}
		if i := strings.Index(line, " | "); i >= 0 {
			line = line[:i]
		}
		fs := strings.Fields(line)
		n, err := strconv.ParseInt(fs[3], 16, 32)
		check(err)
		lf, err := strconv.Atoi(fs[1])
		check(err)
		s := &synset{lexFile: lf}
		p := 4
		for range n {
			w := fs[p]
			if j := strings.IndexByte(w, '('); j >= 0 { // adjective markers
				w = w[:j]
			}
			s.words = append(s.words, w)
			p += 2
		}
		np, err := strconv.Atoi(fs[p])
		check(err)
		p++
		for range np {
			sym, off, pos := fs[p], fs[p+1], fs[p+2]
			if (sym == "~" || sym == "~i") && pos == "n" {
				s.hypo = append(s.hypo, off)
			}
			p += 4
		}
		out[fs[0]] = s
	}
	check(sc.Err())
	return out
}

// readIndex maps a noun lemma to its synsets, most frequent sense first.
func readIndex(path string) map[string][]string {
	f, err := os.Open(path)
	check(err)
	defer f.Close()
	out := map[string][]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "  ") {
			continue
		}
		fs := strings.Fields(line)
		nsyn, err := strconv.Atoi(fs[2])
		check(err)
		np, err := strconv.Atoi(fs[3])
		check(err)
		offs := fs[4+np+2:]
		out[fs[0]] = offs[:nsyn]
	}
	check(sc.Err())
	return out
}

// readCounts maps a noun lemma to its senses' tag counts, by sense number.
func readCounts(path string) map[string][]int {
	f, err := os.Open(path)
	check(err)
	defer f.Close()
	out := map[string][]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) != 3 {
			continue
		}
		key := fs[0]
		i := strings.IndexByte(key, '%')
		if i < 0 || !strings.HasPrefix(key[i+1:], "1:") {
			continue
		}
		lemma := strings.ToLower(key[:i])
		n, err1 := strconv.Atoi(fs[1])
		c, err2 := strconv.Atoi(fs[2])
		if err1 != nil || err2 != nil || n < 1 {
			continue
		}
		cs := out[lemma]
		for len(cs) < n {
			cs = append(cs, 0)
		}
		cs[n-1] += c
		out[lemma] = cs
	}
	check(sc.Err())
	return out
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
