package embed

import (
	"context"
	"math"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/memproxy/memproxy/memory"
)

// LocalModel names the local embedder's vector space. The features below
// are frozen under this name: changing tokenisation, stemming, weights or
// hashing means a new name, so stores refuse mixed vectors.
const LocalModel = "local-hash-v1"

// DefaultLocalDim is used when NewLocal is given no dimension.
const DefaultLocalDim = 256

// Feature weights. A word counts 1; a bigram of neighbouring content words
// adds phrase identity ("support group"); a word's character n-grams share
// one budget so long words do not drown short ones, and they let
// morphology the stemmer misses still meet ("painting"/"painter"). Function
// words are kept (questions are mostly function words) but count little.
const (
	wUnigram   = 1.0
	wBigram    = 0.4
	wCharGrams = 0.5
	wStop      = 0.12
	wCJKChar   = 0.4
	wCJKBigram = 1.0
	wCJKStop   = 0.05
	charMin    = 3
	charMax    = 4
	maxWordLen = 48 // runes of a word used for n-grams
)

// Feature kinds seed the hash so a word and an n-gram never collide by
// construction.
const (
	kindWord uint64 = iota + 1
	kindBigram
	kindChar
	kindCJK
	kindCJKBigram
)

// Local is the offline embedder: hashed word unigrams and bigrams,
// character 3-4-grams of each word, CJK character unigrams and bigrams,
// light English stemming (plurals, -ing, -ed, irregular verbs) and
// stopword down-weighting, sublinear term frequency, signed feature hashing
// and L2 normalisation. Deterministic, no files, safe for concurrent use.
type Local struct {
	dim       int
	irregular map[string]string
	stop      map[string]bool
	pool      sync.Pool // *scratch
}

type feature struct {
	h uint64
	w float32
}

type scratch struct {
	feats []feature
	tab   []int32  // open addressing: 1 + the index in uniq, 0 when free
	uniq  []merged // the distinct features, in order of first appearance
}

// merged is a distinct feature: the sum of its weights and its count.
type merged struct {
	h   uint64
	sum float32
	n   int32
}

// NewLocal returns a local embedder of dim dimensions (DefaultLocalDim
// when dim <= 0).
func NewLocal(dim int) *Local {
	if dim <= 0 {
		dim = DefaultLocalDim
	}
	l := &Local{dim: dim, stop: stopwords(), irregular: map[string]string{}}
	for form, base := range irregularForms() {
		b, suf := l.stemRaw(base)
		l.irregular[form] = b + suf
	}
	l.pool.New = func() any { return &scratch{feats: make([]feature, 0, 256)} }
	return l
}

// Model implements Embedder.
func (l *Local) Model() string { return LocalModel }

// Dim implements Embedder.
func (l *Local) Dim() int { return l.dim }

// Embed implements Embedder. It never fails except on a cancelled context.
func (l *Local) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	flat := make([]float32, len(texts)*l.dim) // one allocation for the batch
	for i, t := range texts {
		if i%64 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		out[i] = flat[i*l.dim : (i+1)*l.dim : (i+1)*l.dim]
		l.embedInto(out[i], t)
	}
	return out, nil
}

// Vector embeds one text.
func (l *Local) Vector(text string) []float32 {
	v := make([]float32, l.dim)
	l.embedInto(v, text)
	return v
}

func (l *Local) embedInto(v []float32, text string) {
	s := l.pool.Get().(*scratch)
	s.feats = l.features(s.feats[:0], text)
	feats := s.feats
	if len(feats) == 0 {
		feats = append(feats, feature{h: mix(kindWord), w: 1}) // empty text: one fixed direction
	}
	// Merge repeats: sublinear tf, 1 + ln(n), times the mean weight. The
	// repeats are found by an open-addressing table (a sort of the
	// features was half of an embedding's CPU), and the merged features
	// are added in the order they first appear, so a text always gets the
	// same vector.
	bits := 4
	for 1<<bits < 2*len(feats) {
		bits++
	}
	if cap(s.tab) < 1<<bits {
		s.tab = make([]int32, 1<<bits)
	}
	tab := s.tab[:1<<bits]
	clear(tab)
	uniq := s.uniq[:0]
	mask := uint64(len(tab) - 1)
	for _, f := range feats {
		for i := (f.h * 0x9e3779b97f4a7c15) >> (64 - bits); ; i = (i + 1) & mask {
			k := tab[i]
			if k == 0 {
				uniq = append(uniq, merged{h: f.h, sum: f.w, n: 1})
				tab[i] = int32(len(uniq))
				break
			}
			if u := &uniq[k-1]; u.h == f.h {
				u.sum += f.w
				u.n++
				break
			}
		}
	}
	for _, u := range uniq {
		w := u.sum
		if u.n > 1 {
			n := float32(u.n)
			w = u.sum / n * (1 + float32(math.Log(float64(n))))
		}
		idx := int(u.h % uint64(l.dim))
		if u.h>>63 == 1 {
			w = -w
		}
		v[idx] += w
	}
	s.uniq = uniq
	s.feats = feats
	l.pool.Put(s)
	normalize(v)
}

// features appends every hashed feature of text to dst.
func (l *Local) features(dst []feature, text string) []feature {
	text = strings.ToLower(text)
	var prev uint64 // hash of the previous content word (0: none)
	var prevCJK rune = -1
	prevCJKStop := false
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		switch {
		case isCJK(r):
			stop := cjkStop(r)
			w := float32(wCJKChar)
			if stop {
				w = wCJKStop
			}
			dst = append(dst, feature{mix(kindCJK ^ uint64(r)<<8), w})
			if prevCJK >= 0 {
				w := float32(wCJKBigram)
				if stop && prevCJKStop {
					w = wCJKStop
				}
				dst = append(dst, feature{mix(kindCJKBigram ^ uint64(prevCJK)<<8 ^ uint64(r)<<32), w})
			}
			prevCJK, prevCJKStop = r, stop
			prev = 0
			i += n
		case isWordRune(r):
			j := i + n
			for j < len(text) {
				r2, n2 := utf8.DecodeRuneInString(text[j:])
				if !isWordRune(r2) || isCJK(r2) {
					break
				}
				j += n2
			}
			dst, prev = l.word(dst, text[i:j], prev)
			prevCJK = -1
			i = j
		default:
			// Punctuation ends a phrase: no bigram across it, except a
			// bare space, and an apostrophe is already inside words.
			if r != ' ' {
				prev = 0
			}
			prevCJK = -1
			i += n
		}
	}
	return dst
}

// word adds the features of one latin word (apostrophes included).
func (l *Local) word(dst []feature, raw string, prev uint64) ([]feature, uint64) {
	w := stripApostrophes(raw)
	if w == "" {
		return dst, prev
	}
	base, suf := l.stem(w)
	h := hashStr(hashStr(seed(kindWord), base), suf)
	if l.stop[w] || suf == "" && l.stop[base] {
		dst = append(dst, feature{mix(h), wStop})
		return dst, prev // stopwords neither form bigrams nor break them
	}
	dst = append(dst, feature{mix(h), wUnigram})
	if prev != 0 {
		dst = append(dst, feature{mix(prev*0x9E3779B97F4A7C15 ^ h ^ kindBigram), wBigram})
	}
	if !allDigits(w) {
		dst = charGrams(dst, w)
	}
	return dst, h
}

// charGrams adds the 3- and 4-grams of "<w>", sharing wCharGrams.
func charGrams(dst []feature, w string) []feature {
	var offs [maxWordLen + 3]int // rune starts of "<" w ">" in bytes of w, -1 for "<"
	n := 0
	offs[n] = -1
	n++
	for i := range w {
		if n == maxWordLen+1 {
			break
		}
		offs[n] = i
		n++
	}
	end := len(w)
	if n == maxWordLen+1 {
		end = offs[n-1]
	}
	offs[n] = end // ">" sits at the end of the word
	n++
	total := 0
	for k := charMin; k <= charMax; k++ {
		total += max(0, n-k+1)
	}
	if total == 0 {
		return dst
	}
	each := float32(wCharGrams) / float32(total)
	for k := charMin; k <= charMax; k++ {
		for a := 0; a+k <= n; a++ {
			h := seed(kindChar) ^ uint64(k)
			lo, hi := offs[a], offs[a+k-1] // first and last unit of the gram
			if lo < 0 {
				h = hashByte(h, '<')
				lo = 0
			}
			last := hi == end
			if last {
				h = hashStr(h, w[lo:end])
				h = hashByte(h, '>')
			} else {
				_, sz := utf8.DecodeRuneInString(w[hi:])
				h = hashStr(h, w[lo:hi+sz])
			}
			dst = append(dst, feature{mix(h), each})
		}
	}
	return dst
}

// stem returns a word's stem as a base and a suffix to hash after it
// (so "stories" → "stor"+"y" without allocating).
func (l *Local) stem(w string) (string, string) {
	if s, ok := l.irregular[w]; ok {
		return s, ""
	}
	return l.stemRaw(w)
}

// stemRaw is a light English suffix stripper: plurals, -ed, -ing, -ly,
// doubled final consonants and a silent final e, so "hope", "hoped",
// "hoping" and "hopes" meet.
func (l *Local) stemRaw(w string) (string, string) {
	if len(w) <= 3 || !isASCII(w) {
		return w, ""
	}
	for _, s := range suffixes {
		if !strings.HasSuffix(w, s.suf) || len(w)-len(s.suf) < 3 {
			continue
		}
		if s.suf == "s" && (strings.HasSuffix(w, "ss") || strings.HasSuffix(w, "us") || strings.HasSuffix(w, "is")) {
			return w, ""
		}
		b := w[:len(w)-len(s.suf)]
		if s.rep != "" {
			return b, s.rep
		}
		if (s.suf == "ing" || s.suf == "ed" || s.suf == "ings") && len(b) >= 3 && b[len(b)-1] == b[len(b)-2] &&
			!strings.ContainsRune("lsz", rune(b[len(b)-1])) {
			b = b[:len(b)-1]
		}
		return trimE(b), ""
	}
	return trimE(w), ""
}

var suffixes = []struct{ suf, rep string }{
	{"ies", "y"}, {"ied", "y"}, {"sses", "ss"}, {"ness", ""}, {"ments", "ment"},
	{"ingly", ""}, {"edly", ""}, {"ings", ""}, {"ing", ""}, {"ed", ""},
	{"ly", ""}, {"ches", "ch"}, {"shes", "sh"}, {"xes", "x"}, {"s", ""},
}

// trimE drops a silent final e ("hope" → "hop", meeting "hoped").
func trimE(w string) string {
	if len(w) > 3 && w[len(w)-1] == 'e' && w[len(w)-2] != 'e' {
		return w[:len(w)-1]
	}
	return w
}

func stripApostrophes(w string) string {
	if !strings.ContainsAny(w, "'’") {
		return w
	}
	// "caroline's" → "caroline": a possessive or contraction tail goes.
	if i := strings.IndexAny(w, "'’"); i > 0 {
		tail := strings.TrimLeft(w[i:], "'’")
		switch tail {
		case "s", "":
			return w[:i]
		}
	}
	return strings.NewReplacer("'", "", "’", "").Replace(w)
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || '0' <= r && r <= '9' || 'A' <= r && r <= 'Z' || r == '\''
	}
	return r == '’' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

func isCJK(r rune) bool {
	switch {
	case r < 0x2E80:
		return false
	case 0x4E00 <= r && r <= 0x9FFF, 0x3040 <= r && r <= 0x30FF, 0xAC00 <= r && r <= 0xD7AF, 0x3400 <= r && r <= 0x4DBF:
		return true
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// FNV-1a, then a splitmix64 finaliser so the low bits (the index) and the
// top bit (the sign) are both well mixed.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func seed(kind uint64) uint64 { return (fnvOffset ^ kind) * fnvPrime }

func hashStr(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	return h
}

func hashByte(h uint64, b byte) uint64 {
	h ^= uint64(b)
	return h * fnvPrime
}

func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

func normalize(v []float32) {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	if n == 0 {
		return
	}
	s := float32(1 / math.Sqrt(n))
	for i := range v {
		v[i] *= s
	}
}

// Cosine is the cosine similarity of two vectors (memory.Cosine).
func Cosine(a, b []float32) float64 { return memory.Cosine(a, b) }
