package facts

import (
	"strings"
	"time"
)

// Things the user has read, watched or been to: multi-valued attributes
// whose values accumulate over a conversation ("Just finished "A Dance
// with Dragons"", "I went to London", "I've been to the UK"). Only a
// name is a value (a quoted title or capitalised words): "I read that
// book you recommended" and "I went to a place" name nothing.

// experiences are the attributes of things done rather than states: a
// date said with one is when it happened ("on 10 Nov 2023"), not since
// when it holds.
var experiences = map[string]bool{"read": true, "watched": true, "visited": true}

// experienced reads "read / finished (reading) / watched X", "visited
// X", "went / travelled / been to X" at ts[j], the user's verb. A
// negated verb ("I haven't read it"), a wish or plan before it ("I'd
// love to go to Paris", "if I went to Rome") and a question state
// nothing (Extract drops questions).
func experienced(ts []tok, j int, mk func(a, v string) Fact, neg bool) (Fact, bool) {
	if neg || j >= len(ts) || hypothetical(ts, j) {
		return Fact{}, false
	}
	attr, k := "", j+1
	switch ts[j].low {
	case "read", "reread":
		attr = "read"
	case "finished", "started":
		if k < len(ts) && ts[k].low == "reading" {
			attr, k = "read", k+1
		} else if k < len(ts) && ts[k].low == "watching" {
			attr, k = "watched", k+1
		} else if ts[j].low == "finished" && k < len(ts) && isQuote(ts[k].w) {
			attr = "read" // "Just finished "A Dance with Dragons""
		}
	case "watched", "rewatched", "binged":
		attr = "watched"
	case "visited":
		attr = "visited"
	case "went", "travelled", "traveled", "flew", "been":
		if k < len(ts) && ts[k].low == "to" {
			attr, k = "visited", k+1
		}
	case "got", "came", "returned", "back":
		// "Just got back from a trip to Vietnam", "I returned from
		// Lisbon": where the user has been.
		if ts[j].low != "returned" && ts[j].low != "back" && k < len(ts) && ts[k].low == "back" {
			k++
		}
		if k < len(ts) && ts[k].low == "from" && (ts[j].low != "got" && ts[j].low != "came" || ts[k-1].low == "back") {
			k++
			for k < len(ts) && (ts[k].low == "a" || ts[k].low == "an" || ts[k].low == "my" || ts[k].low == "our" || ts[k].low == "the" || ts[k].low == "two-week" || ts[k].low == "week-long" || ts[k].low == "short" || ts[k].low == "long" || ts[k].low == "family" || ts[k].low == "work" || ts[k].low == "business") {
				k++
			}
			if k+1 < len(ts) && tripWords[ts[k].low] && (ts[k+1].low == "to" || ts[k+1].low == "in") {
				k += 2
			}
			attr = "visited"
		}
	}
	if attr == "" {
		return Fact{}, false
	}
	v, ok := titleAt(ts, k, attr == "visited")
	if !ok {
		return Fact{}, false
	}
	if a, _, two := strings.Cut(v, " and "); attr == "visited" && two && !strings.HasPrefix(v, "the ") {
		v = a // "Japan and Korea": two places (the list reader adds the next)
	}
	return mk(attr, v), true
}

// timeNouns after a name say when, not what kind ("back from Lisbon
// yesterday").
var timeNouns = map[string]bool{"yesterday": true, "today": true, "tonight": true, "tomorrow": true, "last": true,
	"this": true, "recently": true, "earlier": true}

// tripWords name a journey whose place follows ("a trip to Vietnam").
var tripWords = map[string]bool{"trip": true, "holiday": true, "vacation": true, "visit": true, "week": true,
	"weekend": true, "fortnight": true, "month": true, "honeymoon": true, "tour": true, "stay": true}

// titleAt is the name at ts[k]: the words inside quotes, or capitalised
// words (with "of", "the", "and", "with" between them: "The Name of the
// Wind"); place names may take "the" before them ("the UK"). A name
// followed by a common noun is an attribute of it ("a Harry Potter
// conference"), not a name.
func titleAt(ts []tok, k int, place bool) (string, bool) {
	if k < len(ts) && isQuote(ts[k].w) {
		var words []string
		for m := k + 1; m < len(ts) && m < k+12; m++ {
			if isQuote(ts[m].w) {
				if len(words) == 0 {
					return "", false
				}
				return strings.Join(words, " "), true
			}
			if ts[m].tag == "." {
				break
			}
			words = append(words, ts[m].w)
		}
		return "", false
	}
	the := false
	if k < len(ts) && ts[k].low == "the" && place {
		the, k = true, k+1
	}
	var words []string
	m := k
	for ; m < len(ts) && len(words) < 6; m++ {
		t := ts[m]
		if t.capital && (strings.HasPrefix(t.tag, "NN") || len(words) == 0 && !place && t.tag == "DT") && !weekdayOrMonth[t.low] {
			words = append(words, t.w)
			continue
		}
		if len(words) > 0 && (t.low == "of" || t.low == "the" || t.low == "and" || t.low == "with") && m+1 < len(ts) && ts[m+1].capital && strings.HasPrefix(ts[m+1].tag, "NN") {
			words = append(words, t.w)
			continue
		}
		break
	}
	if len(words) == 0 || m < len(ts) && strings.HasPrefix(ts[m].tag, "NN") && !timeNouns[ts[m].low] {
		return "", false
	}
	v := strings.Join(words, " ")
	if the {
		v = "the " + v
	}
	return v, true
}

func isQuote(w string) bool { return w == `"` || w == "“" || w == "”" || w == "``" || w == "''" }

// weekdayOrMonth are the capitalised calendar words that begin no title
// or place: the day names (dayNames) and the months but May, which is
// also a name.
var weekdayOrMonth = func() map[string]bool {
	out := make(map[string]bool, len(dayNames)+11)
	for d := range dayNames {
		out[d] = true
	}
	for m := time.January; m <= time.December; m++ {
		if m != time.May {
			out[strings.ToLower(m.String())] = true
		}
	}
	return out
}()

// hypothetical: a wish, plan or condition before the verb at ts[j] ("I'd
// love to go", "if I went", "I want to visit", "I hope to read").
func hypothetical(ts []tok, j int) bool {
	for m := 0; m < j; m++ {
		switch ts[m].low {
		case "if", "would", "could", "should", "might", "wish", "hope", "want", "wanna", "plan", "planning", "gonna", "unless", "maybe":
			return true
		}
	}
	return false
}

// gerundValue checks a value read at ts[k:end] that is a bare gerund:
// said alone ("I enjoy reading, …") it is the activity; followed by its
// object ("started hitting the gym", "love creating art") the object
// goes with it; followed by anything else ("love getting immersed in
// …", "started looking into …", "started going to …") the gerund alone
// names nothing, and false is returned. Other values pass unchanged.
func gerundValue(ts []tok, k int, val string, end int) (string, int, bool) {
	for k < len(ts) && (ts[k].low == "a" || ts[k].low == "an" || ts[k].low == "the" || ts[k].low == "some") {
		k++
	}
	if k >= len(ts) || !gerund(ts[k]) || end != k+1 {
		return val, end, true
	}
	if end >= len(ts) || ts[end].tag == "." || ts[end].tag == "," || ts[end].tag == ":" || ts[end].low == "and" || ts[end].low == "or" || ts[end].low == "but" || ts[end].tag == "RB" && ts[end].low != "out" {
		// "I started bouldering too, twice a week"
		return val, end, true
	}
	m := end
	if ts[m].tag == "RP" || ts[m].low == "on" || ts[m].low == "in" {
		m++ // "going on road trips", "hanging out"
	}
	if m < len(ts) && (ts[m].tag == "PRP$" || ts[m].low == "me" || ts[m].low == "it" || ts[m].low == "them") {
		return "", end, false
	}
	obj, e, ok := np(ts, m)
	if !ok || strings.HasPrefix(ts[m].tag, "VB") {
		return "", end, false
	}
	words := []string{ts[k].w}
	for _, t := range ts[end:m] {
		words = append(words, t.w)
	}
	if m < len(ts) && (ts[m].low == "the" || ts[m].low == "a" || ts[m].low == "an") {
		words = append(words, ts[m].w)
	}
	return strings.Join(append(words, obj), " "), e, true
}

// moreGerunds are the gerunds listed after a first value ("I enjoy
// reading, watching movies, and exploring nature"): each with its object
// as gerundValue reads it.
func moreGerunds(ts []tok, end int) []string {
	var out []string
	for end < len(ts) {
		m := end
		for m < len(ts) && (ts[m].w == "," || ts[m].low == "and" || ts[m].low == "or") {
			m++
		}
		if m == end || m >= len(ts) || !gerund(ts[m]) {
			break
		}
		val, e, ok := np(ts, m)
		if !ok {
			break
		}
		v, e2, ok := gerundValue(ts, m, val, e)
		if !ok {
			break
		}
		out = append(out, v)
		end = e2
	}
	return out
}

// gerund: a present participle, or an -ing word the tagger read as a
// noun ("reading/NN").
func gerund(t tok) bool {
	return t.tag == "VBG" || strings.HasPrefix(t.tag, "NN") && !t.capital && len(t.low) > 5 && strings.HasSuffix(t.low, "ing")
}

// likedNothing: the object of a like at ts[k:end] names no standing
// liking: a detail of something just mentioned ("I love the idea and
// the acting", "the color and texture", "the structure of the
// language", "the thought, Nate"), or a verb the tagger let in ("the
// things I love makes writing fun").
func likedNothing(ts []tok, k, end int) bool {
	if k < len(ts) && (ts[k].tag == "VBZ" || ts[k].tag == "VBD") {
		return true
	}
	if k+1 >= len(ts) || ts[k].low != "the" && ts[k].low != "this" && ts[k].low != "that" {
		return false
	}
	if ts[k+1].tag != "NN" || ts[k+1].capital {
		return false
	}
	return end == k+2 && end < len(ts) && (ts[end].low == "and" || theComplement[ts[end].low]) ||
		end > k+2 && ts[k+2].capital
}

// theComplement are the words that, after "the <noun>", say which one
// is meant ("the way the frosting turned out", "the book even more",
// "the theme of the show"): a thing of the conversation, not a taste.
var theComplement = map[string]bool{
	"of": true, "that": true, "how": true, "when": true, "where": true, "which": true, "who": true, "you": true,
	"he": true, "she": true, "they": true, "it": true, "we": true, "i": true, "the": true, "a": true, "an": true,
	"my": true, "your": true, "his": true, "her": true, "their": true, "our": true, "this": true, "even": true, "so": true,
}
