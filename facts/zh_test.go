package facts

import (
	"testing"
	"time"
)

func TestExtractZHClauses(t *testing.T) {
	cases := []struct{ in, key, value string }{
		{"我从阿里巴巴辞职了，上周加入了腾讯。", "user.works_at", "腾讯"},
		{"我以前是老师，现在是程序员。", "user.job_title", "程序员"},
		{"我住在广州，不过下个月搬到深圳。", "user.lives_in", "广州"},
		{"我每天早上喝咖啡。", "user.drinks", "咖啡"},
		{"我现在改喝茶了。", "user.drinks", "茶"},
		{"我戒了咖啡，现在只喝花茶。", "user.drinks", "花茶"},
		{"朋友推荐了Obsidian，我现在改用它了。", "user.uses", "Obsidian"},
		{"下周一我开始在腾讯上班。", "user.works_at", "腾讯"},
		{"我开始在阿里巴巴工作了。", "user.works_at", "阿里巴巴"},
		{"下个月我入职字节跳动。", "user.works_at", "字节跳动"},
	}
	for _, c := range cases {
		found := false
		for _, f := range extract(c.in) {
			if f.Key() == c.key && f.Value == c.value && !f.Ended {
				found = true
			}
		}
		if !found {
			t.Errorf("Extract(%q) = %+v, want %s = %q", c.in, extract(c.in), c.key, c.value)
		}
	}
	fs := extract("我昨天通过了驾照考试！")
	if len(fs) != 1 || !fs[0].Note || fs[0].Text != "用户2026年3月9日通过了驾照考试。" {
		t.Errorf("dated note: %+v", fs)
	}
}

func TestZHPronounNamesNothing(t *testing.T) {
	for _, f := range extract("我现在改用它了。") {
		if !f.Note {
			t.Errorf("a pronoun stored as a value: %+v", f)
		}
	}
}

// TestZHPlannedStart: a start only intended is not the employer.
func TestZHPlannedStart(t *testing.T) {
	for _, in := range []string{"我打算下个月开始在腾讯上班。", "我可能下周入职字节跳动。", "我以前在百度上班。"} {
		for _, f := range extract(in) {
			if f.Attribute == "works_at" && !f.Ended {
				t.Errorf("%q: employer %q", in, f.Value)
			}
		}
	}
}

// TestZHOtherWords: 搬来, 不在X住了, 在X找到了新工作, 我的新公司是X,
// 不再是素食者, 不用X了 read as the slot they change; 不用担心 is none.
func TestZHOtherWords(t *testing.T) {
	at := time.Date(2026, 5, 2, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		msg, key, value string
		ended           bool
	}{
		{"我去年搬来了广州。", "user.lives_in", "广州", false},
		{"我不在北京住了。", "user.lives_in", "北京", true},
		{"我在京东找到了新工作。", "user.works_at", "京东", false},
		{"我的新公司是小米。", "user.works_at", "小米", false},
		{"我不再是素食者了。", "user.diet", "吃素", true},
		{"我已经不用Python了。", "user.uses", "Python", true},
		{"我不用担心了。", "", "", false},
		{"我结婚了，老公叫李明。", "user.partner", "李明", false},
	}
	for _, c := range cases {
		fs := Extract(c.msg, Options{At: at})
		if c.key == "" {
			if len(fs) > 0 {
				t.Errorf("%q: %+v, want nothing", c.msg, fs[0].Triple)
			}
			continue
		}
		if len(fs) != 1 || fs[0].Key() != c.key || fs[0].Value != c.value || fs[0].Ended != c.ended {
			t.Errorf("%q: %+v, want %s=%s ended %v", c.msg, fs, c.key, c.value, c.ended)
		}
	}
}
