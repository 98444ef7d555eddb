package background

import (
	"testing"

	"github.com/memproxy/memproxy/facts"
	"github.com/memproxy/memproxy/gate"
	"github.com/memproxy/memproxy/policy"
)

// TestExplicitNoteText: an explicit note is stored as a third-person
// sentence that says something alone: a payload leaning on the words
// before it takes them, without the instruction.
func TestExplicitNoteText(t *testing.T) {
	p := policy.Default()
	g := gate.New(p.Gate, p.Explicit)
	for msg, want := range map[string]string{
		"My doctor told me to cut out gluten, so I'm avoiding it from now on.":            "The user's doctor told the user to cut out gluten, so the user is avoiding it from now on.",
		"My nutritionist said to skip dairy, so please remember I'm avoiding it for now.": "The user's nutritionist said to skip dairy, so the user is avoiding it for now.",
		"Please remember that I drink my coffee black.":                                   "The user drinks their coffee black.",
		"Remember that my sister's birthday is May 3.":                                    "The user's sister's birthday is May 3.",
		"I changed my name to Alex, please use that from now on.":                         "The user changed their name to Alex.",
		"记住我对猫毛过敏，所以别推荐养猫。":                                                               "用户对猫毛过敏，所以别推荐养猫。",
	} {
		note := explicitNote(msg, g.ExplicitContent(msg), g.Intent, p.Explicit.RememberCues)
		if got := facts.ThirdPerson(note); got != want {
			t.Errorf("%q: stored %q (note %q), want %q", msg, got, note, want)
		}
	}
}

// TestNovelReply: a reply that only repeats the question says nothing to
// keep; an answer does.
func TestNovelReply(t *testing.T) {
	q := "What's the capital of Australia?"
	if v := Informativeness(novel("You said: What's the capital of Australia?", q)); v >= keepReplyValue {
		t.Errorf("an echo is informative (%v)", v)
	}
	if v := Informativeness(novel("Canberra, chosen in 1908 as a compromise between Sydney and Melbourne.", q)); v < keepReplyValue {
		t.Errorf("an answer is not informative (%v)", v)
	}
	// Chinese runs are one field of several bigrams.
	zq := "同学聚会是哪天？"
	if v := Informativeness(novel("You said: "+zq, zq)); v >= keepReplyValue {
		t.Errorf("a Chinese echo is informative (%v)", v)
	}
	if v := Informativeness(novel("聚会定在周五晚上七点，在老地方。", zq)); v < keepReplyValue {
		t.Errorf("a Chinese answer is not informative (%v)", v)
	}
}
