package facts

import (
	"regexp"
	"sort"
	"strings"

	"github.com/memproxy/memproxy/internal/rx"
)

// nameLaterRe finds a pet or a person introduced first and named right
// after, in the next clause or sentence: "We got a new kitten, her name is
// Luna", "We got a puppy last week. His name is Rocky.", "We adopted a
// rescue dog and named him Biscuit", "I have a new girlfriend. Her name is
// Mia." The pronoun refers to the noun just said.
var nameLaterRe = func() *rx.Regexp {
	var kinds []string
	for w := range pets {
		kinds = append(kinds, w)
	}
	for w, rel := range relations {
		if w[0] < 0x80 && rel != "" {
			kinds = append(kinds, regexp.QuoteMeta(w))
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(kinds))) // longest alternative first among shared prefixes
	return rx.MustCompile(`\b((?i:a|an|my|our)\s+(?:[a-z\-]+\s+){0,3}?(?i:` + strings.Join(kinds, "|") + `))\b` +
		`([^.,;!?\n]{0,30}?)` +
		`(?:\s*[.,;]\s*(?i:and\s+)?|\s+(?i:and)\s+)` +
		`(?:(?i:his|her|its|their)\s+name(?:'s|\s+is)|(?i:we|i)\s+(?i:named|called)\s+(?i:him|her|it|them)|(?i:named|called)\s+(?i:him|her|it|them))` +
		`\s+(\p{Lu}[\p{L}\-]+)`)
}()

// nameLater rewrites such a naming as the noun's own ("a new kitten
// named Luna"), which the readers of pets and people take.
// (a slot "changed to" a value is first said as the slot's value now)
func nameLater(msg string) string {
	msg = changedTo(msg)
	if !strings.Contains(msg, "name") && !strings.Contains(msg, "called") {
		return msg
	}
	return nameLaterRe.ReplaceAllString(msg, "$1 named $3$2")
}

// changedToRe: a slot of the user's said to have changed to a value ("My
// email changed to …", "our address has changed to …").
var changedToRe = rx.MustCompile(`\b((?i:my|our)\s+(?i:(?:new\s+|work\s+|home\s+|personal\s+)?(?:email address|email|e-mail|phone number|mobile number|phone|mobile|number|address|time zone|timezone|username|handle|surname|last name|name|job title|title|shift|hours|schedule)))\s+(?i:has\s+|have\s+)?(?i:changed|been changed|switched|moved)\s+to\s+`)

// changedTo rewrites such a change as the slot's new value said with
// "now", which the readers of slots take: "my email is now …".
func changedTo(msg string) string {
	if !strings.Contains(msg, " to ") {
		return msg
	}
	return changedToRe.ReplaceAllString(msg, "$1 is now ")
}

// languages are the language names the user speaks, learns or picks up
// ("I picked up some Italian", "I'm fluent in French").
var languages = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`English Spanish French German Italian Portuguese Dutch Swedish Norwegian Danish
		Finnish Icelandic Polish Czech Slovak Hungarian Romanian Bulgarian Greek Turkish Russian Ukrainian Serbian
		Croatian Slovenian Albanian Lithuanian Latvian Estonian Irish Welsh Gaelic Catalan Basque Galician Arabic
		Hebrew Persian Farsi Urdu Hindi Bengali Punjabi Gujarati Marathi Tamil Telugu Kannada Malayalam Nepali
		Sinhala Chinese Mandarin Cantonese Japanese Korean Vietnamese Thai Indonesian Malay Tagalog Filipino
		Swahili Amharic Yoruba Zulu Afrikaans Somali Hausa Igbo Latin Esperanto Yiddish Armenian Georgian
		Kazakh Uzbek Mongolian Tibetan Khmer Lao Burmese ASL`) {
		languages[w] = true
	}
}

// languageAt is the language named at k after words of amount ("some", "a
// bit of", "basic", "conversational"), "" when none is.
func languageAt(ts []tok, k int) string {
	for k < len(ts) && langAmount[ts[k].low] {
		k++
	}
	if k >= len(ts) || !ts[k].capital {
		return ""
	}
	w := ts[k].w
	if k+1 < len(ts) && languages[ts[k+1].w] && !languages[w] {
		w = ts[k+1].w // "Brazilian Portuguese" is Portuguese
	} else if k+1 < len(ts) && languages[w] && languages[ts[k+1].w] {
		return "" // "English French dictionary"
	}
	if !languages[w] {
		return ""
	}
	if k+1 < len(ts) && ts[k+1].capital && !languages[ts[k+1].w] && ts[k+1].low != "sign" {
		return "" // "Italian Riviera", "French Open"
	}
	if k+1 < len(ts) && strings.HasPrefix(ts[k+1].tag, "NN") && !ts[k+1].capital && ts[k+1].low != "now" {
		return "" // "French fries", "Spanish omelette", "Italian food"
	}
	return w
}

var langAmount = map[string]bool{"some": true, "a": true, "little": true, "bit": true, "of": true, "basic": true,
	"conversational": true, "decent": true, "fluent": true, "more": true, "enough": true, "passable": true, "broken": true,
	"rudimentary": true, "lot": true, "few": true, "words": true, "phrases": true, "the": true, "language": false}

// replyLanguageRe: a standing instruction to answer in a language ("From
// now on, answer me in French", "Please always reply in English", "Going
// forward respond to me only in Spanish"). A one-off request ("Answer in
// French, please") has no standing word and is no fact.
var replyLanguageRe = rx.MustCompile(`(?i)\b(?:from now on|going forward|always|from today|in future|in the future|by default|for now on)\b[^.!?]{0,40}?\b(?:answer|reply|respond|talk|speak|write|chat)(?:\s+(?:to\s+)?me)?\s+(?:only\s+|just\s+)?in\s+(\p{Lu}\p{Ll}+)\b|\b(?:answer|reply|respond|talk|speak|write)(?:\s+(?:to\s+)?me)?\s+(?:only\s+)?in\s+(\p{Lu}\p{Ll}+)\s+(?:from now on|going forward|by default|from today)\b`)

// replyLanguage is the language such an instruction names, "" for none.
func replyLanguage(sent string) string {
	m := replyLanguageRe.FindStringSubmatch(sent)
	if m == nil {
		return ""
	}
	if l := m[1] + m[2]; languages[l] {
		return l
	}
	return ""
}

// goesBy reads "go by Sasha", "prefer to be called Sasha", "call me Sasha
// from now on" at j (the verb): the name the user wants to be called.
func goesBy(ts []tok, j int) string {
	next := func(k int, words ...string) bool { return k < len(ts) && contains(words, ts[k].low) }
	k := j
	switch {
	case next(k, "go", "goes", "going") && next(k+1, "by"):
		k += 2
	case next(k, "be") && next(k+1, "called"):
		k += 2
	case next(k, "called") && j > 0 && next(j-1, "be", "being"):
		k++
	case next(k, "call", "calling") && next(k+1, "me"):
		k += 2
	default:
		return ""
	}
	if k < len(ts) && ts[k].capital && ts[k].tag == "NNP" && !languages[ts[k].w] {
		return ts[k].w
	}
	return ""
}
