package text

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/memproxy/memproxy/internal/rx"
)

// Precision is how exactly a date expression names its time.
type Precision int

const (
	Day Precision = iota + 1
	Weekend
	Week
	Month
	Year
)

// DateRef is one relative date expression found in a text, resolved.
type DateRef struct {
	Start, End int       // byte offsets of the expression
	Text       string    // the expression as written
	Date       time.Time // the start of the period it names, in the zone it was resolved in
	Precision  Precision
}

// Format writes the resolved date at its precision: "9 Mar 2026", "the
// weekend of 7 Mar 2026", "the week of 2 Mar 2026", "Feb 2026", "2025".
func (d DateRef) Format() string {
	switch d.Precision {
	case Weekend:
		return "the weekend of " + d.Date.Format("2 Jan 2006")
	case Week:
		return "the week of " + d.Date.Format("2 Jan 2006")
	case Month:
		return d.Date.Format("Jan 2006")
	case Year:
		return d.Date.Format("2006")
	}
	return d.Date.Format("2 Jan 2006")
}

// FormatZH writes the date the Chinese way: "2026年3月9日", "2026年2月",
// "2026年", "2026年3月2日那周".
func (d DateRef) FormatZH() string {
	y, m, day := d.Date.Date()
	switch d.Precision {
	case Weekend:
		return fmt.Sprintf("%d年%d月%d日那个周末", y, m, day)
	case Week:
		return fmt.Sprintf("%d年%d月%d日那周", y, m, day)
	case Month:
		return fmt.Sprintf("%d年%d月", y, m)
	case Year:
		return fmt.Sprintf("%d年", y)
	}
	return fmt.Sprintf("%d年%d月%d日", y, m, day)
}

// CJK reports whether the expression was written in Chinese.
func (d DateRef) CJK() bool {
	for _, r := range d.Text {
		if CJKScript(r) {
			return true
		}
	}
	return false
}

// In is the date with the preposition the precision takes: "on 9 Mar
// 2026", "in Feb 2026", "in the week of 2 Mar 2026".
func (d DateRef) In() string {
	switch d.Precision {
	case Day, Weekend:
		return "on " + d.Format()
	}
	return "in " + d.Format()
}

var numWords = map[string]int{
	"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
	"eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "couple of": 2,
	"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10,
}

var weekdays = map[string]time.Weekday{
	"sunday": time.Sunday, "monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday,
	"thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday,
	"日": time.Sunday, "天": time.Sunday, "一": time.Monday, "二": time.Tuesday, "三": time.Wednesday,
	"四": time.Thursday, "五": time.Friday, "六": time.Saturday,
}

const enNum = `(\d{1,2}|a couple of|couple of|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)`
const enDay = `(sunday|monday|tuesday|wednesday|thursday|friday|saturday)`

var (
	enDateRe = rx.MustCompile(`(?i)\b(?:(the day before yesterday)|(the day after tomorrow)|(yesterday)|(last night)|(today|tonight|this morning|this afternoon|this evening)|(tomorrow)|(last|next|this coming|this|coming) (week|weekend|month|year|` + enDay[1:len(enDay)-1] + `)|` + enNum + ` (days?|weeks?|months?|years?) ago|in ` + enNum + ` (days?|weeks?|months?|years?)|(the week after next)|(?:(?:is|'s|are|due|scheduled|booked|planned|set|falls)\s+(?:for\s+|on\s+)?|(?:by|until|till|before)\s+)(the (\d{1,2})(?:st|nd|rd|th)))\b`)
	zhNum    = `(\d{1,2}|[一两二三四五六七八九十])`
	zhDateRe = rx.MustCompile(`(大前天|前天|昨天|昨晚|今天|今晚|明天|大后天|后天)|(上上|下下|上|下|这|本)(?:个)?(?:周|星期|礼拜)([一二三四五六日天])?|(上上|下下|上|下|这|本)(?:个)?月|(前年|去年|今年|明年)|` + zhNum + `(?:个)?(天|周|星期|月|年)(前|后|以后|之后)`)
)

// hasEnDateWord and hasZhDateWord are cheap screens before each language's
// regular expression runs: most messages name no date, and a message in
// one language holds none of the other's words (the Chinese expression
// cost as much as the English one on every English message).
func hasEnDateWord(s string) bool {
	for _, d := range []string{"the 1", "the 2", "the 3", "the 4", "the 5", "the 6", "the 7", "the 8", "the 9"} {
		if strings.Contains(s, d) {
			return true // "on the 21st"
		}
	}
	for _, w := range []string{"yesterday", "today", "tonight", "tomorrow", "night", "morning", "afternoon", "evening",
		"week", "month", "year", "day", "ago"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

func hasZhDateWord(s string) bool {
	for _, w := range []string{"天", "晚", "周", "星期", "礼拜", "月", "年"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// ResolveDates finds the relative date expressions of s ("yesterday",
// "last week", "next Friday", "two days ago", "in three weeks", 昨天,
// 上个月, 下周五, 三天前) and resolves each against at, the moment the
// text was said, in loc (UTC when nil). Expressions without a fixed
// reference ("on Friday", "recently") are left alone.
func ResolveDates(s string, at time.Time, loc *time.Location) []DateRef {
	low := lowerASCII(s) // byte offsets stay those of s
	en, zh := hasEnDateWord(low), hasZhDateWord(s)
	if !en && !zh {
		return nil
	}
	if loc == nil {
		loc = time.UTC
	}
	at = at.In(loc)
	day := time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, loc)
	var out []DateRef
	var ens, zhs [][]int
	if en {
		ens = enDateRe.FindAllStringSubmatchIndex(low, -1)
	}
	if zh {
		zhs = zhDateRe.FindAllStringSubmatchIndex(s, -1)
	}
	for _, m := range ens {
		g := func(i int) string {
			if m[2*i] < 0 {
				return ""
			}
			return low[m[2*i]:m[2*i+1]]
		}
		r := DateRef{Start: m[0], End: m[1], Text: s[m[0]:m[1]], Precision: Day}
		switch {
		case g(1) != "":
			r.Date = day.AddDate(0, 0, -2)
		case g(2) != "":
			r.Date = day.AddDate(0, 0, 2)
		case g(3) != "", g(4) != "":
			r.Date = day.AddDate(0, 0, -1)
		case g(5) != "":
			r.Date = day
		case g(6) != "":
			r.Date = day.AddDate(0, 0, 1)
		case g(7) != "":
			r.Date, r.Precision = relative(day, strings.TrimPrefix(strings.ToLower(g(7)), "this "), g(8))
		case g(9) != "":
			n := count(g(9))
			r.Date, r.Precision = shift(day, -n, g(10))
		case g(11) != "":
			n := count(g(11))
			r.Date, r.Precision = shift(day, n, g(12))
		case g(13) != "":
			r.Date, r.Precision = weekStart(day).AddDate(0, 0, 14), Week
		case g(14) != "":
			// "my MOT is on the 21st", "due by the 3rd": the next such
			// day, this month or the next (said of what is to come).
			d, ok := dayOfMonth(day, count(g(15)))
			if !ok || monthNext(low[m[29]:]) {
				continue // "the 14th of May" names its month: a date said outright
			}
			r.Start, r.End, r.Text, r.Date = m[28], m[29], s[m[28]:m[29]], d
		}
		out = append(out, r)
	}
	for _, m := range zhs {
		g := func(i int) string {
			if m[2*i] < 0 {
				return ""
			}
			return s[m[2*i]:m[2*i+1]]
		}
		r := DateRef{Start: m[0], End: m[1], Text: s[m[0]:m[1]], Precision: Day}
		dir := map[string]string{"上": "last", "下": "next", "这": "this", "本": "this"}
		// 上上周, 下下个月: two weeks or months away.
		two := map[string]int{"上上": -2, "下下": 2}
		switch {
		case g(1) != "":
			off := map[string]int{"大前天": -3, "前天": -2, "昨天": -1, "昨晚": -1, "今天": 0, "今晚": 0, "明天": 1, "后天": 2, "大后天": 3}[g(1)]
			r.Date = day.AddDate(0, 0, off)
		case g(2) != "" && g(3) != "":
			// 下周五 is the Friday of next week, whatever today is.
			step := map[string]int{"last": -1, "next": 1, "this": 0}[dir[g(2)]]
			if n, ok := two[g(2)]; ok {
				step = n
			}
			r.Date = weekStart(day).AddDate(0, 0, 7*step+(int(weekdays[g(3)])+6)%7)
		case g(2) != "" && two[g(2)] != 0:
			r.Date, r.Precision = weekStart(day).AddDate(0, 0, 7*two[g(2)]), Week
		case g(2) != "":
			r.Date, r.Precision = relative(day, dir[g(2)], "week")
		case g(4) != "" && two[g(4)] != 0:
			r.Date, r.Precision = time.Date(day.Year(), day.Month()+time.Month(two[g(4)]), 1, 0, 0, 0, 0, day.Location()), Month
		case g(4) != "":
			r.Date, r.Precision = relative(day, dir[g(4)], "month")
		case g(5) != "":
			off := map[string]int{"前年": -2, "去年": -1, "今年": 0, "明年": 1}[g(5)]
			r.Date, r.Precision = time.Date(day.Year()+off, 1, 1, 0, 0, 0, 0, loc), Year
		case g(6) != "":
			n := count(g(6))
			if g(8) == "前" {
				n = -n
			}
			unit := map[string]string{"天": "day", "周": "week", "星期": "week", "月": "month", "年": "year"}[g(7)]
			r.Date, r.Precision = shift(day, n, unit)
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

// monthNext reports whether rest (after a day) starts with a month name,
// after "of" or not ("the 14th of May", "the 3rd March").
func monthNext(rest string) bool {
	w := strings.Fields(rest)
	if len(w) > 0 && w[0] == "of" {
		w = w[1:]
	}
	if len(w) == 0 {
		return false
	}
	switch strings.Trim(w[0], ".,;!?") {
	case "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
		"november", "december", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec":
		return true
	}
	return false
}

// dayOfMonth is the next day n of a month from day on (day itself when
// it is the n-th); ok is false for a day no month has.
func dayOfMonth(day time.Time, n int) (time.Time, bool) {
	if n < 1 || n > 31 {
		return time.Time{}, false
	}
	for i := 0; i < 3; i++ {
		first := time.Date(day.Year(), day.Month()+time.Month(i), 1, 0, 0, 0, 0, day.Location())
		d := first.AddDate(0, 0, n-1)
		if d.Month() == first.Month() && !d.Before(day) {
			return d, true
		}
	}
	return time.Time{}, false
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func count(w string) int {
	if n, err := strconv.Atoi(w); err == nil {
		return n
	}
	return numWords[w]
}

// weekStart is the Monday of d's week.
func weekStart(d time.Time) time.Time {
	off := (int(d.Weekday()) + 6) % 7
	return d.AddDate(0, 0, -off)
}

func relative(day time.Time, dir, unit string) (time.Time, Precision) {
	step := map[string]int{"last": -1, "next": 1, "coming": 1, "this": 0}[dir]
	switch unit {
	case "week":
		return weekStart(day).AddDate(0, 0, 7*step), Week
	case "weekend":
		sat := weekStart(day).AddDate(0, 0, 5+7*step)
		if dir == "coming" && sat.Before(day) {
			sat = sat.AddDate(0, 0, 7)
		}
		return sat, Weekend
	case "month":
		return time.Date(day.Year(), day.Month()+time.Month(step), 1, 0, 0, 0, 0, day.Location()), Month
	case "year":
		return time.Date(day.Year()+step, 1, 1, 0, 0, 0, 0, day.Location()), Year
	}
	return weekdayOf(day, dir, weekdays[unit]), Day
}

// weekdayOf resolves "last Friday" (the most recent one before today),
// "next Friday" (the Friday of next week, Monday to Sunday, as 下周五
// is: said on a Wednesday, "next Thursday" is eight days away, not
// tomorrow, which would be "this Thursday" or "on Thursday") and
// "this/coming Friday" (the next one after today, or today's date when
// today is Friday and the word is "this").
func weekdayOf(day time.Time, dir string, wd time.Weekday) time.Time {
	diff := (int(wd) - int(day.Weekday()) + 7) % 7
	switch dir {
	case "next":
		return weekStart(day).AddDate(0, 0, 7+(int(wd)+6)%7)
	case "last":
		back := (int(day.Weekday()) - int(wd) + 7) % 7
		if back == 0 {
			back = 7
		}
		return day.AddDate(0, 0, -back)
	case "this":
		return day.AddDate(0, 0, diff)
	}
	if diff == 0 {
		diff = 7
	}
	return day.AddDate(0, 0, diff)
}

func shift(day time.Time, n int, unit string) (time.Time, Precision) {
	switch strings.TrimSuffix(unit, "s") {
	case "week":
		return day.AddDate(0, 0, 7*n), Day
	case "month":
		d := day.AddDate(0, n, 0)
		return time.Date(d.Year(), d.Month(), 1, 0, 0, 0, 0, day.Location()), Month
	case "year":
		return time.Date(day.Year()+n, 1, 1, 0, 0, 0, 0, day.Location()), Year
	}
	return day.AddDate(0, 0, n), Day
}

// AnnotateDates writes each resolved date after its expression: "I went
// hiking yesterday" said on 10 Mar 2026 reads "I went hiking yesterday (9
// Mar 2026)". It returns s unchanged when it names no relative date.
func AnnotateDates(s string, at time.Time, loc *time.Location) string {
	refs := ResolveDates(s, at, loc)
	if len(refs) == 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for _, r := range refs {
		if r.Start < last {
			continue
		}
		b.WriteString(s[last:r.End])
		if r.CJK() {
			b.WriteString("（" + r.FormatZH() + "）")
		} else {
			b.WriteString(" (" + r.Format() + ")")
		}
		last = r.End
	}
	b.WriteString(s[last:])
	return b.String()
}

var (
	enExplicitRe = rx.MustCompile(`(?i)\b(?:in|since|from|during|until|till|by)\s+(?:(?:early|late|mid)[- ])?(?:(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.?\s+)?((?:19|20)\d\d)\b`)
	zhExplicitRe = rx.MustCompile(`((?:19|20)\d\d)年(?:(\d{1,2})月(?:(\d{1,2})[日号])?)?`)
)

// ExplicitDates finds the dates s names outright, a year or a month of a
// year after a preposition ("in 2019", "since March 2024", "back in
// 2016") or written the Chinese way (2019年, 2024年3月, 2024年3月5日),
// each as a DateRef at its precision. Years from 1900 to ten years after
// at count; a number is no year otherwise. ResolveDates leaves these
// alone, since they need no resolving; what reads a text for when a
// statement became true (facts) takes them where no relative date is
// said.
func ExplicitDates(s string, at time.Time, loc *time.Location) []DateRef {
	if !strings.Contains(s, "19") && !strings.Contains(s, "20") {
		return nil
	}
	if loc == nil {
		loc = time.UTC
	}
	top := at.In(loc).Year() + 10
	var out []DateRef
	for _, m := range enExplicitRe.FindAllStringSubmatchIndex(s, -1) {
		r, ok := yearRef(s, m, 4, top, loc)
		if !ok {
			continue
		}
		if m[2] >= 0 {
			mo := strings.ToLower(s[m[2]:m[3]])
			for i := time.January; i <= time.December; i++ {
				if strings.HasPrefix(strings.ToLower(i.String()), mo[:3]) {
					r.Date, r.Precision = time.Date(r.Date.Year(), i, 1, 0, 0, 0, 0, loc), Month
				}
			}
		}
		// The expression is the date, not its preposition: "in 2019" is
		// written "in 2019" again by DateRef.In.
		sp := strings.IndexAny(r.Text, " \t")
		r.Start += sp + 1
		r.Text = s[r.Start:r.End]
		out = append(out, r)
	}
	for _, m := range zhExplicitRe.FindAllStringSubmatchIndex(s, -1) {
		r, ok := yearRef(s, m, 2, top, loc)
		if !ok {
			continue
		}
		y := r.Date.Year()
		if m[4] >= 0 {
			mo, _ := strconv.Atoi(s[m[4]:m[5]])
			if mo < 1 || mo > 12 {
				continue
			}
			r.Date, r.Precision = time.Date(y, time.Month(mo), 1, 0, 0, 0, 0, loc), Month
			if m[6] >= 0 {
				d, _ := strconv.Atoi(s[m[6]:m[7]])
				if d < 1 || d > 31 {
					continue
				}
				r.Date, r.Precision = time.Date(y, time.Month(mo), d, 0, 0, 0, 0, loc), Day
			}
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start < out[j].Start })
	return out
}

// monthAloneRe is a month named without a year or day: "in January",
// "since March", "back in May", "early June".
var monthAloneRe = rx.MustCompile(`(?i)\b(?:in|since|back in|during|early|late|mid-?|by|from|starting(?: in)?) +(january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\b\.?`)

// MonthAlone resolves a month said without its year ("I moved to Denver
// in January"): the latest such month up to at's when past is true (what
// happened), else the next one from at's month on (what is planned), at
// month precision. A month followed by a day or a year ("in March 2021",
// "in May 5th") is left to the other readers, and so is "may" not
// written with a capital ("in may be").
func MonthAlone(s string, at time.Time, loc *time.Location, past bool) []DateRef {
	if !namesMonth(s) {
		return nil
	}
	if loc == nil {
		loc = time.UTC
	}
	now := at.In(loc)
	var out []DateRef
	for _, m := range monthAloneRe.FindAllStringSubmatchIndex(s, -1) {
		name := s[m[2]:m[3]]
		if name[0] < 'A' || name[0] > 'Z' {
			continue
		}
		if rest := strings.TrimLeft(s[m[1]:], " ,"); rest != "" && rest[0] >= '0' && rest[0] <= '9' {
			continue
		}
		mo := time.Month(0)
		for i := time.January; i <= time.December; i++ {
			if strings.HasPrefix(strings.ToLower(i.String()), strings.ToLower(name[:3])) {
				mo = i
			}
		}
		y := now.Year()
		if past && mo > now.Month() {
			y--
		}
		if !past && mo < now.Month() {
			y++
		}
		out = append(out, DateRef{Start: m[2], End: m[3], Text: name, Date: time.Date(y, mo, 1, 0, 0, 0, 0, loc), Precision: Month})
	}
	return out
}

// namesMonth reports whether s holds a month's capitalised abbreviation,
// the screen before the month pattern.
func namesMonth(s string) bool {
	for _, m := range [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"} {
		if strings.Contains(s, m) {
			return true
		}
	}
	return false
}

// yearRef is the match m as a DateRef of the year its submatch at index
// g (an offset pair) names; false past the year top.
func yearRef(s string, m []int, g, top int, loc *time.Location) (DateRef, bool) {
	y, _ := strconv.Atoi(s[m[g]:m[g+1]])
	if y > top {
		return DateRef{}, false
	}
	return DateRef{Start: m[0], End: m[1], Text: s[m[0]:m[1]], Date: time.Date(y, 1, 1, 0, 0, 0, 0, loc), Precision: Year}, true
}
