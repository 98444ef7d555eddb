package facts

import (
	"strings"

	"github.com/memproxy/memproxy/text"
)

// hedgesEN and hedgesZH say when a value holds, not what it is: "in Oslo
// these days" is Oslo. Whether the sentence states a temporary state is
// read from the sentence (temporary), never from the value.
var (
	hedgesEN = []string{"these days", "at the moment", "at present", "currently", "right now", "for now", "nowadays", "for the time being"}
	hedgesZH = []string{"目前", "现在", "眼下", "如今", "最近"}
)

// datePreps come before a date expression and go with it.
var datePreps = map[string]bool{"on": true, "in": true, "since": true, "from": true, "as": true, "of": true}

// cleanValue removes from a triple's value the words of every date
// expression the sentence resolved ("Prague two weeks" of "relocated to
// Prague two weeks ago", "Berlin three days") and of a time hedge ("Acme
// right" of "Acme right now"). The value of an open attribute or a
// birthday may be the date itself ("my dentist appointment is next Tuesday
// at 3pm"): its date words stay for resolveValueDates, as do those of a
// value that is only a date.
func cleanValue(v, attr, sent string, refs []text.DateRef) string {
	low := strings.ToLower(sent)
	if !InVocabulary(attr) || attr == "birthday" {
		refs = nil
	}
	if hasHan(v) {
		for _, r := range refs {
			if r.CJK() && v != r.Text {
				v = strings.TrimSpace(strings.ReplaceAll(v, r.Text, ""))
			}
		}
		for _, h := range hedgesZH {
			if v != h && strings.Contains(v, h) {
				v = strings.TrimSpace(strings.ReplaceAll(v, h, ""))
			}
		}
		return v
	}
	var spans [][]string
	for _, r := range refs {
		if !r.CJK() {
			spans = append(spans, strings.Fields(strings.ToLower(r.Text)))
		}
	}
	for _, h := range hedgesEN {
		if ContainsWord(low, h) {
			spans = append(spans, strings.Fields(h))
		}
	}
	ws := strings.Fields(v)
	for _, sp := range spans {
		ws = dropSpan(ws, sp)
	}
	return strings.Join(ws, " ")
}

// dropSpan removes from ws the run of words that is span or the start of
// it (the tagger drops a trailing "ago" or "now"), with the preposition
// before it; a run of one word of a longer span only at the end. The
// value stays as it was when nothing else would be left.
func dropSpan(ws, span []string) []string {
	norm := func(w string) string { return strings.ToLower(strings.Trim(w, ".,;:!?\"()")) }
	for i := range ws {
		n := 0
		for n < len(span) && i+n < len(ws) && norm(ws[i+n]) == span[n] {
			n++
		}
		if n == 0 || n < len(span) && n < 2 && i+n != len(ws) {
			continue
		}
		if n < len(span) && n == 1 && (span[0] == "a" || span[0] == "an" || span[0] == "in" || span[0] == "at" || span[0] == "for") {
			continue // "a" alone names no date
		}
		start := i
		for start > 0 && datePreps[norm(ws[start-1])] {
			start--
		}
		rest := append(append([]string{}, ws[:start]...), ws[i+n:]...)
		for len(rest) > 0 && strings.Trim(rest[len(rest)-1], ".,;:") == "" {
			rest = rest[:len(rest)-1]
		}
		if len(rest) == 0 {
			return ws
		}
		if last := rest[len(rest)-1]; strings.HasSuffix(last, ",") {
			rest[len(rest)-1] = strings.TrimSuffix(last, ",")
		}
		return rest
	}
	return ws
}
