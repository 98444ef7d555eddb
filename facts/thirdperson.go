package facts

import (
	"regexp"
	"strings"

	"github.com/memproxy/memproxy/text"
)

// firstPersonRe finds the user's own words in a sentence.
var firstPersonRe = regexp.MustCompile(`(?i)\b(i|i'm|i've|i'd|i'll|my|me|mine|myself|we|we're|we've|our|us)\b`)

// secondPersonRe: a sentence that talks to the assistant is about the
// conversation, not a dated thing that happened.
var secondPersonRe = regexp.MustCompile(`(?i)\b(you|your|yours)\b`)

var pronouns = []struct {
	re *regexp.Regexp
	to string
}{
	{regexp.MustCompile(`\b(?:I|i|We|we)(?:'m| am| are|'re)\b`), "the user is"},
	{regexp.MustCompile(`\b(?:I|i|We|we)(?:'ve| have)\b`), "the user has"},
	{regexp.MustCompile(`\b(?:I|i|We|we)'ll\b`), "the user will"},
	{regexp.MustCompile(`\b(?:I|i|We|we)'d\b`), "the user would"},
	{regexp.MustCompile(`\b(?:I|i)(?: was)\b`), "the user was"},
	{regexp.MustCompile(`\b(?:We|we) were\b`), "the user was"},
	{regexp.MustCompile(`\b(?:I|We|we)\b`), "the user"},
	{regexp.MustCompile(`^(?:My|Our|my|our)\b`), "the user's"},
	{regexp.MustCompile(`(?i)\b(?:my|our)\b`), "their"},
	{regexp.MustCompile(`(?i)\b(?:me|us)\b`), "the user"},
	{regexp.MustCompile(`(?i)\bmyself\b`), "themselves"},
	{regexp.MustCompile(`(?i)\bmine\b`), "theirs"},
}

// datedStatement turns a first-person sentence that names when something
// happened ("I passed my driving test yesterday!!") into a dated
// third-person note ("The user passed the user's driving test on 9 Mar
// 2026."). It returns "" for sentences that do not qualify: no resolved
// date, no first person, or words to the assistant.
func datedStatement(sent string, refs []text.DateRef) string {
	if len(refs) == 0 || !firstPersonRe.MatchString(sent) || secondPersonRe.MatchString(sent) {
		return ""
	}
	// The date expressions become the dates they name.
	var b strings.Builder
	last := 0
	for _, r := range refs {
		if r.Start < last {
			continue
		}
		if last > 0 && strings.TrimSpace(sent[last:r.Start]) == "" {
			last = r.End // "two years ago this week": one date is enough
			continue
		}
		b.WriteString(sent[last:r.Start])
		in := r.In()
		// "on Wednesday evenings last week": keep the sentence's own
		// preposition out of the way ("in the week of …").
		pre := strings.ToLower(strings.TrimSpace(sent[max(0, r.Start-4):r.Start]))
		if strings.HasSuffix(pre, "on") || strings.HasSuffix(pre, "in") {
			in = r.Format()
		}
		b.WriteString(in)
		last = r.End
	}
	b.WriteString(sent[last:])
	return thirdPerson(b.String())
}

// thirdPerson rewrites a first-person sentence in the third person ("I
// passed my test" → "The user passed their test."); "" when a
// first-person word is left.
func thirdPerson(s string) string {
	for _, p := range pronouns {
		s = p.re.ReplaceAllString(s, p.to)
	}
	s = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s), ".!?;,…"))
	s = strings.Join(strings.Fields(s), " ")
	if s == "" || firstPersonRe.MatchString(s) {
		return ""
	}
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

// datedStatementZH is datedStatement for Chinese: "我昨天通过了驾照考试"
// → "用户2026年3月9日通过了驾照考试。"
func datedStatementZH(sent string, refs []text.DateRef) string {
	if len(refs) == 0 || !strings.Contains(sent, "我") || strings.Contains(sent, "你") {
		return ""
	}
	var b strings.Builder
	last := 0
	for _, r := range refs {
		if r.Start < last {
			continue
		}
		b.WriteString(sent[last:r.Start])
		b.WriteString(r.FormatZH())
		last = r.End
	}
	b.WriteString(sent[last:])
	s := b.String()
	s = strings.NewReplacer("我们", "用户", "我的", "用户的", "我", "用户").Replace(s)
	s = strings.TrimRight(strings.TrimSpace(s), "。！!？?，,；;…~")
	if s == "" {
		return ""
	}
	return s + "。"
}
