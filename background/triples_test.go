package background

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// A fact comes back from the store with its triple and the date it became
// true; a move supersedes the old city with that date as its valid_to;
// asking the same question again adds no event.
func TestTriplesStored(t *testing.T) {
	forBackends(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, envOpts{})
		s := scope("triples")
		e.say(s, "I live in Berlin.")
		e.wait()
		e.clock.Add(70 * 24 * time.Hour)
		e.say(s, "I moved from Berlin to Lisbon last month.")
		e.wait()
		live := e.list(s, memory.StateLive, memory.TierSemantic, memory.TierProfile)
		var lisbon *memory.Memory
		for _, m := range live {
			if strings.Contains(m.Text, "Berlin") {
				t.Errorf("Berlin still live: %q", m.Text)
			}
			if f := m.Fact(); f != nil && f.Value == "Lisbon" && f.Attribute == "lives_in" && f.Subject == "user" {
				lisbon = m
			}
		}
		if lisbon == nil {
			t.Fatalf("no lives_in Lisbon triple among %s", texts(live))
		}
		old := e.list(s, memory.StateSuperseded)
		if len(old) != 1 || old[0].Fact() == nil || old[0].Fact().Value != "Berlin" || old[0].SupersededBy != lisbon.ID ||
			old[0].ValidTo == nil || !old[0].ValidTo.Equal(lisbon.ValidFrom) {
			t.Errorf("history %s, want Berlin closed at %v by %s", texts(old), lisbon.ValidFrom, lisbon.ID)
		}
		// A question answered by nothing to keep leaves nothing; one
		// answered informatively, asked three times, is one event.
		e.say(s, "What's a good capital for a board game country?")
		for range 3 {
			if err := e.q.Enqueue(context.Background(), e.turn(s, "What's a good name for a cat?", "Popular picks are Luna, Milo and Oliver; short names of 2 syllables are easiest to call.")); err != nil {
				t.Fatal(err)
			}
			e.wait()
		}
		n := 0
		for _, m := range e.list(s, memory.StateLive, memory.TierEvent) {
			if strings.Contains(m.Text, "name for a cat") {
				n++
			}
			if strings.Contains(m.Text, "board game") {
				t.Errorf("a question answered by nothing to keep is an event: %q", m.Text)
			}
		}
		if n != 1 {
			t.Errorf("%d events for one question asked three times", n)
		}
	})
}

func TestSameTurn(t *testing.T) {
	ev := func(u, a string) *memory.Memory { return &memory.Memory{Text: u + "\nAssistant: " + a} }
	same := [][2]*memory.Memory{
		{ev("What's a good name for a cat?", "Noted."), ev("What is a good name for a cat?", "Noted.")},
		{ev("How do I convert Celsius to Fahrenheit?", "Multiply by 9/5 and add 32."), ev("How do I convert Celsius to Fahrenheit again?", "Multiply by 9/5, add 32.")},
		{ev("I love hiking in the Alps.", "Nice!"), ev("I really love hiking in the Alps!", "Nice!")},
	}
	apart := [][2]*memory.Memory{
		{ev("Durable statement number 3 about the Zephyr 3 project budget", "Got it."), ev("Durable statement number 4 about the Zephyr 4 project budget", "Got it.")},
		{ev("My sourdough starter smells like acetone after feeding it rye flour twice a day", "Try warmer water."),
			ev("Sourdough starter again: acetone smell after the rye flour feeding twice a day", "Try warmer water.")},
		{ev("What's a good name for a cat?", "Try Miso."), ev("What's a good name for a cat?", "The Peloponnesian war began in 431 BC.")},
		{ev("ok", ""), ev("ok", "")},
	}
	for _, p := range same {
		if !sameTurn(p[0], p[1]) {
			t.Errorf("sameTurn(%q, %q) = false", p[0].Text, p[1].Text)
		}
	}
	for _, p := range apart {
		if sameTurn(p[0], p[1]) {
			t.Errorf("sameTurn(%q, %q) = true", p[0].Text, p[1].Text)
		}
	}
}
