package background

import (
	"strings"
	"testing"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
)

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
