package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/memproxy/memproxy/embed"
	"github.com/memproxy/memproxy/memory"
)

// benchCorpus is what the overhead benchmark sends and remembers, read from
// a LoCoMo-format file: the dialogue turns are the users' messages, the
// annotated observations, events and session summaries are the facts each
// user's scope holds before the run, and the words of all of it sample the
// filler memories that bring a scope to its size.
type benchCorpus struct {
	Name  string
	Sum   string // content hash: fixtures built from another file are rebuilt
	Turns []corpusTurn
	Facts []corpusFact
	words []string // every word of the corpus, repeated as often as it occurs
}

type corpusTurn struct {
	Conv int
	Text string
}

type corpusFact struct {
	Text  string
	Event bool
}

// locomoSample is the part of a LoCoMo sample the benchmark reads.
type locomoSample struct {
	Conversation  map[string]json.RawMessage                `json:"conversation"`
	Observation   map[string]map[string][][]json.RawMessage `json:"observation"`
	EventSummary  map[string]map[string]json.RawMessage     `json:"event_summary"`
	SessionSumary map[string]string                         `json:"session_summary"`
}

// loadBenchCorpus reads a LoCoMo-format JSON file (a list of samples).
func loadBenchCorpus(path string) (*benchCorpus, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var samples []locomoSample
	if err := json.Unmarshal(raw, &samples); err != nil {
		return nil, fmt.Errorf("corpus %s: want a LoCoMo-format JSON list: %w", path, err)
	}
	sum := sha256.Sum256(raw)
	c := &benchCorpus{Name: filepath.Base(path), Sum: hex.EncodeToString(sum[:8])}
	seen := map[string]bool{}
	addFact := func(text string, event bool) {
		text = strings.TrimSpace(text)
		if text == "" || seen[text] {
			return
		}
		seen[text] = true
		c.Facts = append(c.Facts, corpusFact{Text: text, Event: event})
	}
	for conv, s := range samples {
		// Sessions in order: session_1, session_2, … (keys of a map).
		var sessions []int
		for k := range s.Conversation {
			if n, ok := strings.CutPrefix(k, "session_"); ok {
				if i, err := strconv.Atoi(n); err == nil {
					sessions = append(sessions, i)
				}
			}
		}
		slices.Sort(sessions)
		for _, i := range sessions {
			var turns []struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(s.Conversation["session_"+strconv.Itoa(i)], &turns); err != nil {
				return nil, fmt.Errorf("corpus %s: session_%d: %w", path, i, err)
			}
			for _, t := range turns {
				if t := strings.TrimSpace(t.Text); t != "" {
					c.Turns = append(c.Turns, corpusTurn{Conv: conv, Text: t})
				}
			}
		}
		for _, k := range sortedKeys(s.Observation) {
			for _, sp := range sortedKeys(s.Observation[k]) {
				for _, f := range s.Observation[k][sp] {
					var text string
					if len(f) > 0 && json.Unmarshal(f[0], &text) == nil {
						addFact(text, false)
					}
				}
			}
		}
		for _, k := range sortedKeys(s.EventSummary) {
			for _, sp := range sortedKeys(s.EventSummary[k]) {
				var evs []string
				if json.Unmarshal(s.EventSummary[k][sp], &evs) == nil { // "date" is a string
					for _, e := range evs {
						addFact(e, true)
					}
				}
			}
		}
		for _, k := range sortedKeys(s.SessionSumary) {
			addFact(s.SessionSumary[k], true)
		}
	}
	if len(c.Turns) < 3 {
		return nil, fmt.Errorf("corpus %s: %d dialogue turns; want at least 3", path, len(c.Turns))
	}
	for _, t := range c.Turns {
		c.words = append(c.words, strings.Fields(t.Text)...)
	}
	for _, f := range c.Facts {
		c.words = append(c.words, strings.Fields(f.Text)...)
	}
	return c, nil
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// defaultCorpusPaths are where the LoCoMo dev file is looked for when
// --corpus is not given: beside the checkout (../shared, where CI keeps
// it) or in it.
var defaultCorpusPaths = []string{
	"shared/bench/locomo-dev.json",
	"../shared/bench/locomo-dev.json",
	"../../shared/bench/locomo-dev.json",
}

func findCorpus(flagValue string) (string, error) {
	if flagValue != "" {
		return flagValue, nil
	}
	if v := os.Getenv("MEMPROXY_BENCH_CORPUS"); v != "" {
		return v, nil
	}
	for _, p := range defaultCorpusPaths {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("bench overhead: no corpus: pass --corpus FILE (LoCoMo format, e.g. locomo-dev.json) or set MEMPROXY_BENCH_CORPUS; looked in %s", strings.Join(defaultCorpusPaths, ", "))
}

// ordinary is the n-th ordinary message of a run: turn n of the corpus
// after the two turns before it in its conversation (history the app
// resends). Past the corpus's end, each turn is joined with another so
// that no message repeats (a repeated text would hit the embedding cache).
func (c *benchCorpus) ordinary(n int) (history []string, msg string) {
	m := len(c.Turns)
	i, cycle := n%m, n/m
	msg = c.Turns[i].Text
	if cycle > 0 {
		msg += " " + c.Turns[(i*7+cycle*13+1)%m].Text
	}
	for j := max(i-2, 0); j < i; j++ {
		if c.Turns[j].Conv == c.Turns[i].Conv {
			history = append(history, c.Turns[j].Text)
		}
	}
	return history, msg
}

// gateSkips are messages the gate skips: acknowledgements with nothing to
// recall.
var gateSkips = []string{"ok", "thanks", "ok thanks", "thank you", "great", "cool"}

// benchUser names the u-th user of the run.
func benchUser(u int) string { return "bench-user-" + strconv.Itoa(u) }

// fixtureMemories are user u's memories: every fact of the corpus (so an
// ordinary message has something to recall whichever user sends it) and
// filler sentences sampled from the corpus's words up to n, created over
// the year before now.
func (c *benchCorpus) fixtureMemories(u, n int, now time.Time) []*memory.Memory {
	r := rand.New(rand.NewPCG(uint64(u)+1, 17))
	tiers := []memory.Tier{memory.TierEvent, memory.TierEvent, memory.TierEpisodic, memory.TierSemantic}
	out := make([]*memory.Memory, 0, n)
	for i := range n {
		m := &memory.Memory{Value: 0.5, Confidence: 0.8, Source: memory.SourceExtracted}
		if i < len(c.Facts) {
			m.Text, m.Tier = c.Facts[i].Text, memory.TierSemantic
			if c.Facts[i].Event {
				m.Tier = memory.TierEvent
			}
		} else {
			w := make([]string, 8+r.IntN(18))
			for j := range w {
				w[j] = c.words[r.IntN(len(c.words))]
			}
			m.Text, m.Tier = strings.Join(w, " "), tiers[r.IntN(len(tiers))]
		}
		if m.Tier == memory.TierEvent {
			m.Source = memory.SourceEvent // as ingest writes a turn's event
		}
		t := now.Add(-time.Duration(r.Int64N(int64(365 * 24 * time.Hour))))
		m.CreatedAt, m.LastUsedAt, m.ValidFrom = t, t, t
		out = append(out, m)
	}
	return out
}

// fixtureBatch is how many memories one Insert writes while loading.
const fixtureBatch = 1000

// loadFixtures embeds and inserts every user's memories into st.
func loadFixtures(ctx context.Context, st memory.Store, e embed.Embedder, c *benchCorpus, users, n int) error {
	now := time.Now().UTC()
	for u := range users {
		ms := c.fixtureMemories(u, n, now)
		sc := memory.Scope{User: benchUser(u), Namespace: memory.DefaultNamespace}
		for len(ms) > 0 {
			batch := ms[:min(fixtureBatch, len(ms))]
			ms = ms[len(batch):]
			texts := make([]string, len(batch))
			for i, m := range batch {
				texts[i] = m.Text
			}
			vecs, err := e.Embed(ctx, texts)
			if err != nil {
				return fmt.Errorf("embed fixtures: %w", err)
			}
			for i, m := range batch {
				m.Embedding = vecs[i]
			}
			if err := st.Insert(ctx, sc, batch...); err != nil {
				return fmt.Errorf("insert fixtures: %w", err)
			}
		}
	}
	return nil
}
