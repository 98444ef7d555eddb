package facts

import (
	"slices"
	"strings"

	"github.com/memproxy/memproxy/internal/rx"
)

// A correction that names only the new value ("Sorry, I meant Tuesday.",
// 不对，是五月四号) corrects the value of the same kind the user stated
// last: a weekday for a weekday, a time for a time, a date for a date, a
// number for a number, a name for a name. The old value is found in the
// memories of the same conversation (CorrectedIn).
var (
	correctNewEN = rx.MustCompile(`(?i)^\W*(?:(?:sorry|oops|no|nope|wait|correction|my bad|my mistake|ah|er|um|actually)[,!.:;]*\s+)*` +
		`(?:i meant|i mean|make that|i should have said|it'?s actually|it is actually|actually it'?s|it should be)\s+(?:on\s+|at\s+|the\s+)?` +
		`([\w:@.'\-]+(?:\s+[\w:@.'\-]+){0,2}?)\s*(?:instead|actually)?\s*[.!]*\s*$`)
	// "Sorry, Tuesday." / "Oops, 4pm!": a correcting word, then the value alone.
	correctNewBare = rx.MustCompile(`(?i)^\W*(?:sorry|oops|correction|my bad|my mistake)[,!.:;]*\s+(?:on\s+|at\s+|the\s+)?([\w:@.'\-]+(?:\s+[\w:@.'\-]+)?)\s*[.!]*\s*$`)
	correctNewZH   = rx.MustCompile(`^\s*(?:(?:不对|不是的|错了|说错了|我说错了|搞错了|我搞错了|记错了|更正一下|纠正一下|抱歉|不好意思|哦不)[，,。!！\s]*)+(?:应该是|其实是|是|我是说|改成)([\p{Han}A-Za-z0-9:：]{1,10}?)[。.!！]*\s*$|^\s*我是说([\p{Han}A-Za-z0-9:：]{1,10}?)[。.!！]*\s*$`)
)

// ExtractCorrectionNew finds a correction that names only its new value;
// the value must be of a kind CorrectedIn can find again (a weekday, a
// time, a date, a number, a name).
func ExtractCorrectionNew(msg string) (string, bool) {
	var v string
	if m := correctNewZH.FindStringSubmatch(msg); m != nil {
		v = m[1] + m[2]
	} else if m := correctNewEN.FindStringSubmatch(msg); m != nil {
		v = m[1]
	} else if m := correctNewBare.FindStringSubmatch(msg); m != nil {
		v = m[1]
	}
	v = strings.Trim(v, " .,'")
	if _, _, ok := kindOf(v); v == "" || !ok {
		return "", false
	}
	return v, true
}

var (
	kindDayZH   = rx.MustCompile(`(?:周|星期|礼拜)[一二三四五六日天]`)
	kindTimeEN  = rx.MustCompile(`(?i)\b\d{1,2}(?::\d{2})?\s?(?:am|pm)\b|\b\d{1,2}:\d{2}\b`)
	kindTimeZH  = rx.MustCompile(`(?:早上|上午|中午|下午|晚上)?(?:\d{1,2}|[一二两三四五六七八九十]{1,3})点(?:半|\d{1,2}分|[一二三四五六七八九十]{1,3}分)?`)
	kindDateZH  = rx.MustCompile(`(?:\d{1,2}|[一二三四五六七八九十]{1,3})月(?:\d{1,2}|[一二三四五六七八九十]{1,3})[日号]|(?:\d{1,2}|[一二三四五六七八九十]{1,3})[日号]`)
	kindOrdEN   = rx.MustCompile(`(?i)\b\d{1,2}(?:st|nd|rd|th)\b`)
	kindNumber  = rx.MustCompile(`\b\d+(?:\.\d+)?\b`)
	kindNameEN  = rx.MustCompile(`\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?\b`)
	kindMonthEN = rx.MustCompile(`(?i)\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\s+\d{1,2}(?:st|nd|rd|th)?\b`)
)

// valueKinds are the kinds of value CorrectedIn finds again, in the order
// tried (an English weekday is read by dayNames, before them).
var valueKinds = []*rx.Regexp{kindDayZH, kindTimeEN, kindTimeZH, kindDateZH, kindMonthEN, kindOrdEN, kindNumber, kindNameEN}

func isDayName(w string) bool {
	_, ok := dayNames[strings.ToLower(strings.TrimSuffix(w, "s"))]
	return ok
}

// kindOf is the pattern of a corrected value's kind (day: an English
// weekday, read by name); ok is false for a value of none.
func kindOf(v string) (re *rx.Regexp, day, ok bool) {
	if isDayName(v) {
		return nil, true, true
	}
	for _, re := range valueKinds {
		if loc := re.FindStringIndex(v); loc != nil && loc[0] == 0 && loc[1] == len(v) {
			return re, false, re != kindNameEN || !notNames[strings.ToLower(v)]
		}
	}
	return nil, false, false
}

// CorrectedIn returns the value of newValue's kind that text states, the
// last one said, which a correction naming only newValue replaces; "" when
// text holds none (or only newValue itself).
func CorrectedIn(text, newValue string) string {
	re, day, ok := kindOf(newValue)
	if !ok {
		return ""
	}
	var found []string
	if day {
		found = slices.DeleteFunc(wordRe.FindAllString(text, -1), func(w string) bool { return !isDayName(w) })
	} else {
		found = re.FindAllString(text, -1)
	}
	old := ""
	for _, m := range found {
		if strings.EqualFold(m, newValue) || re == kindNameEN && (notNames[strings.ToLower(m)] || m == "The" || strings.HasPrefix(m, "The ")) {
			continue
		}
		old = m
	}
	return old
}

// NewCorrection is the correction of old to newValue (as ExtractCorrection
// would read "newValue, not old"); ok is false when they are no pair.
func NewCorrection(newValue, old string) (Correction, bool) {
	return clean(Correction{New: newValue, Old: old})
}
