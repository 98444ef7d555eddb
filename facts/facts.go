// Package facts turns what a user says into dated triples: (subject,
// attribute, value) with the date the value became true, and a clean
// third-person sentence built from the triple. English sentences are read
// with a part-of-speech tagger (github.com/jdkato/prose/v2, its model
// ships in the module) over the sentences that carry a fact cue; Chinese
// ones with patterns. Extraction is pure: no I/O, no store.
package facts

import (
	"strings"
	"time"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/text"
)

// Fact is one statement read from a user message.
type Fact struct {
	memory.Triple
	// Text is the third-person sentence stored as the memory's text, in
	// the language it was said in ("The user lives in Lisbon.",
	// "用户住在上海。").
	Text string
	// Open: the attribute is outside the controlled vocabulary.
	Open bool
	// Change: the sentence carries a change cue (moved, now, switched, 现在).
	Change bool
	// Replace: the value replaces the slot's other values even when it
	// is multi-valued ("I switched to Rust", "instead").
	Replace bool
	// Prior is the value the sentence says it replaces ("from Berlin").
	Prior string
	// ValidFrom is when the value became true: the date a relative
	// expression in the sentence names, else the turn's time.
	ValidFrom time.Time
	// Dated: ValidFrom came from a date expression in the sentence.
	Dated bool
	// Note: no triple, a dated third-person statement of something that
	// happened ("The user passed the user's driving test on 9 Mar
	// 2026."): free text for reconcile, Triple empty.
	Note bool
	// word is how the sentence named the subject ("wife", "妹妹").
	word string
}

// Key is the fact's slot.
func (f *Fact) Key() string { return f.Triple.Key() }

// Options are the extraction settings.
type Options struct {
	// At is when the message was said; relative dates resolve against it.
	At time.Time
	// Loc is the user's time zone (UTC when nil).
	Loc *time.Location
	// ChangeCues replace the built-in change cues when set.
	ChangeCues []string
}

// DefaultChangeCues are the words that say a value changed.
var DefaultChangeCues = []string{"switched", "switch to", "now", "no longer", "moved", "changed", "instead", "anymore",
	"any more", "these days", "not anymore", "started", "quit", "joined",
	"换成", "改成", "不再", "现在", "已经", "搬到", "改用", "换了", "辞职", "离职", "跳槽", "加入"}

// HasChangeCue reports whether s carries one of the cues (English cues on
// word boundaries, Chinese ones as substrings).
func HasChangeCue(s string, cues []string) bool {
	if len(cues) == 0 {
		cues = DefaultChangeCues
	}
	low := strings.ToLower(s)
	for _, c := range cues {
		c = strings.ToLower(strings.TrimSpace(c))
		if c != "" && ContainsWord(low, c) {
			return true
		}
	}
	return false
}

// ContainsWord finds cue in s (lowercase); an ASCII cue must sit on word
// boundaries, a CJK one is a substring.
func ContainsWord(s, cue string) bool {
	if cue[0] >= 0x80 {
		return strings.Contains(s, cue)
	}
	for i := 0; ; {
		j := strings.Index(s[i:], cue)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(cue)
		if (j == 0 || !wordByte(s[j-1])) && (end == len(s) || !wordByte(s[end])) {
			return true
		}
		i = j + 1
	}
}

func wordByte(b byte) bool {
	return b == '_' || b == '\'' || (b >= '0' && b <= '9') || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z')
}

// Extract returns the facts a user message states. Questions state
// nothing; each sentence is read on its own.
func Extract(msg string, o Options) []Fact {
	var out []Fact
	seen := map[string]bool{}
	for _, sent := range text.Sentences(msg) {
		if text.IsQuestion(sent) {
			continue
		}
		var fs []Fact
		if hasHan(sent) {
			fs = extractZH(sent)
		} else {
			fs = extractEN(sent)
		}
		refs := text.ResolveDates(sent, o.At, o.Loc)
		if len(fs) == 0 {
			n := datedStatement(sent, refs)
			if hasHan(sent) {
				n = datedStatementZH(sent, refs)
			}
			if n != "" {
				out = append(out, Fact{Note: true, Text: n, ValidFrom: refs[0].Date, Dated: true, Change: HasChangeCue(sent, o.ChangeCues)})
			}
			continue
		}
		change := HasChangeCue(sent, o.ChangeCues)
		for _, f := range fs {
			if !valid(&f) {
				continue
			}
			k := f.Key() + "\x00" + strings.ToLower(f.Value)
			if seen[k] {
				continue
			}
			seen[k] = true
			f.Change = f.Change || change
			// "I like tea now", "我现在喜欢茶": a multi-valued slot with a
			// change cue replaces its values, unless the sentence adds one.
			if f.Multi && !f.Ended && !addsValue(sent) && HasChangeCue(sent, replaceCues) {
				f.Replace = true
			}
			f.ValidFrom = o.At
			if len(refs) > 0 && !refs[0].Date.After(o.At) {
				f.ValidFrom, f.Dated = refs[0].Date, true
			}
			f.Text = render(&f, hasHan(sent))
			if f.Dated {
				f.Text = dateSuffix(f.Text, refs[0], hasHan(sent))
			}
			out = append(out, f)
		}
	}
	return out
}

// valid rejects a fact that lost its value or kept a first-person word.
func valid(f *Fact) bool {
	v := strings.TrimSpace(f.Value)
	if v == "" || f.Attribute == "" || f.Subject == "" {
		return false
	}
	for _, w := range strings.Fields(strings.ToLower(v)) {
		switch strings.Trim(w, ".,!?;:'\"") {
		case "i", "me", "my", "mine", "myself", "we", "us", "our", "you", "your", "it", "everything", "something",
			"anything", "nothing", "stuff", "things", "thing", "this", "that", "them", "lot", "all", "what", "when":
			return false
		}
	}
	if strings.ContainsAny(v, "我你") {
		return false
	}
	return len([]rune(v)) <= 80
}

func hasHan(s string) bool {
	for _, r := range s {
		if r >= 0x2E80 && text.CJKScript(r) {
			return true
		}
	}
	return false
}

// dateSuffix adds when the value became true to the sentence: "The user
// lives in Lisbon (since Feb 2026)."
func dateSuffix(s string, d text.DateRef, zh bool) string {
	if zh {
		return strings.TrimSuffix(s, "。") + "（自" + d.FormatZH() + "起）。"
	}
	return strings.TrimSuffix(s, ".") + " (since " + d.Format() + ")."
}

// replaceCues say a value took the place of the others ("now", "instead");
// "started" or "joined" alone add one.
var replaceCues = []string{"switched", "switch to", "instead", "now", "these days", "anymore", "any more", "no longer",
	"换成", "改成", "改用", "换了", "现在", "不再"}

// addsValue reports a sentence that adds a value beside the others ("I
// also use Go", "我也用Go").
func addsValue(s string) bool {
	low := strings.ToLower(s)
	return ContainsWord(low, "also") || ContainsWord(low, "too") || ContainsWord(low, "as well") || strings.Contains(s, "也") || strings.Contains(s, "还")
}

// Opposite is the attribute that states the contrary of a, "" when none
// (likes ↔ dislikes).
func Opposite(a string) string {
	switch a {
	case "likes":
		return "dislikes"
	case "dislikes":
		return "likes"
	}
	return ""
}
