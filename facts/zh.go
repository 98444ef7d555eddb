package facts

import (
	"regexp"
	"strings"
)

// zhRule is one Chinese pattern: the last submatch is the value; a
// relation submatch, when the rule has one, names the subject.
type zhRule struct {
	re    *regexp.Regexp
	attr  string
	rel   bool // first submatch is a relative (妹妹)
	ended bool
	repl  bool
}

const (
	zhVal  = `([\p{Han}A-Za-z0-9][\p{Han}A-Za-z0-9 +#.\-]{0,11}?)`
	zhEnd  = `(?:了|市)?(?:[，。,.!！；;]|$|工作|上班)`
	zhFree = `[^，。,.!！？?；;]{0,8}?` // a time word or adverb between 我 and the verb
	zhRels = `(妹妹|姐姐|哥哥|弟弟|妈妈|母亲|爸爸|父亲|老婆|妻子|老公|丈夫|儿子|女儿|朋友|同事|女朋友|男朋友)`
)

var zhRelRe = regexp.MustCompile(`我(?:的)?` + zhRels)

func zh(pat string) *regexp.Regexp { return regexp.MustCompile(pat) }

var zhRules = []zhRule{
	{re: zh(`我叫` + zhVal + `(?:[，。,.!！]|$)`), attr: "name"},
	{re: zh(`我的名字(?:是|叫)` + zhVal + `(?:[，。,.!！]|$)`), attr: "name"},
	{re: zh(`我` + zhFree + `(?:住在|住|生活在|定居在|定居)` + zhVal + zhEnd), attr: "lives_in"},
	{re: zh(`我` + zhFree + `搬(?:到|去|回)(?:了)?` + zhVal + zhEnd), attr: "lives_in"},
	{re: zh(`我` + zhRels + zhFree + `(?:住在|搬到了?|搬去了?)` + zhVal + zhEnd), attr: "lives_in", rel: true},
	{re: zh(`我` + zhFree + `在` + zhVal + `(?:工作|上班)`), attr: "works_at"},
	{re: zh(`我` + zhFree + `(?:加入了?|入职了?|跳槽到了?|跳槽去了?)` + zhVal + zhEnd), attr: "works_at"},
	{re: zh(`我` + zhFree + `(?:从)` + zhVal + `(?:辞职|离职)`), attr: "works_at", ended: true},
	{re: zh(`我` + zhFree + `(?:辞掉了|离开了)` + zhVal + `的工作`), attr: "works_at", ended: true},
	{re: zh(`我` + zhFree + `是(?:一名|一个|个|名)?(程序员|工程师|软件工程师|老师|教师|医生|护士|学生|设计师|律师|经理|作家|研究员|会计|产品经理|厨师|记者|司机)`), attr: "job_title"},
	{re: zh(`我` + zhFree + `(?:改用|换成了?|换用|转用|开始用)` + zhVal + `(?:了|写|做|来|开发)?(?:[，。,.!！]|$|写|做|来|开发)`), attr: "uses", repl: true},
	{re: zh(`我(?:现在|也|主要|平时)?(?:用|使用)` + zhVal + `(?:了|写|做|来|开发)?(?:[，。,.!！]|$|写|做|来|开发)`), attr: "uses"},
	{re: zh(`我(?:现在|也)?(?:很|非常|特别)?(?:喜欢|爱|偏好|更喜欢)` + zhVal + `(?:了)?(?:[，。,.!！]|$)`), attr: "likes"},
	{re: zh(`我(?:不再|不|讨厌)喜欢` + zhVal + `(?:了)?(?:[，。,.!！]|$)`), attr: "dislikes"},
	{re: zh(`我(?:很)?讨厌` + zhVal + `(?:了)?(?:[，。,.!！]|$)`), attr: "dislikes"},
	{re: zh(`我` + zhFree + `(吃素|素食者|不吃肉|吃全素)`), attr: "diet"},
	{re: zh(`我` + zhFree + `对` + `([\p{Han}]{1,6})过敏`), attr: "allergy"},
	{re: zh(`我` + zhFree + `养了?(?:一只|一条|只|条)?((?:狗|猫|小狗|小猫|兔子|鹦鹉|仓鼠)(?:，?(?:叫|名叫)[\p{Han}A-Za-z]{1,8})?)`), attr: "pet"},
	{re: zh(`我(?:今年)?(\d{1,3})岁`), attr: "age"},
	{re: zh(`我最喜欢的([\p{Han}]{1,6}?)是` + zhVal + `(?:[，。,.!！]|$)`), attr: "favorite_{a}", rel: true},
	{re: zh(`我的(邮箱|电话|手机号|生日|地址|时区)是([^\s，。！]{1,40}?)(?:[，。！]|$)`), attr: "{a}", rel: true},
	{re: zh(`我` + zhRels + `叫` + zhVal + `(?:[，。,.!！]|$)`), attr: "{relname}", rel: true},
}

var zhAttrs = map[string]string{
	"邮箱": "email", "电话": "phone", "手机号": "phone", "生日": "birthday", "地址": "address", "时区": "timezone",
	"颜色": "color", "食物": "food", "电影": "movie", "运动": "sport", "书": "book", "歌": "song", "城市": "city",
}

// extractZH reads a Chinese sentence clause by clause: a clause without
// a subject after one of the user's ("我从阿里辞职了，上周加入了腾讯")
// is the user's too.
func extractZH(sent string) []Fact {
	var out []Fact
	mine := false
	for _, c := range zhClauseRe.Split(sent, -1) {
		if strings.TrimSpace(c) == "" {
			continue
		}
		switch {
		case strings.Contains(c, "我"):
			mine = true
		case mine && !zhSubjectRe.MatchString(c):
			c = "我" + c
		}
		if zhNotNowRe.MatchString(c) {
			continue // what was ("以前") or is only planned ("下个月") is not the value now
		}
		out = append(out, extractZHClause(c+"。")...)
	}
	return dedupAttr(out)
}

var (
	zhNotNowRe  = regexp.MustCompile(`以前|之前|原来|曾经|过去|下个月|下周|明天|明年|后天|打算|准备|计划|将要|想要|可能`)
	zhClauseRe  = regexp.MustCompile(`[，,；;]`)
	zhSubjectRe = regexp.MustCompile(`^[^的]{0,3}(他|她|它|你|妹妹|姐姐|哥哥|弟弟|妈妈|母亲|爸爸|父亲|老婆|妻子|老公|丈夫|儿子|女儿|朋友|同事|老板)`)
)

func extractZHClause(sent string) []Fact {
	var out []Fact
	// "我妹妹搬到北京了" is about the sister: the user's own rules stay out.
	aboutRel := zhRelRe.MatchString(sent)
	for _, r := range zhRules {
		if aboutRel && !r.rel {
			continue
		}
		m := r.re.FindStringSubmatch(sent)
		if m == nil {
			continue
		}
		val := strings.TrimSpace(m[len(m)-1])
		val = strings.TrimSuffix(val, "了")
		val = strings.TrimPrefix(val, "在")
		subject, word, a := "user", "", r.attr
		if r.rel {
			switch {
			case a == "favorite_{a}":
				k := zhAttrs[m[1]]
				if k == "" {
					k = m[1]
				}
				a = "favorite_" + k
			case a == "{a}":
				a = zhAttrs[m[1]]
			case a == "{relname}":
				a = relAttr(relations[m[1]])
				word = m[1]
			default:
				subject, word = relations[m[1]], m[1]
			}
		}
		if val == "" || a == "" {
			continue
		}
		f := Fact{Triple: tripleOf(subject, a, val), word: word, Replace: r.repl}
		f.Ended = r.ended
		if r.repl {
			f.Change = true
		}
		if a == "lives_in" && strings.Contains(sent, "搬") {
			f.Change = true
		}
		out = append(out, f)
	}
	return out
}

// dedupAttr keeps one fact per slot and value: for a single-valued slot
// the last clause's (what the sentence ends on), else the first.
func dedupAttr(fs []Fact) []Fact {
	at := map[string]int{}
	var out []Fact
	for _, f := range fs {
		k := f.Key()
		if f.Multi {
			k += "\x00" + f.Value
		}
		if f.Ended {
			k += "\x00ended"
		}
		if i, ok := at[k]; ok {
			if !f.Multi && out[i].Value != f.Value {
				out[i] = f
			}
			continue
		}
		at[k] = len(out)
		out = append(out, f)
	}
	return out
}
