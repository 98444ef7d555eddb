package gate

import (
	"testing"

	"github.com/memproxy/memproxy/policy"
)

func TestDecide(t *testing.T) {
	g := newDefault(t)
	cases := []struct {
		role, text string
		want       Decision
	}{
		{"user", "ok", Decision{Reason: "noise:acknowledgement"}},
		{"user", "好的～", Decision{Reason: "noise:acknowledgement"}},
		{"user", "😂😂", Decision{Reason: "noise:emoji_only"}},
		{"user", "/reset", Decision{Reason: "noise:command"}},
		{"user", "ab", Decision{Reason: "noise:too_short"}},
		{"user", "不行", Decision{Reason: "noise:negation"}},
		{"user", "哈哈哈", Decision{Reason: "noise:laughter"}},
		{"user", "Hello!", Decision{Reason: "greeting"}},
		{"user", "早上好", Decision{Reason: "greeting"}},
		{"tool", `{"temperature": 21}`, Decision{Reason: "not_user_message"}},
		{"assistant", "What did I say about my sister?", Decision{Reason: "not_user_message"}},
		{"", "What did I say about my sister?", Decision{Reason: "not_user_message"}},
		{"user", "Do you remember the restaurant?", Decision{Recall: true, Force: true, Reason: "cue:remember"}},
		{"user", "What did we decide last time?", Decision{Recall: true, Force: true, Reason: "cue:last time"}},
		{"user", "I told you I'm allergic to nuts", Decision{Recall: true, Force: true, Reason: "cue:i told you"}},
		{"user", "As I said, the deadline moved", Decision{Recall: true, Force: true, Reason: "cue:as i said"}},
		{"user", "How old is my sister now?", Decision{Recall: true, Force: true, Reason: "cue:my"}},
		{"user", "MY car broke down again", Decision{Recall: true, Force: true, Reason: "cue:my"}},
		{"user", "我们之前聊过这个", Decision{Recall: true, Force: true, Reason: "cue:之前"}},
		{"user", "上次那家餐厅叫什么", Decision{Recall: true, Force: true, Reason: "cue:上次"}},
		{"user", "你还记得我女儿的名字吗", Decision{Recall: true, Force: true, Reason: "cue:还记得"}},
		{"user", "记得我喜欢什么颜色吗", Decision{Recall: true, Force: true, Reason: "cue:记得"}},
		{"user", "我说过我不吃辣", Decision{Recall: true, Force: true, Reason: "cue:我说过"}},
		{"user", "推荐一下适合我的跑鞋", Decision{Recall: true, Force: true, Reason: "cue:我的"}},
		// "my" is a word: not inside "myself", "economy", "Myanmar".
		{"user", "I want to treat myself to something", Decision{Recall: true, Reason: "adaptive"}},
		{"user", "The economy is slowing down", Decision{Recall: true, Reason: "adaptive"}},
		{"user", "Tell me about Myanmar", Decision{Recall: true, Reason: "adaptive"}},
		{"user", "What is the capital of France?", Decision{Recall: true, Reason: "adaptive"}},
		{"user", "帮我写一首关于秋天的诗", Decision{Recall: true, Reason: "adaptive"}},
		{"user", "remembered", Decision{Recall: true, Reason: "adaptive"}},
	}
	for _, c := range cases {
		if got := g.Decide(View{Role: c.role, Text: c.text}); got != c.want {
			t.Errorf("Decide(%s: %q) = %+v, want %+v", c.role, c.text, got, c.want)
		}
	}
}

// Noise wins over a cue inside it, and a cue wins over adaptive.
func TestDecideOrder(t *testing.T) {
	g := newDefault(t)
	if d := g.Decide(View{Role: "user", Text: "my"}); d.Recall {
		t.Errorf("too short beats the cue: %+v", d)
	}
	if d := g.Decide(View{Role: "user", Text: "remember?"}); !d.Force {
		t.Errorf("remember? must force recall: %+v", d)
	}
}

func TestPackageLevelDecide(t *testing.T) {
	p := policy.Default()
	if d := Decide(View{Role: "user", Text: "thanks!"}, p.Gate); d.Recall || d.Reason != "noise:acknowledgement" {
		t.Errorf("Decide = %+v", d)
	}
}

func BenchmarkDecide(b *testing.B) {
	g := newDefault(b)
	for _, bc := range []struct{ name, text string }{
		{"ack", "ok thanks!"},
		{"short_en", "What should I cook for dinner tonight?"},
		{"cue_en", "What was the name of my sister's dog again?"},
		{"short_zh", "今天晚上吃什么比较好？"},
		{"long_en", "I'm planning a two week trip to Japan in April with my partner and we want to see Kyoto, Osaka and Tokyo; can you draft an itinerary that balances temples, food markets and a day of hiking, and keep the budget under three thousand dollars?"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			v := View{Role: "user", Text: bc.text}
			b.ReportAllocs()
			for b.Loop() {
				_ = g.Decide(v)
			}
		})
	}
}

func BenchmarkExplicit(b *testing.B) {
	g := newDefault(b)
	b.ReportAllocs()
	for b.Loop() {
		_, _ = g.Explicit("What should I cook for dinner tonight? I have eggs and rice.")
	}
}
