package admin

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/labstack/echo/v4"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
)

// Searcher runs recall; *memory.Recaller satisfies it.
type Searcher interface {
	Recall(ctx context.Context, s memory.Scope, q memory.Query) (*memory.Result, error)
}

var _ Searcher = (*memory.Recaller)(nil)

// explained is one ranked candidate with its memory and score breakdown.
type explained struct {
	memory.RankedCandidate
	Text        string  `json:"text"`
	Cosine      float64 `json:"cosine"`
	Lexical     float64 `json:"lexical"`
	Fused       float64 `json:"fused"`
	VectorRank  int     `json:"vector_rank"`
	LexicalRank int     `json:"lexical_rank"`
	Phrases     int     `json:"phrases"`
}

// explainResponse is the search answer with the knobs that shaped it.
type explainResponse struct {
	Query    string         `json:"query"`
	Scope    memory.Scope   `json:"scope"`
	At       time.Time      `json:"at"`
	Data     []explained    `json:"data"`
	Selected []string       `json:"selected"`
	Explain  explainFilters `json:"explain"`
}

type explainFilters struct {
	Formula  string   `json:"formula"`
	Weights  weights  `json:"weights"`
	MinScore float64  `json:"min_score"`
	TopK     int      `json:"top_k"`
	Filters  []string `json:"filters"`
}

// weights are the score weights as the API names them.
type weights struct {
	Similarity float64 `json:"similarity"`
	Recency    float64 `json:"recency"`
	Frequency  float64 `json:"frequency"`
	Value      float64 `json:"value"`
}

func weightsOf(w policy.Weights) weights {
	return weights{Similarity: w.Similarity, Recency: w.Recency, Frequency: w.Frequency, Value: w.Value}
}

// GET /admin/v1/users/{user}/search?q=&namespace=&k=&min_score=&at=
func (a *API) search(c echo.Context) error {
	if a.cfg.Searcher == nil {
		return unavailable("search")
	}
	s, err := scopeOf(c)
	if err != nil {
		return err
	}
	q := strings.TrimSpace(c.QueryParam("q"))
	switch {
	case q == "":
		return badParam("q", "is required")
	case len(q) > 4096 || !utf8.ValidString(q):
		return badParam("q", "must be valid UTF-8 of at most 4096 bytes")
	}
	k := a.pol.Recall.TopK
	if v := c.QueryParam("k"); v != "" {
		if k, err = strconv.Atoi(v); err != nil || k < 1 || k > 100 {
			return badParam("k", fmt.Sprintf("%q is not an integer from 1 to 100", v))
		}
	}
	minScore := a.pol.Gate.MinScore
	if v := c.QueryParam("min_score"); v != "" {
		if minScore, err = strconv.ParseFloat(v, 64); err != nil || minScore < 0 || minScore > 10 {
			return badParam("min_score", fmt.Sprintf("%q is not a number from 0 to 10", v))
		}
	}
	at, err := timeParam(c, "at")
	if err != nil {
		return err
	}
	if at.IsZero() {
		at = a.now().UTC()
	}
	ctx := c.Request().Context()
	res, err := a.cfg.Searcher.Recall(ctx, s, memory.Query{Text: q, MinScore: minScore, TopK: k, At: at})
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	ids := make([]string, len(res.Ranked))
	for i, r := range res.Ranked {
		ids[i] = r.ID
	}
	mems, err := a.st.GetMany(ctx, s, ids)
	if err != nil {
		return fmt.Errorf("search: load candidates: %w", err)
	}
	text := make(map[string]string, len(mems))
	for _, m := range mems {
		text[m.ID] = m.Text
	}
	sel := make(map[string]*memory.Scored, len(res.Selected))
	out := explainResponse{Query: q, Scope: s, At: at, Data: make([]explained, 0, len(res.Ranked)), Selected: []string{}}
	for _, x := range res.Selected {
		sel[x.Memory.ID] = x
		text[x.Memory.ID] = x.Memory.Text
		out.Selected = append(out.Selected, x.Memory.ID)
	}
	for _, r := range res.Ranked {
		e := explained{RankedCandidate: r, Text: text[r.ID]}
		if x, ok := sel[r.ID]; ok {
			e.Cosine, e.Lexical, e.Fused, e.VectorRank, e.LexicalRank, e.Phrases = x.Cosine, x.Lexical, x.Fused, x.VectorRank, x.LexicalRank, x.Phrases
		}
		out.Data = append(out.Data, e)
	}
	out.Explain = explainFilters{
		Formula:  "score = w_sim·sim + w_rec·retention + w_freq·min(1, hits/5) + w_val·value; candidates fused by reciprocal rank; rank = fused × (1 + phrase_weight × query phrases held) × (1 + answer_weight when it answers a question about the topic); sim = rank / best rank × best evidence (evidence = max(cosine, share of query terms)); min_score is judged on each candidate's own evidence",
		Weights:  weightsOf(a.pol.Recall.Weights),
		MinScore: minScore,
		TopK:     k,
		Filters: []string{memory.FilteredSuperseded, memory.FilteredArchived, memory.FilteredExpired, memory.FilteredProfile,
			memory.FilteredConsolidated, memory.FilteredMinScore, memory.FilteredCovered, memory.FilteredTopK},
	}
	return c.JSON(http.StatusOK, out)
}
