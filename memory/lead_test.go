package memory

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/memproxy/memproxy/policy"
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

// Recall offers a lead for a selected event whose exchange before holds
// the message's topic, none for one whose exchange does not, none for
// one whose exchange is another selected event, and none with
// recall.lead_tokens 0.
func TestRecallLead(t *testing.T) {
	const q = "What game did Nate play at the convention?"
	answer := rcMem("ans1", TierEvent, "Catan, all night! We built so many settlements.")
	answer.Context = "9 October 2022\nDid you play any game at the convention, Nate?\nAssistant: I did!"
	asked := rcMem("ask1", TierEvent, "Nate went to a game convention on Friday.\nAssistant: Fun!")
	asked.Context = "9 October 2022\nHow was your week, Nate?\nAssistant: Busy."
	after := rcMem("aft1", TierEvent, "It was the best game convention, Nate says.")
	after.Context = "9 October 2022\nNate went to a game convention on Friday.\nAssistant: Fun!"
	// Nate is in every candidate, so the topic is the game convention.
	var fs fixedSearcher
	for i, m := range []*Memory{answer, asked, after, rcMem("n1", TierEvent, "Nate fed the turtles."), rcMem("n2", TierEvent, "Nate is moving soon."), rcMem("n3", TierEvent, "Nate, again.")} {
		fs.lex = append(fs.lex, Candidate{Memory: m, Score: float64(10 - i)})
	}
	run := func(leadTokens int) map[string]*Scored {
		p := policy.Default()
		p.Recall.LeadTokens = leadTokens
		r, err := NewRecaller(RecallerConfig{Search: fs, Recall: p.Recall, Decay: p.Decay})
		if err != nil {
			t.Fatal(err)
		}
		res, err := r.Recall(context.Background(), rcScope, Query{Text: q, At: sT0})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]*Scored{}
		for _, c := range res.Selected {
			out[c.Memory.ID] = c
		}
		for _, id := range []string{"ans1", "ask1", "aft1"} {
			if out[id] == nil {
				t.Fatalf("%s not selected", id)
			}
		}
		return out
	}
	sel := run(40)
	if l := sel["ans1"].Lead; l == nil || !strings.Contains(l(40), "game at the convention") || strings.Contains(l(40), "October") {
		t.Errorf("the answer's lead is missing or carries its date line")
	}
	if l := sel["ask1"].Lead; l != nil && l(40) != "" {
		t.Errorf("lead of an exchange without the topic: %q", l(40))
	}
	if sel["aft1"].Lead != nil {
		t.Errorf("lead of an exchange that is another selected event: %q", sel["aft1"].Lead(40))
	}
	for id, c := range run(0) {
		if c.Lead != nil {
			t.Errorf("%s has a lead with recall.lead_tokens 0", id)
		}
	}
	// A live fact on the topic stated after the events: what was said
	// before it is history, so no lead.
	fact := rcMem("fct1", TierSemantic, "Nate likes to play Catan at game conventions.")
	fact.CreatedAt = sT0.Add(24 * time.Hour)
	fs.lex = append([]Candidate{{Memory: fact, Score: 11}}, fs.lex...)
	if l := run(40)["ans1"].Lead; l != nil {
		t.Errorf("an event older than a live fact on the topic has a lead: %q", l(40))
	}
}
