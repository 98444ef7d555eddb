package research

import (
	"fmt"
	"time"

	"github.com/memproxy/memproxy/embed"
	"github.com/memproxy/memproxy/policy"
)

// Designs is the catalogue of designs the research command compares.
func Designs() []Design {
	plain := &Analyzer{}
	stemmed := &Analyzer{Stem: true, Stopwords: true}
	turn := UnitDesign{Kind: "turn"}
	pair := UnitDesign{Kind: "pair"}
	ctx1 := UnitDesign{Kind: "pair", Before: 1}
	hash := func(dim int) *HashEmbedder {
		return &HashEmbedder{Dim: dim, Analyzer: Analyzer{Stem: true, Stopwords: true}, Bigrams: true, CharMin: 3, CharMax: 5, CharWeight: 0.5, Sublinear: true}
	}
	month := 30 * 24 * time.Hour
	product := &ScoreParams{Sim: 0.6, Recency: 0.3, HalfLife: month, Shape: 1.5}
	ds := []Design{
		{Name: "bm25 turn", Units: turn, Retrieval: Retrieval{Lexical: plain}},
		{Name: "bm25 pair", Units: pair, Retrieval: Retrieval{Lexical: plain}},
		{Name: "bm25+stem pair", Units: pair, Retrieval: Retrieval{Lexical: stemmed}},
		{Name: "bm25 pair+date", Units: UnitDesign{Kind: "pair", DatePrefix: true}, Retrieval: Retrieval{Lexical: plain}},
		{Name: "bm25+stem pair b0.3", Units: pair, Retrieval: Retrieval{Lexical: stemmed, B: 0.3}},
		{Name: "bm25+stem pair k1.5 b0.5", Units: pair, Retrieval: Retrieval{Lexical: stemmed, K1: 1.5, B: 0.5}},
		{Name: "bm25+stem ctx-1", Units: ctx1, Retrieval: Retrieval{Lexical: stemmed}},
		{Name: "bm25+stem ctx-1+date", Units: UnitDesign{Kind: "pair", Before: 1, DatePrefix: true}, Retrieval: Retrieval{Lexical: stemmed}},
		{Name: "bm25+stem ctx-2", Units: UnitDesign{Kind: "pair", Before: 2}, Retrieval: Retrieval{Lexical: stemmed}},
		{Name: "bm25+stem ctx±1", Units: UnitDesign{Kind: "pair", Before: 1, After: 1}, Retrieval: Retrieval{Lexical: stemmed}},
		{Name: "bm25+stem window2", Units: UnitDesign{Kind: "window", Size: 2}, Retrieval: Retrieval{Lexical: stemmed}},
		{Name: "bm25+stem ctx-1 budget500", Units: ctx1, Retrieval: Retrieval{Lexical: stemmed}, Budget: 500},
		{Name: "hash256 pair", Units: pair, Retrieval: Retrieval{Vector: hash(256)}},
		{Name: "hash1024 pair", Units: pair, Retrieval: Retrieval{Vector: hash(1024)}},
		{Name: "hash1024 ctx-1", Units: ctx1, Retrieval: Retrieval{Vector: hash(1024)}},
		{Name: "rrf bm25+stem,hash1024 pair", Units: pair, Retrieval: Retrieval{Lexical: stemmed, Vector: hash(1024)}},
		{Name: "rrf bm25+stem,hash1024 ctx-1", Units: ctx1, Retrieval: Retrieval{Lexical: stemmed, Vector: hash(1024)}},
		{Name: "rrf vw0.5 ctx-1", Units: ctx1, Retrieval: Retrieval{Lexical: stemmed, Vector: hash(1024), VectorWeight: 0.5}},
		{Name: "score(product) rrf pair", Units: pair, Retrieval: Retrieval{Lexical: stemmed, Vector: hash(1024), Score: product}},
		{Name: "score(sim only) rrf pair", Units: pair, Retrieval: Retrieval{Lexical: stemmed, Vector: hash(1024), Score: &ScoreParams{Sim: 1}}},
		{Name: "score(fused-sim, rec 0.3) rrf ctx-1", Units: ctx1, Retrieval: Retrieval{Lexical: stemmed, Vector: hash(1024), SimFromFusion: true, Score: product}},
		{Name: "score(fused-sim, rec 0.05) rrf ctx-1", Units: ctx1, Retrieval: Retrieval{Lexical: stemmed, Vector: hash(1024), SimFromFusion: true, Score: &ScoreParams{Sim: 0.6, Recency: 0.05, HalfLife: month, Shape: 1.5}}},
		{Name: "score(cov-sim, rec 0.05) rrf ctx-1", Units: ctx1, Retrieval: Retrieval{Lexical: stemmed, Vector: hash(1024), Score: &ScoreParams{Sim: 0.6, Recency: 0.05, HalfLife: month, Shape: 1.5}}},
	}
	prod := func(mod func(*policy.Policy)) *ProductRecall {
		p := policy.Default()
		if mod != nil {
			mod(p)
		}
		return &ProductRecall{Recall: p.Recall, Decay: p.Decay}
	}
	noRec := func(p *policy.Policy) { p.Recall.Weights.Recency = 0 }
	rec05 := func(p *policy.Policy) { p.Recall.Weights.Recency = 0.05 }
	ctx1d := UnitDesign{Kind: "pair", Before: 1, DatePrefix: true}
	ds = append(ds,
		Design{Name: "recaller(default) pair", Units: pair, Retrieval: Retrieval{Lexical: plain, Vector: hash(256), Product: prod(nil)}},
		Design{Name: "recaller(default) bm25+stem ctx-1+date", Units: ctx1d, Retrieval: Retrieval{Lexical: stemmed, Vector: hash(1024), Product: prod(nil)}},
		Design{Name: "recaller(rec 0) bm25+stem ctx-1+date", Units: ctx1d, Retrieval: Retrieval{Lexical: stemmed, Vector: hash(1024), Product: prod(noRec)}},
		Design{Name: "recaller(rec 0.05) bm25+stem ctx-1+date", Units: ctx1d, Retrieval: Retrieval{Lexical: stemmed, Vector: hash(1024), Product: prod(rec05)}},
		Design{Name: "recaller(rec 0) lexical-only ctx-1+date", Units: ctx1d, Retrieval: Retrieval{Lexical: stemmed, Product: prod(noRec)}},
	)
	hashW := func(dim int, bigrams bool, cmin, cmax int, cw float64) *HashEmbedder {
		return &HashEmbedder{Dim: dim, Analyzer: Analyzer{Stem: true, Stopwords: true}, Bigrams: bigrams, CharMin: cmin, CharMax: cmax, CharWeight: cw, Sublinear: true}
	}
	fs := func(rec float64) *ScoreParams {
		return &ScoreParams{Sim: 0.6, Recency: rec, HalfLife: month, Shape: 1.5}
	}
	ds = append(ds,
		Design{Name: "x bm25+stem ctx-1+date", Units: ctx1d, Retrieval: Retrieval{Lexical: stemmed}},
		Design{Name: "x bm25+stem ctx-1+date budget500", Units: ctx1d, Retrieval: Retrieval{Lexical: stemmed}, Budget: 500},
		Design{Name: "x rrf vw0.25 ctx-1+date", Units: ctx1d, Retrieval: Retrieval{Lexical: stemmed, Vector: hash(1024), VectorWeight: 0.25}},
		Design{Name: "x rrf vw0.1 ctx-1+date", Units: ctx1d, Retrieval: Retrieval{Lexical: stemmed, Vector: hash(1024), VectorWeight: 0.1}},
		Design{Name: "x rrf k10 vw0.5 ctx-1+date", Units: ctx1d, Retrieval: Retrieval{Lexical: stemmed, Vector: hash(1024), VectorWeight: 0.5, RRFK: 10}},
		Design{Name: "x fused-sim rec0.05 vw0.25 ctx-1+date", Units: ctx1d, Retrieval: Retrieval{Lexical: stemmed, Vector: hash(1024), VectorWeight: 0.25, SimFromFusion: true, Score: fs(0.05)}},
		Design{Name: "x fused-sim rec0.1 vw0.25 ctx-1+date", Units: ctx1d, Retrieval: Retrieval{Lexical: stemmed, Vector: hash(1024), VectorWeight: 0.25, SimFromFusion: true, Score: fs(0.1)}},
		Design{Name: "x vec words-only 1024 ctx-1+date", Units: ctx1d, Retrieval: Retrieval{Vector: hashW(1024, false, 0, 0, 0)}},
		Design{Name: "x vec words+bigrams 1024 ctx-1+date", Units: ctx1d, Retrieval: Retrieval{Vector: hashW(1024, true, 0, 0, 0)}},
		Design{Name: "x vec words+char3-5 1024 ctx-1+date", Units: ctx1d, Retrieval: Retrieval{Vector: hashW(1024, false, 3, 5, 0.5)}},
		Design{Name: "x vec words+bi+char 4096 ctx-1+date", Units: ctx1d, Retrieval: Retrieval{Vector: hashW(4096, true, 3, 5, 0.5)}},
		Design{Name: "x vec words+bi+char 256 ctx-1+date", Units: ctx1d, Retrieval: Retrieval{Vector: hashW(256, true, 3, 5, 0.5)}},
	)
	b := func(u UnitDesign) UnitDesign { return u }
	ds = append(ds,
		Design{Name: "y bm25+stem pair B500", Units: pair, Retrieval: Retrieval{Lexical: stemmed}, Budget: 500},
		Design{Name: "y bm25+stem ctx-1+date B500", Units: ctx1d, Retrieval: Retrieval{Lexical: stemmed}, Budget: 500},
		Design{Name: "y bm25+stem ctx-1+date B500 fill", Units: ctx1d, Retrieval: Retrieval{Lexical: stemmed}, Budget: 500, Fill: true},
		Design{Name: "y bm25+stem prevutt+date B500", Units: b(UnitDesign{Kind: "pair", PrevUtterance: true, DatePrefix: true}), Retrieval: Retrieval{Lexical: stemmed}, Budget: 500},
		Design{Name: "y bm25+stem ctx-1x2own+date B500", Units: b(UnitDesign{Kind: "pair", Before: 1, OwnWeight: 2, DatePrefix: true}), Retrieval: Retrieval{Lexical: stemmed}, Budget: 500},
		Design{Name: "y bm25+stem ctx-1+date cap200 B500", Units: b(UnitDesign{Kind: "pair", Before: 1, DatePrefix: true, AssistantCap: 200}), Retrieval: Retrieval{Lexical: stemmed}, Budget: 500},
		Design{Name: "y bm25+stem ctx-1+date cap200 B500 fill", Units: b(UnitDesign{Kind: "pair", Before: 1, DatePrefix: true, AssistantCap: 200}), Retrieval: Retrieval{Lexical: stemmed}, Budget: 500, Fill: true},
		Design{Name: "y vec1024 user-only pair", Units: pair, Retrieval: Retrieval{Vector: hash(1024), EmbedUser: true}},
		Design{Name: "y vec1024 full pair", Units: pair, Retrieval: Retrieval{Vector: hash(1024)}},
		Design{Name: "y vec1024 ctx-1+date", Units: ctx1d, Retrieval: Retrieval{Vector: hash(1024)}},
	)
	fw := func(w float64, u UnitDesign) Design {
		return Design{Name: fmt.Sprintf("z field ctx w%.2g %s B500", w, u.Name), Units: u, Retrieval: Retrieval{Lexical: stemmed, CtxWeight: w}, Budget: 500}
	}
	ds = append(ds,
		Design{Name: "z ctx-1x3own+date B500", Units: UnitDesign{Kind: "pair", Before: 1, OwnWeight: 3, DatePrefix: true}, Retrieval: Retrieval{Lexical: stemmed}, Budget: 500},
		Design{Name: "z ctx±1x2own+date B500", Units: UnitDesign{Kind: "pair", Before: 1, After: 1, OwnWeight: 2, DatePrefix: true}, Retrieval: Retrieval{Lexical: stemmed}, Budget: 500},
		fw(0.3, UnitDesign{Name: "prev+date", Kind: "pair", Before: 1, DatePrefix: true}),
		fw(0.5, UnitDesign{Name: "prev+date", Kind: "pair", Before: 1, DatePrefix: true}),
		fw(0.7, UnitDesign{Name: "prev+date", Kind: "pair", Before: 1, DatePrefix: true}),
		fw(0.5, UnitDesign{Name: "prev±1+date", Kind: "pair", Before: 1, After: 1, DatePrefix: true}),
		fw(0.3, UnitDesign{Name: "prev2+date", Kind: "pair", Before: 2, DatePrefix: true}),
		fw(0.5, UnitDesign{Name: "prev", Kind: "pair", Before: 1}),
	)
	c2 := UnitDesign{Kind: "pair", Before: 1, OwnWeight: 2, DatePrefix: true}
	ds = append(ds,
		Design{Name: "w ctx-1x2own+date b0.5 B500", Units: c2, Retrieval: Retrieval{Lexical: stemmed, B: 0.5}, Budget: 500},
		Design{Name: "w ctx-1x2own+date k1.6 B500", Units: c2, Retrieval: Retrieval{Lexical: stemmed, K1: 1.6}, Budget: 500},
		Design{Name: "w ctx-1x2own+date k0.9 B500", Units: c2, Retrieval: Retrieval{Lexical: stemmed, K1: 0.9}, Budget: 500},
		Design{Name: "w ctx-1x2own+date prf5 B500", Units: c2, Retrieval: Retrieval{Lexical: stemmed, PRFTerms: 5}, Budget: 500},
		Design{Name: "w ctx-1x2own+date prf10 B500", Units: c2, Retrieval: Retrieval{Lexical: stemmed, PRFTerms: 10}, Budget: 500},
		Design{Name: "w ctx-1x2own+date no-stopwords-list B500", Units: c2, Retrieval: Retrieval{Lexical: &Analyzer{Stem: true}}, Budget: 500},
	)
	ds = append(ds,
		Design{Name: "v turn ctx±1+date B500", Units: UnitDesign{Kind: "turn", Before: 1, After: 1, DatePrefix: true}, Retrieval: Retrieval{Lexical: stemmed}, Budget: 500},
		Design{Name: "v turn ctx±1x2own+date B500", Units: UnitDesign{Kind: "turn", Before: 1, After: 1, OwnWeight: 2, DatePrefix: true}, Retrieval: Retrieval{Lexical: stemmed}, Budget: 500},
		Design{Name: "v turn ctx-2+1x2own+date B500", Units: UnitDesign{Kind: "turn", Before: 2, After: 1, OwnWeight: 2, DatePrefix: true}, Retrieval: Retrieval{Lexical: stemmed}, Budget: 500},
		Design{Name: "v pair ctx-1x2own+date B600", Units: c2, Retrieval: Retrieval{Lexical: stemmed}, Budget: 600},
		Design{Name: "v pair ctx-1x2own+date B700", Units: c2, Retrieval: Retrieval{Lexical: stemmed}, Budget: 700},
	)
	short := "Notes from earlier chats with this user; they may be outdated. Use one only if it clearly helps, and do not mention them."
	ds = append(ds,
		Design{Name: "u pair ctx-1x2own+date B500 short-guard", Units: c2, Retrieval: Retrieval{Lexical: stemmed}, Budget: 500, Guard: short},
		Design{Name: "u pair ctx-1x2own+date B500 short-guard fill", Units: c2, Retrieval: Retrieval{Lexical: stemmed}, Budget: 500, Guard: short, Fill: true},
		Design{Name: "u turn ctx-2+1x2own+date B500 short-guard", Units: UnitDesign{Kind: "turn", Before: 2, After: 1, OwnWeight: 2, DatePrefix: true}, Retrieval: Retrieval{Lexical: stemmed}, Budget: 500, Guard: short},
	)
	// The path from today's product defaults to the recommended design,
	// one change at a time, all under the shipped injector (budget 500).
	userEmb := func(r Retrieval) Retrieval { r.EmbedUser = true; return r }
	proposedRec := func(vw float64, vec Embedder, rec float64) Retrieval {
		return Retrieval{Lexical: stemmed, Vector: vec, VectorWeight: vw, SimFromFusion: true,
			Score: &ScoreParams{Sim: 0.6, Recency: rec, HalfLife: month, Shape: 1.5}}
	}
	proposed := func(vw float64, vec Embedder) Retrieval { return proposedRec(vw, vec, 0) }
	ds = append(ds,
		Design{Name: "F1 today: recaller default, pair, hash256 user-only, plain lexical", Units: pair, Retrieval: userEmb(Retrieval{Lexical: plain, Vector: hash(256), Product: prod(nil)}), Budget: 500},
		Design{Name: "F2 + stemmed lexical", Units: pair, Retrieval: userEmb(Retrieval{Lexical: stemmed, Vector: hash(256), Product: prod(nil)}), Budget: 500},
		Design{Name: "F3 + recency weight 0", Units: pair, Retrieval: userEmb(Retrieval{Lexical: stemmed, Vector: hash(256), Product: prod(noRec)}), Budget: 500},
		Design{Name: "F4 + rank by fusion (vw 0.25)", Units: pair, Retrieval: userEmb(proposed(0.25, hash(256))), Budget: 500},
		Design{Name: "F5 + embed whole event, 1024 dims", Units: pair, Retrieval: proposed(0.25, hash(1024)), Budget: 500},
		Design{Name: "F6 + index date, prev turn, own text x2", Units: c2, Retrieval: proposed(0.25, hash(1024)), Budget: 500},
		Design{Name: "F7 + shorter guard", Units: c2, Retrieval: proposed(0.25, hash(1024)), Budget: 500, Guard: short},
		Design{Name: "F8 lexical weight only (vw 0.1)", Units: c2, Retrieval: proposed(0.1, hash(1024)), Budget: 500, Guard: short},
		Design{Name: "F9 lexical only", Units: c2, Retrieval: proposed(0, nil), Budget: 500, Guard: short},
		Design{Name: "F10 F8 with recency 0.05", Units: c2, Retrieval: proposedRec(0.1, hash(1024), 0.05), Budget: 500, Guard: short},
		Design{Name: "F11 F8 with recency 0.01", Units: c2, Retrieval: proposedRec(0.1, hash(1024), 0.01), Budget: 500, Guard: short},
	)
	for _, b := range []int{540, 560, 580} {
		ds = append(ds, Design{Name: fmt.Sprintf("G lexical ctx-1x2own+date B%d short-guard", b), Units: c2, Retrieval: Retrieval{Lexical: stemmed}, Budget: b, Guard: short})
		ds = append(ds, Design{Name: fmt.Sprintf("G lexical ctx-1x2own+date B%d", b), Units: c2, Retrieval: Retrieval{Lexical: stemmed}, Budget: b})
	}
	// The product's offline embedder (embed.NewLocal), as shipped.
	ds = append(ds,
		Design{Name: "L local256 pair user-only", Units: pair, Retrieval: Retrieval{Vector: embed.NewLocal(256), EmbedUser: true}},
		Design{Name: "L local256 pair", Units: pair, Retrieval: Retrieval{Vector: embed.NewLocal(256)}},
		Design{Name: "L local1024 pair", Units: pair, Retrieval: Retrieval{Vector: embed.NewLocal(1024)}},
		Design{Name: "L local256 ctx-1x2own+date", Units: c2, Retrieval: Retrieval{Vector: embed.NewLocal(256)}},
		Design{Name: "L local1024 ctx-1x2own+date", Units: c2, Retrieval: Retrieval{Vector: embed.NewLocal(1024)}},
		Design{Name: "L recaller(default) local256 user-only pair B500", Units: pair, Retrieval: Retrieval{Lexical: plain, Vector: embed.NewLocal(256), EmbedUser: true, Product: prod(nil)}, Budget: 500},
		Design{Name: "L recaller(rec 0) local1024 ctx-1x2own+date B500", Units: c2, Retrieval: Retrieval{Lexical: stemmed, Vector: embed.NewLocal(1024), Product: prod(noRec)}, Budget: 500},
		Design{Name: "L fusion vw0.25 local1024 ctx-1x2own+date B500", Units: c2, Retrieval: proposed(0.25, embed.NewLocal(1024)), Budget: 500},
		Design{Name: "L fusion vw1 local1024 ctx-1x2own+date B500", Units: c2, Retrieval: proposed(1, embed.NewLocal(1024)), Budget: 500},
	)
	prodVW := func(vw float64) *ProductRecall {
		p := prod(noRec)
		p.VectorWeight = vw
		return p
	}
	ds = append(ds,
		Design{Name: "R recaller(rec 0, vw 0.25) local1024 ctx-1x2own+date B500", Units: c2, Retrieval: Retrieval{Lexical: stemmed, Vector: embed.NewLocal(1024), Product: prodVW(0.25)}, Budget: 500},
		Design{Name: "R recaller(rec 0, vw 0.25) local1024 ctx-1x2own+date B560 short-guard", Units: c2, Retrieval: Retrieval{Lexical: stemmed, Vector: embed.NewLocal(1024), Product: prodVW(0.25)}, Budget: 560, Guard: short},
		Design{Name: "R recaller(rec 0, vw 0.25) local256 ctx-1x2own+date B500", Units: c2, Retrieval: Retrieval{Lexical: stemmed, Vector: embed.NewLocal(256), Product: prodVW(0.25)}, Budget: 500},
		Design{Name: "R recaller(rec 0, vw 0.25) local256 pair B500", Units: pair, Retrieval: Retrieval{Lexical: stemmed, Vector: embed.NewLocal(256), Product: prodVW(0.25)}, Budget: 500},
		Design{Name: "R recaller(rec 0, vw 1) local256 pair unstemmed B500", Units: pair, Retrieval: Retrieval{Lexical: plain, Vector: embed.NewLocal(256), Product: prodVW(1)}, Budget: 500},
		Design{Name: "R recaller(rec 0) lexical-only ctx-1x2own+date B500", Units: c2, Retrieval: Retrieval{Lexical: stemmed, Product: prod(noRec)}, Budget: 500},
	)
	withMin := func(p *ProductRecall, min float64) *ProductRecall { p.MinScore = min; return p }
	sim1 := func(p *policy.Policy) { p.Recall.Weights = policy.Weights{Similarity: 1} }
	ds = append(ds,
		Design{Name: "M recaller(default, min 0.35) local256 user-only pair B500", Units: pair, Retrieval: Retrieval{Lexical: plain, Vector: embed.NewLocal(256), EmbedUser: true, Product: withMin(prod(nil), 0.35)}, Budget: 500},
		Design{Name: "M recaller(sim 1, min 0.35) local256 user-only pair B500", Units: pair, Retrieval: Retrieval{Lexical: plain, Vector: embed.NewLocal(256), EmbedUser: true, Product: withMin(prod(sim1), 0.35)}, Budget: 500},
		Design{Name: "M recaller(sim 1, min 0) local256 user-only pair B500", Units: pair, Retrieval: Retrieval{Lexical: plain, Vector: embed.NewLocal(256), EmbedUser: true, Product: prod(sim1)}, Budget: 500},
		Design{Name: "M recaller(sim 1, min 0.35) local256 full pair B500", Units: pair, Retrieval: Retrieval{Lexical: plain, Vector: embed.NewLocal(256), Product: withMin(prod(sim1), 0.35)}, Budget: 500},
	)
	ds = append(ds,
		Design{Name: "M recaller(rec 0, sim 1, vw 0.25, min 0.1) local1024 ctx-1x2own+date B560 short-guard", Units: c2, Retrieval: Retrieval{Lexical: stemmed, Vector: embed.NewLocal(1024), Product: withMin(func() *ProductRecall { p := prod(sim1); p.VectorWeight = 0.25; return p }(), 0.1)}, Budget: 560, Guard: short},
		Design{Name: "M recaller(rec 0, sim 1, vw 0.25, min 0) local1024 ctx-1x2own+date B560 short-guard", Units: c2, Retrieval: Retrieval{Lexical: stemmed, Vector: embed.NewLocal(1024), Product: func() *ProductRecall { p := prod(sim1); p.VectorWeight = 0.25; return p }()}, Budget: 560, Guard: short},
	)
	c2d := c2
	c2d.DropNoise = true
	ds = append(ds,
		Design{Name: "M recaller(rec 0, sim 1, vw 0.25, min 0.1) local1024 ctx-1x2own+date B560 short-guard, ingest drops", Units: c2d, Retrieval: Retrieval{Lexical: stemmed, Vector: embed.NewLocal(1024), Product: withMin(func() *ProductRecall { p := prod(sim1); p.VectorWeight = 0.25; return p }(), 0.1)}, Budget: 560, Guard: short},
		Design{Name: "M bm25 ctx-1x2own+date B500, ingest drops", Units: c2d, Retrieval: Retrieval{Lexical: stemmed}, Budget: 500},
	)
	for _, b := range []int{500, 530, 560} {
		ds = append(ds,
			Design{Name: fmt.Sprintf("P bm25 ctx-1x2own+date B%d short-guard prefix \"- [event 2006-01-02 m:0000] \"", b), Units: c2, Retrieval: Retrieval{Lexical: stemmed}, Budget: b, Guard: short, Prefix: "- [event 2006-01-02 m:0000] "},
			Design{Name: fmt.Sprintf("P bm25 ctx-1x2own+date B%d short-guard prefix \"- [2006-01-02] \"", b), Units: c2, Retrieval: Retrieval{Lexical: stemmed}, Budget: b, Guard: short, Prefix: "- [2006-01-02] "},
		)
	}
	return ds
}
