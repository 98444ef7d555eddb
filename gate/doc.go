// Package gate decides, for every chat request, whether long-term memory is
// worth a recall, and recognises explicit "remember …" / "forget …"
// instructions. It runs on the hot path of every request, so it is pure,
// allocation-free on the common path, and works on the raw message text:
// matching folds ASCII case and treats punctuation, symbols and emoji as
// separators, so "OK!!", "好的～" and "thanks 🙏" read like "ok", "好的" and
// "thanks" without building a normalised copy.
//
// Build one *Gate per policy with New (word lists are compiled once) and
// share it: a Gate is immutable and safe for concurrent use. The
// package-level Classify, Decide, Intent and ExplicitContent compile the
// lists on every call and exist for tests and one-off callers.
//
// The per-scope adaptive threshold lives in Thresholds (cached in memory,
// persisted through memory.GateState) and moves with usage feedback by the
// rule in Adaptive.Next.
package gate
