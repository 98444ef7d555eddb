package gate

import (
	"testing"

	"github.com/memproxy/memproxy/policy"
)

func newDefault(t testing.TB) *Gate {
	t.Helper()
	p := policy.Default()
	return New(p.Gate, p.Explicit)
}

// Each class with real messages as people type them: case, trailing
// punctuation, emoji, repeats, English and Chinese.
func TestClassifyPositives(t *testing.T) {
	g := newDefault(t)
	cases := map[string][]string{
		ClassAcknowledgement: {
			"ok", "OK", "Ok!", "ok.", "okay", "okkk", "k", "kk", "yes", "Yes!!", "yeah", "yep", "sure",
			"thanks", "Thanks!", "thanks 🙏", "thank you", "Thank you so much!", "thanks a lot", "thx", "ty",
			"got it", "Got it, thanks", "cool", "nice!", "great", "sounds good", "perfect 👍", "ok thanks",
			"ok, thank you", "alright then", "makes sense", "I see", "no problem", "you're welcome", "you’re welcome",
			"  ok  ", "ok\n", "666",
			"好的", "好的～", "好的!", "好的呀", "好", "好吧", "嗯", "嗯嗯", "嗯嗯嗯", "可以", "行", "收到", "收到了",
			"谢谢", "谢谢!!", "谢谢你", "谢谢您！", "多谢", "明白", "明白了", "知道了", "对", "是的", "没问题", "好的谢谢",
			"好的，谢谢！", "ok好的", "辛苦了", "了解",
		},
		ClassEmojiOnly: {"😂", "👍", "🙏🙏", "😂😂😂", "👍 👍", "❤️", "🎉!", "😊~", "🤷‍♂️"},
		ClassCommand:   {"/help", "/reset", "/imagine a cat in space", "!reset", "!model gpt-4o", "  /clear"},
		ClassTooShort:  {"", "   ", "a", "ab", "?", "...", "!!", "??", "x?", "北京", "en"},
		ClassNegation: {
			"no", "No.", "nooo", "nope", "nah", "not really", "no thanks", "No, thank you", "never mind", "not now",
			"不", "不行", "不要", "不用", "不用了", "没有", "算了", "算了吧", "不了", "不需要", "不是",
		},
		ClassLaughter: {
			"haha", "hahaha", "HAHAHA", "hahah", "heh", "hehe", "hehehe", "lol", "LOL", "lolll", "lmao", "rofl",
			"xD", "XD", "xddd", "hhhh", "233", "2333333", "哈哈", "哈哈哈", "哈哈哈哈哈哈", "嘿嘿", "呵呵", "嘻嘻",
			"笑死", "哈哈哈 lol", "haha ok", "lol 😂",
		},
		ClassGreeting: {
			"hi", "Hi!", "hello", "Hello there", "hey", "heyyy", "hey there", "good morning", "Good morning!",
			"morning", "good night", "bye", "see you", "what's up", "how are you?", "你好", "您好", "嗨", "早",
			"早上好", "晚上好", "晚安", "再见", "拜拜", "在吗", "在吗？", "哈喽", "你好呀", "大家好",
		},
	}
	for want, texts := range cases {
		for _, text := range texts {
			got, noise := g.Classify(text)
			if got != want {
				t.Errorf("Classify(%q) = %q, want %q", text, got, want)
			}
			if noise != (want != ClassGreeting) {
				t.Errorf("Classify(%q) noise = %v, want %v", text, noise, want != ClassGreeting)
			}
		}
	}
}

// Messages that start like noise but carry content must reach the gate's
// recall path.
func TestClassifyNegatives(t *testing.T) {
	g := newDefault(t)
	for _, text := range []string{
		"ok so what should I cook tonight?",
		"thanks, and can you also check my schedule?",
		"no, I meant the other restaurant",
		"not really sure what to do about my sister",
		"hi, my name is Sam and I live in Berlin",
		"hello, can you help me plan a trip to Japan?",
		"haha that's funny, but what about the budget?",
		"lol my cat just knocked over the plant",
		"hide the details please",
		"hell yes I want the job",
		"heyday of the roman empire",
		"lollipop recipes",
		"yes I still work at Google",
		"great idea, let's do it on Friday",
		"nothing",
		"goodness",
		"/etc/hosts is broken, what do I do?",
		"!!! urgent: the server is down",
		"2024年我去过东京",
		"123456",
		"好的，那明天上午十点开会",
		"谢谢，顺便帮我查一下天气",
		"不知道怎么办",
		"不行，我对花生过敏",
		"哈哈，我儿子今天会走路了",
		"你好，我叫小明，在北京工作",
		"对不起，我迟到了",
		"好看的电影推荐一下",
		"没有时间去健身房了怎么办",
		"早上吃了什么好呢",
		"再见到他是什么时候",
		"Caroline went to the LGBTQ support group yesterday",
		"abc",
	} {
		if got, noise := g.Classify(text); got != "" || noise {
			t.Errorf("Classify(%q) = %q, %v; want content", text, got, noise)
		}
	}
}

func TestClassifyMinChars(t *testing.T) {
	p := policy.Default()
	p.Gate.MinChars = 6
	g := New(p.Gate, p.Explicit)
	if c, _ := g.Classify("where"); c != ClassTooShort {
		t.Errorf("5 letters with min_chars 6: got %q, want too_short", c)
	}
	if c, _ := g.Classify("我的生日是"); c != ClassTooShort {
		t.Errorf("5 CJK characters (15 bytes) with min_chars 6: got %q, want too_short", c)
	}
	if c, _ := g.Classify("where?!"); c != ClassTooShort {
		t.Errorf("trailing punctuation counts for nothing: got %q", c)
	}
	if c, _ := g.Classify("Berlin"); c != "" {
		t.Errorf("6 letters: got %q, want content", c)
	}
	p.Gate.MinChars = 0
	if c, _ := New(p.Gate, p.Explicit).Classify("x"); c != "" {
		t.Errorf("min_chars 0 disables too_short: got %q", c)
	}
}

// Word lists come from policy: an operator's list replaces the default.
func TestClassifyUsesPolicyLists(t *testing.T) {
	p := policy.Default()
	p.Gate.Acknowledgements = []string{"roger wilco"}
	p.Gate.CommandPrefixes = []string{"#"}
	g := New(p.Gate, p.Explicit)
	if c, _ := g.Classify("Roger  Wilco!"); c != ClassAcknowledgement {
		t.Errorf("custom acknowledgement: got %q", c)
	}
	if c, _ := g.Classify("thanks for the help"); c == ClassAcknowledgement {
		t.Errorf("default acknowledgement still active after override")
	}
	if c, _ := g.Classify("#reset"); c != ClassCommand {
		t.Errorf("custom command prefix: got %q", c)
	}
	if c, _ := g.Classify("/reset"); c == ClassCommand {
		t.Errorf("/ is no longer a command prefix")
	}
}

func TestPackageLevelClassify(t *testing.T) {
	p := policy.Default()
	if c, noise := Classify("好的～", p.Gate); c != ClassAcknowledgement || !noise {
		t.Errorf("Classify = %q, %v", c, noise)
	}
}

func FuzzClassify(f *testing.F) {
	for _, s := range []string{
		"ok", "好的～", "hahah", "2333", "/help", "😂", "remember that I'm vegan", "记住我对花生过敏",
		"I can't remember", "\xff\xfe", "h\u0301a", "ok\x00", "’", "'", "x’", "my", "thank you   so much",
	} {
		f.Add(s)
	}
	p := policy.Default()
	g := New(p.Gate, p.Explicit)
	f.Fuzz(func(t *testing.T, s string) {
		c1, n1 := g.Classify(s)
		c2, n2 := g.Classify(s)
		if c1 != c2 || n1 != n2 {
			t.Fatalf("Classify(%q) not deterministic: %q/%v then %q/%v", s, c1, n1, c2, n2)
		}
		if n1 && c1 == "" {
			t.Fatalf("Classify(%q): noise without a class", s)
		}
		d := g.Decide(View{Role: "user", Text: s})
		if d.Recall == (c1 != "") {
			t.Fatalf("Decide(%q) = %+v disagrees with Classify %q", s, d, c1)
		}
		in, content := g.Explicit(s)
		if in == "" && content != "" {
			t.Fatalf("Explicit(%q): content %q without intent", s, content)
		}
	})
}
