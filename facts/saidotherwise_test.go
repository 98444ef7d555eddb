package facts

import (
	"strings"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// TestSaidOtherwise: statements the extractor missed for their wording, not
// their meaning — a subject left out before "went back to", a device "used"
// rather than owned, a pet "brought home", a noun the tagger reads as an
// adverb before "now", a home that "has been" home, a move said finished.
func TestSaidOtherwise(t *testing.T) {
	cases := []valueCase{
		{"Went back to the iPhone, the Pixel battery was awful.", "phone_model", "iPhone"},
		{"Went back to my iPhone.", "phone_model", "iPhone"},
		{"Finally went back to Vim.", "uses", "Vim"},
		{"Going back to Paris next week.", "uses", ""},
		{"Going back to Paris next week.", "lives_in", ""},
		{"I use an iPhone.", "phone_model", "iPhone"},
		{"I use a MacBook Pro for work.", "computer", "MacBook Pro"},
		{"I use Vim.", "uses", "Vim"},
		{"I use a standing desk.", "computer", ""},
		{"We just brought home a parrot called Kiwi.", "pet", "parrot named Kiwi"},
		{"I brought home some groceries.", "pet", ""},
		{"I changed careers, I'm a high school teacher now.", "job_title", "high school teacher"},
		{"I'm a teacher now.", "job_title", "teacher"},
		{"I play tennis weekly now.", "plays", "tennis"},
		{"Austin has been home for six years now.", "lives_in", "Austin"},
		{"Lisbon has been our home for the past two years.", "lives_in", "Lisbon"},
		{"Just finished the move up to Seattle. Boxes everywhere.", "lives_in", "Seattle"},
		{"We finally finished moving to Leeds.", "lives_in", "Leeds"},
		{"I finished moving the boxes to the garage.", "lives_in", ""},
		{"Okay, Neovim again. I missed the speed.", "uses", "Neovim"},
		{"Paris again!", "uses", ""},
		{"Moved over to Firefox for the privacy stuff.", "uses", "Firefox"},
		{"Moved over to Firefox for the privacy stuff.", "lives_in", ""},
		{"We moved over to Leeds.", "lives_in", "Leeds"},
		{"Sold the Civic and bought a Tesla.", "car", "Tesla"},
		{"Today, got a puppy named Rex.", "pet", "puppy named Rex"},
	}
	wantLiveValues(t, cases)
}

// TestSubjectlessEnding: a resignation said without "I" ends the employer.
func TestSubjectlessEnding(t *testing.T) {
	for _, msg := range []string{"Handed in my notice at Blue Bottle today, taking a break for a while.", "Resigned from Blue Bottle yesterday."} {
		ended := false
		for _, f := range Extract(msg, Options{At: time.Date(2026, 3, 4, 9, 0, 0, 0, time.UTC)}) {
			if f.Attribute == "works_at" && f.Value == "Blue Bottle" && f.Ended {
				ended = true
			}
		}
		if !ended {
			t.Errorf("%q does not end works_at Blue Bottle", msg)
		}
	}
}

// TestZHLikedActivityIsHobby: 我平时喜欢打羽毛球 is a like found by 爱好.
func TestZHLikedActivityIsHobby(t *testing.T) {
	for _, msg := range []string{"我平时喜欢打羽毛球。", "我周末喜欢爬山。", "我一直很喜欢弹吉他。"} {
		fs := Extract(msg, Options{At: time.Date(2026, 3, 4, 9, 0, 0, 0, time.UTC)})
		if len(fs) != 1 || fs[0].Attribute != "likes" || !strings.Contains(fs[0].Context, "爱好") {
			t.Errorf("%q: %+v, want one like with the context 爱好", msg, fs)
		}
	}
	if fs := Extract("我喜欢吃火锅。", Options{}); len(fs) != 1 || strings.Contains(fs[0].Context, "爱好") {
		t.Errorf("a food liked is no hobby: %+v", fs)
	}
}

// TestForgetTopicHeadedBySlot: "my penicillin allergy" names the allergy
// penicillin (value words before the slot's word), 家庭住址 the home.
func TestForgetTopicHeadedBySlot(t *testing.T) {
	cases := []struct {
		topic string
		tr    memory.Triple
		names bool
	}{
		{"my penicillin allergy", memory.Triple{Subject: "user", Attribute: "allergy", Value: "penicillin"}, true},
		{"my penicillin allergy", memory.Triple{Subject: "user", Attribute: "allergy", Value: "peanuts"}, false},
		{"我的家庭住址", memory.Triple{Subject: "user", Attribute: "lives_in", Value: "朝阳区建国路88号"}, true},
		{"my Honda car", memory.Triple{Subject: "user", Attribute: "car", Value: "Honda Civic"}, true},
		{"my Honda car", memory.Triple{Subject: "user", Attribute: "phone_model", Value: "iPhone"}, false},
	}
	for _, c := range cases {
		if got := ForgetTopic(c.topic).Names(&c.tr) != ""; got != c.names {
			t.Errorf("ForgetTopic(%q).Names(%v) = %v, want %v", c.topic, c.tr, got, c.names)
		}
	}
}

// TestZHConditionStatesNothing: 如果 clauses state nothing; 主要是 is no 要是.
func TestZHConditionStatesNothing(t *testing.T) {
	for _, msg := range []string{"如果我搬到深圳，房租会不会很贵？", "我要是辞职了，你觉得我能找到新工作吗？", "假如我住在上海，通勤要多久？"} {
		if fs := Extract(msg, Options{}); len(fs) != 0 {
			t.Errorf("%q: %+v, want nothing", msg, fs)
		}
	}
	if fs := Extract("我主要是在腾讯做后端开发。", Options{}); len(fs) == 0 {
		t.Errorf("主要是 read as a condition: nothing extracted")
	}
	if fs := Extract("如果下雨我就不去了，不过我住在杭州。", Options{}); len(fs) != 1 || fs[0].Value != "杭州" {
		t.Errorf("the clause after the condition: %+v", fs)
	}
}

// TestZHPromotedAndForgetAll: 我升职了，现在是技术总监 is the job; 把关于我的
// 一切都忘掉吧 forgets everything; an editor used is found by 编辑器.
func TestZHPromotedAndForgetAll(t *testing.T) {
	for _, msg := range []string{"我升职了，现在是技术总监。", "我升职成技术总监了。"} {
		fs := Extract(msg, Options{})
		if len(fs) != 1 || fs[0].Attribute != "job_title" || fs[0].Value != "技术总监" {
			t.Errorf("%q: %+v, want job_title 技术总监", msg, fs)
		}
	}
	if fs := Extract("现在是下午三点。", Options{}); len(fs) != 0 {
		t.Errorf("a time is no job: %+v", fs)
	}
	if !ForgetsEverything("关于我的一切都", "把关于我的一切都忘掉吧。") || !ForgetsEverything("", "请把我的所有都删除") {
		t.Error("a forget of everything about the user not read")
	}
	if fs := Extract("最近改用Cursor了。", Options{}); len(fs) != 1 || !strings.Contains(fs[0].Context, "编辑器") {
		t.Errorf("an editor without its kind's words: %+v", fs)
	}
}

// TestCarSoldByNameAndCommaClause: "Sold the Mazda." ends that car; a
// clause after a comma without its subject states its own fact, dated
// alone; a capitalised word may qualify a company's kind.
func TestCarSoldByNameAndCommaClause(t *testing.T) {
	at := time.Date(2026, 3, 4, 9, 0, 0, 0, time.UTC)
	for _, msg := range []string{"Sold the Mazda.", "I sold the Mazda.", "We got rid of our old Mazda."} {
		fs := Extract(msg, Options{At: at})
		if len(fs) != 1 || fs[0].Attribute != "car" || fs[0].Value != "Mazda" || !fs[0].Ended {
			t.Errorf("%q: %+v, want the car Mazda ended", msg, fs)
		}
	}
	fs := Extract("I grew up in Lyon, been working at Airbus since 2019.", Options{At: at})
	if len(fs) != 2 || fs[0].Text != "The user is from Lyon." || fs[1].Attribute != "works_at" || fs[1].Value != "Airbus" {
		t.Errorf("comma clause: %+v", fs)
	}
	if fs := Extract("I work remotely for a Berlin startup called Kiteworks.", Options{At: at}); len(fs) != 1 || fs[0].Value != "Kiteworks" {
		t.Errorf("a Berlin startup called Kiteworks: %+v", fs)
	}
}

// TestNamedJoinsAndUseFromNowOn: a group or company joined by its name,
// an instrument started, an address the user says to use from now on.
func TestNamedJoinsAndUseFromNowOn(t *testing.T) {
	cases := []valueCase{
		{"I joined a startup called Zest.", "works_at", "Zest"},
		{"I joined a book club called Page Turners.", "member_of", "Page Turners"},
		{"I joined a climbing gym called The Arch.", "member_of", "Arch"},
		{"I also started learning the cello last month.", "plays", "cello"},
		{"Use sam@newdomain.io from now on, the old address is dead.", "email", "sam@newdomain.io"},
		{"Please use 07700 900123 instead.", "phone", "07700 900123"},
		{"Use the back door from now on.", "email", ""},
		{"Thai food is my absolute favourite.", "favorite_food", "Thai food"},
		{"Inception is my all-time favorite movie.", "favorite_movie", "Inception"},
	}
	wantLiveValues(t, cases)
}

// TestSkillsAccumulateWithNow: "now" does not make a new instrument or
// language replace the others; "only" does.
func TestSkillsAccumulateWithNow(t *testing.T) {
	for msg, replace := range map[string]bool{
		"I'm learning how to play the violin now.": false,
		"I sold my guitar, I only play piano now.": true,
	} {
		fs := Extract(msg, Options{})
		if len(fs) == 0 || fs[len(fs)-1].Replace != replace {
			t.Errorf("%q: %+v, want Replace %v", msg, fs, replace)
		}
	}
}

// TestSubjectlessStay: "Staying at a hotel in Denver tonight" is a stay
// that expires, not a home.
func TestSubjectlessStay(t *testing.T) {
	fs := Extract("Staying at a hotel in Denver tonight for a conference.", Options{At: time.Date(2026, 3, 4, 9, 0, 0, 0, time.UTC)})
	if len(fs) != 1 || fs[0].Attribute != "staying_in" || fs[0].Value != "Denver" || fs[0].Expires.IsZero() {
		t.Errorf("%+v, want a stay in Denver that expires", fs)
	}
}

// TestLifeEventNoteWords: a note about a wedding is found by "wedding".
func TestLifeEventNoteWords(t *testing.T) {
	fs := Extract("We're getting married on June 12th in Tuscany!", Options{At: time.Date(2026, 3, 4, 9, 0, 0, 0, time.UTC)})
	if len(fs) != 1 || !fs[0].Note || !strings.Contains(fs[0].Context, "wedding") {
		t.Errorf("%+v, want a note with the search word wedding", fs)
	}
	if w := lifeEventWords("I went hiking with my sister."); w != "" {
		t.Errorf("no life event, got %q", w)
	}
}

// TestNowLivingClause: ", now living in Bristol" after where the user was
// born is the home; 邮箱地址 names the e-mail.
func TestNowLivingClause(t *testing.T) {
	fs := Extract("Born and raised in Cardiff, now living in Bristol.", Options{})
	if len(fs) != 1 || fs[0].Attribute != "lives_in" || fs[0].Value != "Bristol" {
		t.Errorf("%+v, want the home Bristol", fs)
	}
	tr := memory.Triple{Subject: "user", Attribute: "email", Value: "li.ming@example.cn"}
	if ForgetTopic("我的邮箱地址").Names(&tr) == "" {
		t.Error("邮箱地址 does not name the e-mail")
	}
}

// TestPetByBreed: a pet named by its breed is a pet, found by its kind.
func TestPetByBreed(t *testing.T) {
	for msg, want := range map[string]string{
		"We have a beagle named Scout.":          "beagle named Scout",
		"My labrador Bella loves the beach.":     "labrador named Bella",
		"Our corgi, Waffles, just turned three.": "corgi named Waffles",
	} {
		fs := Extract(msg, Options{})
		if len(fs) == 0 || fs[0].Attribute != "pet" || fs[0].Value != want || !strings.Contains(fs[0].Context, "dog") {
			t.Errorf("%q: %+v, want the pet %q found by dog", msg, fs, want)
		}
	}
	if fs := Extract("My lab results came back fine.", Options{}); len(fs) != 0 {
		t.Errorf("lab results: %+v", fs)
	}
}

// valueCase: the live value a message gives an attribute ("" for none).
type valueCase struct{ msg, attr, value string }

func wantLiveValues(t *testing.T, cases []valueCase) {
	t.Helper()
	for _, c := range cases {
		got := ""
		for _, f := range Extract(c.msg, Options{At: time.Date(2026, 3, 4, 9, 0, 0, 0, time.UTC)}) {
			if f.Attribute == c.attr && !f.Ended {
				got = f.Value
			}
		}
		if got != c.value {
			t.Errorf("%q: %s = %q, want %q", c.msg, c.attr, got, c.value)
		}
	}
}

// TestZHPronounIsTheRelative: 他/她 opening a later clause is the relative
// the sentence began with.
func TestZHPronounIsTheRelative(t *testing.T) {
	fs := Extract("我老公叫陈伟，他是律师。", Options{})
	if len(fs) != 2 || fs[1].Subject != "partner" || fs[1].Attribute != "job_title" || fs[1].Value != "律师" {
		t.Errorf("%+v, want the partner's job 律师", fs)
	}
	if fs := Extract("我叫王芳，他是我同事。", Options{}); len(fs) != 1 {
		t.Errorf("no relative named first: %+v", fs)
	}
}

// TestZHPetByBreed: 我家柯基叫馒头 is a dog named 馒头, found by 狗.
func TestZHPetByBreed(t *testing.T) {
	fs := Extract("我家柯基叫馒头。", Options{})
	if len(fs) != 1 || fs[0].Attribute != "pet" || !strings.Contains(fs[0].Value, "馒头") || !strings.Contains(fs[0].Context, "狗") {
		t.Errorf("%+v, want the pet 馒头 found by 狗", fs)
	}
}

// TestWorkingFromOfficeIsAStay: a week at another office is a stay that
// expires, not a home or an employer.
func TestWorkingFromOfficeIsAStay(t *testing.T) {
	fs := Extract("I'm working from our Tokyo office this week.", Options{At: time.Date(2026, 3, 4, 9, 0, 0, 0, time.UTC)})
	if len(fs) != 1 || fs[0].Attribute != "staying_in" || fs[0].Value != "Tokyo" || fs[0].Expires.IsZero() {
		t.Errorf("%+v, want a stay in Tokyo that expires", fs)
	}
	if fs := Extract("I work from our London office.", Options{}); len(fs) != 0 {
		t.Errorf("no period, no stay: %+v", fs)
	}
}

// TestTryingNowIsASwitch: a known tool tried "now" is the one used.
func TestTryingNowIsASwitch(t *testing.T) {
	wantLiveValues(t, []valueCase{
		{"Trying Arc now and honestly loving it.", "uses", "Arc"},
		{"Trying Paris now.", "uses", ""},
	})
}

// TestTemporaryWeeksCounted: "for the next six weeks" is a period too.
func TestTemporaryWeeksCounted(t *testing.T) {
	at := time.Date(2026, 3, 4, 9, 0, 0, 0, time.UTC)
	fs := Extract("I broke my arm, so I'm in a cast for the next six weeks.", Options{At: at})
	if len(fs) != 1 || fs[0].Expires.IsZero() || fs[0].Expires.Before(at.AddDate(0, 0, 40)) {
		t.Errorf("%+v, want a state that expires in six weeks", fs)
	}
}

// TestNoMoreName: "…, no more Nike" ends the named employer (or group).
func TestNoMoreName(t *testing.T) {
	for _, f := range Extract("I went freelance in May, no more Nike.", Options{}) {
		if f.Attribute == "works_at" && f.Value == "Nike" && f.Ended {
			return
		}
	}
	t.Error("no more Nike does not end Nike")
}

// TestDietsSaidOtherwise: halal eaten, a diet dropped in a clause without
// its subject, a Chinese pet named in the same clause.
func TestDietsSaidOtherwise(t *testing.T) {
	wantLiveValues(t, []valueCase{
		{"I only eat halal food.", "diet", "eats halal food"},
		{"我家有一只猫叫橘子。", "pet", "猫（名叫橘子）"},
		{"我有一条裙子。", "pet", ""},
	})
	ended := false
	for _, f := range Extract("I eat some fish now, so not strictly vegan anymore.", Options{}) {
		ended = ended || f.Attribute == "diet" && f.Value == "vegan" && f.Ended
	}
	if !ended {
		t.Error("not strictly vegan anymore does not end vegan")
	}
}

// TestChangesSaidOtherwise: a past-tense verb after a comma, with no
// subject of its own, is the user's too; "as a <job>" after the employer
// of a new job is the job too (not after another's employer, nor for a
// non-job); "not at X anymore, I'm at Y now" is a job change, while
// either half alone names no employer.
func TestChangesSaidOtherwise(t *testing.T) {
	wantLiveValues(t, []valueCase{
		{"I gave up coffee, switched to green tea.", "drinks", "green tea"},
		{"I left Acme in May, joined Globex in June.", "works_at", "Globex"},
		{"I sold the Civic, bought a Tesla Model 3.", "car", "Tesla Model 3"},
		{"My sister left Acme, joined Globex.", "works_at", ""},

		{"I got a new job at Shopify as a backend engineer.", "job_title", "backend engineer"},
		{"I just started at Google as a product manager.", "job_title", "product manager"},
		{"I was hired by Netflix as a data scientist.", "job_title", "data scientist"},
		{"I was hired by Netflix as a data scientist.", "works_at", "Netflix"},
		{"I started at Acme as a favour to my uncle.", "job_title", ""},
		{"My sister started at Google as a nurse.", "job_title", ""},

		{"Not at Acme anymore, I'm at Globex now.", "works_at", "Globex"},
		{"No longer with Deloitte; I'm now with the Boston Consulting Group.", "works_at", "Boston Consulting Group"},
		{"I'm at Globex now.", "works_at", ""},
		{"I'm not at the gym anymore, I'm at home now.", "works_at", ""},
	})
}
