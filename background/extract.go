package background

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Fact is a statement extracted by rule from a user message.
type Fact struct {
	// Text is the fact in the third person, in the language it was said
	// in ("The user lives in Berlin.", "用户住在上海。"), so lexical recall
	// matches questions asked in that language.
	Text string
	// Key is the subject/attribute slot ("user.location"), used for
	// update-over-insert.
	Key string
	// Object is the normalised value of the slot ("berlin"); two facts of
	// one key with equal objects are the same fact.
	Object string
	// Multi marks slots that hold several values at once (tools, likes):
	// a new value is added beside the old ones unless a change cue says it
	// replaces them.
	Multi bool
	// Change reports a change cue in the source sentence.
	Change bool
}

// slotRule is one extraction pattern: re's first submatch is the object.
type slotRule struct {
	re    *regexp.Regexp
	key   string // subject.attribute; "{rel}" is replaced by the captured relative
	text  string // fmt-like template with %s for the object (and relative)
	multi bool
	// rel: the pattern captures a relative (sister, 妹妹) before the object.
	rel bool
}

// relatives maps the people a user talks about to a key subject.
var relatives = map[string]string{
	"sister": "sister", "brother": "brother", "mother": "mother", "mom": "mother", "mum": "mother",
	"father": "father", "dad": "father", "wife": "wife", "husband": "husband", "son": "son",
	"daughter": "daughter", "friend": "friend", "boss": "boss", "partner": "partner",
	"girlfriend": "girlfriend", "boyfriend": "boyfriend", "colleague": "colleague", "cousin": "cousin",
	"妹妹": "sister", "姐姐": "sister", "哥哥": "brother", "弟弟": "brother", "妈妈": "mother", "母亲": "mother",
	"爸爸": "father", "父亲": "father", "老婆": "wife", "妻子": "wife", "老公": "husband", "丈夫": "husband",
	"儿子": "son", "女儿": "daughter", "朋友": "friend", "老板": "boss", "同事": "colleague", "女朋友": "girlfriend", "男朋友": "boyfriend",
}

const enObj = `([A-Za-z0-9][\w .'&+#\-]{0,60}?)`
const enEnd = `\s*(?:[.!,;?]|$|\s+(?:now|these days|instead|anymore|any more|since|because|but|and|for|as|with|at|in|on|last|this|next)\b)`

func en(pat string) *regexp.Regexp { return regexp.MustCompile(`(?i)` + pat) }

// slotRules are tried in order; every matching rule yields a fact (one per
// key). English patterns read first-person statements; Chinese ones 我….
var slotRules = []slotRule{
	// Names.
	{re: en(`\bmy name is ` + enObj + enEnd), key: "user.name", text: "The user's name is %s."},
	{re: en(`\bcall me ` + enObj + enEnd), key: "user.name", text: "The user's name is %s."},
	{re: regexp.MustCompile(`我叫([\p{Han}A-Za-z]{1,12}?)(?:[，。,.!！]|$)`), key: "user.name", text: "用户叫%s。"},
	{re: regexp.MustCompile(`我的名字(?:是|叫)([\p{Han}A-Za-z]{1,12}?)(?:[，。,.!！]|$)`), key: "user.name", text: "用户叫%s。"},
	// Places.
	{re: en(`\bi (?:live|am living|'m living|reside) in ` + enObj + enEnd), key: "user.location", text: "The user lives in %s."},
	{re: en(`\bi(?: have|'ve| just)? (?:moved|relocated) to ` + enObj + enEnd), key: "user.location", text: "The user lives in %s."},
	{re: en(`\bi(?:'m| am) (?:based|located) in ` + enObj + enEnd), key: "user.location", text: "The user lives in %s."},
	{re: en(`\bmy (\w+) (?:lives|is living|moved|has moved|relocated) (?:in|to) ` + enObj + enEnd), key: "{rel}.location", text: "The user's %s lives in %s.", rel: true},
	{re: regexp.MustCompile(`我(?:现在)?(?:住在|住|生活在)([\p{Han}A-Za-z]{1,10}?)(?:了|市)?(?:[，。,.!！]|$)`), key: "user.location", text: "用户住在%s。"},
	{re: regexp.MustCompile(`我(?:已经)?搬(?:到|去)(?:了)?([\p{Han}A-Za-z]{1,10}?)(?:了|市)?(?:[，。,.!！]|$)`), key: "user.location", text: "用户住在%s。"},
	{re: regexp.MustCompile(`我(妹妹|姐姐|哥哥|弟弟|妈妈|母亲|爸爸|父亲|老婆|妻子|老公|丈夫|儿子|女儿|朋友|同事)(?:住在|搬到了?|搬去了?)([\p{Han}A-Za-z]{1,10}?)(?:了)?(?:[，。,.!！]|$)`), key: "{rel}.location", text: "用户的%s住在%s。", rel: true},
	// Work.
	{re: en(`\bi(?: now)? work (?:at|for) ` + enObj + enEnd), key: "user.employer", text: "The user works at %s."},
	{re: en(`\bi(?:'ve| have)? (?:started at|started working at) ` + enObj + enEnd), key: "user.employer", text: "The user works at %s."},
	// Joining is membership ("a travel club", "a forum"), not employment.
	{re: en(`\bi(?:'ve| have| just)? joined ` + enObj + enEnd), key: "user.member_of", text: "The user joined %s.", multi: true},
	{re: en(`\bi(?: now)? work as (?:an? )?` + enObj + enEnd), key: "user.occupation", text: "The user works as a %s."},
	{re: en(`\bi(?:'m| am)(?: now)? an? (software engineer|engineer|developer|programmer|teacher|doctor|nurse|student|designer|lawyer|manager|writer|researcher|scientist|data scientist|accountant|consultant|product manager|artist|chef)\b`), key: "user.occupation", text: "The user is a %s."},
	{re: regexp.MustCompile(`我(?:现在)?在([\p{Han}A-Za-z]{1,12}?)(?:工作|上班)`), key: "user.employer", text: "用户在%s工作。"},
	{re: regexp.MustCompile(`我(?:现在)?是(?:一名|一个|个|名)?(程序员|工程师|老师|教师|医生|护士|学生|设计师|律师|经理|作家|研究员|会计|产品经理)`), key: "user.occupation", text: "用户是%s。"},
	// Tools and languages (multi-valued).
	{re: en(`\bi (?:switched|changed|migrated) (?:over )?(?:from \S+ )?to ` + enObj + enEnd), key: "user.uses", text: "The user uses %s.", multi: true},
	{re: en(`\bi(?: now| mostly| mainly| also)? (?:use|code in|program in|write) ` + enObj + enEnd), key: "user.uses", text: "The user uses %s.", multi: true},
	{re: regexp.MustCompile(`我(?:现在|已经|也)?(?:改用|换成了?|换用|转用|用)([A-Za-z][\w+#.\-]{0,20}|[\p{Han}]{1,8}?)(?:了|写|做|来|开发)?(?:[，。,.!！]|$|写|做|来|开发)`), key: "user.uses", text: "用户使用%s。", multi: true},
	// Preferences (multi-valued).
	{re: en(`\bi (?:really )?(?:like|love|enjoy|prefer) ` + enObj + enEnd), key: "user.likes", text: "The user likes %s.", multi: true},
	{re: regexp.MustCompile(`我(?:现在|也)?(?:很|非常|特别)?(?:喜欢|爱|偏好|更喜欢)([\p{Han}A-Za-z0-9]{1,12}?)(?:了)?(?:[，。,.!！]|$)`), key: "user.likes", text: "用户喜欢%s。", multi: true},
	{re: en(`\bi (?:don't|do not|no longer) (?:like|enjoy|eat|drink) ` + enObj + enEnd), key: "user.dislikes", text: "The user does not like %s.", multi: true},
	{re: regexp.MustCompile(`我(?:不再|不)喜欢([\p{Han}A-Za-z0-9]{1,12}?)(?:了)?(?:[，。,.!！]|$)`), key: "user.dislikes", text: "用户不喜欢%s。", multi: true},
	{re: en(`\bi(?:'m| am) (?:a )?(vegetarian|vegan|allergic to \w+|lactose intolerant)\b`), key: "user.diet", text: "The user is %s."},
	{re: regexp.MustCompile(`我(?:现在)?(?:是)?(吃素|素食者|不吃肉|对[\p{Han}]{1,6}过敏)`), key: "user.diet", text: "用户%s。"},
	// "my X is Y" (single-valued attributes).
	{re: en(`\bmy (favou?rite \w+|birthday|email|phone number|timezone|time zone|budget|salary|age|goal|deadline|dog's name|cat's name|car|address) is ` + enObj + enEnd), key: "user.{attr}", text: "The user's %s is %s.", rel: true},
	{re: regexp.MustCompile(`我最喜欢的([\p{Han}]{1,6}?)是([\p{Han}A-Za-z0-9]{1,16}?)(?:[，。,.!！]|$)`), key: "user.favorite_{attr}", text: "用户最喜欢的%s是%s。", rel: true},
	{re: regexp.MustCompile(`我的([\p{Han}]{1,6}?)是([\p{Han}A-Za-z0-9]{1,16}?)(?:[，。,.!！]|$)`), key: "user.{attr}", text: "用户的%s是%s。", rel: true},
	// Age and dates.
	{re: en(`\bi(?:'m| am) (\d{1,3}) (?:years old|yo)\b`), key: "user.age", text: "The user is %s years old."},
	{re: regexp.MustCompile(`我(?:今年)?(\d{1,3})岁`), key: "user.age", text: "The user is %s years old."},
	{re: en(`\bi have (a|an|two|three|\d+) (kids?|children|dogs?|cats?|sons?|daughters?)\b`), key: "user.has.{obj2}", text: "The user has %s %s.", rel: true},
}

// changeWords is the built-in change-cue list; policy.reconcile.change_cues
// replaces it when set.
var defaultChangeCues = []string{"switched", "switch to", "now", "no longer", "moved", "changed", "instead", "anymore", "any more", "these days", "not anymore", "started", "quit", "换成", "改成", "不再", "现在", "已经", "搬到", "改用", "换了"}

// HasChangeCue reports whether text carries one of the cues (English cues
// match whole words, Chinese ones as substrings).
func HasChangeCue(text string, cues []string) bool {
	if len(cues) == 0 {
		cues = defaultChangeCues
	}
	low := strings.ToLower(text)
	for _, c := range cues {
		c = strings.ToLower(strings.TrimSpace(c))
		if c == "" {
			continue
		}
		if containsWord(low, c) {
			return true
		}
	}
	return false
}

// containsWord finds cue in s; an ASCII cue must sit on word boundaries.
func containsWord(s, cue string) bool {
	r, _ := utf8.DecodeRuneInString(cue)
	if r >= utf8.RuneSelf {
		return strings.Contains(s, cue)
	}
	for i := 0; ; {
		j := strings.Index(s[i:], cue)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(cue)
		before := j == 0 || !isWordByte(s[j-1])
		after := end == len(s) || !isWordByte(s[end])
		if before && after {
			return true
		}
		i = j + 1
	}
}

func isWordByte(b byte) bool {
	return b == '_' || b == '\'' || (b >= '0' && b <= '9') || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z')
}

// ExtractFacts returns the rule-based facts stated in a user message. Only
// first-person statements (and statements about the user's relatives) are
// read; questions are skipped.
func ExtractFacts(text string, changeCues []string) []Fact {
	var out []Fact
	seen := map[string]bool{}
	for _, sent := range splitSentences(text) {
		if isQuestion(sent) {
			continue
		}
		change := HasChangeCue(sent, changeCues)
		for _, r := range slotRules {
			m := r.re.FindStringSubmatch(sent)
			if m == nil {
				continue
			}
			f, ok := r.fact(m)
			if !ok || seen[f.Key+"\x00"+f.Object] {
				continue
			}
			seen[f.Key+"\x00"+f.Object] = true
			f.Change = change
			out = append(out, f)
		}
	}
	return out
}

func (r slotRule) fact(m []string) (Fact, bool) {
	f := Fact{Key: r.key, Multi: r.multi}
	if !r.rel {
		obj := cleanObject(m[1])
		if obj == "" {
			return f, false
		}
		f.Object = normObject(obj)
		f.Text = sprintf(r.text, obj)
		return f, true
	}
	a, obj := strings.TrimSpace(m[1]), cleanObject(m[2])
	if obj == "" || a == "" {
		return f, false
	}
	switch {
	case strings.Contains(r.key, "{rel}"):
		rel, ok := relatives[strings.ToLower(a)]
		if !ok {
			return f, false
		}
		f.Key = strings.Replace(r.key, "{rel}", rel, 1)
		f.Text = sprintf(r.text, a, obj)
	case strings.Contains(r.key, "{attr}"):
		f.Key = strings.Replace(r.key, "{attr}", attrKey(a), 1)
		f.Text = sprintf(r.text, a, obj)
	case strings.Contains(r.key, "{obj2}"):
		f.Key = strings.Replace(r.key, "{obj2}", strings.TrimSuffix(strings.ToLower(obj), "s"), 1)
		f.Text = sprintf(r.text, a, obj)
	}
	f.Object = normObject(obj)
	return f, true
}

func sprintf(tmpl string, args ...string) string {
	for _, a := range args {
		tmpl = strings.Replace(tmpl, "%s", a, 1)
	}
	return tmpl
}

// zhAttrs names common Chinese attributes by their English key so both
// languages update the same slot.
var zhAttrs = map[string]string{
	"名字": "name", "生日": "birthday", "邮箱": "email", "电话": "phone_number", "手机号": "phone_number",
	"预算": "budget", "工资": "salary", "年龄": "age", "目标": "goal", "地址": "address", "时区": "timezone",
	"颜色": "color", "食物": "food", "电影": "movie", "运动": "sport", "书": "book", "歌": "song", "城市": "city",
	"工作": "occupation", "职业": "occupation", "公司": "employer",
}

func attrKey(a string) string {
	a = strings.ToLower(strings.TrimSpace(a))
	if k, ok := zhAttrs[a]; ok {
		return k
	}
	a = strings.ReplaceAll(a, "favourite", "favorite")
	a = strings.ReplaceAll(a, "'s", "")
	return strings.Join(strings.Fields(a), "_")
}

// cleanObject trims filler from a captured object.
func cleanObject(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimRightFunc(s, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSpace(r) })
	low := strings.ToLower(s)
	for _, p := range []string{"the ", "a ", "an "} {
		if strings.HasPrefix(low, p) && len(s) > len(p) {
			s, low = s[len(p):], low[len(p):]
		}
	}
	switch low {
	case "", "it", "that", "this", "them", "you", "him", "her", "to", "it a lot", "了":
		return ""
	}
	// A clause or someone else's thing is no fact about the user: "I love
	// that you chose pottery", "I like how it works", "I like it when you
	// cook", "I love your turtles", "I use it to relax".
	first, _, _ := strings.Cut(low, " ")
	if clauseStarts[first] {
		return ""
	}
	return s
}

// clauseStarts are first words of an object that make it a clause, a
// pronoun or the other party's thing rather than what the user likes,
// uses or is.
var clauseStarts = map[string]bool{
	"that": true, "how": true, "when": true, "what": true, "where": true, "why": true, "which": true,
	"who": true, "if": true, "because": true, "it": true, "this": true, "these": true, "those": true,
	"them": true, "your": true, "you": true, "yours": true, "his": true, "her": true, "their": true,
	"best": true, "thought": true, "makes": true,
}

func normObject(s string) string { return strings.Join(strings.Fields(strings.ToLower(s)), " ") }

// sentenceRe keeps each sentence's terminator so questions stay visible.
var sentenceRe = regexp.MustCompile(`[^.!?;。！？；\n]+[.!?;。！？；\n]*`)

func splitSentences(text string) []string {
	var out []string
	for _, p := range sentenceRe.FindAllString(text, -1) {
		if p = strings.TrimSpace(p); strings.Trim(p, ".!?;。！？；") != "" {
			out = append(out, p)
		}
	}
	return out
}

var questionStart = regexp.MustCompile(`(?i)^(what|where|when|who|why|how|which|do|does|did|can|could|would|should|is|are|am|will|shall)\b`)

func isQuestion(s string) bool {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, "?") || strings.HasSuffix(s, "？") || strings.HasSuffix(s, "吗") || strings.HasSuffix(s, "呢") {
		return true
	}
	for _, w := range []string{"哪里", "哪儿", "什么", "为什么", "怎么", "多少", "几岁", "是谁"} {
		if strings.Contains(s, w) {
			return true
		}
	}
	return questionStart.MatchString(s)
}
