package facts

import (
	"strings"
	"testing"
	"time"
)

var at = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

func extract(s string) []Fact { return Extract(s, Options{At: at}) }

func TestExtract(t *testing.T) {
	cases := []struct{ in, key, value string }{
		{"My name is Alice.", "user.name", "Alice"},
		{"I'm Jane.", "user.name", "Jane"},
		{"Call me Bob", "user.name", "Bob"},
		{"I live in Berlin", "user.lives_in", "Berlin"},
		{"I've been living in New York City since 2019", "user.lives_in", "New York City"},
		{"I moved to Lisbon last month", "user.lives_in", "Lisbon"},
		{"I moved from Berlin to Lisbon last month.", "user.lives_in", "Lisbon"},
		{"I'm based in Toronto these days", "user.lives_in", "Toronto"},
		{"I work at Acme Corp", "user.works_at", "Acme Corp"},
		{"I quit Acme last week and joined Globex.", "user.works_at", "Globex"},
		{"I got a new job at Stripe", "user.works_at", "Stripe"},
		{"I'm a data scientist at Spotify", "user.job_title", "data scientist"},
		{"I'm a data scientist at Spotify", "user.works_at", "Spotify"},
		{"I work as a nurse", "user.job_title", "nurse"},
		{"I use Python for everything at work", "user.uses", "Python"},
		{"I also use Go.", "user.uses", "Go"},
		{"I switched to Rust for all my work projects", "user.uses", "Rust"},
		{"I really like jazz", "user.likes", "jazz"},
		{"I like window seats when I fly.", "user.likes", "window seats"},
		{"I can't stand cilantro", "user.dislikes", "cilantro"},
		{"I'm vegan now.", "user.diet", "vegan"},
		{"I am allergic to peanuts", "user.allergy", "peanuts"},
		{"My favorite color is blue", "user.favorite_color", "blue"},
		{"My email is jane.doe@example.com", "user.email", "jane.doe@example.com"},
		{"my phone number is +1 415 555 0100", "user.phone", "+1 415 555 0100"},
		{"my dentist is Dr. Okafor", "user.dentist", "Dr. Okafor"},
		{"My sister Anna lives in Paris.", "user.sister", "Anna"},
		{"My sister Anna lives in Paris.", "Anna.lives_in", "Paris"}, // keyed by the name: a user may have two sisters,
		{"My sister moved to Berlin", "sister.lives_in", "Berlin"},
		{"My brother works at IBM", "brother.works_at", "IBM"},
		{"My wife is Maria", "user.partner", "Maria"},
		{"I have a cat named Luna", "user.pet", "cat named Luna"},
		{"I'm 34 years old", "user.age", "34"},
		// Possessives and abbreviations inside a name stay whole.
		{"I started at St. Mary's Hospital as a porter this week.", "user.works_at", "St. Mary's Hospital"},
		{"I work at McDonald's.", "user.works_at", "McDonald's"},
		{"My wife works at Trader Joe's in Austin.", "partner.works_at", "Trader Joe's"},
		{"I just started at Children's Hospital of Philadelphia.", "user.works_at", "Children's Hospital of Philadelphia"},
		{"I'm a nurse at St Thomas' Hospital.", "user.works_at", "St Thomas' Hospital"},
		{"I moved to St. Louis last year.", "user.lives_in", "St. Louis"},
		{"I like Anna's cooking.", "user.likes", "Anna's cooking"},
		// Products named as what the user wears, runs in, rides.
		{"I run in Brooks Ghost shoes.", "user.uses", "Brooks Ghost shoes"},
		{"I wear Nike Pegasus for running.", "user.uses", "Nike Pegasus"},
		{"I ride a Trek Domane to work.", "user.uses", "Trek Domane"},
		{"I only run in Hoka Cliftons these days.", "user.uses", "Hoka Cliftons"},
		{"I don't live in Leeds anymore, I'm in Bristol now, closer to my parents.", "user.lives_in", "Bristol"},
		{"I no longer eat meat, I went vegetarian in January.", "user.diet", "vegetarian"},
		{"I got promoted to senior designer!", "user.job_title", "senior designer"},
		{"I've been promoted to team lead.", "user.job_title", "team lead"},
		{"I don't drink coffee anymore, only green tea.", "user.drinks", "green tea"},
		{"I stopped using Notion, just Obsidian now.", "user.uses", "Obsidian"},
		{"I stopped eating gluten.", "user.avoids", "gluten"},
		{"I quit sugar.", "user.avoids", "sugar"},
		{"I was born in Lyon.", "user.from", "Lyon"},
		{"My birthday's March 3rd.", "user.birthday", "March 3rd"},
		{"I was born on 3 March 1990.", "user.birthday", "3 March 1990"},
		{"I start my new job at Shopify on Monday.", "user.works_at", "Shopify"},
		{"I'm starting at Stripe next month.", "user.works_at", "Stripe"},
		{"We're settled in Porto now.", "user.lives_in", "Porto"},
		{"I'm working from Lisbon for the next two weeks.", "user.staying_in", "Lisbon"},
		{"My mom's a teacher.", "mother.job_title", "teacher"},
		{"My son's 12.", "son.age", "12"},
		{"我姐姐在伦敦读书。", "sister.studies_at", "伦敦"},
		{"我最近开始学吉他了。", "user.activity", "吉他"},
		{"我不久前搬到了苏州。", "user.lives_in", "苏州"},
		{"I've moved in with my boyfriend in Camden.", "user.lives_in", "Camden"},
		{"Starting Monday I'll be working at Deutsche Bank.", "user.works_at", "Deutsche Bank"},
		{"I go by Alex.", "user.name", "Alex"},
		{"I switched jobs, I'm at Netflix now.", "user.works_at", "Netflix"},
		{"We bought a house in Leith.", "user.lives_in", "Leith"},
		{"I've got a new puppy, a corgi called Biscuit.", "user.pet", "puppy named Biscuit"},
		{"My flight got moved to Thursday.", "user.flight", "Thursday"},
		{"My dentist appointment has been pushed back to 4pm.", "user.dentist_appointment", "4pm"},
		{"我转行做了老师。", "user.job_title", "老师"},
		{"我搬回了老家成都。", "user.lives_in", "成都"},
		{"我不吃辣。", "user.avoids", "辣"},
		{"我老婆是护士。", "partner.job_title", "护士"},
		{"我的新手机是iPhone 15。", "user.phone_model", "iPhone 15"},
		{"I don't drink beer anymore, just water with dinner.", "user.drinks", "water"},
		{"I'm a trader at Barclays.", "user.works_at", "Barclays"},
		{"I've lived in Rome since 2019.", "user.lives_in", "Rome"},
		{"I'm retired now.", "user.job_title", "retired"},
		{"I'm learning Korean.", "user.studies", "Korean"},
		{"My sister and I both live in Porto.", "user.lives_in", "Porto"},
		{"My sister is in Porto this week.", "sister.staying_in", "Porto"},
		{"我叫小明", "user.name", "小明"},
		{"我住在上海", "user.lives_in", "上海"},
		{"我搬到北京了", "user.lives_in", "北京"},
		{"我上个月从北京搬到上海了", "user.lives_in", "上海"},
		{"我在腾讯工作", "user.works_at", "腾讯"},
		{"我现在在腾讯工作", "user.works_at", "腾讯"},
		{"我喜欢爬山", "user.likes", "爬山"},
		{"我是程序员", "user.job_title", "程序员"},
		{"我今年28岁", "user.age", "28"},
		{"我妹妹搬到柏林了", "sister.lives_in", "柏林"},
		{"我改用Rust了", "user.uses", "Rust"},
		{"我现在吃素", "user.diet", "吃素"},
		{"We have two kids, Sofia and Leo.", "user.child", "Leo"},
		{"Our third baby, Lina, was born yesterday!", "user.child", "Lina"},
		{"My daughter is 7 and loves dinosaurs.", "daughter.age", "7"},
		{"My grandma lives in Seville.", "grandparent.lives_in", "Seville"},
		{"My cousin Marta works at Siemens.", "Marta.works_at", "Siemens"}, // keyed by the name: a user has several cousins,
		{"Our dog Biscuit is a beagle.", "user.pet", "dog named Biscuit"},
		{"Anna is my manager.", "user.boss", "Anna"},
		{"Ethiopian food is my new favourite.", "user.favorite_food", "Ethiopian food"},
		{"I drive a 2015 Honda Civic.", "user.car", "2015 Honda Civic"},
		{"Sold the Civic and bought a Tesla Model 3 last week.", "user.car", "Tesla Model 3"},
		{"I've got an Android phone, a Pixel 7.", "user.phone_model", "Pixel 7"},
		{"I go to the gym on Mondays and Wednesdays.", "user.gym_days", "Mondays and Wednesdays"},
		{"I moved my gym days to Tuesdays and Thursdays.", "user.gym_days", "Tuesdays and Thursdays"},
		{"I'm on Pacific time.", "user.timezone", "Pacific time"},
		{"I'm studying law at Edinburgh.", "user.studies", "law"},
		{"First week at Brightwave as a product manager!", "user.works_at", "Brightwave"},
		{"My doctor told me to cut out gluten.", "user.avoids", "gluten"},
		{"I'm back to being vegetarian.", "user.diet", "vegetarian"},
		{"I'm in Tokyo this week for a conference, any ramen tips?", "user.staying_in", "Tokyo"},
		{"我在广州生活。", "user.lives_in", "广州"},
		{"我是一名中学老师，教数学。", "user.job_title", "中学老师"},
		{"我在美团做产品经理。", "user.works_at", "美团"},
		{"我又换工作了，现在在小米。", "user.works_at", "小米"},
		{"我用的是华为手机。", "user.phone_model", "华为"},
		{"我也会说一点日语。", "user.speaks", "日语"},
		{"Java是我工作的主力语言。", "user.uses", "Java"},
		{"最近工作上都用Rust。", "user.uses", "Rust"},
		{"我养了一只猫，叫咪咪。", "user.pet", "猫（名叫咪咪）"},
		{"我的牙医是王医生。", "user.牙医", "王医生"},
		{"我的工作邮箱是li.wei@example.cn。", "user.email", "li.wei@example.cn"},
		{"I rent a room in a shared flat in Manchester, near Piccadilly.", "user.lives_in", "Manchester"},
		{"I handed in my notice at Crumb & Co and started at Brightwave this week.", "user.works_at", "Brightwave"},
		{"I'm on a keto diet, so no bread or pasta for me.", "user.diet", "keto"},
		{"我从这个月开始吃纯素了。", "user.diet", "吃纯素"},
		{"我和同学的聚会在周三晚上。", "user.聚会", "周三晚上"},
		{"我家的狗叫豆豆，三岁了。", "user.pet", "狗（名叫豆豆）"},
		{"我们家的小狗名叫旺财。", "user.pet", "狗（名叫旺财）"},
	}
	for _, c := range cases {
		fs := extract(c.in)
		found := false
		for _, f := range fs {
			if f.Key() == c.key && f.Value == c.value && !f.Ended {
				found = true
			}
		}
		if !found {
			t.Errorf("Extract(%q) = %+v, want %s = %q", c.in, fs, c.key, c.value)
		}
	}
}

func TestExtractEnded(t *testing.T) {
	for in, key := range map[string]string{
		"I quit Acme last week and joined Globex.":       "user.works_at",
		"I no longer use Python":                         "user.uses",
		"我从阿里巴巴辞职了":                                      "user.works_at",
		"I handed in my notice at Crumb & Co.":           "user.works_at",
		"I'm not doing keto anymore, I eat carbs again.": "user.diet",
		"I don't run in Brooks anymore.":                 "user.uses",
		"I don't drink coffee anymore, only green tea.":  "user.drinks",
		"I gave up coffee last month.":                   "user.drinks",
		"I stopped using Notion.":                        "user.uses",
		"我不住在杭州了。":                                       "user.lives_in",
		"我已经不在腾讯上班了。":                                    "user.works_at",
		"我没在华为工作了。":                                      "user.works_at",
		"I've quit drinking.":                            "user.drinks",
		"I got laid off from Meta.":                      "user.works_at",
		"I was let go by Amazon last week.":              "user.works_at",
		"我已经不养狗了。":                                       "user.pet",
	} {
		ok := false
		for _, f := range extract(in) {
			ok = ok || f.Ended && f.Key() == key
		}
		if !ok {
			t.Errorf("Extract(%q) = %+v: want an ended %s", in, extract(in), key)
		}
	}
}

// Clauses, pronouns, the other party's things and questions are no facts
// about the user; a fact never keeps a first-person word or loses its value.
func TestExtractRejects(t *testing.T) {
	for _, q := range []string{"我已经不在腾讯上班了，在家带孩子。"} {
		for _, f := range extract(q) {
			if f.Attribute == "works_at" && !f.Ended {
				t.Errorf("Extract(%q) = %+v: 在家 is no employer", q, f)
			}
		}
	}
	for _, q := range []string{"I love that you chose pottery.", "I like how it teaches patience.", "I like it when you cook.",
		"I love your turtles so much!", "I use it to speak up.", "I use everything I can find.", "My day was great.",
		"Where do I live?", "What is my name?", "我住在哪里？", "can you explain goroutines", "ok", "Do you think I should move to Spain?",
		"I love my job", "I like to cook", "I moved in March.", "I'm at Starbucks.", "I lived in Rome as a kid.", "I run a bakery.", "I run the Boston Marathon every year.", "I wear glasses.",
		"同学聚会是哪天？", "我妈妈的生日是几号"} {
		for _, f := range extract(q) {
			if f.Attribute == "likes" || f.Attribute == "uses" || f.Attribute == "works_at" || f.Attribute == "lives_in" || f.Open {
				t.Errorf("Extract(%q) = %+v, want no %s fact", q, f, f.Key())
			}
		}
	}
	for _, in := range []string{"I like window seats when I fly.", "My email is jane@example.com.", "I use Python for everything",
		"I switched to Rust for all my work projects", "I moved from Berlin to Lisbon last month."} {
		for _, f := range extract(in) {
			low := " " + strings.ToLower(f.Text) + " "
			for _, w := range []string{" i ", " my ", " me ", " everything ", " all "} {
				if strings.Contains(low, w) {
					t.Errorf("Extract(%q) text %q keeps %q", in, f.Text, w)
				}
			}
			if f.Attribute == "email" && f.Value != "jane@example.com" {
				t.Errorf("email lost its value: %q", f.Value)
			}
		}
	}
}

func TestExtractText(t *testing.T) {
	cases := map[string]string{
		"我住在上海，在一家银行工作。": "用户住在上海。",
		"我叫小明。":                                     "用户叫小明。",
		"I live in Berlin now.":                     "The user lives in Berlin.",
		"I moved from Berlin to Lisbon last month.": "The user lives in Lisbon (since Feb 2026).",
		"I'm vegan now.":                            "The user is vegan.",
		"My sister moved to Berlin":                 "The user's sister lives in Berlin.",
		"I like window seats when I fly.":           "The user likes window seats.",
	}
	for in, want := range cases {
		fs := extract(in)
		if len(fs) == 0 || fs[0].Text != want {
			t.Errorf("Extract(%q) = %+v, want first fact %q", in, fs, want)
		}
	}
}

func TestExtractDates(t *testing.T) {
	fs := extract("I moved from Berlin to Lisbon last month.")
	if len(fs) != 1 || !fs[0].Dated || fs[0].ValidFrom.Format("2006-01") != "2026-02" || fs[0].Prior != "Berlin" {
		t.Fatalf("%+v", fs)
	}
	fs = extract("I live in Berlin.")
	if len(fs) != 1 || fs[0].Dated || !fs[0].ValidFrom.Equal(at) {
		t.Fatalf("undated fact: %+v", fs)
	}
	// A future date is not when a value became true, except for a start:
	// the new employer is the employer from the day the user starts.
	fs = extract("I start at Globex next Monday and I live in Rome.")
	for _, f := range fs {
		switch {
		case f.Attribute == "works_at" && (!f.Dated || !f.ValidFrom.After(at) || f.ValidFrom.Weekday() != time.Monday):
			t.Errorf("a start next Monday: %+v", f)
		case f.Attribute != "works_at" && f.ValidFrom.After(at):
			t.Errorf("valid_from in the future: %+v", f)
		}
	}
	// A bare weekday dates a start too: "Monday I start at Hooli".
	for _, msg := range []string{"Monday I start at Hooli.", "I start at Hooli on Thursday."} {
		n := 0
		for _, f := range extract(msg) {
			if f.Attribute == "works_at" {
				n++
				if !f.Dated || !f.ValidFrom.After(at) || !strings.Contains(f.Text, "(starting ") {
					t.Errorf("%q: a start said ahead is not dated ahead: %+v", msg, f)
				}
			}
		}
		if n != 1 {
			t.Errorf("%q: %d employers, want 1", msg, n)
		}
	}
	// Without a start, a future date in the sentence dates nothing.
	for _, msg := range []string{"I'm flying to Madrid on Monday and I work at Globex.", "I work at Globex, see you next Monday."} {
		for _, f := range extract(msg) {
			if f.ValidFrom.After(at) {
				t.Errorf("%q: valid_from in the future: %+v", msg, f)
			}
		}
	}
}

func TestChangeCue(t *testing.T) {
	for _, s := range []string{"I switched to Rust", "I'm vegan now", "我现在住在上海", "I moved to Lisbon"} {
		if !HasChangeCue(s, nil) {
			t.Errorf("HasChangeCue(%q) = false", s)
		}
	}
	for _, s := range []string{"I live in New York", "I know it", "snowboarding"} {
		if HasChangeCue(s, nil) {
			t.Errorf("HasChangeCue(%q) = true", s)
		}
	}
}

// Nothing of these is a fact of the user's: a compound word with 用, a
// pet's name, a business trip.
func TestExtractNotFacts(t *testing.T) {
	for in, key := range map[string]string{
		"调用接口总是报401错误。":                             "user.uses",
		"我养了一只猫，叫咪咪。":                               "user.name",
		"我这周在东京出差，住在新宿。":                            "user.lives_in",
		"I'm in Tokyo this week for a conference.":  "user.lives_in",
		"My wife just started a new job at Google.": "user.works_at",
	} {
		for _, f := range extract(in) {
			if f.Key() == key {
				t.Errorf("Extract(%q) has %s = %q", in, key, f.Value)
			}
		}
	}
}

func TestTemporaryExpires(t *testing.T) {
	for in, days := range map[string]int{
		"I'm in Tokyo this week for a conference.":        6, // at is a Tuesday: next Monday
		"I've got a bad cold today.":                      1,
		"我这几天感冒了，嗓子特别疼。":                                  3,
		"I'm working from Lisbon for the next two weeks.": 14,
		"我这两周在深圳出差。":                                      14,
		"我这个月在上海培训。":                                      22, // to 1 Apr
	} {
		fs := extract(in)
		if len(fs) != 1 || fs[0].Expires.IsZero() {
			t.Errorf("Extract(%q) = %+v: want one expiring memory", in, fs)
			continue
		}
		day := time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, time.UTC)
		if want := day.AddDate(0, 0, days); !fs[0].Expires.Equal(want) {
			t.Errorf("Extract(%q) expires %v, want %v", in, fs[0].Expires, want)
		}
	}
}

func TestValueDatesResolved(t *testing.T) {
	at := time.Date(2026, 5, 4, 12, 0, 0, 0, time.UTC)
	for in, want := range map[string]string{
		"My knee surgery is in two weeks.":  "18 May 2026",
		"My flight to Rome is next Friday.": "15 May 2026", // at is a Monday: the Friday of next week
	} {
		fs := Extract(in, Options{At: at})
		if len(fs) == 0 || !strings.Contains(fs[0].Text, want) || strings.Contains(fs[0].Text, "week") && !strings.Contains(fs[0].Text, "week of") {
			t.Errorf("Extract(%q) = %+v, want a text naming %s", in, fs, want)
		}
	}
}

func TestKindOf(t *testing.T) {
	for _, c := range []struct {
		v, k string
		want bool
	}{
		{"dog named Rex", "dog", true}, {"狗（名叫旺财）", "狗", true}, {"Dog named Rex", "dog", true},
		{"dog", "dog", false}, {"doghouse", "dog", false}, {"cat named Rex", "dog", false}, {"dog named Rex", "", false},
	} {
		if got := KindOf(c.v, c.k); got != c.want {
			t.Errorf("KindOf(%q, %q) = %v, want %v", c.v, c.k, got, c.want)
		}
	}
}
