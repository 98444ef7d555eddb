// Package inject renders recalled memories into the fenced section of the
// system prompt and places it in a request's messages. Everything here is
// a pure function of its inputs, so the proxy can call it on the hot path
// and the tests can pin its output byte for byte.
package inject

import (
	"strings"
	"time"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
)

// Fence lines of the memory section.
const (
	OpenFence  = "<memory>"
	CloseFence = "</memory>"
)

// DefaultBudgetTokens is the budget used when Options.BudgetTokens is 0.
const DefaultBudgetTokens = 500

// minTruncTokens is the least room worth spending on a truncated memory;
// below it the memory is dropped instead.
const minTruncTokens = 12

// minShortTokens is the least room worth a memory's compact form.
const minShortTokens = 15

// minLeadTokens is the least room worth asking for a lead.
const minLeadTokens = 6

// ellipsis ends a truncated memory.
const ellipsis = "…"

// Item is one memory to render, in rank order (best first).
type Item struct {
	ID   string
	Tier memory.Tier
	// Date is shown as YYYY-MM-DD (UTC); zero leaves it out.
	Date time.Time
	Text string
	// Shorten, when set, returns the memory's compact form for this
	// request within about maxTokens (the sentences bearing on it; "" for
	// none), rendered instead of Text when the whole does not fit in what
	// is left of the budget.
	Shorten func(maxTokens int) string
	// Lead, when set, returns the part of what the memory answered (an
	// event's context) that bears on the request, within about maxTokens
	// ("" for none); it is shown before the memory, as "(context: …)",
	// only with what the budget leaves once every item went in.
	Lead func(maxTokens int) string
	// Aside marks a profile item that does not bear on the message: it is
	// rendered after the other memories, in what they leave of the budget
	// (and of the profile cap), never truncated, so standing facts
	// unrelated to the question do not crowd out what it needs.
	Aside bool
}

// FromMemory builds the Item of a stored memory. The date shown is when the
// memory became true (valid_from), else when it was created.
func FromMemory(m *memory.Memory) Item {
	d := m.ValidFrom
	if d.IsZero() {
		d = m.CreatedAt
	}
	return Item{ID: m.ID, Tier: m.Tier, Date: d, Text: m.Text}
}

// Items is the render list of one request: the profile memories, then the
// recalled ones in rank order.
func Items(profile []*memory.Memory, recalled []*memory.Scored) []Item {
	out := make([]Item, 0, len(profile)+len(recalled))
	for _, m := range profile {
		out = append(out, FromMemory(m))
	}
	for _, s := range recalled {
		it := FromMemory(s.Memory)
		it.Shorten = s.Shorten
		it.Lead = s.Lead
		out = append(out, it)
	}
	return out
}

// OptionsFrom builds Options from the policy; notes are the request's
// explicit remember/forget notes, if any.
func OptionsFrom(in policy.Inject, rc policy.Recall, notes ...string) Options {
	return Options{Guard: in.Guard, BudgetTokens: in.BudgetTokens, ProfileBudgetTokens: rc.ProfileBudgetTokens, MaxItems: rc.TopK, LeadTokens: rc.LeadTokens, Notes: notes}
}

// Options shape the rendered section.
type Options struct {
	// Guard opens the block (policy inject.guard); rendered as given, line
	// breaks kept. Empty renders no guard.
	Guard string
	// BudgetTokens bounds the whole block, fences, guard and notes
	// included, as counted by memory.CountTokens (0: DefaultBudgetTokens).
	// Notes are always rendered; memories fill what is left.
	BudgetTokens int
	// ProfileBudgetTokens caps the lines of profile-tier items, which are
	// rendered first, the Aside ones after the others (policy
	// recall.profile_budget_tokens); 0 means no separate cap.
	ProfileBudgetTokens int
	// MaxItems caps the non-profile memories rendered (0: no cap). The
	// caller may offer more ranked items than that, so the budget can
	// pass over a long one for the next.
	MaxItems int
	// LeadTokens caps each item's Lead (0: no leads). Leads take only
	// what the budget leaves after the profile and recalled memories, in
	// rank order, before the Aside profile items.
	LeadTokens int
	// Notes are lines for the model rendered after the guard, such as the
	// explicit remember/forget note. They are sanitised like memories.
	Notes []string
}

// Render builds the memory section from items (best first) within the
// token budget. Profile items come first, within their own cap; then the
// others in the order given; then the Aside profile items, in what is left
// of both. When a line does not fit, it and every
// lower-ranked item of its group are dropped, never cut, except that one
// over-long memory (longer than its group's whole room) is truncated with
// "…" when at least a few tokens remain. used are the rendered items in
// rendered order; tokens is memory.CountTokens(section). With nothing to
// render (no item fits and no notes) the section is "".
func Render(items []Item, opts Options) (section string, used []Item, tokens int) {
	budget := opts.BudgetTokens
	if budget <= 0 {
		budget = DefaultBudgetTokens
	}
	head := []string{OpenFence}
	if g := strings.TrimSpace(opts.Guard); g != "" {
		head = append(head, strings.Split(strings.ReplaceAll(g, "\r\n", "\n"), "\n")...)
	}
	notes := 0
	for _, n := range opts.Notes {
		if n = Sanitize(n); n != "" {
			head = append(head, n)
			notes++
		}
	}
	room := budget - memory.CountTokens(CloseFence)
	for _, l := range head {
		room -= memory.CountTokens(l)
	}

	profile, rest := byTier(items)
	profile, aside := splitAside(profile)
	var lines []string
	profRoom := room
	if opts.ProfileBudgetTokens > 0 {
		profRoom = min(room, opts.ProfileBudgetTokens)
	}
	lines, used, spent := fit(profile, profRoom, 0, true, lines, used)
	nprof := len(lines)
	lines, used, spentRest := fit(rest, room-spent, opts.MaxItems, true, lines, used)
	if opts.LeadTokens > 0 {
		spentRest += lead(lines[nprof:], used[nprof:], room-spent-spentRest, opts.LeadTokens)
	}
	if len(aside) > 0 {
		lines, used, _ = fit(aside, min(room-spent-spentRest, profRoom-spent), 0, false, lines, used)
	}
	if len(lines) == 0 && notes == 0 {
		return "", nil, 0
	}

	size := len(CloseFence)
	for _, l := range head {
		size += len(l) + 1
	}
	for _, l := range lines {
		size += len(l) + 1
	}
	var b strings.Builder
	b.Grow(size)
	for _, l := range head {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	b.WriteString(CloseFence)
	section = b.String()
	return section, used, memory.CountTokens(section)
}

// byTier splits items into the profile ones and the rest, each in the
// order given, copying only when both kinds are there.
func byTier(items []Item) (profile, rest []Item) {
	n := 0
	for _, it := range items {
		if it.Tier == memory.TierProfile {
			n++
		}
	}
	switch n {
	case 0:
		return nil, items
	case len(items):
		return items, nil
	}
	out := make([]Item, 0, len(items))
	for _, it := range items {
		if it.Tier == memory.TierProfile {
			out = append(out, it)
		}
	}
	for _, it := range items {
		if it.Tier != memory.TierProfile {
			out = append(out, it)
		}
	}
	return out[:n], out[n:]
}

// splitAside splits profile items into those bearing on the message and
// the Aside ones, each in the order given, copying only when both are there.
func splitAside(profile []Item) (front, aside []Item) {
	n := 0
	for _, it := range profile {
		if it.Aside {
			n++
		}
	}
	switch n {
	case 0:
		return profile, nil
	case len(profile):
		return nil, profile
	}
	front = make([]Item, 0, len(profile)-n)
	aside = make([]Item, 0, n)
	for _, it := range profile {
		if it.Aside {
			aside = append(aside, it)
		} else {
			front = append(front, it)
		}
	}
	return front, aside
}

// fit appends, in rank order, the lines of items that fit in room, at most
// max of them (0: no limit), and reports the tokens spent. An item that
// does not fit is passed over for the next, shorter one: the budget holds
// as many of the best memories as it can. cut allows the first item, when
// longer than the whole room, to go in truncated.
func fit(items []Item, room, max int, cut bool, lines []string, used []Item) ([]string, []Item, int) {
	spent, taken := 0, 0
	var buf [64]byte
	for _, it := range items {
		if max > 0 && taken >= max {
			break
		}
		// The prefix stays in buf until its line goes in; the conversion
		// for counting does not escape, and Go makes one of ≤ 32 bytes
		// (a usual prefix) on the stack.
		prefix := appendPrefix(buf[:0], it)
		np, left := memory.CountTokens(string(prefix)), room-spent
		if taken > 0 && np >= left {
			// Not even one token of text fits, and only a first line is
			// ever truncated: no need to sanitise a text that cannot go
			// in (a scope's 50 profile memories face a small budget).
			continue
		}
		text := Sanitize(it.Text)
		if text == "" {
			continue
		}
		// The prefix ends with a space, so the line costs the sum of its
		// parts (memory.CountTokens): no need to build a line that does
		// not fit.
		n := np + memory.CountTokens(text)
		if n <= left {
			lines, used, spent, taken = append(lines, string(prefix)+text), append(used, it), spent+n, taken+1
			continue
		}
		if it.Shorten != nil && left-np >= minShortTokens {
			// No room for the whole memory: its compact form, if that fits.
			if short := Sanitize(it.Shorten(left - np)); short != "" {
				if n := np + memory.CountTokens(short); n <= left {
					lines, used, spent, taken = append(lines, string(prefix)+short), append(used, it), spent+n, taken+1
					continue
				}
			}
		}
		if cut && taken == 0 && n > room && left >= minTruncTokens {
			// A single memory longer than the whole budget is cut rather
			// than lost.
			if t, ok := truncate(string(prefix), text, left); ok {
				lines, used, spent, taken = append(lines, t), append(used, it), spent+memory.CountTokens(t), taken+1
			}
		}
	}
	return lines, used, spent
}

// leadOpen and leadClose enclose a Lead inside its memory's line.
const (
	leadOpen  = "(context: "
	leadClose = ") "
)

// lead rewrites, in rank order, the lines of items with a Lead to show it
// after the prefix, each within max tokens and all within room, and
// reports the tokens spent. Lines were built as prefix+text, so the prefix
// is found again by its length.
func lead(lines []string, items []Item, room, max int) int {
	spent := 0
	over := memory.CountTokens(leadOpen) + memory.CountTokens(leadClose)
	for i, it := range items {
		left := min(room-spent, max+over)
		if it.Lead == nil || left-over < minLeadTokens {
			continue
		}
		l := strings.TrimSpace(Sanitize(it.Lead(left - over)))
		if l == "" {
			continue
		}
		n := over + memory.CountTokens(l)
		if n > left {
			continue
		}
		p := len(appendPrefix(nil, it))
		lines[i] = lines[i][:p] + leadOpen + l + leadClose + lines[i][p:]
		spent += n
	}
	return spent
}

// linePrefix is "- [<tier> <date>] " ("- [semantic 3 Mar 2026] "), or
// "- [<date>] " for a dated event, the common case, and "- [<tier>] " for an
// undated memory. Every line pays for it out of the budget, so it carries
// only what the model reads: the date as day, month abbreviation and year
// (4 tokens by memory.CountTokens, 6 for "2023-05-08"), the tier where it says
// more than "something that happened". There is no memory id: no model reads
// it, and the request log, the admin API and usage feedback carry full ids.
// On LoCoMo events (~90 tokens of text) the prefix fell from 12 tokens to 7.
func linePrefix(it Item) string { return string(appendPrefix(nil, it)) }

// appendPrefix appends linePrefix(it) to b.
func appendPrefix(b []byte, it Item) []byte {
	b = append(b, "- ["...)
	dated := !it.Date.IsZero()
	if it.Tier != memory.TierEvent || !dated {
		b = append(b, safeWord(string(it.Tier), "memory")...)
		if dated {
			b = append(b, ' ')
		}
	}
	if dated {
		b = it.Date.UTC().AppendFormat(b, "2 Jan 2006")
	}
	return append(b, "] "...)
}

// safeWord keeps only ASCII letters, digits, "-" and "_" of s (def when
// nothing is left): tiers and ids are ours, but an Item can come from
// anywhere.
func safeWord(s, def string) string {
	out := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		}
		return -1
	}, s)
	if out == "" {
		return def
	}
	return out
}

// truncate cuts text so prefix+text+"…" fits in room tokens, preferring a
// cut at a space; ok is false when not even one character fits.
func truncate(prefix, text string, room int) (string, bool) {
	rs := []rune(text)
	fits := func(n int) bool {
		return memory.CountTokens(prefix+strings.TrimSpace(string(rs[:n]))+ellipsis) <= room
	}
	// Token counts grow with the prefix: binary search the longest one.
	lo, hi := 0, len(rs)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo == 0 {
		return "", false
	}
	cut := string(rs[:lo])
	if sp := strings.LastIndexByte(cut, ' '); sp > len(cut)*3/4 {
		cut = cut[:sp]
	}
	return prefix + strings.TrimSpace(cut) + ellipsis, true
}
