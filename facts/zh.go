package facts

import (
	"slices"
	"strconv"
	"strings"

	"github.com/memproxy/memproxy/internal/rx"
)

// zhRule is one Chinese pattern: the last submatch is the value; a
// relation submatch, when the rule has one, names the subject.
type zhRule struct {
	re    *rx.Regexp
	attr  string
	rel   bool // first submatch is a relative (妹妹)
	ended bool
	repl  bool
	prior bool // the first submatch is the value replaced (从X换到了Y)
}

const (
	zhVal  = `([\p{Han}A-Za-z0-9][\p{Han}A-Za-z0-9 +#.\-]{0,11}?)`
	zhEnd  = `(?:了|市)?(?:[，。,.!！；;]|$|工作|上班)`
	zhFree = `[^，。,.!！？?；;的]{0,8}?` // a time word or adverb between 我 and the verb
	// zhFreeAt is zhFree before the 在 of a workplace: not the 在 of 现在
	// "now" (我现在改做产品经理了 names no workplace 改).
	zhFreeAt = `(?:[^，。,.!！？?；;的]{0,7}?[^，。,.!！？?；;的现])?`
	zhRels   = `(父母|爸妈|妹妹|姐姐|哥哥|弟弟|妈妈|母亲|爸爸|父亲|老婆|妻子|老公|丈夫|爱人|儿子|女儿|孩子|朋友|同事|女朋友|男朋友|老板|领导|爷爷|奶奶|外公|外婆|姥姥|姥爷|孙子|孙女|叔叔|舅舅|伯伯|阿姨|姑姑|姨妈|表哥|表姐|表弟|表妹|堂哥|堂姐|堂弟|堂妹|室友|邻居)`
	zhJobs   = `(?:程序员|工程师|老师|教师|医生|护士|学生|设计师|律师|经理|作家|研究员|会计师|会计|总监|主管|主任|组长|总裁|厨师|记者|司机|销售|警察|工人|演员|歌手|画家|翻译|编辑|主播|博士生|研究生|大学生|公务员|建筑师|分析师|顾问|教授|架构师|运营|摄影师|飞行员|兽医|药剂师|牙医|店长|老板|创业者|自由职业者)`
	// zhWorkLines are lines of work one does at an employer (在腾讯做后端开发).
	zhWorkLines = `(?:开发|研发|产品|设计|运营|销售|市场|技术|测试|数据|算法|前端|后端|全栈|运维|财务|人事|客服|咨询|项目|管理|研究|风控|审计|法务|行政|采购|投资|编程|软件|硬件|教学|科研|翻译|编辑)`
	zhDrinks    = `(咖啡|黑咖啡|美式|拿铁|绿茶|红茶|花茶|乌龙茶|普洱|抹茶|奶茶|茶|牛奶|豆浆|果汁|啤酒|红酒|白酒|可乐|白开水|热水|水)`
	zhBrands    = `(华为|小米|苹果|iPhone|OPPO|vivo|三星|荣耀|一加|魅族|Pixel|特斯拉|比亚迪|丰田|本田|宝马|奔驰|大众|奥迪|蔚来|理想|小鹏)`
)

var (
	// zhPetKindRe: a pet's kind, which the kind's own ending reads (我的狗死了).
	zhPetKindRe   = rx.MustCompile(`^(?:狗|猫|狗狗|猫咪|兔子|仓鼠|鹦鹉|乌龟|小狗|小猫)`)
	zhDrinkOnlyRe = rx.MustCompile(`^` + zhDrinks + `$`)
	zhRelRe       = rx.MustCompile(`我(?:的)?` + zhRels)
	// zhRelLeadRe: a clause that starts with a kin word (老公叫李明).
	zhRelLeadRe = rx.MustCompile(`^` + zhRels)
)

func zh(pat string) *rx.Regexp { return rx.MustCompile(pat) }

var zhRules = []zhRule{
	{re: zh(`我叫` + zhVal + `(?:[，。,.!！]|$)`), attr: "name"},
	{re: zh(`我的名字(?:是|叫)` + zhVal + `(?:[，。,.!！]|$)`), attr: "name"},
	{re: zh(`我` + zhFree + `(?:住在|住|生活在|定居在|定居)` + zhVal + zhEnd), attr: "lives_in"},
	{re: zh(`我` + zhFree + `在` + zhVal + `(?:生活|定居|安家)`), attr: "lives_in"},
	{re: zh(`我` + zhFree + `在` + zhVal + `(?:出差|旅游|旅行|度假|开会|玩|参加|培训|访学)`), attr: "staying_in"},
	{re: zh(`我` + zhFree + `搬(?:家)?(?:到|去|回到|回|来到|来)(?:了)?` + zhVal + zhEnd), attr: "lives_in"},
	{re: zh(`我` + zhFree + `(?:不在|没在)` + zhVal + `(?:住|生活)`), attr: "lives_in"},
	{re: zh(`我` + zhFree + `在` + zhVal + `找到了?(?:一份)?(?:新的?)?(?:工作|工|差事)`), attr: "works_at"},
	{re: zh(`我` + zhRels + zhFree + `(?:住在|搬到了?|搬去了?)` + zhVal + zhEnd), attr: "lives_in", rel: true},
	{re: zh(`我` + zhFree + `在` + `([\p{Han}A-Za-z0-9][\p{Han}A-Za-z0-9 +#.\-]{0,11}?)` + `(?:工作|上班)`), attr: "works_at"},
	{re: zh(`我` + zhFreeAt + `在` + zhVal + `(?:做|当)` + `[\p{Han}]{0,4}?` + zhJobs), attr: "works_at"},
	{re: zh(`我` + zhFree + `在` + zhVal + `(?:做|当)(` + `[\p{Han}]{0,4}?` + zhJobs + `)`), attr: "job_title"},
	// 我在腾讯做后端开发, 我在银行搞风控: the line of work names the employer.
	{re: zh(`我` + zhFreeAt + `在` + zhVal + `(?:做|搞|负责|干)` + `[\p{Han}A-Za-z]{0,4}?` + zhWorkLines + `(?:方面)?(?:的)?(?:工作)?(?:了)?(?:[，。,.!！；;]|$)`), attr: "works_at"},
	{re: zh(`我` + zhFree + `(?:加入了?|入职了?|跳槽到了?|跳槽去了?)` + zhVal + zhEnd), attr: "works_at"},
	{re: zh(`我` + zhFree + `(?:从)` + zhVal + `(?:辞职|离职)`), attr: "works_at", ended: true},
	{re: zh(`我` + zhFree + `(?:辞掉了|离开了)` + zhVal + `的工作`), attr: "works_at", ended: true},
	{re: zh(`我` + zhFree + `(?:是|当|做了|当了|成了|成为了?|转行做|改行做|转行当|改做|转做|改当)(?:一名|一个|个|名|一位)?([\p{Han}]{0,4}?` + zhJobs + `)`), attr: "job_title"},
	{re: zh(`我` + zhRels + zhFree + `(?:是|当|做了|当了|成了|成为了?)(?:一名|一个|个|名|一位)?([\p{Han}]{0,4}?` + zhJobs + `)`), attr: "job_title", rel: true},
	// 我升职了，现在是技术总监: the subject left out after 现在, 目前.
	{re: zh(`^(?:现在|目前|如今)(?:已经)?(?:是|当上了?|成了|成为了?|做)(?:一名|一个|个|名|一位)?([\p{Han}]{0,4}?` + zhJobs + `)(?:了)?(?:[，。,.!！；;]|$)`), attr: "job_title"},
	{re: zh(`我` + zhFree + `(?:升职|晋升|被提拔|升)(?:成|为|做)(?:了)?(?:一名|一个|个|名|一位)?([\p{Han}]{0,4}?` + zhJobs + `)`), attr: "job_title"},
	{re: zh(`我` + zhFree + `(?:用的是|用|使用|换了|换成了?|换回了?|换回|买了|入手了|开的是|开)(?:一部|一台|一辆|个|部|台|辆)?` + zhBrands + `(?:[\p{Han}A-Za-z0-9 ]{0,6}?)(?:手机|了|[，。,.!！]|$)`), attr: "{device}"},
	{re: zh(`我` + zhFree + `(?:改用|换成了?|换用|转用|开始用)` + zhVal + `(?:了|写|做|来|开发)?(?:[，。,.!！]|$|写|做|来|开发)`), attr: "uses", repl: true},
	// 我从Windows换到了Mac: a tool named in Latin letters, switched to.
	{re: zh(`我` + zhFree + `从([A-Za-z][A-Za-z0-9 +#.\-]{0,15}?)(?:换到了?|切换到了?|转到了?|迁移到了?)([A-Za-z][A-Za-z0-9 +#.\-]{0,15}?)(?:了|上)?(?:[，。,.!！；;]|$)`), attr: "uses", repl: true, prior: true},
	{re: zh(`我` + zhFree + `(?:用|使用)` + zhVal + `(?:了|写|做|来|开发)?(?:[，。,.!！]|$|写|做|来|开发)`), attr: "uses"},
	{re: zh(`^` + zhVal + `(?:现在)?(?:是|成了)我` + `[\p{Han}]{0,4}?` + `的?(?:主力|主要|常用|首选)?(?:编程)?(?:语言|工具|编辑器)`), attr: "uses"},
	{re: zh(`我` + zhFree + `(?:改喝|换成喝|改成喝|只喝|开始喝|换喝|改成了?|换成了?)` + zhDrinks + `(?:了|[，。,.!！；;]|$)`), attr: "drinks", repl: true},
	{re: zh(`我` + zhFree + `(?:戒了|戒掉了|不再喝|不喝)` + zhDrinks), attr: "drinks", ended: true},
	{re: zh(`我(?:每天|平时|一般|经常|通常|习惯|天天|早上|每天早上)[^，。！？,.!?]{0,4}?喝` + `(?:一杯|两杯|几杯|一壶|杯)?` + zhDrinks + `(?:了|[，。,.!！；;]|$)`), attr: "drinks"},
	{re: zh(`我` + zhFree + `会说(?:一点|一些|点|流利的)?` + zhVal + `(?:[，。,.!！]|$)`), attr: "speaks"},
	{re: zh(`我(?:现在|也|平时|平常|一直|向来|从小就?|周末|业余时间|空闲时|有空的时候|还)?(?:也)?(?:很|非常|特别)?(?:喜欢|爱|偏好|更喜欢)` + zhVal + `(?:了)?(?:[，。,.!！]|$)`), attr: "likes"},
	{re: zh(`我(?:现在|已经|其实|也|真的|平时|一直|向来)?(?:不再|不|讨厌)喜欢` + zhVal + `(?:了)?(?:[，。,.!！]|$)`), attr: "dislikes"},
	// 以后用中文回答我, 从现在开始请用英文回复: the language of the replies.
	{re: zh(`(?:以后|今后|从现在开始|从今以后|一直|总是|都)[，,]?(?:请|都|也)?(?:请)?用(中文|英文|英语|汉语|日语|韩语|法语|德语|西班牙语|俄语|粤语)(?:来)?(?:回答|回复|回我|跟我说|和我说|交流|聊)`), attr: "reply_language"},
	{re: zh(`我(?:很)?讨厌` + zhVal + `(?:了)?(?:[，。,.!！]|$)`), attr: "dislikes"},
	{re: zh(`我` + zhFree + `(吃素|吃纯素|纯素食者|纯素主义者|素食主义者|素食者|不吃肉|吃全素|吃肉|吃荤)`), attr: "diet"},
	{re: zh(`我` + zhFree + `(?:不吃|不能吃|忌口)` + `([\p{Han}]{1,4}?)(?:了)?(?:[，。,.!！；;]|$)`), attr: "avoids"},
	{re: zh(`我` + zhFree + `对` + `([\p{Han}]{1,6})过敏`), attr: "allergy"},
	{re: zh(`我` + zhFree + `(?:养了?|有)(?:一只|一条|只|条)((?:狗|猫|小狗|小猫|兔子|鹦鹉|仓鼠|乌龟|金鱼|鱼|鸟)(?:，?(?:叫|名叫)[\p{Han}A-Za-z]{1,8})?)`), attr: "pet"},
	{re: zh(`我` + zhFree + `养了?((?:狗|猫|小狗|小猫|兔子|鹦鹉|仓鼠|乌龟|金鱼|鱼|鸟)(?:，?(?:叫|名叫)[\p{Han}A-Za-z]{1,8})?)`), attr: "pet"},
	{re: zh(`我(?:今年|已经|现在|都)?(\d{1,3}|[一二两三四五六七八九十]{1,3})岁`), attr: "age"},
	// 我上周刚过了三十一岁生日: the age just turned.
	{re: zh(`我` + zhFree + `(?:过了|过完了?)(\d{1,3}|[一二两三四五六七八九十]{1,3})岁(?:的)?生日`), attr: "age"},
	{re: zh(`我最喜欢的([\p{Han}]{1,6}?)是` + zhVal + `(?:[，。,.!！]|$)`), attr: "favorite_{a}", rel: true},
	// 我最喜欢的电影是《肖申克的救赎》: a title in its brackets.
	{re: zh(`我最喜欢的([\p{Han}]{1,6}?)是《([^》]{1,30})》`), attr: "favorite_{a}", rel: true},
	// 我老家是四川的, 我的家乡在大理: the hometown.
	{re: zh(`我(?:的)?(?:老家|家乡|故乡)(?:是|在)` + zhVal + `(?:的)?(?:人)?(?:[，。,.!！；;]|$)`), attr: "from"},
	{re: zh(`我的[\p{Han}]{0,3}?(邮箱|电话|手机号|生日|地址|时区|公司|单位|雇主)(?:是|换成了?|改成了?|变成了?|换为|改为)([^\s，。！]{1,40}?)(?:了)?(?:[，。！]|$)`), attr: "{a}", rel: true},
	// 我的爱好是画画和跑步: the user's hobbies, each one (split below).
	{re: zh(`我的(?:兴趣)?爱好(?:是|有)([^\s，。！]{1,30}?)(?:[，。！]|$)`), attr: "activity"},
	{re: zh(`我(?:现在的|的|新的?|现在)?` + zhRels + `叫` + zhVal + `(?:[，。,.!！]|$)`), attr: "{relname}", rel: true},
	{re: zh(`我` + zhRels + zhFree + `在` + zhVal + `(?:工作|上班)`), attr: "works_at", rel: true},
	{re: zh(`我` + zhFree + `在` + zhVal + `(?:读书|上学|读大学|读研|读博|留学|念书)`), attr: "studies_at"},
	{re: zh(`我` + zhRels + zhFree + `在` + zhVal + `(?:读书|上学|读大学|读研|读博|留学|念书)`), attr: "studies_at", rel: true},
	{re: zh(`我` + zhFree + `(?:开始学|开始练|学起了|迷上了|爱上了)` + zhVal + zhEnd), attr: "activity"},
	// 我在学吉他 (not 我在学校…: the 在 of a place).
	{re: zh(`我` + zhFree + `在学((?:[^\P{Han}校院生]|[A-Za-z0-9])[\p{Han}A-Za-z0-9 +#.\-]{0,11}?)` + zhEnd), attr: "activity"},
	// 我怀孕了, 我是左撇子: a lasting condition, as said.
	{re: zh(`我` + zhFree + `(怀孕了|是左撇子|是夜猫子|是色盲|有糖尿病|有哮喘|有高血压|有乳糜泻)`), attr: "condition"},
	// 我退休了, 我去年退休了: the user is retired.
	{re: zh(`我` + zhFree + `(退休)(?:了|[，。,.!！；;]|$)`), attr: "job_title"},
	{re: zh(`我` + zhRels + `(?:今年)?(\d{1,3}|[一二两三四五六七八九十]{1,3})岁`), attr: "age", rel: true},
}

var zhAttrs = map[string]string{
	"邮箱": "email", "电话": "phone", "手机号": "phone", "生日": "birthday", "地址": "address", "时区": "timezone", "公司": "works_at", "单位": "works_at", "雇主": "works_at",
	"颜色": "color", "食物": "food", "电影": "movie", "运动": "sport", "书": "book", "歌": "song", "城市": "city",
}

// extractZH reads a Chinese sentence clause by clause: a clause without
// a subject after one of the user's ("我从阿里辞职了，上周加入了腾讯")
// is the user's too.
// zhNamedGoneRe: a name said to have died or been given away at the
// start of a sentence (旺财上个月去世了, 我们把豆豆送人了): the pet of that
// name, if the user has one (reconcile ends it, and drops it otherwise).
var zhNamedGoneRe = rx.MustCompile(`^(?:我们?家的?|我们?的)?([^\P{Han}的我你他她它们把]{2,3}?)(?:[\p{Han}]{0,4}?)(?:去世了|死了|病死了|走丢了|丢了|被送人了|送人了|走了|离开了我们|不在了)|^我们?把([^\P{Han}的我你他她它们]{2,3})(?:送人了|送走了|安乐死了)`)

func extractZH(sent string) []Fact {
	var out []Fact
	if m := zhNamedGoneRe.FindStringSubmatch(sent); m != nil && !zhRelLeadRe.MatchString(m[1]+m[2]) && !zhPetKindRe.MatchString(m[1]+m[2]) {
		f := Fact{Triple: tripleOf("user", "pet", m[1]+m[2]), Alts: []string{"pet"}}
		f.Ended, f.Change = true, true
		out = append(out, f)
	}
	// A sentence without any subject is the user's ("最近工作上都用Rust"):
	// Chinese leaves the speaker out.
	mine := !strings.Contains(sent, "我") && !zhSubjectRe.MatchString(sent) && !zhOtherRe.MatchString(sent)
	work := zhWorkRe.MatchString(sent)
	rel, lastRel := "", ""
	sawI := false
	for _, c := range zhClauseRe.Split(sent, -1) {
		c = strings.TrimRight(strings.TrimSpace(c), "。！!~～…")
		if c == "" {
			continue
		}
		// "我养了一只猫，叫咪咪": a name clause names the pet or the
		// relative just mentioned, not the user.
		if m := zhNameRe.FindStringSubmatch(c); m != nil && len(out) > 0 {
			if f := &out[len(out)-1]; f.Attribute == "pet" && !strings.Contains(f.Value, "（") {
				f.Value += "（名叫" + m[1] + "）"
				continue
			}
		}
		if m := zhNameRe.FindStringSubmatch(c); m != nil && lastRel != "" {
			// "我有女朋友了，叫小红": the relative's name, not the user's.
			out = append(out, Fact{Triple: tripleOf("user", relAttr(relations[lastRel]), m[1]), word: lastRel, aword: lastRel})
			lastRel = ""
			continue
		}
		lastRel = ""
		if m := zhHasRelRe.FindStringSubmatch(c); m != nil {
			lastRel = m[1]
		}
		switch {
		case strings.Contains(c, "我"):
			mine = true
			rel = ""
			if m := zhRelRe.FindStringSubmatch(c); m != nil && strings.HasPrefix(c[strings.Index(c, "我"):], m[0]) {
				rel = m[1] // "我儿子叫小宝，今年5岁": the son is five
			}
		case mine && !zhSubjectRe.MatchString(c):
			c = "我" + rel + c
		case sawI && zhRelLeadRe.MatchString(c):
			// "我结婚了，老公叫李明": a bare kin word after the user's
			// clause is the user's own (我的老公).
			c = "我" + c
		}
		if strings.HasPrefix(c, "我") {
			sawI = true
		}
		starts := zhStartRe.MatchString(c)
		if zhNotNowRe.MatchString(c) && (!starts || zhPlanRe.MatchString(c)) {
			continue // what was ("以前") or is only planned ("下个月") is not the value now
		}
		if m := zhPetNameRe.FindStringSubmatch(c); m != nil {
			// "我家的狗叫豆豆": the pet, by its name.
			out = append(out, Fact{Triple: tripleOf("user", "pet", m[1]+"（名叫"+m[2]+"）")})
			continue
		}
		if fs := zhAge(c); fs != nil {
			// "我家狗狗今年三岁了", "我女儿小美今年六岁": a pet's or a
			// named child's age.
			out = append(out, fs...)
			continue
		}
		fs := extractZHClause(c + "。")
		if len(fs) == 0 && work && !zhRelRe.MatchString(c) {
			// "我又换工作了，现在在小米": where the user is, said about work.
			if m := zhAtRe.FindStringSubmatch(c); m != nil && !strings.Contains(c, "出差") && !zhNotPlace.MatchString(m[1]) {
				v := strings.TrimPrefix(m[1], "在")
				for _, verb := range []string{"做", "当", "负责", "干", "搞"} {
					if i := strings.Index(v, verb); i > 0 {
						v = v[:i] // 在京东做产品: 京东, what the user does there aside
					}
				}
				fs = append(fs, Fact{Triple: tripleOf("user", "works_at", v), Change: true})
			}
		}
		if len(fs) == 0 {
			fs = zhPossessive(c)
		}
		for i := range fs {
			// "下周一我开始在腾讯上班": the employer or school from the
			// day it starts.
			fs[i].starts = starts && (fs[i].Attribute == "works_at" || fs[i].Attribute == "studies_at")
		}
		out = append(out, fs...)
	}
	if slices.ContainsFunc(out, func(f Fact) bool { return f.Attribute == "reply_language" }) {
		// 请用英文回复 is how to answer, not a tool used
		out = slices.DeleteFunc(out, func(f Fact) bool { return f.Attribute == "uses" })
	}
	for i := range out {
		// 我家有一只猫叫橘子: the pet's name as the other forms write it.
		if m := zhPetCalledRe.FindStringSubmatch(out[i].Value); m != nil && out[i].Attribute == "pet" {
			out[i].Value = m[1] + "（名叫" + m[2] + "）"
		}
	}
	keyPersonal(out) // 我儿子12岁，女儿9岁: two ages, before the slots are deduplicated
	return dedupAttr(out)
}

// zhPetCalledRe: a pet value that runs on into its name (猫叫橘子).
var zhPetCalledRe = rx.MustCompile(`^(狗|猫|小狗|小猫|兔子|鹦鹉|仓鼠|乌龟|金鱼|鱼|鸟)，?(?:名叫|叫)([\p{Han}A-Za-z]{1,8})$`)

// zhNotPlace: what follows 在 is an activity or home, not an employer
// ("在家带孩子", "在准备考试").
var zhNotPlace = rx.MustCompile(`^(?:家|家里)|带|照顾|休息|学习|复习|准备|找工作|养病|陪`)

var (
	zhPetNameRe = rx.MustCompile(`^我(?:家|们家|们)?的?(?:小)?(狗|猫|兔子|鹦鹉|仓鼠|乌龟|金鱼|鸟|` + zhBreeds + `)(?:狗|猫)?(?:叫|名叫|名字叫|的名字是|名字是)([\p{Han}A-Za-z]{1,8}?)(?:了)?$`)
	zhNameRe    = rx.MustCompile(`^(?:它|他|她)?(?:叫|名叫|名字叫|名字是)([\p{Han}A-Za-z]{1,8}?)[。！!]*$`)
	zhWorkRe    = rx.MustCompile(`工作|上班|公司|跳槽|入职|辞职|离职|换工作|上岗`)
	zhAtRe      = rx.MustCompile(`^我` + zhFree + `在([\p{Han}A-Za-z0-9]{2,10}?)(?:了)?$`)
	zhOtherRe   = rx.MustCompile(`他|她|它|你|他们|她们|咱`)
	// zhPossRe: "我(妹妹)的生日聚会在周一", "我的牙医是王医生": an open
	// attribute of the user or a relative; "我和同学的聚会在周三" is the
	// user's too (a plan shared with someone).
	zhPossRe = rx.MustCompile(`^我(?:和[\p{Han}]{1,4}?)?(?:的)?` + zhRels + `?的([\p{Han}]{1,6}?)(?:现在|已经|也)?(?:是|在|改到了?|改成了?|换到了?|定在了?)([\p{Han}A-Za-z0-9][\p{Han}A-Za-z0-9 @.\-]{0,15}?)了?[。！!]*$`)
)

// zhNotUse reports a 用 that is part of another word (调用, 费用, 不用):
// not "uses".
func zhNotUse(sent, match string) bool {
	i := strings.Index(match, "用")
	if i < len("我") {
		return false
	}
	prev := []rune(match[:i])
	switch prev[len(prev)-1] {
	case '调', '费', '利', '采', '引', '信', '适', '通', '运', '应', '不', '享', '占', '试', '备', '专', '公', '有', '没', '好', '难', '实':
		return true
	}
	return false
}

// zhPossessive reads an open attribute: "我的牙医是王医生" → 牙医 = 王医生.
func zhPossessive(c string) []Fact {
	m := zhPossRe.FindStringSubmatch(c)
	if m == nil || strings.ContainsAny(m[2], "我你他她它") {
		return nil
	}
	subject, word := "user", ""
	if m[1] != "" {
		subject, word = relations[m[1]], m[1]
	}
	a, aword := m[2], ""
	if k, ok := zhAttrs[a]; ok {
		a = k
	}
	if r := relations[a]; r != "" && subject == "user" {
		a, aword = relAttr(r), m[2] // "我的老板是张总"
	}
	if k := deviceKind(m[3]); k != "" && (strings.Contains(a, "手机") || strings.Contains(a, "车") || strings.Contains(a, "电脑")) {
		a, aword = k, "" // "我的新手机是iPhone 15"
	}
	return []Fact{{Triple: tripleOf(subject, a, m[3]), word: word, aword: aword, Open: !InVocabulary(a)}}
}

var (
	zhNotNowRe = rx.MustCompile(`以前|之前|原来|曾经|过去|下个月|下周|明天|明年|后天|打算|准备|计划|将要|想要|可能`)
	// zhStartRe: the clause says the user starts at an employer or a
	// school (开始在腾讯上班, 入职, 去阿里上班): a start, even a dated future
	// one, is a value; zhPlanRe: only intended, it is not.
	zhStartRe   = rx.MustCompile(`开始(?:在|去)[^，。,；;]{1,12}?(?:上班|工作|上学|读书|实习)|(?:入职|就职|报到)`)
	zhPlanRe    = rx.MustCompile(`以前|之前|原来|曾经|过去|打算|准备|计划|想要|可能|也许|如果|要是`)
	zhClauseRe  = rx.MustCompile(`[，,；;]`)
	zhSubjectRe = rx.MustCompile(`^[^的]{0,3}(他|她|它|你|妹妹|姐姐|哥哥|弟弟|妈妈|母亲|爸爸|父亲|老婆|妻子|老公|丈夫|儿子|女儿|朋友|同事|老板)`)
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
		val = strings.TrimPrefix(val, "了") // "转行做了老师"
		val = strings.TrimPrefix(val, "在")
		if r.attr == "lives_in" {
			// "我搬回了老家成都": the city, not the word for home.
			for _, p := range []string{"老家", "家乡", "故乡"} {
				if v := strings.TrimPrefix(val, p); v != val && v != "" {
					val = v
				}
			}
		}
		if strings.Contains(val, "了") || strings.Contains(val, "找到") {
			continue // a verb phrase, not a value: "在京东找到了新工作"
		}
		if r.attr == "activity" && zhLanguage(val) {
			a := "studies" // 我开始学日语了: a language the user studies, not a pastime
			f := Fact{Triple: tripleOf("user", a, val)}
			if i := strings.Index(m[0], val); i > 0 && zhNegated(m[0][:i]) {
				f.Ended, f.Change = true, true // 我不在学日语了
			}
			out = append(out, f)
			continue
		}
		if r.attr == "avoids" && (strings.HasPrefix(val, "素") || strings.HasPrefix(val, "肉") || strings.HasPrefix(val, "荤") || strings.HasPrefix(val, "晚饭") || strings.HasPrefix(val, "早饭")) {
			continue // 不吃肉 is a diet; 不吃晚饭 a habit
		}
		if n, ok := zhNumber(val); ok && r.attr == "age" {
			val = strconv.Itoa(n) // 我今年三十五岁了: 35
		}
		subject, word, aword, a := "user", "", "", r.attr
		if d := strings.TrimPrefix(val, "喝"); a == "likes" && d != val && zhDrinkOnlyRe.MatchString(d) {
			a, val = "drinks", d // 我喜欢喝咖啡: what the user drinks
		}
		ended := false
		if r.rel {
			switch {
			case a == "favorite_{a}":
				k := zhAttrs[m[1]]
				if k == "" {
					k = m[1]
				}
				a, aword = "favorite_"+k, m[1] // rendered 用户最喜欢的电影是…
			case a == "{a}":
				a = zhAttrs[m[1]]
			case a == "{relname}":
				a = relAttr(relations[m[1]])
				word, aword = m[1], m[1]
			default:
				subject, word = relations[m[1]], m[1]
			}
		}
		switch a {
		case "{device}":
			a = deviceKind(val)
			if val == "苹果" || val == "iPhone" || val == "华为" || val == "荣耀" || val == "OPPO" || val == "vivo" || val == "三星" || val == "一加" || val == "魅族" || val == "小米" || val == "Pixel" {
				a = "phone_model"
			}
			if a == "" {
				a = "car"
			}
		case "diet":
			i := strings.Index(sent, val)
			if i >= len("不") && sent[i-len("不"):i] == "不" {
				ended = true // "我现在不吃素了"
			}
			if j := strings.Index(m[0], val); val != "不吃肉" && j > 0 && zhNegated(m[0][:j]) {
				ended = true // "我不再是素食者了"
			}
			switch val {
			case "素食者", "素食主义者", "不吃肉", "吃全素":
				val = "吃素"
			case "吃荤":
				val = "吃肉"
			case "纯素食者", "纯素主义者":
				val = "吃纯素"
			}
		case "uses":
			if strings.HasPrefix(val, "的") {
				continue
			}
			if zhNotUse(sent, m[0]) {
				// "我已经不用Python了": 不用 with a value and 了 ends it;
				// 不用 alone is "no need".
				if i := strings.Index(m[0], "用"); i < len("不") || m[0][i-len("不"):i] != "不" || !strings.Contains(sent[strings.Index(sent, m[0])+i:], "了") || val[0] >= 0x80 && ValueKind(val) == "" {
					continue
				}
				ended = true
			}
		}
		if val == "" || a == "" {
			continue
		}
		// "我不再用微信了", "我不住在杭州了", "我已经不在腾讯工作了": the
		// value ended. 不久, 不少, 没多久 say nothing of the kind.
		if i := strings.Index(m[0], val); i > 0 && a != "diet" && a != "dislikes" && a != "avoids" && zhNegated(m[0][:i]) {
			ended = true
		}
		f := Fact{Triple: tripleOf(subject, a, val), word: word, aword: aword, Replace: r.repl}
		if r.prior {
			f.Prior = strings.TrimSpace(m[1])
		}
		f.Ended = r.ended || ended
		if r.repl {
			f.Change = true
		}
		if a == "lives_in" && strings.Contains(sent, "搬") {
			f.Change = true
		}
		if f.Multi && !f.Ended && strings.ContainsAny(val, "和、与") && (a == "speaks" || a == "activity" || a == "plays" || a == "likes" || a == "allergy" || a == "uses") {
			// 我会说英语和法语: each value of a multi-valued slot.
			for _, v := range strings.FieldsFunc(val, func(r rune) bool { return r == '和' || r == '、' || r == '与' }) {
				if v = strings.TrimSpace(v); v != "" {
					g := f
					g.Triple = tripleOf(subject, a, v)
					out = append(out, g)
				}
			}
			continue
		}
		out = append(out, f)
	}
	// "我换成了华为": a device, not a tool the user works with.
	for _, f := range out {
		if f.Attribute == "phone_model" || f.Attribute == "car" || f.Attribute == "computer" {
			out = slices.DeleteFunc(out, func(g Fact) bool { return g.Attribute == "uses" && g.Value == f.Value })
			break
		}
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

// zhNotNeg are words with 不 or 没 that negate nothing ("我不久前搬到了苏州").
var zhNotNeg = strings.NewReplacer("不久", "", "不少", "", "不错", "", "不到", "", "不同", "", "没多久", "", "不仅", "", "不但", "")

// zhNegated reports a negation before a clause's value: 不, 没, 不再.
func zhNegated(pre string) bool {
	pre = zhNotNeg.Replace(pre)
	return strings.Contains(pre, "不") || strings.Contains(pre, "没")
}

const zhAgeNum = `(\d{1,2}|[一二两三四五六七八九十]{1,3})`

var (
	// 我家狗狗今年三岁了, 我的猫两岁了, 我家的小狗咪咪快四岁了.
	zhPetAgeRe = rx.MustCompile(`^我(?:家|们家)?的?(狗狗|小狗|狗|猫咪|小猫|猫|兔子|鹦鹉|仓鼠|乌龟)([\p{Han}]{1,3}?)?(?:今年|已经|快|都|现在|刚)*` + zhAgeNum + `岁`)
	// 我女儿小美今年六岁: a named relative's age.
	zhNamedAgeRe = rx.MustCompile(`^我的?` + zhRels + `([\p{Han}]{2,3}?)(?:今年|已经|快|都|现在|刚)*` + zhAgeNum + `岁`)
)

// zhBreeds are dog and cat breeds a pet is named by (我家柯基叫馒头);
// zhDogBreeds the dogs among them.
const zhBreeds = `柯基|泰迪|金毛|哈士奇|柴犬|拉布拉多|边牧|比熊|博美|萨摩耶|法斗|雪纳瑞|英短|美短|布偶|橘猫|暹罗猫|加菲猫`

var zhDogBreeds = map[string]bool{"柯基": true, "泰迪": true, "金毛": true, "哈士奇": true, "柴犬": true, "拉布拉多": true,
	"边牧": true, "比熊": true, "博美": true, "萨摩耶": true, "法斗": true, "雪纳瑞": true}

// zhPets are the words for pets, which name no one as a subject.
var zhPets = map[string]string{"狗狗": "狗", "小狗": "狗", "狗": "狗", "猫咪": "猫", "小猫": "猫", "猫": "猫", "兔子": "兔子",
	"鹦鹉": "鹦鹉", "仓鼠": "仓鼠", "乌龟": "乌龟"}

func zhRelWord(s string) bool {
	_, ok := zhPets[s]
	return ok
}

// zhNotName are the words between a relative and an age that are no name.
var zhNotName = map[string]bool{"今年": true, "已经": true, "现在": true, "都": true, "快": true, "刚": true, "才": true, "也": true}

// zhAge reads a pet's age (subject: the pet's name, else its kind) or a
// named relative's (subject: the name).
func zhAge(c string) []Fact {
	if m := zhPetAgeRe.FindStringSubmatch(c); m != nil {
		subj, word := zhPets[m[1]], m[1]
		if n := strings.TrimPrefix(strings.TrimPrefix(m[2], "叫"), "名叫"); n != "" && !zhNotName[n] {
			subj = n
		}
		return []Fact{{Triple: tripleOf(subj, "age", m[3]), word: word}}
	}
	if m := zhNamedAgeRe.FindStringSubmatch(c); m != nil && !zhNotName[m[2]] && !strings.HasPrefix(m[2], "今") {
		return []Fact{{Triple: tripleOf(m[2], "age", m[3]), word: m[1]}}
	}
	return nil
}

// zhHasRelRe: a clause that introduces a relative ("我有女朋友了", "我们
// 有了一个儿子"), whose name the next clause may give.
var zhHasRelRe = rx.MustCompile(`^我(?:们)?(?:现在|终于|也)?有(?:了)?(?:一个|个|一位)?(?:新)?` + zhRels + `(?:了)?$`)

// zhLanguage: v names a language (日语, 西班牙语, 中文, 法文).
func zhLanguage(v string) bool {
	return (strings.HasSuffix(v, "语") || strings.HasSuffix(v, "文")) && len([]rune(v)) <= 5 && !strings.HasSuffix(v, "作文") && !strings.HasSuffix(v, "论文")
}
