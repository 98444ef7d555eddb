package facts

import (
	"regexp"
	"strings"
	"time"

	"github.com/memproxy/memproxy/internal/rx"
)

// Correction is a user correcting what they said: "I meant Tuesday, not
// Monday", "it's spelled Kathryn, not Katherine", "不是周一，是周二".
type Correction struct {
	New, Old string
	// age: a corrected age said of someone already named ("Oops, she's
	// actually 8"); Old is then the words every stored age carries.
	age bool
}

var (
	// "X, not Y" / "X not Y" after a correcting word.
	correctEN = rx.MustCompile(`(?i)\b(?:i meant|i mean|it's|it is|its|actually|correction|sorry|oops|no|make that|spelled|spelt|typo)\b[,:]?(?:[^.;!?]*?\b(?:is|on|at|spelled|spelt|be|it's|it is))?\s+(?:the\s+)?([\w@.'\-]+(?:\s+[\w@.'\-]+)?),?\s+not\s+(?:the\s+)?([\w@.'\-]+(?:\s+[\w@.'\-]+)?)\b`)
	// "not Y but X"
	correctEN2 = rx.MustCompile(`(?i)\bnot\s+(?:the\s+)?([\w@.'\-]+),?\s+but\s+(?:the\s+)?([\w@.'\-]+)\b`)
	// "it's not Y, it's X", "Not Y, X!", "I said Y but I meant X": the
	// old value first.
	correctENOld = []*rx.Regexp{
		rx.MustCompile(`(?i)\b(?:it's|it is|its|that's|that is)\s+not\s+(?:the\s+)?([\w@.'\-]+(?:\s+[\w@.'\-]+)?),?\s+(?:it's|it is|its|but|that's)\s+(?:the\s+)?([\w@.'\-]+(?:\s+[\w@.'\-]+)?)\b`),
		rx.MustCompile(`(?i)^\W*(?:no,?\s+|sorry,?\s+|oops,?\s+)?not\s+(?:the\s+)?([\w@.'\-]+(?:\s+[\w@.'\-]+)?),\s*(?:it's\s+|it is\s+)?(?:the\s+)?([\w@.'\-]+(?:\s+[\w@.'\-]+)?)\W*$`),
		rx.MustCompile(`(?i)\bi (?:said|wrote|typed)\s+(?:the\s+)?([\w@.'\-]+(?:\s+[\w@.'\-]+)?),?\s+but\s+i\s+meant\s+(?:the\s+)?([\w@.'\-]+(?:\s+[\w@.'\-]+)?)\b`),
	}
	correctZH = rx.MustCompile(`不是([\p{Han}A-Za-z0-9]{1,10}?)[，,]?(?:而)?是([\p{Han}A-Za-z0-9]{1,10}?)(?:[，。,.!！]|$)`)
	// "Oops, she's actually 8": an age corrected by a pronoun.
	correctAge = rx.MustCompile(`(?i)\b(?:oops|sorry|actually|correction|my mistake|i mean|i meant|wait)\b[^.!?]*?\b(?:she|he|they)(?:'s| is| are|’s)\s+(?:actually\s+|really\s+|now\s+)?(\d{1,3})\b(?:\s+years?\s+old)?`)
	correctZH2 = rx.MustCompile(`(?:说错了|搞错了|记错了|更正|纠正|其实|实际上)(?:一下)?[，,：:]?(?:[\p{Han}]{1,6}?是|是)?([\p{Han}A-Za-z0-9]{1,10}?)[，,]?不是([\p{Han}A-Za-z0-9]{1,10}?)(?:[，。,.!！]|$)`)
)

// zhPronoun: a subject, never a corrected value.
var zhPronoun = map[string]bool{"我": true, "你": true, "他": true, "她": true, "它": true, "我们": true, "他们": true, "她们": true}

// ExtractCorrection finds a correction in a user message.
func ExtractCorrection(msg string) (Correction, bool) {
	if m := correctAge.FindStringSubmatch(msg); m != nil {
		return Correction{New: m[1], Old: "years old", age: true}, true
	}
	for i, re := range correctENOld {
		if m := re.FindStringSubmatch(msg); m != nil {
			if i == 1 && !(nameOrNumber(m[1]) && nameOrNumber(m[2])) {
				continue // "Not now, thanks."
			}
			if c, ok := clean(Correction{New: m[2], Old: m[1]}); ok {
				return c, true
			}
		}
	}
	if !strings.Contains(msg, "不是") && !strings.Contains(strings.ToLower(msg), "not") {
		return Correction{}, false // every pattern needs one of them
	}
	for _, re := range []*rx.Regexp{correctEN, correctZH2} {
		if m := re.FindStringSubmatch(msg); m != nil && !zhPronoun[m[1]] {
			// (我说错了，我不是28岁，是29岁: 我 is who, the value follows)
			return clean(Correction{New: m[1], Old: m[2]})
		}
	}
	for _, re := range []*rx.Regexp{correctEN2, correctZH} {
		if m := re.FindStringSubmatch(msg); m != nil {
			return clean(Correction{New: m[2], Old: m[1]})
		}
	}
	return Correction{}, false
}

// zhCountRe is a number and its unit at the end of a Chinese value (8岁).
var zhCountRe = rx.MustCompile(`(\d+)(岁|个|点|号|月|天|年|只|次|楼|层)$`)

func clean(c Correction) (Correction, bool) {
	c.New, c.Old = strings.Trim(c.New, " .,'"), strings.Trim(c.Old, " .,'")
	// The words before the value are not the value: "it's spelled
	// Kathryn", "is at 3pm" (the old value sits after the same words).
	for again := true; again; {
		again = false
		for _, w := range []string{"it's ", "it is ", "its ", "spelled ", "spelt ", "is ", "at ", "on ", "be ",
			"i'm ", "i am ", "we're ", "we are ", "he's ", "she's ", "they're "} { // "Actually I'm 34, not 33"
			if len(c.New) > len(w) && strings.EqualFold(c.New[:len(w)], w) {
				c.New, again = c.New[len(w):], true
			}
		}
	}
	// "其实我是周四的航班，不是周三": the value is 周四, not what it
	// qualifies.
	if i := strings.Index(c.New, "的"); i > 0 && hasHan(c.New) && !strings.Contains(c.Old, "的") {
		c.New = c.New[:i]
	}
	// 我女儿9岁，不是8岁: a number with its unit corrects the same unit's
	// number, not the words before it.
	if m := zhCountRe.FindStringSubmatch(c.Old); m != nil {
		if n := zhCountRe.FindStringSubmatch(c.New); n != nil && n[2] == m[2] {
			c.New = n[0]
		}
	}
	if c.New == "" || c.Old == "" || strings.EqualFold(c.New, c.Old) {
		return c, false
	}
	for _, w := range []string{c.New, c.Old} {
		switch strings.ToLower(w) {
		case "i", "me", "you", "it", "that", "this", "sure", "really", "just", "it's", "its", "that's", "is", "was":
			return c, false
		}
	}
	return c, true
}

// Apply rewrites a stored fact's text with the corrected value, keeping
// the rest; ok is false when the text does not carry the old value. An
// ordinal follows the number it corrects ("14th" → "16th" when the user
// said "the 16th, not the 14th").
func (c Correction) Apply(s string) (string, bool) {
	if c.age {
		if atoi(s) > 0 {
			return c.New, true // the triple's value
		}
		if !ageTextRe.MatchString(s) {
			return s, false
		}
		return ageTextRe.ReplaceAllString(s, "${1}"+c.New+" years old"), true
	}
	re := rx.MustCompileLocal(`(?i)\b` + regexp.QuoteMeta(c.Old) + `\b`)
	if hasHan(c.Old) {
		re = rx.MustCompileLocal(regexp.QuoteMeta(c.Old))
		// "是周五晚上，不是周三" on "聚会在周三晚上": the new value's tail
		// (晚上) is already in the text after the old one.
		if o, n := []rune(c.Old), []rune(c.New); len(n) > len(o) {
			if tail := string(n[len(o):]); strings.Contains(s, c.Old+tail) {
				re = rx.MustCompileLocal(regexp.QuoteMeta(c.Old + tail))
			}
		}
	}
	if !re.MatchString(s) {
		return s, false
	}
	out := re.ReplaceAllLiteralString(s, c.New)
	// "Tuesday, not Monday" on "on Monday 9 Mar 2026": the date moves
	// with the day, in its week.
	if o, ok := dayNames[strings.ToLower(c.Old)]; ok {
		if n, ok := dayNames[strings.ToLower(c.New)]; ok {
			out = shiftDay(out, c.New, (int(n)+6)%7-(int(o)+6)%7)
		}
	}
	return out, true
}

var dayDateRe = rx.MustCompile(`\b([A-Z][a-z]+day),? (\d{1,2} [A-Z][a-z]{2} \d{4})\b`)

// shiftDay moves the date written after the day name day by n days.
func shiftDay(s, day string, n int) string {
	return dayDateRe.ReplaceAllStringFunc(s, func(m string) string {
		g := dayDateRe.FindStringSubmatch(m)
		d, err := time.Parse("2 Jan 2006", g[2])
		if !strings.EqualFold(g[1], day) || err != nil {
			return m
		}
		return g[1] + " " + d.AddDate(0, 0, n).Format("2 Jan 2006")
	})
}

// ageTextRe finds the age in a stored fact ("… is 7 years old").
var ageTextRe = rx.MustCompile(`(\bis )\d{1,3} years old`)

// nameOrNumber: a value that starts with a capital or a digit ("Braga",
// "Tuesday", "4pm"), which a bare "Not X, Y" correction needs.
func nameOrNumber(v string) bool {
	return v != "" && (v[0] >= 'A' && v[0] <= 'Z' || v[0] >= '0' && v[0] <= '9')
}
