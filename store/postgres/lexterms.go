package postgres

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	"github.com/lib/pq"
)

// A long chat message has dozens of content terms; matching all of them
// makes PostgreSQL fetch and ts_rank most of a large scope (hundreds of
// milliseconds at 100k memories). Lexical search matches at most
// lexMaxTerms of them, the rarest, judged by the planner's statistics of
// the lex column (its most common lexemes and their frequencies, kept by
// ANALYZE): rare terms are what lexical ranking is for, and common ones
// match too much to discriminate. Queries of up to lexMaxTerms terms are
// matched whole.
const (
	lexMaxTerms = 8
	// lexCandidates bounds how many of the scope's matches are ranked:
	// the newest.
	lexCandidates = 600
	// termFreqTTL is how long the statistics are reused before being read
	// again (ANALYZE runs far less often).
	termFreqTTL = 10 * time.Minute
)

// termFreqs caches the lex column's most common lexemes.
type termFreqs struct {
	mu   sync.Mutex
	at   time.Time
	freq map[string]float64
	// rare is the frequency assumed for a lexeme outside the list: below
	// the least common listed.
	rare float64
}

func (s *Store) lexFreqs(ctx context.Context) (map[string]float64, float64) {
	f := &s.freqs
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.freq != nil && time.Since(f.at) < termFreqTTL {
		return f.freq, f.rare
	}
	var elems []string
	var freqs []float64
	err := s.db.QueryRowContext(ctx, `SELECT most_common_elems::text::text[], most_common_elem_freqs FROM pg_stats
		WHERE schemaname = current_schema() AND tablename = 'memories' AND attname = 'lex'`).
		Scan(pq.Array(&elems), pq.Array(&freqs))
	freq := make(map[string]float64, len(elems))
	rare := 0.0
	// most_common_elem_freqs ends with the minimum, maximum and null
	// frequencies after one frequency per element.
	if err == nil && len(freqs) >= len(elems)+1 {
		for i, e := range elems {
			freq[e] = freqs[i]
		}
		rare = freqs[len(elems)] / 2
	}
	// No statistics yet (or an error): every term ties and the query's
	// order decides; asked again after the TTL.
	f.freq, f.rare, f.at = freq, rare, time.Now()
	return freq, rare
}

// chooseTerms returns at most lexMaxTerms of terms, the rarest by the
// column statistics, in query order among equals.
func (s *Store) chooseTerms(ctx context.Context, terms []string) []string {
	if len(terms) <= lexMaxTerms {
		return terms
	}
	freq, rare := s.lexFreqs(ctx)
	type ranked struct {
		term string
		f    float64
		pos  int
	}
	rs := make([]ranked, len(terms))
	for i, t := range terms {
		f, ok := freq[t]
		if !ok {
			f = rare
		}
		rs[i] = ranked{t, f, i}
	}
	slices.SortFunc(rs, func(a, b ranked) int { return cmp.Or(cmp.Compare(a.f, b.f), cmp.Compare(a.pos, b.pos)) })
	out := make([]string, lexMaxTerms)
	for i := range out {
		out[i] = rs[i].term
	}
	return out
}
