package research

import "time"

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
	return ds
}
