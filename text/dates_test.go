package text

import (
	"testing"
	"time"
)

func TestResolveDates(t *testing.T) {
	at := time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC) // a Tuesday
	cases := []struct{ in, want string }{
		{"I went hiking yesterday", "9 Mar 2026"},
		{"We met last night.", "9 Mar 2026"},
		{"the day before yesterday it rained", "8 Mar 2026"},
		{"I fly tomorrow", "11 Mar 2026"},
		{"I moved last month", "Feb 2026"},
		{"Last week was busy", "the week of 2 Mar 2026"},
		{"next Friday is the party", "20 Mar 2026"},
		{"this Friday is the party", "13 Mar 2026"},
		{"the party is this coming Friday", "13 Mar 2026"},
		{"Next Friday is the party", "20 Mar 2026"},
		{"next Wednesday works", "18 Mar 2026"},
		{"next Sunday works", "22 Mar 2026"},
		{"next Monday works", "16 Mar 2026"},
		{"last Friday we met", "6 Mar 2026"},
		{"last Tuesday we met", "3 Mar 2026"},
		{"two days ago I quit", "8 Mar 2026"},
		{"3 weeks ago", "17 Feb 2026"},
		{"in two days", "12 Mar 2026"},
		{"last year I lived in Rome", "2025"},
		{"a couple of months ago", "Jan 2026"},
		{"last weekend we hiked", "the weekend of 7 Mar 2026"},
		{"昨天我去了公园", "9 Mar 2026"},
		{"我上个月从北京搬到上海了", "Feb 2026"},
		{"下周五开会", "20 Mar 2026"},
		{"上周五见过", "6 Mar 2026"},
		{"去年我在东京", "2025"},
		{"三天前", "7 Mar 2026"},
		{"上周很忙", "the week of 2 Mar 2026"},
		{"我们下下周去三亚", "the week of 23 Mar 2026"},
		{"上上周见过他", "the week of 23 Feb 2026"},
		{"下下个月搬家", "May 2026"},
		{"大后天出发", "13 Mar 2026"},
		{"下下周三开会", "25 Mar 2026"},
		{"we leave the week after next", "the week of 23 Mar 2026"},
	}
	for _, c := range cases {
		refs := ResolveDates(c.in, at, nil)
		if len(refs) != 1 {
			t.Errorf("%q: %d refs %+v", c.in, len(refs), refs)
			continue
		}
		if got := refs[0].Format(); got != c.want {
			t.Errorf("%q = %q, want %q", c.in, got, c.want)
		}
	}
	for _, s := range []string{"I like Fridays", "on Friday", "every day", "the monthly report", "my birthday is in May"} {
		if refs := ResolveDates(s, at, nil); len(refs) != 0 {
			t.Errorf("%q resolved %+v", s, refs)
		}
	}
}

func TestResolveDatesZone(t *testing.T) {
	at := time.Date(2026, 3, 10, 23, 30, 0, 0, time.UTC) // already 11 Mar in Tokyo
	tokyo := time.FixedZone("JST", 9*3600)
	if got := ResolveDates("yesterday", at, tokyo)[0].Format(); got != "10 Mar 2026" {
		t.Errorf("Tokyo yesterday = %s", got)
	}
	if got := ResolveDates("yesterday", at, nil)[0].Format(); got != "9 Mar 2026" {
		t.Errorf("UTC yesterday = %s", got)
	}
}

func TestAnnotateDates(t *testing.T) {
	at := time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC)
	got := AnnotateDates("I went hiking yesterday and fly next Friday.", at, nil)
	if want := "I went hiking yesterday (9 Mar 2026) and fly next Friday (20 Mar 2026)."; got != want {
		t.Errorf("got %q", got)
	}
	if s := "nothing here"; AnnotateDates(s, at, nil) != s {
		t.Error("changed a text without dates")
	}
}

func TestSentencesAndQuestions(t *testing.T) {
	ss := Sentences("My email is jane.doe@example.com. I paid 3.5 euros! Where do I live?")
	if len(ss) != 3 || ss[0] != "My email is jane.doe@example.com." {
		t.Fatalf("Sentences = %q", ss)
	}
	if !IsQuestion(ss[2]) || IsQuestion(ss[1]) {
		t.Error("question detection")
	}
	for _, m := range []string{"Where do I live?", "What's my sister's name? Thanks!", "我住在哪里", "Do you remember my dog"} {
		if !OnlyAsks(m) {
			t.Errorf("OnlyAsks(%q) = false", m)
		}
	}
	// Chinese questions, with or without a question mark.
	for _, m := range []string{"同学聚会是哪天？", "同学聚会是哪天", "我妈妈的生日是几号", "我下周三有没有安排", "你还记得我女儿几岁吗",
		"我是否说过我对花生过敏", "我的牙医叫啥", "我住在哪儿呢。", "我的航班是星期几"} {
		if !OnlyAsks(m) {
			t.Errorf("OnlyAsks(%q) = false", m)
		}
	}
	for _, m := range []string{"I live in Lisbon. Where is a good cafe?", "", "Thanks!", "我住在上海。", "我什么都吃，就是不吃香菜。",
		"哪怕下雨我也去跑步。", "我妹妹住在波尔图。"} {
		if OnlyAsks(m) {
			t.Errorf("OnlyAsks(%q) = true", m)
		}
	}
}

// TestDayOfMonthAlone: a day said alone of what is to come ("is on the
// 21st", "due by the 3rd") is the next such day; said of the past ("I got
// back on the 3rd") it is left alone, the month being unknown.
func TestDayOfMonthAlone(t *testing.T) {
	at := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	for in, want := range map[string]string{
		"My car's MOT is on the 21st.":     "My car's MOT is on the 21st (21 Mar 2026).",
		"The rent is due by the 3rd.":      "The rent is due by the 3rd (3 Apr 2026).",
		"It's on the 11th.":                "It's on the 11th (11 Mar 2026).",
		"I got back on the 3rd.":           "I got back on the 3rd.",
		"for the 2nd time":                 "for the 2nd time",
		"My flight is on the 14th of May.": "My flight is on the 14th of May.",
		"It's on the 3rd March.":           "It's on the 3rd March.",
	} {
		if got := AnnotateDates(in, at, nil); got != want {
			t.Errorf("AnnotateDates(%q) = %q, want %q", in, got, want)
		}
	}
	// 31 in a month of 30 days is the next month that has one
	if got := AnnotateDates("It's due by the 31st.", time.Date(2026, 4, 2, 0, 0, 0, 0, time.UTC), nil); got != "It's due by the 31st (31 May 2026)." {
		t.Errorf("got %q", got)
	}
}

// BenchmarkResolveDates reads everyday messages, most naming no date, as
// ingest does for every event.
func BenchmarkResolveDates(b *testing.B) {
	msgs := []string{
		"I went hiking with my sister yesterday and we saw a bear near the lake.",
		"My birthday party is next Saturday, I'm so excited about it!",
		"Can you recommend a good book about the history of Rome?",
		"I've been learning to play the guitar for about two years now.",
		"The meeting with my manager is scheduled for the 14th.",
		"We adopted a puppy last week, her name is Luna.",
		"What do you think about switching my morning coffee to green tea?",
		"我昨天去了公园，今天有点累。",
	}
	at := time.Date(2024, 5, 8, 12, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		ResolveDates(msgs[i%len(msgs)], at, nil)
	}
}
