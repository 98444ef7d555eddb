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
		{"My sister Anna lives in Paris.", "sister.lives_in", "Paris"},
		{"My sister moved to Berlin", "sister.lives_in", "Berlin"},
		{"My brother works at IBM", "brother.works_at", "IBM"},
		{"My wife is Maria", "user.partner", "Maria"},
		{"I have a cat named Luna", "user.pet", "cat named Luna"},
		{"I'm 34 years old", "user.age", "34"},
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
		"I quit Acme last week and joined Globex.": "user.works_at",
		"I no longer use Python":                   "user.uses",
		"我从阿里巴巴辞职了":                                "user.works_at",
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
	for _, q := range []string{"I love that you chose pottery.", "I like how it teaches patience.", "I like it when you cook.",
		"I love your turtles so much!", "I use it to speak up.", "I use everything I can find.", "My day was great.",
		"Where do I live?", "What is my name?", "我住在哪里？", "can you explain goroutines", "ok", "Do you think I should move to Spain?",
		"I love my job", "I like to cook"} {
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
	// A future date is not when the value became true.
	fs = extract("I start at Globex next Monday and I live in Rome.")
	for _, f := range fs {
		if f.ValidFrom.After(at) {
			t.Errorf("valid_from in the future: %+v", f)
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
