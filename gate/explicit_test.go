package gate

import (
	"strings"
	"testing"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
)

func TestExplicit(t *testing.T) {
	g := newDefault(t)
	R, F, N := memory.IntentRemember, memory.IntentForget, memory.IntentNone
	cases := []struct {
		text    string
		intent  memory.Intent
		content string
	}{
		{"remember that I'm vegetarian", R, "I'm vegetarian"},
		{"Remember that I'm vegetarian.", R, "I'm vegetarian"},
		{"Please remember that my daughter is called Mia", R, "my daughter is called Mia"},
		{"please remember: I take my coffee black", R, "I take my coffee black"},
		{"Remember this: the wifi password is on the fridge", R, "the wifi password is on the fridge"},
		{"Can you remember that I'm allergic to peanuts?", R, "I'm allergic to peanuts"},
		{"Could you please keep in mind that I work nights", R, "I work nights"},
		{"I'm vegan, please remember that.", R, "I'm vegan"},
		{"Oh and don't forget that my flight is on Friday", R, "my flight is on Friday"},
		{"Don’t forget: I hate cilantro", R, "I hate cilantro"},
		{"From now on, answer in French", R, "From now on, answer in French"},
		{"Answer in French from now on.", R, "Answer in French from now on"},
		{"ok. From now on call me Sam", R, "From now on call me Sam"},
		{"记住我对花生过敏", R, "我对花生过敏"},
		{"请记住：我住在上海", R, "我住在上海"},
		{"记住这个：我的工号是A123。", R, "我的工号是A123"},
		{"帮我记住，我女儿叫小美", R, "我女儿叫小美"},
		{"你要记住我不吃辣", R, "我不吃辣"},
		{"别忘了我下周三要出差", R, "我下周三要出差"},
		{"以后都用中文回答我", R, "以后都用中文回答我"},
		{"好的，从现在开始叫我老王", R, "从现在开始叫我老王"},
		{"记住我的生日是五月三号，好吗？", R, "我的生日是五月三号"},
		{"remember that I'm left-handed, ok?", R, "I'm left-handed"},
		{"forget that I said I'm vegan", F, "I said I'm vegan"},
		{"Please forget my old address", F, "my old address"},
		{"forget about the Paris trip", F, "the Paris trip"},
		{"Forget what I told you about my ex", F, "I told you about my ex"},
		{"忘掉我之前说的地址", F, "我之前说的地址"},
		{"不要记住我的手机号", F, "我的手机号"},
		{"请忘记我的旧地址", F, "我的旧地址"},
		{"把我的手机号忘掉吧。", F, "我的手机号"},
		{"请把我以前的地址删掉", F, "我以前的地址"},
		{"我把密码忘掉了", N, ""},
		{"他把那件事忘掉了", N, ""},
		{"Please don't remember anything about my divorce.", F, "about my divorce"},
		{"Don't store my card details", F, "my card details"},
		// Not instructions: recall questions, reports, negations, idioms.
		{"I can't remember where I put my keys", N, ""},
		{"I can't remember that movie's name", N, ""},
		{"Do you remember that trip to Lisbon?", N, ""},
		{"Remember that trip to Lisbon?", N, ""},
		{"do you remember this?", N, ""},
		{"don't remember this", N, ""},
		{"I forget what I said yesterday", N, ""},
		{"I forgot that the shop was closed", N, ""},
		{"forget about it", N, ""},
		{"Forget it, let's move on", N, ""},
		{"We should remember that history repeats itself", N, ""},
		{"Never mind, I remember that now", N, ""},
		{"what's the best way to remember things for an exam?", N, ""},
		{"我忘记了他的名字", N, ""},
		{"忘记密码怎么办", N, ""},
		{"你还记得我女儿叫什么吗", N, ""},
		{"我记住了", N, ""},
		{"你记住了吗？", N, ""},
		{"我记不住单词", N, ""},
		{"", N, ""},
	}
	for _, c := range cases {
		in, content := g.Explicit(c.text)
		if in != c.intent || content != c.content {
			t.Errorf("Explicit(%q) = %q, %q; want %q, %q", c.text, in, content, c.intent, c.content)
		}
		if got := g.Intent(c.text); got != c.intent {
			t.Errorf("Intent(%q) = %q, want %q", c.text, got, c.intent)
		}
		if got := g.ExplicitContent(c.text); got != c.content {
			t.Errorf("ExplicitContent(%q) = %q, want %q", c.text, got, c.content)
		}
	}
}

// A cue in the middle of a pasted document is not the user's instruction;
// at the start or the end of a long message it is.
func TestExplicitLongMessages(t *testing.T) {
	g := newDefault(t)
	filler := strings.Repeat("The service reads its configuration at start and caches it. ", 30)
	doc := filler + "Remember that the cache is never invalidated. " + filler
	if in, _ := g.Explicit("Can you review this design doc?\n" + doc); in != memory.IntentNone {
		t.Errorf("cue inside a pasted document: %q", in)
	}
	if in, c := g.Explicit("Remember that I only review Go code.\n" + doc); in != memory.IntentRemember || !strings.HasPrefix(c, "I only review Go code.") {
		t.Errorf("cue at the start: %q %.40q", in, c)
	}
	if in, c := g.Explicit(doc + "\nPlease remember that I'm the owner of this service."); in != memory.IntentRemember || c != "I'm the owner of this service" {
		t.Errorf("cue at the end: %q %q", in, c)
	}
}

func TestPackageLevelExplicit(t *testing.T) {
	e := policy.Default().Explicit
	if got := Intent("记住我对花生过敏", e); got != memory.IntentRemember {
		t.Errorf("Intent = %q", got)
	}
	if got := ExplicitContent("remember that I'm vegetarian", e); got != "I'm vegetarian" {
		t.Errorf("ExplicitContent = %q", got)
	}
	if got := Intent("remember that I'm vegetarian", policy.Explicit{}); got != memory.IntentNone {
		t.Errorf("no cues configured: Intent = %q", got)
	}
}

// TestExplicitPayloadKeepsAddresses: a period inside an address or a
// number does not start the clause a standing cue takes.
func TestExplicitPayloadKeepsAddresses(t *testing.T) {
	g := newDefault(t)
	for msg, want := range map[string]string{
		"Use sam@newdomain.io from now on, the old address is dead.": "Use sam@newdomain.io from now on, the old address is dead",
		"Send reports to https://acme.example/reports from now on":   "Send reports to https://acme.example/reports from now on",
		"Budget is 1,500 a month from now on.":                       "Budget is 1,500 a month from now on",
	} {
		if in, got := g.Explicit(msg); in != memory.IntentRemember || got != want {
			t.Errorf("Explicit(%q) = %v, %q; want %q", msg, in, got, want)
		}
	}
}
