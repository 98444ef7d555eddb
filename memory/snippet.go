package memory

import (
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/memproxy/memproxy/text"
)

// replyMark separates an event's user message from its reply.
const replyMark = "\nAssistant: "

// termWeights are the query terms' weights among a recall's candidates:
// log(1 + n/df), where df is how many of the n candidates hold the term.
// A term every candidate holds (the name of the person asked about)
// weighs little; one only a few hold (the topic) weighs most.
func termWeights(masks []uint64, nTerms int) []float64 {
	w := make([]float64, min(nTerms, 64))
	n := float64(len(masks))
	for i := range w {
		df := 0
		for _, m := range masks {
			if m&(1<<uint(i)) != 0 {
				df++
			}
		}
		w[i] = math.Log(1 + n/float64(max(df, 1)))
	}
	return w
}

// short is the compact form of a long memory for this query, "" when it
// has none: the sentences holding the query's weightiest terms (weighted
// by termWeights, so a name every candidate holds counts little), each
// with the sentence after it (the answer to a question is often the next
// sentence, or the reply), within about maxTokens, what is left out
// marked "…". The injector renders it only in place of a memory the
// budget has no room left for (Scored.Short), so it adds the gist of one
// more memory where the block would otherwise stop, and never replaces a
// memory that fits whole. A memory of at most maxTokens, or one none of
// whose sentences holds a query term (it was found through its context),
// has none, unless answer says it is a turn that answers a question about
// the query's topic (Scored.Answers): then its first sentence leads.
func (qt queryTerms) short(s string, w []float64, maxTokens int, answer bool) string {
	if maxTokens <= 0 || CountTokens(s) <= maxTokens {
		return ""
	}
	type sent struct {
		text   string
		part   int // 0 user message (or the whole text), 1 reply
		first  bool
		score  float64
		tokens int
	}
	var ss []sent
	user, reply, isEvent := strings.Cut(s, replyMark)
	for part, p := range []string{user, reply} {
		if part == 1 && !isEvent {
			break
		}
		for i, t := range text.Sentences(p) {
			_, _, mask := qt.matchTerms(t)
			var sc float64
			for b := range w {
				if mask&(1<<uint(b)) != 0 {
					sc += w[b]
				}
			}
			ss = append(ss, sent{text: t, part: part, first: i == 0, score: sc, tokens: CountTokens(t) + 1})
		}
	}
	best := 0.0
	for _, x := range ss {
		best = max(best, x.score)
	}
	if answer && len(ss) > 0 {
		// The turn answers a question about the query's topic: its
		// first sentence is the answer, whatever words it has.
		ss[0].score = max(best, 1)
		best = ss[0].score
	}
	if best == 0 || len(ss) < 2 {
		return ""
	}
	// Priority: the best match, then the sentence after it, then the
	// other strong matches (at least half the best score) with theirs,
	// then weaker ones.
	order := make([]int, len(ss))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case ss[a].score > ss[b].score:
			return -1
		case ss[a].score < ss[b].score:
			return 1
		}
		return 0
	})
	keep := make([]bool, len(ss))
	used := 0
	take := func(i int) {
		if i < len(ss) && !keep[i] && (used == 0 || used+ss[i].tokens <= maxTokens) {
			keep[i] = true
			used += ss[i].tokens
		}
	}
	for _, i := range order {
		if ss[i].score >= best/2 {
			take(i)
			take(i + 1)
		}
	}
	for _, i := range order {
		if ss[i].score > 0 {
			take(i)
		}
	}
	var b strings.Builder
	b.Grow(used * 4)
	gap, inReply := false, false
	for i, x := range ss {
		if !keep[i] {
			gap = true
			continue
		}
		switch {
		case x.part == 1 && !inReply:
			inReply = true
			if b.Len() > 0 {
				if gap {
					b.WriteString(" …")
				}
				b.WriteString(replyMark)
			} else {
				b.WriteString("… Assistant: ")
			}
			if !x.first {
				b.WriteString("… ")
			}
		case b.Len() == 0:
			if !x.first {
				b.WriteString("… ")
			}
		case gap:
			b.WriteString(" … ")
		default:
			b.WriteByte(' ')
		}
		b.WriteString(x.text)
		gap = false
	}
	if gap {
		b.WriteString(" …")
	}
	return b.String()
}

// lead is the part of an event's context (the exchange it answered) that
// bears on the query, within about maxTokens: "" unless the context holds
// one of the query's topic terms; the whole context when it fits, else its
// compact form (short).
func (qt queryTerms) lead(ctx string, w []float64, topic uint64, maxTokens int) string {
	if maxTokens <= 0 {
		return ""
	}
	if _, _, mask := qt.matchTerms(ctx); mask&topic == 0 {
		return ""
	}
	if CountTokens(ctx) <= maxTokens {
		return ctx
	}
	return qt.short(ctx, w, maxTokens, false)
}

// saidIn reports whether one of the selected memories is the exchange ctx
// reads (the event before, also selected): its lead would say it twice.
// The texts are compared by their first 40 characters, as ingest may
// have written dates into the memory's text.
func saidIn(ctx string, sel []*Scored) bool {
	head := ctx
	if i := strings.IndexByte(head, '\n'); i >= 0 {
		head = head[:i]
	}
	if r := []rune(head); len(r) > 40 {
		head = string(r[:40])
	}
	return slices.ContainsFunc(sel, func(c *Scored) bool { return strings.HasPrefix(c.Memory.Text, head) })
}

// topicMask are the query's topic terms among a recall's candidates: those
// weighing at least half the weightiest term any candidate holds
// (termWeights), so the name every candidate holds is not one.
func topicMask(w []float64, masks []uint64) uint64 {
	var held uint64
	for _, m := range masks {
		held |= m
	}
	best := 0.0
	for b := range w {
		if held&(1<<uint(b)) != 0 {
			best = max(best, w[b])
		}
	}
	var topic uint64
	for b := range w {
		if held&(1<<uint(b)) != 0 && w[b] >= best/2 {
			topic |= 1 << uint(b)
		}
	}
	return topic
}

// answersAsked reports whether the exchange an event answers (its
// context) ends with a question about the query's topic: "… What's your
// favourite game?" then this turn, "Catan!", the answer, whose own words
// the query may not share.
func answersAsked(ctx string, qt queryTerms, topic uint64) bool {
	if topic == 0 {
		return false
	}
	ctx = strings.TrimRight(ctx, " \t\n")
	q := strings.TrimRight(ctx, "?？")
	if len(q) == len(ctx) {
		// A Chinese question may end with its particle instead: 你最喜欢什么游戏呢 / …吗。
		q = strings.TrimSuffix(q, "。")
		if !strings.HasSuffix(q, "吗") && !strings.HasSuffix(q, "呢") {
			return false
		}
	}
	start := 0
	if i := strings.LastIndexAny(q, ".!?\n？。！"); i >= 0 {
		_, n := utf8.DecodeRuneInString(q[i:])
		start = i + n
	}
	_, _, m := qt.matchTerms(q[start:])
	return m&topic != 0
}
