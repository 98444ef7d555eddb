package memory

import (
	"strings"
	"testing"
)

func TestShort(t *testing.T) {
	ev := "Hey Mel! Long time no see, how are the kids and the new house doing these days? " +
		"I went to a LGBTQ support group yesterday (7 May 2023) and it was so powerful. " +
		"The stories there were moving.\n" +
		"Assistant: Wow, that's cool, Caroline! I have been painting a lot lately, mostly landscapes, and the kids love joining in on weekends."
	qt := newQueryTerms("When did Caroline go to the LGBTQ support group?")
	// Caroline is in every candidate, the group in few.
	w := termWeights([]uint64{0b1111, 0b0001, 0b0001, 0b0001, 0b1101}, len(qt.terms))
	got := qt.short(ev, w, 32, false)
	if want := "… I went to a LGBTQ support group yesterday (7 May 2023) and it was so powerful. The stories there were moving. …"; got != want {
		t.Errorf("short\n%q, want\n%q", got, want)
	}
	if CountTokens(got) > 36 {
		t.Errorf("short form of %d tokens", CountTokens(got))
	}
	// The sentence after a match is kept: here the reply to a question.
	ev2 := "We talked for hours about the weather and the trains and the old days in the town, and the market. Did you ever adopt the dog from the shelter?\n" +
		"Assistant: Yes, we took Max home in June, he is a beagle. The garden is a mess now but we love it, and the roses are out."
	qt2 := newQueryTerms("did Melanie adopt a dog?")
	w2 := termWeights([]uint64{0b111, 0b010}, len(qt2.terms))
	if got, want := qt2.short(ev2, w2, 40, false), "… Did you ever adopt the dog from the shelter?\nAssistant: Yes, we took Max home in June, he is a beagle. …"; got != want {
		t.Errorf("short\n%q, want\n%q", got, want)
	}
	// A turn that answers a question about the topic leads with its first
	// sentence, though it holds no query term.
	ans := "Harry Potter and Game of Thrones, for sure! I could talk about them for hours and hours with anyone who listens.\n" +
		"Assistant: Same here, I have been rereading the whole series this winter and it still holds up so well."
	if got, want := qt.short(ans, w, 40, true), "Harry Potter and Game of Thrones, for sure! I could talk about them for hours and hours with anyone who listens. …"; got != want {
		t.Errorf("short of an answer\n%q, want\n%q", got, want)
	}
	if got := qt.short(ans, w, 40, false); got != "" {
		t.Errorf("short of a non-answer without query terms = %q, want none", got)
	}
	// Short memories, and ones none of whose sentences holds a query term
	// (found through their context), have none.
	for _, s := range []string{"The user likes tea.", strings.Repeat("It was a lovely day out there with everyone we know. ", 8)} {
		if got := qt.short(s, w, 40, false); got != "" {
			t.Errorf("short(%q) = %q, want none", s, got)
		}
	}
}
func TestAnswersAsked(t *testing.T) {
	qt := newQueryTerms("What board game did Nate play?")
	topic := uint64(1<<0 | 1<<1)
	for ctx, want := range map[string]bool{
		"9 October 2022\nIt was fun.\nAssistant: Cool! Which board game did you play?": true,
		"9 October 2022\nWe played a board game.\nAssistant: Cool! What else?":         false,
		"9 October 2022\nWe played a board game.":                                      false,
		"9 October 2022\n好玩。\nAssistant: Which game？":                                  true,
		"9 October 2022\n好玩。\nAssistant: 你玩了哪个game呢":                                   true,
		"9 October 2022\n好玩。\nAssistant: 你喜欢那个game吗。":                                  true,
		"9 October 2022\nWhich game？\nAssistant: 好玩。":                                  false,
	} {
		if got := answersAsked(ctx, qt, topic); got != want {
			t.Errorf("answersAsked(%q) = %v, want %v", ctx, got, want)
		}
	}
}
