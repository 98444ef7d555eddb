package memory

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/memproxy/memproxy/policy"
	"github.com/memproxy/memproxy/text"
)

// Searcher is the part of the store recall reads: the two candidate
// searches of Memories.
type Searcher interface {
	VectorSearch(ctx context.Context, s Scope, vec []float32, o SearchOptions) ([]Candidate, error)
	LexicalSearch(ctx context.Context, s Scope, query string, o SearchOptions) ([]Candidate, error)
}

// HybridSearcher is a Searcher that can run both searches of one query at
// once, returning what VectorSearch and LexicalSearch would: a store whose
// every search costs a round trip (PostgreSQL) reads the rows of both in
// one. Recall uses it when the store has it.
type HybridSearcher interface {
	HybridSearch(ctx context.Context, s Scope, vec []float32, query string, o SearchOptions) (byVector, byText []Candidate, err error)
}

// ProfileLister lists a scope's memories; recall uses it for the profile
// tier, which is injected whenever it exists rather than searched.
type ProfileLister interface {
	List(ctx context.Context, s Scope, f ListFilter) (Page[*Memory], error)
}

// TierLister is a ProfileLister that finds a scope's live memories of one
// tier in its in-process index instead of walking the scope's rows (both
// stores). ListTier returns them in no particular order; when more than
// most match it returns ok false and the caller lists them.
type TierLister interface {
	ListTier(ctx context.Context, s Scope, tier Tier, at time.Time, most int) (ms []*Memory, ok bool, err error)
}

// QueryEmbedder turns texts into vectors. The embed package satisfies it
// (with its cache in front); it is declared here so memory does not import
// embed.
type QueryEmbedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// Interface guards: every store's Memories can serve recall.
var (
	_ Searcher       = Memories(nil)
	_ HybridSearcher = Memories(nil)
	_ ProfileLister  = Memories(nil)
)

// Filter reasons recorded in RankedCandidate.Filtered.
const (
	FilteredSuperseded   = "superseded"
	FilteredArchived     = "archived"
	FilteredExpired      = "expired"
	FilteredProfile      = "profile"      // injected through Profile instead
	FilteredConsolidated = "consolidated" // an event folded into a consolidated memory
	FilteredInMessages   = "in_messages"  // already in the request's messages
	FilteredNoMatch      = "no_match"     // neither vector nor lexical similarity
	FilteredMinScore     = "below_min_score"
	FilteredCovered      = "covered" // said whole by a selected event (a fact extracted from that very turn)
	FilteredTopK         = "top_k"   // live and good enough, but not in the top k
)

// MaxProfile bounds how many profile memories Profile returns; the
// injector's profile budget cuts further.
const MaxProfile = 50

// profileFromIndex is how many profile memories Profile reads from the
// store's index (TierLister) before it lets the store list them.
const profileFromIndex = 4 * MaxProfile

// RecallerConfig wires a Recaller. Search is required; the rest have
// useful zero values.
type RecallerConfig struct {
	// Search finds candidates (a store's Memories).
	Search Searcher
	// Profiles lists profile memories; nil makes Profile return none.
	Profiles ProfileLister
	// Embedder embeds the query; nil runs lexical search only.
	Embedder QueryEmbedder
	// Recall and Decay are the policy sections recall follows.
	Recall policy.Recall
	Decay  policy.Decay
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// SimEvidence makes sim the candidate's own evidence, max(cosine,
	// term coverage), instead of the default fusion-ranked sim (see
	// Recall). Evidence alone ranks worse (LoCoMo dev R@5 0.46 against
	// 0.70 with the local embedder) because term coverage knows no IDF.
	SimEvidence bool
	// VectorWeight scales the vector list's share of the fusion,
	// fused = VectorWeight/(k+rank_vec) + 1/(k+rank_lex) (1 when 0).
	VectorWeight float64
	// VectorCandidates is the vector search's length (0: Recall.Candidates,
	// as the lexical search's): a list fused at a small VectorWeight
	// needs fewer, and each costs a row read and an exact re-score.
	VectorCandidates int
	// Entities, when set, tells which candidate facts are about an entity
	// the query names (package entity): those live facts are selected
	// first, whatever their score (see Recall).
	Entities EntityMatcher
}

// EntityMatcher picks, among a query's candidate facts, the live facts of
// an entity the query names by name or alias ("Anna", "my sister"). The
// entity package implements it; it is declared here so memory does not
// import it.
type EntityMatcher interface {
	// About reports, for each of facts, whether it is a live fact (at at)
	// about an entity q names.
	About(q string, facts []*Memory, at time.Time) []bool
}

// Recaller picks the memories worth injecting into one request:
// vector and lexical candidates, reciprocal-rank fusion, the score of
// DESIGN.md, hard filters, top-k. It is safe for concurrent use.
type Recaller struct {
	cfg RecallerConfig
}

// NewRecaller checks cfg and returns a Recaller.
func NewRecaller(cfg RecallerConfig) (*Recaller, error) {
	if cfg.Search == nil {
		return nil, errors.New("recaller: Search is required")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	cfg.Recall.TopK = cmp.Or(cfg.Recall.TopK, 5)
	cfg.Recall.Candidates = cmp.Or(cfg.Recall.Candidates, 50)
	cfg.Recall.RRFK = cmp.Or(cfg.Recall.RRFK, 60)
	return &Recaller{cfg: cfg}, nil
}

// Query is one recall request.
type Query struct {
	// Text is what to recall for: the last user message, optionally with a
	// little recent context.
	Text string
	// Exclude are the texts of the request's own messages; a candidate
	// whose (normalised) text they already contain is dropped.
	Exclude []string
	// MinScore is the score a memory needs to be selected (the gate's
	// per-scope threshold).
	MinScore float64
	// ExplicitMinScore, when set, is the score an explicit note needs
	// instead of MinScore when that is higher: the starting threshold, so
	// the adaptive threshold's drift never gates out a note the user asked
	// to keep.
	ExplicitMinScore float64
	// TopK is the most memories selected (0: policy recall.top_k).
	TopK int
	// At is "now" for filters and decay (zero: the Recaller's clock).
	At time.Time
}

// Scored is one candidate with its evidence and score.
type Scored struct {
	Memory *Memory
	Breakdown
	// Cosine is the query–memory cosine similarity (0 when either has no
	// embedding); Lexical is the share of the query's terms the memory
	// contains; their max is the evidence (see Recall for how sim uses it).
	Cosine  float64
	Lexical float64
	// Fused is the reciprocal-rank-fusion score that admitted the
	// candidate; VectorRank and LexicalRank are its 1-based ranks in each
	// search (0: not found by that search).
	Fused       float64
	VectorRank  int
	LexicalRank int
	// Phrases is how many of the query's phrases (content words side by
	// side once stop words are out, such as "support group") the memory's
	// search text holds as adjacent words.
	Phrases int
	// Answers: the candidate is an event that answers a question about
	// the query's topic (the exchange before it ends by asking about it).
	Answers bool
	// rank is what orders the candidates before the score: the fused
	// score raised by the phrases, Fused × (1 + phrase_weight·Phrases),
	// and by answer_weight when it Answers.
	rank float64
	// Filtered is why the candidate was not selected ("" when selected).
	Filtered string
	// Entity: a live fact about an entity the query names, selected
	// before the rest.
	Entity bool
	// stale: a memory naming a value a newer live fact replaced
	// (replacedFirst); its similarity was halved.
	stale bool
	// Shorten, when set, returns the memory's compact form for this query
	// within about maxTokens (the sentences that bear on it, "…" for the
	// rest; "" when it has none): the injector renders it when the budget
	// has no room left for the whole memory (policy recall.snippet_tokens).
	Shorten func(maxTokens int) string
	// Lead, when set, returns the part of what an event was said in
	// answer to (its context, the exchange before it) that bears on the
	// query, within about maxTokens ("" for none): the injector shows it
	// before the event when the budget has room once every memory went in,
	// so a turn found through the question it answers reads with it.
	Lead func(maxTokens int) string
}

// Result is the outcome of one recall. Its memories may be shared with
// the store's caches (SearchOptions.ReadOnly): read them, never change
// them.
type Result struct {
	// Selected are the memories to inject, best first.
	Selected []*Scored
	// Ranked is every fused candidate, best score first, with its
	// breakdown and the reason it was filtered: the recall log and the
	// evaluation (recall@10, @25) read it.
	Ranked []RankedCandidate
}

// Recall runs search → fuse → score → filter → top-k for q in scope s.
//
// Similarity. Two kinds of evidence say how well a memory answers the
// query: the query–memory cosine of the embeddings (recomputed for
// candidates only lexical search found) and lexical coverage, the share of
// the query's content terms (words; CJK bigrams and lone characters; a short
// stop-word list removed) that occur in the memory. Both are in [0, 1].
// They measure well how much the query is answered at all, but rank
// poorly: coverage knows no IDF, while the backends' lexical scores (bm25
// on SQLite, ts_rank on PostgreSQL) do, on unbounded scales that differ by
// store. So by default the order comes from the fusion and the level from
// the evidence:
//
//	fused = vw/(k + rank_vec) + 1/(k + rank_lex) [+ hyponym_weight/(k + rank_hyp)]
//	rank = fused × (1 + phrase_weight × phrases) × (1 + answer_weight × answers)
//	sim  = rank / best_rank × best_evidence
//
// where best_evidence = max over the candidates of max(cosine, coverage),
// and phrases counts the query's phrases (content words side by side once
// stop words are out: "support group", "clothing store") that the memory
// holds as adjacent words. Neither search sees word order (BM25 and a
// bag-of-features embedding), so a memory that says "my clothing store"
// and one that mentions a store and, later, clothing fuse alike; the
// phrase tells them apart (LoCoMo dev R@5 0.682 → 0.697 at weight 0.5,
// flat from 0.3 to 1). answers is 1 for an event whose exchange before
// it ends by asking about the query's topic (its rarer words: "… What's
// your favourite game?"), 0 otherwise: in a conversation that turn is the
// answer ("Catan, for sure!"), though it may not share a word with the
// query, and only its context (which both searches see) does
// (answersAsked; LoCoMo dev answer-in-context 0.688 → 0.693, R@5 0.743
// → 0.750 at weight 0.5). A query that asks for the members of a
// category ("What martial arts has John done?", "Which European
// countries …") also searches, lexically, for the category's kinds and
// instances (WordNet hyponyms, package lexicon: karate, judo; Spain,
// France), fused as a third list at recall.hyponym_weight, and a memory
// holding one counts it as the category's words in its coverage
// (queryTerms.expand; LoCoMo dev answer-in-context 0.696 → 0.698,
// multi-hop 0.381 → 0.401, at weight 1). The best-ranked candidate gets the best evidence
// found; the others scale down with their rank; a query nothing answers
// well keeps every sim low. The min_score test, though, uses each candidate's own evidence
// (the score with sim = max(cosine, coverage)): a candidate ranked next to
// a perfect match must not borrow its level and pass the threshold on
// words it does not contain. So min_score keeps its absolute meaning,
// "this memory answers enough of the query", and the adaptive gate's
// threshold moves something real. On the LoCoMo dev
// set (local embedder, recency weight 0, budget 500) this ranks at R@5
// 0.70 against 0.46 for sim = max(cosine, coverage) per candidate, which
// RecallerConfig.SimEvidence selects. A candidate with no evidence at all
// is never selected, whatever its recency or hits.
func (r *Recaller) Recall(ctx context.Context, s Scope, q Query) (*Result, error) {
	at := q.At
	if at.IsZero() {
		at = r.cfg.Now()
	}
	topK := cmp.Or(q.TopK, r.cfg.Recall.TopK)
	if strings.TrimSpace(q.Text) == "" {
		return &Result{}, nil
	}
	var qvec []float32
	if r.cfg.Embedder != nil {
		vecs, err := r.cfg.Embedder.Embed(ctx, []string{q.Text})
		if err != nil {
			return nil, fmt.Errorf("embed query: %w", err)
		}
		if len(vecs) != 1 {
			return nil, fmt.Errorf("embed query: got %d vectors for 1 text", len(vecs))
		}
		qvec = vecs[0]
	}
	vec, lex, err := r.search(ctx, s, q.Text, qvec, at)
	if err != nil {
		return nil, err
	}
	qt := newQueryTerms(q.Text)
	var hyp []Candidate
	if hw := r.cfg.Recall.HyponymWeight; hw > 0 {
		if words := qt.expand(); len(words) > 0 {
			if hyp, err = r.cfg.Search.LexicalSearch(ctx, s, strings.Join(words, " "), r.searchOptions(at)); err != nil {
				return nil, fmt.Errorf("hyponym search: %w", err)
			}
		}
	}
	qt.index()
	cands := fuse(vec, lex, hyp, r.cfg.Recall.RRFK, r.vectorWeight(), r.cfg.Recall.HyponymWeight, r.cfg.Recall.Candidates)
	bestRank, bestEvidence := 0.0, 0.0
	masks := make([]uint64, len(cands))
	for i, c := range cands {
		if c.VectorRank == 0 {
			c.Cosine = Cosine(qvec, c.Memory.Embedding)
		}
		c.Lexical, c.Phrases, masks[i] = qt.matchTexts(c.Memory.Text, c.Memory.Context) // SearchText, unjoined
		c.rank = c.Fused * (1 + r.cfg.Recall.PhraseWeight*float64(c.Phrases))
		bestEvidence = max(bestEvidence, c.Cosine, c.Lexical)
	}
	bestEvidence = min(bestEvidence, 1)
	w := termWeights(masks, len(qt.terms))
	if aw := r.cfg.Recall.AnswerWeight; aw > 0 {
		topic := topicMask(w, masks)
		for i, c := range cands {
			if masks[i]&topic != 0 && c.Memory.Tier == TierEvent && answersAsked(c.Memory.Context, qt, topic) {
				c.Answers = true
				c.rank *= 1 + aw
			}
		}
	}
	for _, c := range cands {
		bestRank = max(bestRank, c.rank)
	}

	excl := newExcluder(q.Exclude)
	aboutNow := text.SpeaksOfNow(q.Text)
	for _, c := range cands {
		m := c.Memory
		evidence := max(c.Cosine, c.Lexical)
		sim := evidence
		if !r.cfg.SimEvidence && bestRank > 0 {
			sim = c.rank / bestRank * bestEvidence
		}
		ret := Retention(m, at, r.cfg.Decay)
		_, c.Breakdown = Score(sim, ret, m.Hits, m.Value, r.cfg.Recall.Weights)
		own, _ := Score(evidence, ret, m.Hits, m.Value, r.cfg.Recall.Weights)
		c.Filtered = r.filter(m, at, excl)
		switch {
		case c.Filtered != "":
		case evidence <= 0:
			// Recency and use alone must not carry an unrelated memory
			// over the threshold.
			c.Filtered = FilteredNoMatch
		case own < q.MinScore && !(m.Source == SourceExplicit && q.ExplicitMinScore > 0 && own >= q.ExplicitMinScore) &&
			!(aboutNow && m.ExpiresAt != nil):
			// A temporary state that holds (expired ones are filtered
			// above) answers a message about the present even on little
			// lexical evidence ("今天适合去跑步吗？" for "用户这几天感冒了"):
			// it is how things are now, and there are few of them.
			c.Filtered = FilteredMinScore
		}
	}
	replacedFirst(cands, r.cfg.Recall.Weights)
	slices.SortFunc(cands, compareScored)
	if r.cfg.Entities != nil {
		entityFirst(r.cfg.Entities, q.Text, cands, at)
	}

	res := &Result{Ranked: make([]RankedCandidate, 0, len(cands))}
	for _, c := range cands {
		if c.Filtered != "" {
			continue
		}
		if slices.ContainsFunc(res.Selected, func(e *Scored) bool { return covers(e.Memory, c.Memory) }) {
			c.Filtered = FilteredCovered
			continue
		}
		if len(res.Selected) == topK {
			c.Filtered = FilteredTopK
			continue
		}
		// A better-ranked fact this event says whole gives up its slot,
		// unless it is about an entity the query names.
		res.Selected = slices.DeleteFunc(res.Selected, func(f *Scored) bool {
			if !f.Entity && covers(c.Memory, f.Memory) {
				f.Filtered = FilteredCovered
				return true
			}
			return false
		})
		res.Selected = append(res.Selected, c)
	}
	for i, c := range cands {
		res.Ranked = append(res.Ranked, c.ranked(i+1))
	}
	if n := r.cfg.Recall.SnippetTokens; n > 0 && len(res.Selected) > 0 {
		for _, c := range res.Selected {
			if text := c.Memory.Text; CountTokens(text) > n {
				answer := c.Answers
				c.Shorten = func(maxTokens int) string { return qt.short(text, w, maxTokens, answer) }
			}
		}
	}
	if topic := topicMask(w, masks); r.cfg.Recall.LeadTokens > 0 && topic != 0 {
		facts := newestFact(cands, qt, topic)
		for _, c := range res.Selected {
			// An event older than a live fact on the message's topic
			// gets no lead: what was said about it before the fact is
			// history the fact (and its supersede) accounts for.
			if c.Memory.Tier != TierEvent || c.Memory.CreatedAt.Before(facts) {
				continue
			}
			if ctx := EventExchange(c.Memory.Context); ctx != "" && !saidIn(ctx, res.Selected) {
				c.Lead = func(maxTokens int) string { return qt.lead(ctx, w, topic, maxTokens) }
			}
		}
	}
	return res, nil
}

// newestFact is when the newest live fact on the message's topic among
// the candidates was stated: a semantic or profile memory the hard
// filters kept, selected or not, whose own text (not the turn it came
// from) holds one of the topic terms, unless it is one value of a
// multi-valued slot (a new one leaves the others true, so it makes
// nothing said before stale); zero when there is none.
func newestFact(cands []*Scored, qt queryTerms, topic uint64) time.Time {
	var t time.Time
	for _, c := range cands {
		switch c.Filtered {
		case "", FilteredTopK, FilteredMinScore, FilteredCovered, FilteredProfile:
		default:
			continue
		}
		if !Replaces(c.Memory) || !c.Memory.CreatedAt.After(t) {
			continue
		}
		if _, _, mask := qt.matchTerms(c.Memory.Text); mask&topic != 0 {
			t = c.Memory.CreatedAt
		}
	}
	return t
}

// Replaces reports whether m is a fact whose statement makes what was
// said before about its slot history: a semantic or profile memory,
// unless it is one value of a multi-valued slot (uses, likes, pets).
func Replaces(m *Memory) bool {
	if m.Tier != TierSemantic && m.Tier != TierProfile {
		return false
	}
	f := m.Fact()
	return f == nil || !f.Multi
}

// entityFirst moves the live facts about an entity the query names to the
// front of cands (sorted by score), in score order, so they are selected
// before the rest. Naming the entity is the evidence: such a fact passes
// even when its own evidence is under the threshold (its words may be the
// alias only: "The user's sister lives in Porto." for "Where does Anna
// live?"); the hard filters still apply.
func entityFirst(em EntityMatcher, q string, cands []*Scored, at time.Time) {
	var facts []*Memory
	var idx []int
	for i, c := range cands {
		if c.Memory.Tier == TierSemantic {
			facts, idx = append(facts, c.Memory), append(idx, i)
		}
	}
	if len(facts) == 0 {
		return
	}
	about := em.About(q, facts, at)
	any := false
	for j, ok := range about {
		c := cands[idx[j]]
		if !ok || (c.Filtered != "" && c.Filtered != FilteredMinScore && c.Filtered != FilteredNoMatch) {
			continue
		}
		c.Entity, c.Filtered, any = true, "", true
	}
	if any {
		slices.SortStableFunc(cands, func(a, b *Scored) int {
			switch {
			case a.Entity == b.Entity:
				return 0
			case a.Entity:
				return -1
			}
			return 1
		})
	}
}

// replacedFirst ranks a live fact that replaced a value (its triple's
// Prior: "I swapped my Brooks for a pair of Hokas") before the older
// candidates that name that value: events and episodes ("I run in Brooks
// shoes."), and facts of the same slot that are still live ("The user
// uses Brooks shoes for running.": a multi-valued slot whose old value
// was worded otherwise than the switch names it). Such a memory matched
// the message on a slot whose value has changed since, so the fact that
// holds the slot now stands in for it.
// The fact takes the event's score when that is higher (and passes the
// threshold on the event's evidence: its own words may share none with
// the message, "The user uses Hoka Cliftons." for "What running shoes do
// I wear?"); the event keeps its place after it, its similarity halved,
// since what else it says may still bear on the message. Only the
// candidates are read: a fact no search found is not looked up.
func replacedFirst(cands []*Scored, w policy.Weights) {
	type replaced struct {
		fact  *Scored
		prior []string
	}
	var rs []replaced
	for _, c := range cands {
		f := c.Memory.Fact()
		if f == nil || f.Prior == "" || f.Ended || c.Memory.Tier != TierSemantic {
			continue
		}
		if c.Filtered != "" && c.Filtered != FilteredMinScore && c.Filtered != FilteredNoMatch {
			continue
		}
		if words := text.ContentWords(f.Prior); len(words) > 0 {
			rs = append(rs, replaced{c, words})
		}
	}
	if len(rs) == 0 {
		return
	}
	for _, e := range cands {
		if e.Memory.Tier == TierProfile || e.Filtered != "" {
			continue
		}
		var words map[string]bool
		for _, r := range rs {
			if e == r.fact || !r.fact.Memory.CreatedAt.After(e.Memory.CreatedAt) ||
				e.Memory.Tier == TierSemantic && e.Memory.Key != r.fact.Memory.Key {
				continue
			}
			if words == nil {
				words = make(map[string]bool)
				for _, t := range text.ContentWords(e.Memory.Text) {
					words[t] = true
				}
			}
			if !allIn(r.prior, words) {
				continue
			}
			if f := r.fact; f.Filtered != "" || f.Total <= e.Total {
				f.Breakdown, f.Filtered = e.Breakdown, ""
				f.Total = math.Nextafter(e.Total, math.Inf(1))
			}
			if !e.stale {
				e.stale = true
				_, e.Breakdown = Score(e.Sim/2, e.Retention, e.Memory.Hits, e.Memory.Value, w)
			}
		}
	}
}

func allIn(ws []string, set map[string]bool) bool {
	for _, w := range ws {
		if !set[w] {
			return false
		}
	}
	return true
}

// covers reports whether event e says everything m says: m is a memory
// made from e's turn alone (a fact extracted from its user message), so
// injecting both spends the budget twice on one statement. The event
// stays: it has the fact's words and the exchange around them.
func covers(e, m *Memory) bool {
	if e.Tier != TierEvent || m.Tier == TierEvent || len(m.Provenance.RequestIDs) == 0 {
		return false
	}
	for _, id := range m.Provenance.RequestIDs {
		if !slices.Contains(e.Provenance.RequestIDs, id) {
			return false
		}
	}
	return true
}

func (r *Recaller) vectorWeight() float64 {
	if r.cfg.VectorWeight > 0 {
		return r.cfg.VectorWeight
	}
	return 1
}

// search runs the vector and lexical searches: as the store's
// HybridSearch when it has one, else side by side.
func (r *Recaller) search(ctx context.Context, s Scope, text string, qvec []float32, at time.Time) (vec, lex []Candidate, err error) {
	o := r.searchOptions(at)
	if h, ok := r.cfg.Search.(HybridSearcher); ok && qvec != nil {
		if vec, lex, err = h.HybridSearch(ctx, s, qvec, text, o); err != nil {
			return nil, nil, fmt.Errorf("hybrid search: %w", err)
		}
		return vec, lex, nil
	}
	var vecErr error
	var wg sync.WaitGroup
	if qvec != nil {
		wg.Go(func() {
			vec, vecErr = r.cfg.Search.VectorSearch(ctx, s, qvec, o)
		})
	}
	lex, lexErr := r.cfg.Search.LexicalSearch(ctx, s, text, o)
	wg.Wait()
	if vecErr != nil {
		return nil, nil, fmt.Errorf("vector search: %w", vecErr)
	}
	if lexErr != nil {
		return nil, nil, fmt.Errorf("lexical search: %w", lexErr)
	}
	return vec, lex, nil
}

// searchOptions are the options of recall's searches at at.
func (r *Recaller) searchOptions(at time.Time) SearchOptions {
	return SearchOptions{
		Limit:               r.cfg.Recall.Candidates,
		VectorLimit:         r.cfg.VectorCandidates,
		At:                  at,
		Tiers:               []Tier{TierSemantic, TierEpisodic, TierEvent},
		ExcludeConsolidated: r.cfg.Recall.PreferConsolidated,
		ReadOnly:            true,
	}
}

// filter applies the hard filters; the store already drops dead memories
// but recall checks again at q.At, which replays move.
func (r *Recaller) filter(m *Memory, at time.Time, excl excluder) string {
	switch {
	case m.ValidTo != nil || m.SupersededBy != "":
		return FilteredSuperseded
	case m.ArchivedAt != nil:
		return FilteredArchived
	case m.ExpiresAt != nil && !m.ExpiresAt.After(at):
		return FilteredExpired
	case m.Tier == TierProfile:
		return FilteredProfile
	case r.cfg.Recall.PreferConsolidated && m.Tier == TierEvent && m.ConsolidatedAt != nil:
		return FilteredConsolidated
	case excl.contains(m.Text):
		return FilteredInMessages
	}
	return ""
}

// Profile returns the scope's live profile memories, newest first. They
// bypass the gate and the score: the injector gives them their own budget.
func (r *Recaller) Profile(ctx context.Context, s Scope) ([]*Memory, error) {
	if r.cfg.Profiles == nil {
		return nil, nil
	}
	now := r.cfg.Now()
	if tl, ok := r.cfg.Profiles.(TierLister); ok {
		// A scope holds a few profile memories among thousands: found in
		// the index, as List would return them (newest first, at most
		// MaxProfile) unless there are many.
		ms, ok, err := tl.ListTier(ctx, s, TierProfile, now, profileFromIndex)
		if err != nil {
			return nil, fmt.Errorf("list profile: %w", err)
		}
		if ok {
			slices.SortFunc(ms, func(a, b *Memory) int {
				if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
					return c
				}
				return strings.Compare(b.ID, a.ID)
			})
			return ms[:min(len(ms), MaxProfile)], nil
		}
	}
	page, err := r.cfg.Profiles.List(ctx, s, ListFilter{
		Tiers: []Tier{TierProfile},
		State: StateLive,
		At:    now,
		Limit: MaxProfile,
	})
	if err != nil {
		return nil, fmt.Errorf("list profile: %w", err)
	}
	return page.Data, nil
}

// fuse merges the ranked lists by reciprocal rank,
// fused = vw/(k + rank_vec) + 1/(k + rank_lex) + hw/(k + rank_hyp) (hyp:
// the hyponym search, Recall), and keeps the best limit candidates.
func fuse(vec, lex, hyp []Candidate, k, vw, hw float64, limit int) []*Scored {
	n := len(vec) + len(lex) + len(hyp)
	byID := make(map[string]*Scored, n)
	out := make([]*Scored, 0, n)
	// One array holds every candidate (never grown past n, so the
	// pointers stay put): a recall fuses ~100 of them.
	all := make([]Scored, 0, n)
	get := func(m *Memory) *Scored {
		c, ok := byID[m.ID]
		if !ok {
			all = append(all, Scored{Memory: m})
			c = &all[len(all)-1]
			byID[m.ID] = c
			out = append(out, c)
		}
		return c
	}
	for i, h := range vec {
		if h.Memory == nil {
			continue
		}
		c := get(h.Memory)
		if c.VectorRank == 0 {
			c.VectorRank = i + 1
			c.Cosine = h.Score
			c.Fused += vw / (k + float64(i+1))
		}
	}
	for i, h := range lex {
		if h.Memory == nil {
			continue
		}
		c := get(h.Memory)
		if c.LexicalRank == 0 {
			c.LexicalRank = i + 1
			c.Fused += 1 / (k + float64(i+1))
		}
	}
	for i, h := range hyp {
		if h.Memory == nil {
			continue
		}
		// A candidate is in the list once (a search returns each
		// memory once).
		c := get(h.Memory)
		c.Fused += hw / (k + float64(i+1))
	}
	if len(out) > limit {
		slices.SortStableFunc(out, func(a, b *Scored) int {
			if c := cmp.Compare(b.Fused, a.Fused); c != 0 {
				return c
			}
			return strings.Compare(a.Memory.ID, b.Memory.ID)
		})
		out = out[:limit]
	}
	return out
}

// compareScored orders by score desc, then newer first, then id, so equal
// scores always rank the same way on every store.
func compareScored(a, b *Scored) int {
	if c := cmp.Compare(b.Total, a.Total); c != 0 {
		return c
	}
	if c := b.Memory.CreatedAt.Compare(a.Memory.CreatedAt); c != 0 {
		return c
	}
	return strings.Compare(a.Memory.ID, b.Memory.ID)
}

func (c *Scored) ranked(rank int) RankedCandidate {
	m := c.Memory
	return RankedCandidate{
		ID:        m.ID,
		Tier:      m.Tier,
		Score:     c.Total,
		Sim:       c.Sim,
		Retention: c.Retention,
		Freq:      c.Freq,
		Value:     c.Breakdown.Value,
		Rank:      rank,
		Refs:      m.Provenance.TurnRefs,
		Injected:  c.Filtered == "",
		Filtered:  c.Filtered,
	}
}

// Cosine is the cosine similarity of two vectors; 0 when either is
// missing, empty, zero or of a different length.
func Cosine(a, b []float32) float64 {
	if len(a) == 0 || len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
