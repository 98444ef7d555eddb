package facts

import (
	"strings"

	"github.com/memproxy/memproxy/internal/rx"
)

// habitRe marks a sentence that says how the user usually lives: a
// frequency ("usually", "every morning", "three times a week", "on
// weekends") after the user as subject ("I", "we", then at most a few
// words before the verb).
var habitRe = rx.MustCompile(`(?i)^\s*(?:(?:and|but|so|also|well|honestly|yeah|yes|now|nowadays|these days|lately),?\s+){0,2}(?:i|we)\b[^,;:]{0,40}?\b(?:usually|always|normally|typically|generally|never|every (?:day|morning|evening|night|week|weekend|weekday|month|year|summer|winter|sunday|monday|tuesday|wednesday|thursday|friday|saturday)|each (?:day|morning|evening|night|week)|(?:once|twice|three times|four times|five times|two times|\d+ times) (?:a|per|every) (?:day|week|month|year)|most (?:days|mornings|evenings|nights|weekends)|on (?:weekends|weekdays|sundays|mondays|tuesdays|wednesdays|thursdays|fridays|saturdays))\b`)

// zhHabitRe: 我 (or 我们) and a frequency before the verb (每天, 平时,
// 一般, 每个周末, 一周三次).
var zhHabitRe = rx.MustCompile(`^(?:我们?)(?:[^，。,]{0,4}?)(?:每天|每周|每星期|每个?周末|每个?月|每年|平时|一般|通常|经常|总是|天天|每晚|每天早上|每天晚上|一周[一二两三四五六七1-7]次|一个月[一二两三四五六七八九十\d]+次)`)

// notHabit are the verbs of a frequency that says nothing about how the
// user lives ("I always say that", "I never know what to order").
var notHabit = rx.MustCompile(`(?i)\b(?:i|we)\s+(?:\w+\s+)?(?:say|said|think|thought|feel|felt|mean|guess|wonder|hope|forget|forgot|know|knew|wanted|want|try|tried|ask|asked|get confused|seem|worry)\b`)

// stateRe: a lasting condition of the user said with "I'm" ("I'm
// pregnant", "I'm left-handed", "I'm a night owl").
var stateRe = rx.MustCompile(`(?i)^\s*(?:(?:and|but|so|also|well|honestly|actually|oh),?\s+)?i(?:'m| am)\s+(?:now\s+|also\s+|currently\s+|actually\s+)?((?:pregnant|left-handed|right-handed|ambidextrous|diabetic|pre-diabetic|asthmatic|epileptic|colou?r-?blind|deaf|hard of hearing|autistic|dyslexic|celiac|coeliac|anemic|anaemic|sober|a non-smoker|an? (?:night owl|early bird|morning person|night person|introvert|extrovert|smoker|non-smoker|ex-smoker|insomniac|light sleeper|heavy sleeper)))\b`)

// goalRe: what the user is working towards now, said in the present
// progressive ("I'm training for a half marathon", "we're expecting a
// baby in June", "I'm trying to lose weight").
var goalRe = rx.MustCompile(`(?i)^\s*(?:(?:and|but|so|also|right now|currently|actually),?\s+)?(?:i|we)(?:'m|'re| am| are)\s+(?:currently\s+|now\s+|still\s+|also\s+|finally\s+)?(?:training for|saving (?:up )?for|preparing for|studying for|working towards?|(?:studying|training|working|preparing|learning|retraining) to (?:be|become) (?:a|an)\b|expecting (?:a baby|a child|a boy|a girl|twins|our (?:first|second|third)|my (?:first|second|third))|getting married|trying to (?:lose|quit|cut|eat|save|learn|get fit|get in shape|get pregnant|sleep|drink|stop|run|read|exercise|gain))\b`)

// aspireRe: what the user means to become ("I want to become a doctor
// someday", "I'd love to be a teacher", "My goal is to become a
// lawyer").
var aspireRe = rx.MustCompile(`(?i)^\s*(?:(?:and|but|so|also|actually|honestly|someday|one day|eventually),?\s+)?(?:(?:i|we)(?:\s+(?:really|still|always|eventually|also))?(?:\s+(?:want|hope|plan|aim|dream|intend|wish|would like|would love)|'d (?:like|love))\s+to|my (?:goal|dream|plan|ambition|aim) is to)\s+(?:be|become)\s+(?:a|an)\s+[a-z]`)

// medicationRe: a medicine the user takes for something, or is on
// ("I take metformin for my diabetes", "I'm on blood thinners").
var medicationRe = rx.MustCompile(`(?i)^\s*(?:(?:and|but|so|also|actually),?\s+)?i(?:'m| am)?\s+(?:(?:currently|still|also|now|daily)\s+)?(?:(?:take|taking)\s+[a-z0-9][a-z0-9 -]{1,30}?\s+(?:daily\s+|every day\s+)?for\s+(?:my|a|an|the|high|low|chronic)\b|on\s+(?:[a-z-]+\s+){0,2}?(?:medication|meds|pills|insulin|antidepressants|blood thinners|statins|birth control|the pill|chemo(?:therapy)?)\b)`)

// neverRe: a lasting habit the user says they keep out of ("I don't
// drive", "I never drink").
var neverRe = rx.MustCompile(`(?i)^\s*i (?:don't|do not|never|can't|cannot) (?:drive|drink|smoke|fly|cook|swim)\s*(?:alcohol|at all|anymore)?\s*[.!]*\s*$`)

// condition is the lasting condition a sentence says the user has
// ("pregnant", "a night owl"), "" when it says none.
func condition(sent string) string {
	s := contractions.Replace(sent) // "I’m", "I'm" → "I am"
	if m := haveStateRe.FindStringSubmatch(s); m != nil {
		return "has " + strings.ToLower(m[1]) // "The user has asthma."
	}
	m := stateRe.FindStringSubmatch(s)
	if m == nil {
		return ""
	}
	return strings.ToLower(m[1])
}

// haveStateRe: a lasting condition said with "I have" ("I have asthma",
// "I've got type 1 diabetes"); a cold or the flu is no such thing.
var haveStateRe = rx.MustCompile(`(?i)^\s*(?:(?:and|but|so|also|well|honestly|actually|oh),?\s+)?i (?:have|have got|got)\s+((?:type [12] |type one |type two )?diabetes|asthma|epilepsy|c(?:o)?eliac disease|adhd|autism|arthritis|rheumatoid arthritis|migraines|ibs|crohn's(?: disease)?|lupus|multiple sclerosis|high blood pressure|hypertension|a pacemaker|tinnitus|psoriasis|eczema|endometriosis|sleep apnea|sleep apnoea|a bad back|a heart condition)\b`)

// habit is the note of a sentence that states a habit of the user, a
// goal the user is working towards or means to reach, a medicine they
// take or a thing the user never does, with
// no triple to hold it: the sentence in the third person ("The user
// usually wakes up at 6am.", "The user is training for a half
// marathon.", "The user doesn't drive."), "" for any other sentence.
// pronounObjectRe: the user's verb takes a bare pronoun for its object
// ("I work on it every day", "I do that twice a week"): what the habit is
// about was said elsewhere, and the note would not say it.
var pronounObjectRe = rx.MustCompile(`(?i)\b(?:I|we)\s+(?:(?:usually|always|often|still|also|just|really|never|sometimes)\s+)?[a-z]+(?:\s+(?:on|with|at|to|about|for|in))?\s+(?:it|that|this|them|those|these)\b`)

func habit(sent string) string {
	if hasHan(sent) {
		if !zhHabitRe.MatchString(sent) || strings.ContainsAny(sent, "你?？") {
			return ""
		}
		return presentStatement(sent) // 我每天早上六点起床 → 用户每天早上六点起床。
	}
	if secondPersonRe.MatchString(sent) || strings.Contains(sent, "?") || pronounObjectRe.MatchString(sent) {
		return ""
	}
	if goalRe.MatchString(sent) || aspireRe.MatchString(sent) || medicationRe.MatchString(sent) || neverRe.MatchString(sent) ||
		habitRe.MatchString(sent) && !notHabit.MatchString(sent) {
		return thirdPerson(sent)
	}
	return ""
}
