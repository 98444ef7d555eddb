package facts

import (
	"strings"
	"testing"
	"time"
)

// TestLanguagesSpoken: a language the user speaks, learned or picked up
// is one more language; foods and places named by a language word are not.
func TestLanguagesSpoken(t *testing.T) {
	at := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	wantTexts(t, at, []textCase{
		{"I've also picked up some Italian this year.", "The user speaks Italian."},
		{"I learned Spanish in school.", "The user speaks Spanish."},
		{"I've learnt a bit of German.", "The user speaks German."},
		{"I'm fluent in French.", "The user speaks French."},
		{"I'm a native Dutch speaker.", "The user speaks Dutch."},
		{"I started learning Korean.", "The user studies Korean."},
		{"I'm learning some Brazilian Portuguese.", "The user studies Portuguese."},
	}, false)
	// one learned "now" adds to the others
	for _, f := range Extract("I can speak a bit of Japanese now.", Options{At: at}) {
		if f.Attribute != "speaks" || f.Value != "Japanese" || f.Replace {
			t.Errorf("got %+v, want speaks Japanese, not replacing", f)
		}
	}
	wantNone(t, at, []string{"I learned French fries are Belgian.", "I picked up Italian food on the way home.", "I learned a lot today."}, "speaks", "studies")
}

// TestNameGoesBy: the name the user asks to be called is the name.
func TestNameGoesBy(t *testing.T) {
	at := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	wantTexts(t, at, []textCase{
		{"Actually I prefer to go by Sasha these days.", "The user's name is Sasha."},
		{"Please call me Sasha from now on.", "The user's name is Sasha."},
		{"You can call me Sam.", "The user's name is Sam."},
		{"I'd like to be called Kim.", "The user's name is Kim."},
	}, false)
	wantNone(t, at, []string{"I hate to call Mike about it.", "My friends call me Sash."}, "name")
}

// TestNamedAfter: a pet or a partner named in the clause or sentence
// right after it ("her name is Luna", "named him Biscuit") is named.
func TestNamedAfter(t *testing.T) {
	at := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	wantTexts(t, at, []textCase{
		{"We got a new kitten, her name is Luna.", "The user has a pet kitten named Luna."},
		{"We adopted a rescue dog and named him Biscuit.", "The user has a pet rescue dog named Biscuit."},
		{"We got a puppy. His name is Rocky.", "The user has a pet puppy named Rocky."},
	}, false)
}

// TestBackIn: back in a place after years elsewhere is home again; back
// in it alone, or for a bounded time, is where the user is.
func TestBackIn(t *testing.T) {
	at := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	type want struct{ attr, value, prior string }
	for msg, w := range map[string]want{
		"I'm back in London after two years in Sydney.": {"lives_in", "London", "Sydney"},
		"We're back home in Lyon for good.":             {"lives_in", "Lyon", ""},
		"I'm back in Rome.":                             {"staying_in", "Rome", ""},
		"I'm back in Rome for the summer.":              {"staying_in", "Rome", ""},
	} {
		fs := Extract(msg, Options{At: at})
		if len(fs) != 1 || fs[0].Attribute != w.attr || fs[0].Value != w.value || fs[0].Prior != w.prior {
			t.Errorf("%q: got %+v, want %v", msg, fs, w)
		}
	}
	wantNone(t, at, []string{"I'm back in the office today.", "I'm back in March."}, "lives_in", "staying_in")
}

// TestZHLineOfWork: the line of work done at a place names the employer;
// 在学校 is a place, not 在学 "learning".
func TestZHLineOfWork(t *testing.T) {
	at := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	wantTexts(t, at, []textCase{
		{"我在腾讯做后端开发。", "用户在腾讯工作。"},
		{"我在银行搞风控。", "用户在银行工作。"},
		{"我在学校做研究工作。", "用户在学校工作。"},
		{"我在学吉他。", "用户的爱好是吉他。"},
	}, false)
	wantNone(t, at, []string{"我在家做饭。"})
}

// TestLastingStayAndToolMoves: having been somewhere since a date is
// living there; moving from one tool to another of its kind is a switch;
// "on a Mac" is a tool of a known kind.
func TestLastingStayAndToolMoves(t *testing.T) {
	at := time.Date(2026, 5, 11, 10, 0, 0, 0, time.UTC)
	type want struct {
		attr, value, prior string
		replace            bool
	}
	for msg, w := range map[string]want{
		"We've been in Denver since March.":       {"lives_in", "Denver", "", false},
		"I've been in Oslo for three years.":      {"lives_in", "Oslo", "", false},
		"I've been in Oslo for two weeks.":        {"staying_in", "Oslo", "", false},
		"I've moved from VS Code to Neovim.":      {"uses", "Neovim", "VS Code", true},
		"I'm on a Mac now.":                       {"uses", "Mac", "", true},
		"I moved from Lisbon to Porto last year.": {"lives_in", "Porto", "Lisbon", false},
	} {
		fs := Extract(msg, Options{At: at})
		if len(fs) != 1 || fs[0].Attribute != w.attr || fs[0].Value != w.value || fs[0].Prior != w.prior || fs[0].Replace != w.replace {
			t.Errorf("%q: got %+v, want %v", msg, fs, w)
		}
	}
}

// TestCorrectionZHSubject: the subject of a Chinese correction is no value.
func TestCorrectionZHSubject(t *testing.T) {
	c, ok := ExtractCorrection("我说错了，我不是28岁，是29岁。")
	if !ok || c.New != "29岁" || c.Old != "28岁" {
		t.Errorf("got %+v %v, want 29岁 for 28岁", c, ok)
	}
}

// TestChangedToAndLeftOut: a slot said to have changed to a value is that
// value now; an employer introduced as "a startup called Zest"; a list a
// tagger reads as verbs; a sentence whose subject, the user, is left out;
// a condition ("if I moved …") states nothing.
func TestChangedToAndLeftOut(t *testing.T) {
	at := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	wantTexts(t, at, []textCase{
		{"My email changed to sam.new@mail.com.", "The user's email is sam.new@mail.com."},
		{"我的邮箱换成了new.li@example.com。", "用户的邮箱是new.li@example.com。"},
		{"I'm now at a startup called Zest.", "The user works at Zest."},
		{"Living in Berlin these days.", "The user lives in Berlin."},
		{"Gave up on Android and got an iPhone 15 Pro.", "The user's phone is an iPhone 15 Pro."},
	}, false)
	wantTexts(t, at, []textCase{
		{"I'm allergic to penicillin and latex.", "The user is allergic to latex."},
		{"I'm allergic to penicillin and latex.", "The user is allergic to penicillin."},
	}, true)
	if got := texts(Extract("I'm allergic to penicillin and need to carry an EpiPen.", Options{At: at})); len(got) != 1 {
		t.Errorf("a verb after the list is no allergy: %v", got)
	}
	wantNone(t, at, []string{"If I moved to Japan, would I need a visa?", "If I moved to Japan I would need a visa.",
		"I'd stay in Leeds unless I move to York."}, "lives_in")
}

// TestNamedPetGone: a pet parted with by its name ends that pet (reconcile
// ends it only where a pet has the name), in English and Chinese.
func TestNamedPetGone(t *testing.T) {
	at := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	for msg, name := range map[string]string{
		"We had to rehome Buddy because of my allergy.": "Buddy",
		"We gave Rex away to my aunt.":                  "Rex",
		"旺财上个月去世了。":                                     "旺财",
		"我们把豆豆送人了。":                                     "豆豆",
	} {
		fs := Extract(msg, Options{At: at})
		if len(fs) == 0 || fs[0].Attribute != "pet" || fs[0].Value != name || !fs[0].Ended {
			t.Errorf("%q: got %+v, want the pet %s ended", msg, fs, name)
		}
	}
	wantNone(t, at, []string{"我爸爸去世了。", "我家的猫丢了。"}, "child", "partner")
	for _, f := range Extract("我家的猫丢了。", Options{At: at}) {
		if f.Value != "猫" {
			t.Errorf("我家的猫丢了: got the value %q, want the kind 猫", f.Value)
		}
	}
}

// TestForgetTopicZHWhere: 我在哪里工作 names the employer's slot.
func TestForgetTopicZHWhere(t *testing.T) {
	tp := ForgetTopic("我在哪里工作")
	if !tp.NamesSlot() {
		t.Errorf("ForgetTopic(我在哪里工作) = %+v names no slot", tp)
	}
}

// TestStandingAndEveryday: a standing instruction to answer in a language
// is a slot (the next one replaces it; a one-off request is none); a
// diagnosis is a condition; a trip come back from is a visit; a list of
// places is each place; a child starting at a school studies there; a
// gym day switched is the gym days; a bicycle named by its brand.
func TestStandingAndEveryday(t *testing.T) {
	at := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	wantTexts(t, at, []textCase{
		{"From now on, answer me in French.", "The user wants replies in French."},
		{"Reply in German from now on.", "The user wants replies in German."},
		{"以后用中文回答我。", "用户希望用中文回复。"},
		{"从现在开始请用英文回复。", "用户希望用英文回复。"},
		{"I was diagnosed with type 2 diabetes last year.", "The user has type 2 diabetes (since 2025)."},
		{"Just got back from a trip to Vietnam!", "The user has been to Vietnam."},
		{"My son started at Roosevelt Middle School.", "The user's son studies at Roosevelt Middle School."},
		{"I switched my gym days to Tuesdays and Fridays.", "The user's gym days are Tuesdays and Fridays."},
		{"I bought a Specialized Sirrus.", "The user rides a Specialized Sirrus."},
		{"I got a new number: 555-0199.", "The user's phone number is 555-0199."},
		{"我现在不喜欢吃辣了。", "用户不喜欢吃辣。"},
	}, false)
	wantTexts(t, at, []textCase{
		{"I've been to Japan and Korea.", "The user has been to Japan."},
		{"I've been to Japan and Korea.", "The user has been to Korea."},
	}, true)
	wantNone(t, at, []string{"Answer in French, please.", "I have a specialized role at work.", "I got back from work late."})
}

// TestForgetsEverything: a forget of everything the user said, by its
// payload or its cue alone; a topic of its own is no forget of all.
func TestForgetsEverything(t *testing.T) {
	for _, c := range []struct {
		payload, msg string
		all          bool
	}{
		{"everything you know about me.", "Please forget everything you know about me.", true},
		{"about me", "Forget everything about me", true},
		{"", "Forget everything.", true},
		{"关于我的一切", "请忘掉关于我的一切。", true},
		{"我的所有信息", "请删除我的所有信息", true},
		{"everything I've told you", "Erase everything I've told you", true},
		{"everything about my divorce", "Forget everything about my divorce", false},
		{"my passport number", "Forget my passport number", false},
		{"all of it", "Forget all of it", false},
		{"", "Forget.", false},
	} {
		if got := ForgetsEverything(c.payload, c.msg); got != c.all {
			t.Errorf("ForgetsEverything(%q, %q) = %v, want %v", c.payload, c.msg, got, c.all)
		}
	}
}

// TestMoreEveryday: a language written is one used; a move said done;
// zh: the partner of 现在的, an age turned at a birthday.
func TestMoreEveryday(t *testing.T) {
	at := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	wantTexts(t, at, []textCase{
		{"I mostly write Go.", "The user uses Go."},
		{"The move to Edinburgh went well.", "The user lives in Edinburgh."},
		{"我现在的男朋友叫张伟。", "用户的男朋友是张伟。"},
		{"我过了三十一岁生日。", "用户31岁。"},
	}, false)
	wantNone(t, at, []string{"The move to Leeds is next month.", "I write Go code reviews."}, "lives_in", "uses")
}

// TestDevicesAndNames: software run on a machine, a laptop said as the
// computer, a value's name, and the kind words a search finds a device by.
func TestDevicesAndNames(t *testing.T) {
	at := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	wantTexts(t, at, []textCase{
		{"My laptop is a MacBook Pro.", "The user's computer is a MacBook Pro."},
	}, false)
	wantTexts(t, at, []textCase{
		{"I'm running Ubuntu now on a ThinkPad.", "The user uses Ubuntu."},
		{"I'm running Ubuntu now on a ThinkPad.", "The user's computer is a ThinkPad."},
	}, true)
	wantNone(t, at, []string{"I'm running late.", "I'm running a marathon in May."}, "uses", "computer")
	for v, name := range map[string]string{"golden retriever named Max": "Max", "狗（名叫旺财）": "旺财", "Python": ""} {
		if got := NameOf(v); got != name {
			t.Errorf("NameOf(%q) = %q, want %q", v, got, name)
		}
	}
	if k := kindWords(&Fact{Triple: tripleOf("user", "computer", "ThinkPad")}); !strings.Contains(k, "laptop") {
		t.Errorf("a computer is not found by laptop: %q", k)
	}
}
