package facts

import (
	"strings"

	"github.com/memproxy/memproxy/internal/rx"
	"github.com/memproxy/memproxy/text"
)

// firstPersonRe finds the user's own words in a sentence.
var firstPersonRe = rx.MustCompile(`(?i)\b(i|i'm|i've|i'd|i'll|my|me|mine|myself|we|we're|we've|our|us)\b`)

// secondPersonRe: a sentence that talks to the assistant is about the
// conversation, not a dated thing that happened.
var secondPersonRe = rx.MustCompile(`(?i)\b(you|your|yours)\b`)

var pronouns = []struct {
	re *rx.Regexp
	to string
}{
	{rx.MustCompile(`\b(?:I|i|We|we)(?:'m| am| are|'re)\b`), "the user is"},
	{rx.MustCompile(`\b(?:I|i|We|we)(?:'ve| have)\b`), "the user has"},
	{rx.MustCompile(`\b(?:I|i|We|we)'ll\b`), "the user will"},
	{rx.MustCompile(`\b(?:I|i|We|we)'d\b`), "the user would"},
	{rx.MustCompile(`\b(?:I|i)(?: was)\b`), "the user was"},
	{rx.MustCompile(`\b(?:We|we) were\b`), "the user was"},
	{rx.MustCompile(`\b(?:I|We|we)\b`), "the user"},
	{rx.MustCompile(`^(?:My|Our|my|our)\b`), "the user's"},
	{rx.MustCompile(`(?i)\b(?:my|our)\b`), "their"},
	{rx.MustCompile(`(?i)\b(?:me|us)\b`), "the user"},
	{rx.MustCompile(`(?i)\bmyself\b`), "themselves"},
	{rx.MustCompile(`(?i)\bmine\b`), "theirs"},
}

// datedStatement turns a first-person sentence that names when something
// happened ("I passed my driving test yesterday!!") into a dated
// third-person note ("The user passed the user's driving test on 9 Mar
// 2026."). It returns "" for sentences that do not qualify: no resolved
// date, no first person, or words to the assistant.
func datedStatement(sent string, refs []text.DateRef) string {
	if len(refs) == 0 || !firstPersonRe.MatchString(sent) || secondPersonRe.MatchString(sent) || unsureRe.MatchString(sent) {
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
		// "on Wednesday evenings last week", "until tomorrow": keep the
		// sentence's own preposition out of the way ("in the week of …",
		// not "until on …"), a word of its own ("my first marathon last
		// Sunday" says no "on"); "Last Friday was …": the date is the
		// subject.
		pre := strings.ToLower(strings.TrimSpace(sent[max(0, r.Start-8):r.Start]))
		if endsWithWord(pre, "on", "in", "until", "till", "by", "since", "from", "before", "after") || copulaNext(sent[r.End:]) {
			in = r.Format()
		}
		b.WriteString(in)
		last = r.End
	}
	b.WriteString(sent[last:])
	if n := thirdPerson(b.String()); strings.Contains(strings.ToLower(n), "the user") {
		return n
	}
	return "" // a dated note about the user names the user
}

// ThirdPerson rewrites a user's sentence about themselves in the third
// person, the way every stored sentence reads: "I drink about four
// coffees a day" → "The user drinks about four coffees a day."; "My
// doctor told me to cut out gluten, so I'm avoiding it" → "The user's
// doctor told the user to cut out gluten, so the user is avoiding it.";
// 我每周四去游泳 → 用户每周四去游泳。 The verb after "I" agrees with its new
// subject. It returns "" when nothing is left.
func ThirdPerson(s string) string {
	if hasHan(s) {
		s = strings.NewReplacer("我们", "用户", "我的", "用户的", "我", "用户").Replace(strings.TrimSpace(s))
		s = strings.TrimRight(s, "。！!？?，,；;…~ ")
		if s == "" {
			return ""
		}
		return s + "。"
	}
	return thirdPerson(s)
}

// subjectVerb is "I" or "we" as a subject, the adverbs after it and the
// verb: "I also use", "we really love".
var subjectVerb = rx.MustCompile(`\b(?:I|We|we)((?:\s+(?:also|really|just|still|usually|always|never|often|sometimes|only|mostly|actually|now|already|even|rarely|generally|normally|basically|totally|definitely|probably|mainly|finally|currently|typically|hardly|barely|seldom|truly|honestly|literally))*)\s+([A-Za-z][a-z']*)\b`)

// andIRe is "and I" closing a subject of two that starts the sentence
// ("Jake and I are", "my sister and I run"; not "… on Thursdays and I
// study", a clause of its own).
var andIRe = rx.MustCompile(`^((?:(?:[Mm]y|[Oo]ur)\s+[a-z]+(?:\s+[A-Z][a-z]+)?|[A-Z][a-z]+)\s+)and I\b`)

// thirdPerson rewrites a first-person sentence in the third person ("I
// passed my test" → "The user passed their test."); "" when a
// first-person word is left.
func thirdPerson(s string) string {
	// "Ugh, I had a bad reaction …", "Oh well, …", "Big news: …": the
	// sentence's lead-in is how it was said, not what it says.
	s = leadInRe.ReplaceAllString(strings.TrimSpace(s), "")
	s = leadConjRe.ReplaceAllString(s, "$1")
	// "My boyfriend Jake and I are going hiking": a subject of two keeps
	// its plural verb.
	s = andIRe.ReplaceAllString(s, "${1}and the user")
	s = subjectVerb.ReplaceAllStringFunc(s, func(m string) string {
		g := subjectVerb.FindStringSubmatch(m)
		v, ok := agree(g[2])
		if !ok {
			// The rules below read "I have", "I am" side by side only:
			// "I always have" is "the user always has".
			if to := map[string]string{"have": "has", "am": "is"}[strings.ToLower(g[2])]; g[1] != "" && to != "" {
				return "the user" + g[1] + " " + to
			}
			return m // "I'm", "I've", "I have": the rules below
		}
		return "the user" + g[1] + " " + v
	})
	for _, p := range pronouns {
		s = p.re.ReplaceAllString(s, p.to)
	}
	s = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(s), ".!?;,…"))
	s = strings.Join(strings.Fields(s), " ")
	s = nameUser(s)
	if s == "" || firstPersonRe.MatchString(s) {
		return ""
	}
	return upperFirst(s) + "."
}

// unsureRe: the user says what they do not know yet ("I'm not sure what
// to cook tonight", "I can't decide between …"): a passing thought, no
// statement of what happened.
var unsureRe = rx.MustCompile(`(?i)\b(?:not sure|unsure|don't know|do not know|dunno|no idea|wondering|can't decide|cannot decide|undecided|torn between)\b`)

// leadInRe is the interjections and lead-ins a sentence may open with,
// each followed by a comma, colon, dash or exclamation mark.
var leadInRe = rx.MustCompile(`^(?:(?i:ugh|argh|oh|ooh|ah|aw|aww|wow|whoa|well|so|yeah|yep|yes|no|nah|hey|hi|hmm|hm|haha|hahaha|lol|omg|oh man|oh well|oh no|man|dude|honestly|anyway|anyways|okay|ok|alright|sadly|luckily|fortunately|unfortunately|btw|by the way|fun fact|guess what|(?:great|good|big|bad|sad|exciting|some) news|update|quick update)\s*(?:[,:!]+|\s+-|\s+—)\s*)+`)

// leadConjRe is a conjunction opening the sentence before its subject:
// "So I started pottery" says "I started pottery".
var leadConjRe = rx.MustCompile(`^(?i:so|and|but|anyway|plus|also)\s+((?:I|[Ww]e)\b)`)

// copulaNext: the words after a date expression start with a copula
// ("Last Friday was my final day").
func copulaNext(rest string) bool {
	f := strings.Fields(strings.ToLower(rest))
	return len(f) > 0 && (f[0] == "was" || f[0] == "is" || f[0] == "will")
}

// theyRe is a third-person pronoun the rules wrote for the user.
var theyRe = rx.MustCompile(`\b(their|they|them|themselves)\b`)

// nameUser writes the user's first pronoun as "the user" when no "the
// user" comes before it: "5 Jun 2026 was their final day" → "… was the
// user's final day".
func nameUser(s string) string {
	loc := theyRe.FindStringIndex(s)
	if loc == nil || strings.Contains(strings.ToLower(s[:loc[0]]), "the user") {
		return s
	}
	to := map[string]string{"their": "the user's", "they": "the user", "them": "the user", "themselves": "the user"}[s[loc[0]:loc[1]]]
	return s[:loc[0]] + to + s[loc[1]:]
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

// agree is the verb v after a third-person singular subject ("use" →
// "uses", "don't" → "doesn't", "were" → "was"); a past form or a modal
// stays. It reports false for a word it leaves to the pronoun rules (a
// contraction of "am" or "have").
func agree(v string) (string, bool) {
	low := strings.ToLower(v)
	if w, ok := agreeWords[low]; ok {
		return w, w != ""
	}
	switch {
	case strings.Contains(low, "'"):
		return v, true // "can't", "won't", "didn't"
	case strings.HasSuffix(low, "ed") || pastForms[low] || unchangedVerbs[low]:
		return v, true
	case strings.HasSuffix(low, "y") && len(low) > 2 && !strings.ContainsRune("aeiou", rune(low[len(low)-2])):
		return v[:len(v)-1] + "ies", true
	case strings.HasSuffix(low, "s") || strings.HasSuffix(low, "x") || strings.HasSuffix(low, "z") ||
		strings.HasSuffix(low, "ch") || strings.HasSuffix(low, "sh") || low == "go" || low == "do" || low == "veto" || low == "echo":
		return v + "es", true
	}
	return v + "s", true
}

// agreeWords: verbs with their own third-person form; "" leaves the word
// to the pronoun rules ("I am", "I have" are there).
var agreeWords = map[string]string{
	"am": "", "have": "", "was": "was", "were": "was", "are": "is", "aren't": "isn't", "weren't": "wasn't",
	"don't": "doesn't", "haven't": "hasn't", "do": "does", "dont": "doesn't",
	"'m": "", "'ve": "", "'ll": "", "'d": "", "'re": "",
}

// unchangedVerbs: modals and words whose past and present forms are one
// ("I quit smoking" reads right either way), and words that are no verb.
var unchangedVerbs = map[string]bool{
	"can": true, "could": true, "will": true, "would": true, "shall": true, "should": true, "may": true,
	"might": true, "must": true, "did": true, "had": true, "used": true, "put": true, "cut": true, "set": true,
	"let": true, "hit": true, "quit": true, "read": true, "hurt": true, "cost": true, "shut": true, "spread": true,
	"bet": true, "split": true, "and": true, "or": true, "but": true, "too": true, "myself": true, "ourselves": true,
	"both": true, "all": true, "each": true, "the": true, "a": true, "an": true, "to": true, "in": true, "at": true,
	"on": true, "for": true, "with": true, "who": true, "that": true, "which": true, "personally": true, "not": true,
}

// pastForms are irregular past tenses and participles.
var pastForms = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`went got gotten had made took taken saw seen came left met bought sold told said thought
	felt found gave given began begun ran wrote written ate eaten drank drunk flew flown grew grown knew known lost paid
	sat spent stood taught understood won became brought built caught chose chosen drove driven fell fallen forgot forgotten
	heard held kept led lent meant rode rose sang sung sent slept spoke spoken stole swam threw thrown woke wore worn broke
	broken been bit bitten blew blown dealt dug drew drawn fed fought fled forgave froze frozen hid hidden hung lay laid lit
	made rang sank shook shot shone shrank slid sought sold stuck stung struck swore swept swung tore torn wept wound`) {
		pastForms[w] = true
	}
}
