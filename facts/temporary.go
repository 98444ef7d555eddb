package facts

import (
	"strings"
	"time"

	"github.com/memproxy/memproxy/internal/rx"
	"github.com/memproxy/memproxy/text"
)

// A temporary state is said in the present about a current, bounded
// period: "I'm in Tokyo this week", "I've got a cold today", "I'm at my
// parents' until Sunday", 我这周在东京出差, 我这几天感冒了. Its memory
// expires when the period ends and never takes the place of a lasting
// fact (where the user lives).
var (
	tempEN = rx.MustCompile(`(?i)\b(this week|for the week|this weekend|for the weekend|today|tonight|this morning|this afternoon|this evening|for (?:the )?(?:next |coming )?(?:few|couple of|couple|\d+|two|three|four|five|six|seven|ten) days|for a few days|for (?:the )?(?:next |coming )?(?:a |one |two |three |four |five |six |seven |eight |nine |ten |few |couple of |\d+ )?weeks?|(?:for|over) (?:the )?(?:holidays|christmas|easter|summer|winter|semester|term|month)|for (?:a|one) month|for the (?:school|summer|christmas|easter) (?:holidays|break|vacation)|this month|on (?:a |my |our )?(?:work |business |family |road |short )?(?:trip|holiday|vacation|break)|on business|for (?:work|a conference|a wedding|a funeral)|until (?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|next week|the weekend|the end of the (?:week|month)|january|february|march|april|may|june|july|august|september|october|november|december))\b`)
	// presentEN: the sentence states how things are, not what happened.
	presentEN = rx.MustCompile(`(?i)\b(i'm|i am|we're|we are|i've got|i have got|i've|i have|we have|we've got|i feel|i'll be|i'm feeling)\b|\b(?:my|our) [a-z\-]+(?: is|'s| are)\b`)
	tempZH    = rx.MustCompile(`(这两周|这两个星期|这周|本周|这个?星期|这个?周末|这几天|这两天|最近几天|今天|今晚|这个月|本月)`)
	// stateZH: a state that lasts a while (being somewhere, being ill).
	stateZH = rx.MustCompile(`在|住|感冒|生病|发烧|咳嗽|不舒服|出差|休假|放假|请假|很忙|头疼|头痛|嗓子`)
)

// tempPeriod is the period sent says a state lasts: the one that names
// its end when there is one ("on vacation until Monday": until Monday),
// else the first.
func tempPeriod(sent string) string {
	ms := tempEN.FindAllString(sent, -1)
	for _, m := range ms {
		if strings.HasPrefix(strings.ToLower(m), "until ") {
			return m
		}
	}
	if len(ms) == 0 {
		return ""
	}
	return ms[0]
}

// untilDay writes a period as said ("for the holidays", "this weekend"),
// lowercased, a number of days or weeks with the day it ends, and a day
// it names as the day it is:
// "until Friday" said on Tuesday 10 Mar 2026 is "until Friday 13 Mar
// 2026", "until tomorrow" "until 11 Mar 2026"; until is the end temporary
// gave (midnight after that day).
func untilDay(p string, until time.Time) string {
	low := strings.ToLower(p)
	if until.IsZero() {
		return low
	}
	day := until.AddDate(0, 0, -1)
	w, ok := strings.CutPrefix(low, "until ")
	if !ok {
		if strings.HasPrefix(low, "for ") && (strings.HasSuffix(low, " days") || strings.HasSuffix(low, " week") || strings.HasSuffix(low, " weeks")) {
			// "for the next three days (until 12 Mar 2026)"
			return low + " (until " + day.Format("2 Jan 2006") + ")"
		}
		return low
	}
	if w == "tomorrow" {
		return "until " + day.Format("2 Jan 2006")
	}
	if wd, ok := dayNames[w]; ok && wd == day.Weekday() {
		return "until " + day.Format("Monday 2 Jan 2006")
	}
	if mo, err := time.Parse("January", upperFirst(w)); err == nil {
		return "until " + mo.Month().String() // "until June"
	}
	return low
}

// purposeOnly reports whether the only temporary cue of sent is why
// something was done ("for work", "on business"), not how long it lasts:
// "I've relocated to Austin for work" is a move, "I'm in Austin for work"
// a stay.
func purposeOnly(sent string) bool {
	for _, m := range tempEN.FindAllString(sent, -1) {
		switch strings.ToLower(m) {
		case "for work", "for a conference", "for a wedding", "for a funeral", "on business":
		default:
			return false
		}
	}
	return true
}

var dayNames = map[string]time.Weekday{
	"sunday": time.Sunday, "monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday,
	"thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday,
}

var countWords = map[string]int{"few": 3, "couple of": 2, "couple": 2, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}

// temporary reports whether sent states a temporary state, and when it
// ends (midnight in loc after the period it names).
func temporary(sent string, at time.Time, loc *time.Location) (time.Time, bool) {
	if loc == nil {
		loc = time.UTC
	}
	at = at.In(loc)
	day := time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, loc)
	nextMonday := day.AddDate(0, 0, 7-(int(day.Weekday())+6)%7)
	if hasHan(sent) {
		m := tempZH.FindString(sent)
		if m == "" || !strings.Contains(sent, "我") || !stateZH.MatchString(sent) {
			return time.Time{}, false
		}
		switch m {
		case "今天", "今晚":
			return day.AddDate(0, 0, 1), true
		case "这几天", "这两天", "最近几天":
			return day.AddDate(0, 0, 3), true
		case "这两周", "这两个星期":
			return day.AddDate(0, 0, 14), true
		case "这个月", "本月":
			return time.Date(day.Year(), day.Month()+1, 1, 0, 0, 0, 0, loc), true
		}
		return nextMonday, true
	}
	m := tempPeriod(sent)
	if m == "" || !presentEN.MatchString(contractions.Replace(sent)) && !presentEN.MatchString(sent) {
		return time.Time{}, false
	}
	m = strings.ToLower(m)
	if strings.HasPrefix(m, "for ") {
		// "I'm going to Rome for two weeks in July": the period runs
		// from the start the sentence names.
		if s := futureStart(sent, at, loc); s.After(day) {
			day = s
		}
	}
	switch {
	case m == "today" || m == "tonight" || strings.HasPrefix(m, "this ") && m != "this week" && m != "this weekend":
		return day.AddDate(0, 0, 1), true
	case strings.HasPrefix(m, "for ") && strings.HasSuffix(m, " days"):
		return day.AddDate(0, 0, countIn(m, 3)), true
	case strings.HasPrefix(m, "for ") && (strings.HasSuffix(m, " week") || strings.HasSuffix(m, " weeks")):
		// "for the next two weeks", "for a week"
		return day.AddDate(0, 0, 7*countIn(m, 1)), true
	case strings.Contains(m, "summer"):
		// "for the summer": to the end of August, or three months.
		end := time.Date(day.Year(), time.September, 1, 0, 0, 0, 0, loc)
		if !end.After(day) || end.Sub(day) > 100*24*time.Hour {
			end = day.AddDate(0, 3, 0)
		}
		return end, true
	case strings.Contains(m, "month") || strings.Contains(m, "semester") || strings.Contains(m, "term"):
		if m == "this month" {
			return time.Date(day.Year(), day.Month()+1, 1, 0, 0, 0, 0, loc), true
		}
		if strings.Contains(m, "month") {
			return day.AddDate(0, 1, 0), true
		}
		return day.AddDate(0, 4, 0), true
	case strings.Contains(m, "holidays") || strings.Contains(m, "christmas") || strings.Contains(m, "easter") || strings.Contains(m, "winter") || strings.Contains(m, "break") || strings.Contains(m, "vacation"):
		return day.AddDate(0, 0, 21), true
	case strings.HasPrefix(m, "until "):
		w := strings.TrimPrefix(m, "until ")
		if wd, ok := dayNames[w]; ok {
			diff := (int(wd) - int(day.Weekday()) + 7) % 7
			if diff == 0 {
				diff = 7
			}
			return day.AddDate(0, 0, diff+1), true
		}
		if mo, err := time.Parse("January", upperFirst(w)); err == nil {
			// "until June": the first of the next June; "until March"
			// said in March, the end of this March.
			y := day.Year()
			if mo.Month() == day.Month() {
				return time.Date(y, mo.Month()+1, 1, 0, 0, 0, 0, loc), true
			}
			if mo.Month() < day.Month() {
				y++
			}
			return time.Date(y, mo.Month(), 1, 0, 0, 0, 0, loc), true
		}
		switch w {
		case "tomorrow":
			return day.AddDate(0, 0, 2), true
		case "the end of the month":
			return time.Date(day.Year(), day.Month()+1, 1, 0, 0, 0, 0, loc), true
		}
		return nextMonday, true
	}
	return nextMonday, true
}

// futureStart is the first future date a sentence names ("in July", "next
// Monday"), zero when it names none.
func futureStart(sent string, at time.Time, loc *time.Location) time.Time {
	for _, r := range append(text.ResolveDates(sent, at, loc), text.MonthAlone(sent, at, loc, false)...) {
		if r.Date.After(at) {
			return r.Date
		}
	}
	return time.Time{}
}

func atoi(s string) int {
	n := 0
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0
		}
		n = n*10 + int(r-'0')
	}
	return n
}

// presentStatement is a temporary state said without a date the resolver
// reads, in the third person: "我这几天感冒了" → "用户这几天感冒了。".
func presentStatement(sent string) string {
	if hasHan(sent) {
		if !strings.Contains(sent, "我") || strings.Contains(sent, "你") {
			return ""
		}
		s := strings.NewReplacer("我们", "用户", "我的", "用户的", "我", "用户").Replace(sent)
		s = strings.TrimRight(strings.TrimSpace(s), "。！!？?，,；;…~")
		if s == "" {
			return ""
		}
		return s + "。"
	}
	if !firstPersonRe.MatchString(sent) || secondPersonRe.MatchString(sent) {
		return ""
	}
	return thirdPerson(sent)
}

// statedPart is the statement before a trailing question in one
// sentence ("I'm in Tokyo this week for a conference, any ramen
// recommendations?" → "I'm in Tokyo this week for a conference"), "" when
// the sentence only asks.
func statedPart(sent string) string {
	i := strings.LastIndexAny(sent, ",，")
	if i <= 0 {
		return ""
	}
	head := strings.TrimSpace(sent[:i])
	if text.IsQuestion(head) || strings.ContainsAny(head, "?？") {
		return ""
	}
	return head
}

// planRe: the user says where they are going ("I'm flying to Madrid on
// Friday").
var planRe = rx.MustCompile(`(?i)\b(?:i'm|i am|we're|we are|i'll be|we'll be)\s+(?:flying|going|travell?ing|heading|driving|leaving|off|taking the train)\s+(?:back\s+)?to\s+[A-Z]`)

var onDayRe = rx.MustCompile(`(?i)\bon (monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b`)

// weekdayRe finds a weekday with or without "on" ("Monday I start at Hooli").
var weekdayRe = rx.MustCompile(`(?i)\b(?:on )?(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b`)

// plan reads a trip the user is about to make as a third-person note,
// the weekday it names resolved ("on Friday 17 Apr 2026").
func plan(sent string, at time.Time, loc *time.Location) string {
	if !planRe.MatchString(sent) || secondPersonRe.MatchString(sent) {
		return ""
	}
	s := sent
	if d, ok := comingDay(sent, at, loc, onDayRe); ok {
		s = sent[:d.Start] + "on " + d.Text[3:] + " " + d.Date.Format("2 Jan 2006") + sent[d.End:]
	}
	return thirdPerson(s)
}

// countIn is the count a period names ("for two days", "for the next 3
// weeks"): a digit wins over a count word; def when it names neither
// ("for a few days").
func countIn(m string, def int) int {
	n := def
	for w, k := range countWords {
		if strings.Contains(m, " "+w+" ") {
			n = k
		}
	}
	for _, f := range strings.Fields(m) {
		if d := atoi(f); d > 0 {
			n = d
		}
	}
	return n
}
