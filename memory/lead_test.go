package memory

import (
	"strings"
	"testing"
)

func TestEventExchange(t *testing.T) {
	for in, want := range map[string]string{
		"8 May 2023\nHow was it?\nAssistant: Great.": "How was it?\nAssistant: Great.",
		"8 May 2023":                    "",
		"How was it?\nAssistant: Fine.": "How was it?\nAssistant: Fine.",
		"":                              "",
	} {
		if got := EventExchange(in); got != want {
			t.Errorf("EventExchange(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLead(t *testing.T) {
	qt := newQueryTerms("What game did Nate play at the convention?")
	// Nate is in every candidate, the game convention in one.
	var masks []uint64
	for _, c := range []string{"Nate went to a game convention.", "Nate fed the turtles.", "Nate is moving.", "Nate again."} {
		_, _, m := qt.matchTerms(c)
		masks = append(masks, m)
	}
	w := termWeights(masks, len(qt.terms))
	topic := topicMask(w, masks)
	ctx := "Did you go anywhere fun on Friday?\nAssistant: I went to a game convention and met new people."
	if got := qt.lead(ctx, w, topic, 40); got != ctx {
		t.Errorf("lead of a short context = %q, want it whole", got)
	}
	if got := qt.lead("How was your weekend, Nate?\nAssistant: Quiet, mostly reading.", w, topic, 40); got != "" {
		t.Errorf("lead of a context without the topic = %q, want none", got)
	}
	long := "We talked about the weather for a while and then about the trains, which were late again. " +
		"Did you go anywhere fun on Friday?\nAssistant: I went to a game convention and met new people. " +
		"The food was bad, the parking was worse, and it rained all the way home afterwards."
	got := qt.lead(long, w, topic, 25)
	if !strings.Contains(got, "game convention") || strings.Contains(got, "trains") || CountTokens(got) > 30 {
		t.Errorf("lead of a long context = %q (%d tokens), want the convention sentence within ~25", got, CountTokens(got))
	}
	if got := qt.lead(ctx, w, topic, 0); got != "" {
		t.Errorf("lead with no room = %q", got)
	}
}

func TestSaidIn(t *testing.T) {
	prev := &Scored{Memory: &Memory{Text: "I went to a LGBTQ support group yesterday (7 May 2023) and it was so powerful.\nAssistant: Wow!"}}
	other := &Scored{Memory: &Memory{Text: "Painting is my outlet."}}
	ctx := "I went to a LGBTQ support group yesterday and it was so powerful.\nAssistant: Wow!"
	if !saidIn(ctx, []*Scored{other, prev}) {
		t.Error("the exchange before, also selected, not found")
	}
	if saidIn(ctx, []*Scored{other}) {
		t.Error("found in a memory that does not say it")
	}
}
