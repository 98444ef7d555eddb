package background

import (
	"strings"
	"testing"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
)

func TestExtractFacts(t *testing.T) {
	cases := []struct {
		in, key, obj string
	}{
		{"My name is Alice.", "user.name", "alice"},
		{"I live in Berlin", "user.location", "berlin"},
		{"I moved to Lisbon last month", "user.location", "lisbon"},
		{"I work at Acme Corp", "user.employer", "acme corp"},
		{"I'm a data scientist", "user.occupation", "data scientist"},
		{"I use Python for everything", "user.uses", "python"},
		{"I really like jazz", "user.likes", "jazz"},
		{"My favorite color is blue", "user.favorite_color", "blue"},
		{"My sister moved to Berlin", "sister.location", "berlin"},
		{"I'm 34 years old", "user.age", "34"},
		{"我叫小明", "user.name", "小明"},
		{"我住在上海", "user.location", "上海"},
		{"我搬到北京了", "user.location", "北京"},
		{"我在腾讯工作", "user.employer", "腾讯"},
		{"我喜欢爬山", "user.likes", "爬山"},
		{"我是程序员", "user.occupation", "程序员"},
		{"我今年28岁", "user.age", "28"},
		{"我妹妹搬到柏林了", "sister.location", "柏林"},
		{"Last weekend I joined a mentorship program", "user.member_of", "mentorship program"},
	}
	for _, c := range cases {
		fs := ExtractFacts(c.in, nil)
		found := false
		for _, f := range fs {
			if f.Key == c.key && f.Object == c.obj {
				found = true
			}
		}
		if !found {
			t.Errorf("ExtractFacts(%q) = %+v, want key %s object %q", c.in, fs, c.key, c.obj)
		}
	}
	// Clauses, pronouns and the other party's things are not facts about
	// the user; joining a group is not employment.
	for _, q := range []string{"I love that you chose pottery.", "I like how it teaches patience.", "I like it when you cook.",
		"I love your turtles so much!", "I use it to speak up.", "I joined a travel club."} {
		for _, f := range ExtractFacts(q, nil) {
			if f.Key == "user.likes" || f.Key == "user.uses" || f.Key == "user.employer" {
				t.Errorf("ExtractFacts(%q) = %+v, want no %s fact", q, f, f.Key)
			}
		}
	}
	for _, q := range []string{"Where do I live?", "What is my name?", "我住在哪里？", "can you explain goroutines", "ok"} {
		if fs := ExtractFacts(q, nil); len(fs) != 0 {
			t.Errorf("ExtractFacts(%q) = %+v, want none", q, fs)
		}
	}
}

// contradictionPairs: the second statement replaces the first. Shared with
// the store-backed reconcile tests.
var contradictionPairs = [][2]string{
	{"I use Python for everything", "I switched to Rust"},
	{"I live in Berlin", "I moved to Paris"},
	{"I work at Google", "I now work at Microsoft"},
	{"My name is Bob", "Call me Robert"},
	{"I'm a teacher", "I'm now a software engineer"},
	{"I like coffee", "I no longer like coffee, I like tea instead"},
	{"My favorite color is blue", "My favorite color is green now"},
	{"I live in New York", "I relocated to Boston"},
	{"I use Vim", "I switched to Emacs"},
	{"I'm 30 years old", "I'm 31 years old"},
	{"My budget is 500 dollars", "My budget is 800 dollars now"},
	{"I work as a nurse", "I work as a doctor now"},
	{"我住在上海", "我搬到北京了"},
	{"我叫小明", "我的名字是大明"},
	{"我在腾讯工作", "我现在在阿里巴巴工作"},
	{"我用Java", "我改用Go了"},
	{"我是学生", "我现在是工程师"},
	{"我今年28岁", "我今年29岁"},
	{"我喜欢咖啡", "我现在喜欢茶"},
	{"我最喜欢的颜色是蓝色", "我最喜欢的颜色是绿色"},
	{"我住在广州", "我已经搬到深圳了"},
	{"My sister lives in Rome", "My sister moved to Berlin"},
}

// nonContradictions: the second statement adds to the first.
var nonContradictions = [][2]string{
	{"I use Python for everything", "I also use Go"},
	{"I live in Berlin", "My sister moved to Berlin"},
	{"I like jazz", "I like hiking"},
	{"I work at Google", "My wife works at Apple"},
	{"I use Vim", "I love sushi"},
	{"我住在上海", "我妹妹搬到北京了"},
	{"我喜欢爬山", "我喜欢游泳"},
	{"我用Python", "我也用Go"},
	{"My name is Alice", "My dog's name is Rex"},
	{"I live in Tokyo", "I like ramen"},
	{"我叫小明", "我喜欢猫"},
}

// ruleSupersedes is reconcile's keyed decision without a store: would the
// fact of b replace the fact of a?
func ruleSupersedes(a, b string) bool {
	fa, fb := ExtractFacts(a, nil), ExtractFacts(b, nil)
	for _, x := range fa {
		for _, y := range fb {
			if x.Key != y.Key || x.Object == y.Object {
				continue
			}
			if !y.Multi || y.Change {
				return true
			}
		}
	}
	return false
}

func TestContradictionRules(t *testing.T) {
	if len(contradictionPairs) < 20 || len(nonContradictions) < 10 {
		t.Fatal("need at least 20 contradiction pairs and 10 non-contradictions")
	}
	for _, p := range contradictionPairs {
		if !ruleSupersedes(p[0], p[1]) {
			t.Errorf("%q → %q: want supersede (facts %+v / %+v)", p[0], p[1], ExtractFacts(p[0], nil), ExtractFacts(p[1], nil))
		}
	}
	for _, p := range nonContradictions {
		if ruleSupersedes(p[0], p[1]) {
			t.Errorf("%q → %q: must not supersede", p[0], p[1])
		}
	}
}

func TestHasChangeCue(t *testing.T) {
	for _, s := range []string{"I switched to Rust", "I no longer drink", "我搬到北京了", "我现在用Go", "I moved"} {
		if !HasChangeCue(s, policy.Default().Reconcile.ChangeCues) {
			t.Errorf("HasChangeCue(%q) = false", s)
		}
	}
	for _, s := range []string{"I know Rust", "snowy day", "I also use Go"} {
		if HasChangeCue(s, policy.Default().Reconcile.ChangeCues) {
			t.Errorf("HasChangeCue(%q) = true", s)
		}
	}
}

func TestRedact(t *testing.T) {
	r := Redactor{Email: true, Phone: true, APIKey: true}
	in := "mail me at jane.doe@example.com or call +1 415-555-0132, key sk-proj-abcdefghijklmnop1234 and Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc, 手机13812345678. Meeting on 2026-11-20, budget 1500."
	out := r.Text(in)
	for _, secret := range []string{"jane.doe@example.com", "415-555-0132", "sk-proj-abcdefghijklmnop1234", "eyJhbGciOiJIUzI1NiJ9", "13812345678"} {
		if strings.Contains(out, secret) {
			t.Errorf("redacted text still holds %q: %s", secret, out)
		}
	}
	for _, keep := range []string{"2026-11-20", "1500", "Meeting"} {
		if !strings.Contains(out, keep) {
			t.Errorf("redaction ate %q: %s", keep, out)
		}
	}
	if got := (Redactor{}).Text(in); got != in {
		t.Errorf("zero Redactor changed text")
	}
	turn := &memory.Turn{User: "my key is sk-abcdefghijklmnop", Assistant: "ok"}
	rt := r.Turn(turn)
	if strings.Contains(rt.User, "sk-abc") || turn.User != "my key is sk-abcdefghijklmnop" {
		t.Errorf("Turn: got %q, original %q", rt.User, turn.User)
	}
}

func TestParseConsolidation(t *testing.T) {
	good := `{"episodic":"On 2026-11-20 the user planned a trip to Kyoto with Ana.","semantic":["The user lives in Berlin."],"contradicts":[]}`
	for name, in := range map[string]string{
		"plain":  good,
		"prose":  "Sure! Here is the JSON you asked for:\n" + good + "\nLet me know.",
		"fenced": "```json\n" + good + "\n```",
	} {
		c, err := ParseConsolidation(in)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if !strings.Contains(c.Episodic, "Kyoto") || len(c.Semantic) != 1 {
			t.Errorf("%s: got %+v", name, c)
		}
	}
	for _, bad := range []string{"", "no json here", `{"episodic": ""}`, `{"episodic": 3}`, `{"episodic":"x","semantic":"not a list"}`, `{"episodic":"x"`} {
		if _, err := ParseConsolidation(bad); err == nil {
			t.Errorf("ParseConsolidation(%q) accepted", bad)
		}
	}
}

func TestStripFence(t *testing.T) {
	in := "<memory>\n- [fact] The user lives in Berlin.\n</memory>\nWhat should I cook?"
	if got := StripFence(in); got != "What should I cook?" {
		t.Errorf("StripFence = %q", got)
	}
}

func FuzzParseConsolidation(f *testing.F) {
	f.Add(`{"episodic":"x","semantic":["a"],"contradicts":["b"]}`)
	f.Add("```json\n{\"episodic\":\"y\"}\n```")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseConsolidation(s)
		if err == nil && strings.TrimSpace(c.Episodic) == "" {
			t.Fatalf("accepted empty episodic from %q", s)
		}
	})
}

func TestExtractFactsKeepsLanguage(t *testing.T) {
	cases := map[string]string{
		"我住在上海，在一家银行工作。": "用户住在上海。",
		"我叫小明。":                 "用户叫小明。",
		"I live in Berlin now.": "The user lives in Berlin.",
	}
	for in, want := range cases {
		facts := ExtractFacts(in, nil)
		if len(facts) == 0 || facts[0].Text != want {
			t.Errorf("ExtractFacts(%q) = %+v, want first fact %q", in, facts, want)
		}
	}
}
