package research

import (
	"context"
	"hash/fnv"
	"math"
	"sort"
)

// HashEmbedder is a configurable feature-hashing embedder: the harness's
// copy of the idea behind the product's offline embedder, used to find
// which features matter before changing the product's.
type HashEmbedder struct {
	Dim int
	Analyzer
	// Bigrams adds word bigrams (of the analysed terms).
	Bigrams bool
	// CharN adds character n-grams of each word, MinN..MaxN (0 = none).
	CharMin, CharMax int
	// CharWeight scales the n-gram features relative to words (1 when 0).
	CharWeight float64
	// Sublinear uses 1+log(tf) instead of raw counts.
	Sublinear bool
}

// Embed implements the QueryEmbedder shape of memory.
func (h *HashEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = h.Vector(t)
	}
	return out, nil
}

// Vector embeds one text (L2-normalised; all zero when it has no features).
func (h *HashEmbedder) Vector(text string) []float32 {
	feats := map[string]float64{}
	terms := h.Terms(text)
	for i, w := range terms {
		feats["w:"+w]++
		if h.Bigrams && i > 0 {
			feats["b:"+terms[i-1]+" "+w]++
		}
		if h.CharMax > 0 {
			cw := h.CharWeight
			if cw == 0 {
				cw = 1
			}
			r := []rune("<" + w + ">")
			grams := 0
			for n := h.CharMin; n <= h.CharMax; n++ {
				grams += max(0, len(r)-n+1)
			}
			for n := h.CharMin; n <= h.CharMax; n++ {
				for j := 0; j+n <= len(r); j++ {
					// Each word's n-grams share one unit of weight, so long
					// words do not drown short ones.
					feats["c:"+string(r[j:j+n])] += cw / float64(grams)
				}
			}
		}
	}
	v := make([]float32, h.Dim)
	for f, c := range feats {
		if h.Sublinear && c >= 1 {
			c = 1 + math.Log(c)
		}
		hs := fnv.New64a()
		hs.Write([]byte(f))
		x := hs.Sum64()
		idx := int(x % uint64(h.Dim))
		sign := float32(1)
		if x>>63 == 1 {
			sign = -1
		}
		v[idx] += sign * float32(c)
	}
	normalize(v)
	return v
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

func cosine(a, b []float32) float64 {
	if len(a) == 0 || len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// VectorIndex is a brute-force cosine index.
type VectorIndex struct {
	vecs [][]float32
}

// Search returns the limit nearest units by cosine (score > 0).
func (x *VectorIndex) Search(q []float32, limit int) []Ranked {
	var out []Ranked
	for i, v := range x.vecs {
		if s := cosine(q, v); s > 0 {
			out = append(out, Ranked{i, s})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out
}
