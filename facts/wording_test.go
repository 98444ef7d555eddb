package facts

import (
	"slices"
	"testing"
	"time"
)

// TestMonthAloneDates: a month said without its year dates what the
// sentence says happened (the last such month) and what the user is about
// to do (the next), not a goal.
func TestMonthAloneDates(t *testing.T) {
	at := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	cases := []textCase{
		{"I relocated to Denver in January.", "The user lives in Denver (since Jan 2026)."},
		{"I moved to Austin in May.", "The user lives in Austin (since May 2025)."},
		{"I went vegan in December.", "The user is vegan (since Dec 2025)."},
		{"I got married in June.", "The user got married in Jun 2025."},
		{"I ran a marathon in June.", "The user ran a marathon in Jun 2025."},
		// a goal keeps its words; the planned month is not a past date
		{"We're expecting a baby in June.", "The user is expecting a baby in June."},
		// what the user is about to do is dated by its coming month
		{"I'm joining Meta in May.", "The user is joining Meta in May 2026."},
		{"I'm going to join Meta in January.", "The user is going to join Meta in Jan 2027."},
	}
	wantTexts(t, at, cases, false)
	// "may" is a verb unless written as the month
	for _, f := range Extract("I may be moving in may.", Options{At: at}) {
		if f.Dated {
			t.Errorf("dated %q", f.Text)
		}
	}
}

// TestLeftAndJoined: leaving a named place beside a join is a job change,
// and "no longer at" a name ends it wherever it is held; a job said as a
// field is no job title.
func TestLeftAndJoined(t *testing.T) {
	at := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	type want struct {
		attr, value string
		ended       bool
	}
	cases := []struct {
		msg  string
		want []want
	}{
		{"I left Acme and joined Globex.", []want{{"works_at", "Globex", false}}},
		{"I'm no longer at IBM.", []want{{"works_at", "IBM", true}}},
		{"I'm not at Google anymore.", []want{{"works_at", "Google", true}}},
		{"I'm not at Starbucks right now.", nil},
		{"My job is in marketing now.", []want{{"job_title", "marketing", false}}}, // the line of work: "works in marketing"
	}
	for _, c := range cases {
		var got []want
		for _, f := range Extract(c.msg, Options{At: at}) {
			got = append(got, want{f.Attribute, f.Value, f.Ended})
		}
		if len(got) != len(c.want) {
			t.Errorf("%q: got %v, want %v", c.msg, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%q: got %v, want %v", c.msg, got, c.want)
			}
		}
	}
	if fs := Extract("I left Acme and joined Globex.", Options{At: at}); len(fs) == 1 && fs[0].Prior != "Acme" {
		t.Errorf("prior = %q, want Acme", fs[0].Prior)
	}
}

// textCase is a message and a sentence stored for it.
type textCase struct{ msg, text string }

// wantTexts checks that each message stores its sentence: the one fact
// stored, or (among) one of them.
func wantTexts(t *testing.T, at time.Time, cases []textCase, among bool) {
	t.Helper()
	for _, c := range cases {
		got := texts(Extract(c.msg, Options{At: at}))
		if among && !slices.Contains(got, c.text) || !among && !slices.Equal(got, []string{c.text}) {
			t.Errorf("%q: got %v, want %q", c.msg, got, c.text)
		}
	}
}

// wantNone checks that no message stores a fact of attrs (any fact, when
// none are named).
func wantNone(t *testing.T, at time.Time, msgs []string, attrs ...string) {
	t.Helper()
	for _, msg := range msgs {
		for _, f := range Extract(msg, Options{At: at}) {
			if len(attrs) == 0 || slices.Contains(attrs, f.Attribute) {
				t.Errorf("%q: stored %q", msg, f.Text)
			}
		}
	}
}

func texts(fs []Fact) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.Text
	}
	return out
}

// TestEverydayWording: a pet named by a copula, what the user is into, a
// subject or an instrument given up, a pet rehomed, self-employment, and
// a thing moved between tools (no home).
func TestEverydayWording(t *testing.T) {
	at := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	cases := []textCase{
		{"My dog is named Rex.", "The user has a pet dog named Rex."},
		{"My parrot is called Kiwi.", "The user has a pet parrot named Kiwi."},
		{"My cat's name is Luna.", "The user has a pet cat named Luna."},
		{"I'm into rock climbing.", "The user likes rock climbing."},
		{"I gave up on learning Japanese.", "The user no longer studies Japanese."},
		{"I quit learning the piano.", "The user no longer plays piano."},
		{"Sadly we had to rehome our dog.", "The user no longer has a pet dog."},
		{"We gave our cat away.", "The user no longer has a pet cat."},
		{"I'm self-employed now.", "The user is self-employed."},
		{"I moved all my notes from Evernote to Obsidian.", "The user uses Obsidian."},
		{"I loved my trip to Japan.", "The user has been to Japan."},
	}
	wantTexts(t, at, cases, false)
	wantNone(t, at, []string{"We moved our database from MySQL to Postgres.", "I'm not at Starbucks right now.", "My dog is named after my dad.",
		"I'm excited for our trip to Rome in June.", "I'm planning my trip to Peru."}, "lives_in", "pet", "works_at", "visited")
}

// TestWordingZH: 现在 before a verb names no workplace; a switch between
// tools named in Latin letters; 不在X了 ends X wherever it is held.
func TestWordingZH(t *testing.T) {
	at := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	cases := []textCase{
		{"我现在改做产品经理了。", "用户的职业是产品经理。"},
		{"我从Windows换到了Mac。", "用户使用Mac。"},
		{"我已经不在阿里了。", "用户不再在阿里工作。"},
		{"我现在北京出差。", "用户在北京。"},
	}
	wantTexts(t, at, cases, false)
	wantNone(t, at, []string{"我从销售部换到了市场部。", "我已经不在乎了。"})
}

// TestToolKindsAndPartners: everyday tools have kinds (a switch replaces a
// browser with a browser), a return to one is a switch, a subject of two
// keeps its plural verb, and a partner is named after "seeing" or with a
// relative introduced by name.
func TestToolKindsAndPartners(t *testing.T) {
	for v, k := range map[string]string{"Chrome": "browser", "Notion": "notes", "网易云音乐听歌": "music", "Jenkins": "", "Rust": "language"} {
		if got := ValueKind(v); got != k {
			t.Errorf("ValueKind(%q) = %q, want %q", v, got, k)
		}
	}
	at := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	for _, msg := range []string{"I went back to Firefox.", "Chrome was eating my RAM, so I'm back on Firefox."} {
		fs := Extract(msg, Options{At: at})
		if len(fs) != 1 || fs[0].Value != "Firefox" || !fs[0].Replace {
			t.Errorf("%q: got %+v, want a switch back to Firefox", msg, fs)
		}
	}
	if got := ThirdPerson("My boyfriend Jake and I are going hiking."); got != "The user's boyfriend Jake and the user are going hiking." {
		t.Errorf("ThirdPerson: %q", got)
	}
	cases := []struct{ msg, attr, value string }{
		{"I'm seeing someone new, her name is Mia.", "partner", "Mia"},
		{"I've been seeing Mia for a few weeks.", "partner", "Mia"},
		{"I have a new girlfriend, Mia.", "partner", "Mia"},
		{"I have a sister named Ana.", "sister", "Ana"},
		{"I'm seeing Dr. Patel tomorrow.", "partner", ""},
		{"I've been seeing Dr. Patel about my back.", "partner", ""},
	}
	for _, c := range cases {
		got := ""
		for _, f := range Extract(c.msg, Options{At: at}) {
			if f.Attribute == c.attr {
				got = f.Value
			}
		}
		if got != c.value {
			t.Errorf("%q: %s = %q, want %q", c.msg, c.attr, got, c.value)
		}
	}
}

// TestClausesConditionsCounts: a clause without its subject after "but
// now", a condition the user has, and children counted without names.
func TestClausesConditionsCounts(t *testing.T) {
	at := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	cases := []textCase{
		{"I grew up in Nairobi but now live in London.", "The user lives in London."},
		{"I used to work at Oracle but now work at Google.", "The user works at Google."},
		{"I have asthma.", "The user has asthma."},
		{"I've got type 1 diabetes.", "The user has type 1 diabetes."},
		{"I have three kids.", "The user has three kids."},
	}
	wantTexts(t, at, cases, true)
	wantNone(t, at, []string{"I have a cold.", "I have two kids, Sofia and Leo."}, "condition", "children")
}

// TestNumbersLabelsMarriage: a number that is no phone, a labelled value,
// a value said with "now", a marriage by its word, and a drink liked in
// Chinese.
func TestNumbersLabelsMarriage(t *testing.T) {
	at := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	cases := []textCase{
		{"My locker number is 245.", "The user's locker number is 245."},
		{"They moved me, my locker number is now 245.", "The user's locker number is 245."},
		{"My work number is 555-0100.", "The user's work number is 555-0100."},
		{"New email: sam.lee@newmail.io", "The user's email is sam.lee@newmail.io."},
		{"new address: 12 Elm Street", "The user's address is 12 Elm Street."},
		{"Alex and I got married last Saturday!", "The user's spouse is Alex (since 7 Mar 2026)."},
		{"我喜欢喝咖啡。", "用户喝咖啡。"},
	}
	wantTexts(t, at, cases, true)
	if fs := Extract("Update: I got the job!", Options{At: at}); len(fs) != 0 {
		t.Errorf("a label that names no slot: %v", texts(fs))
	}
}

// TestStreetAddress: "I live at" a street address is the address (and the
// city after it, the home).
func TestStreetAddress(t *testing.T) {
	at := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	got := texts(Extract("I live at 42 Wallaby Way, Sydney.", Options{At: at}))
	want := []string{"The user's address is 42 Wallaby Way.", "The user lives in Sydney."}
	if !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := texts(Extract("I live at the end of the road.", Options{At: at})); len(got) != 0 {
		t.Errorf("no address: got %v", got)
	}
}

// TestReachMe: how to reach the user, said in passing, is the phone or
// the e-mail; a time to call is neither.
func TestReachMe(t *testing.T) {
	at := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	cases := []textCase{
		{"You can reach me on 07700 900123 after five.", "The user's phone number is 07700 900123."},
		{"Text me at 555-010-0199 if you're late.", "The user's phone number is 555-010-0199."},
		{"Email me at sam@example.com.", "The user's email is sam@example.com."},
	}
	wantTexts(t, at, cases, false)
	wantNone(t, at, []string{"Please call me at 5pm.", "Call me on Monday."}, "phone")
	topic := ForgetTopic("my address")
	if got := ShapedValue(topic, "Could the parcel go to 221B Baker Street?"); got != "221B Baker Street" {
		t.Errorf("ShapedValue = %q", got)
	}
	if !topic.Shaped() || ForgetTopic("my therapist").Shaped() {
		t.Errorf("Shaped: address %v, therapist %v", topic.Shaped(), ForgetTopic("my therapist").Shaped())
	}
}

// TestEndedAndPeriods: an ended value never reads as if it held; a stay
// of a period that starts later runs from its start; "until March" said
// in March ends with this March.
func TestEndedAndPeriods(t *testing.T) {
	at := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	fs := Extract("I'm no longer allergic to cats, weirdly.", Options{At: at})
	if len(fs) != 1 || !fs[0].Ended || fs[0].Text != "The user is no longer allergic to cats." {
		t.Errorf("allergy ended: %+v", fs)
	}
	if fs := Extract("I'm not allergic to nuts.", Options{At: at}); len(fs) != 0 {
		t.Errorf("no allergy: %v", texts(fs))
	}
	for _, a := range []string{"likes", "speaks", "from", "email", "avoids"} {
		f := Fact{Triple: tripleOf("user", a, "X")}
		f.Ended = true
		if got, pos := render(&f, false), render(&Fact{Triple: tripleOf("user", a, "X")}, false); got == pos {
			t.Errorf("%s ended renders as held: %q", a, got)
		}
	}
	if until, ok := temporary("I'm going to Rome for two weeks in July.", at, nil); !ok || until.Format("2006-01-02") != "2026-07-15" {
		t.Errorf("two weeks in July: %v %v", until, ok)
	}
	if until, ok := temporary("I'm working remotely from Bali until March.", at, nil); !ok || until.Format("2006-01-02") != "2026-04-01" {
		t.Errorf("until March in March: %v %v", until, ok)
	}
	if fs := Extract("I started smoking again.", Options{At: at}); len(fs) != 0 {
		t.Errorf("smoking as a hobby: %v", texts(fs))
	}
}

// TestSchedulesAgesCarsWork: "changed my <schedule> to …" sets that slot
// (a thing changed to another is a switch of its own kind); in Chinese an
// age in numerals is a number, a car is what the user drives (开), and a
// workplace said with what the user does there is the workplace.
func TestSchedulesAgesCarsWork(t *testing.T) {
	at := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	cases := []textCase{
		{"I changed my gym days to Tuesdays and Fridays.", "The user's gym days are Tuesdays and Fridays."},
		{"I changed my standup to 10am.", "The user's standup is 10am."},
		{"I changed my phone to a Pixel.", "The user's phone is a Pixel."},
		{"我今年三十五岁了。", "用户35岁。"},
		{"我开的是特斯拉。", "用户开特斯拉。"},
		{"我换了新工作，在京东做产品。", "用户在京东工作。"},
	}
	wantTexts(t, at, cases, false)
}

// TestUnrealClauses: role play and what others assume or say are not the
// user's statements.
func TestUnrealClauses(t *testing.T) {
	at := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	wantNone(t, at, []string{"Pretend I'm a doctor.", "Imagine I lived in Oslo.", "I hate it when people assume I'm from Texas.",
		"My mom thinks I'm a vegetarian.", "Suppose I moved to Spain, what then?"})
	if fs := Extract("I'm a doctor.", Options{At: at}); len(fs) != 1 {
		t.Errorf("a plain statement: %v", texts(fs))
	}
}

// TestNegatedAndListed: a negated verb states no value as held (it ends
// one when the sentence says so); hobbies are listed one by one; a pet
// named as dying ends by its name; a language the user started speaking.
func TestNegatedAndListed(t *testing.T) {
	at := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	wantTexts(t, at, []textCase{
		{"I don't speak French anymore.", "The user no longer speaks French."},
		{"I've also started speaking some German.", "The user speaks German."},
		{"I stopped running because of my knee.", "The user no longer does running."},
		{"I only play piano now.", "The user plays piano as a hobby."},
		{"I don't play tennis anymore.", "The user no longer plays tennis."},
	}, false)
	if got := texts(Extract("My hobbies are painting and running.", Options{At: at})); !slices.Equal(got, []string{"The user took up painting as a hobby.", "The user took up running as a hobby."}) {
		t.Errorf("hobbies: %v", got)
	}
	wantNone(t, at, []string{"I never visited Japan.", "I don't speak French."}, "visited", "speaks")
	fs := Extract("Rex passed away last week.", Options{At: at})
	if len(fs) != 1 || fs[0].Attribute != "pet" || fs[0].Value != "Rex" || !fs[0].Ended || len(fs[0].Alts) == 0 {
		t.Errorf("named death: %+v", fs)
	}
	if !PetNamed("dog named Rex", "rex") || PetNamed("dog named Rexy", "Rex") {
		t.Errorf("PetNamed")
	}
}

// TestZHListsAndEndings: a Chinese list of values is each value; an ended
// value reads as ended; 不在 before a verb ends what the user was doing.
func TestZHListsAndEndings(t *testing.T) {
	at := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	if got := texts(Extract("我会说英语和法语。", Options{At: at})); !slices.Equal(got, []string{"用户会说英语。", "用户会说法语。"}) {
		t.Errorf("languages: %v", got)
	}
	if got := texts(Extract("我的爱好是画画和跑步。", Options{At: at})); !slices.Equal(got, []string{"用户的爱好是画画。", "用户的爱好是跑步。"}) {
		t.Errorf("hobbies: %v", got)
	}
	wantTexts(t, at, []textCase{
		{"我不是老师了。", "用户的职业不再是老师。"},
		{"我不在学日语了。", "用户不再学日语。"},
	}, false)
}
