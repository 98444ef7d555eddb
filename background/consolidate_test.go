package background

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memproxy/memproxy/internal/fakeupstream"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
)

// kyoto are three turns about one repeated topic.
var kyoto = []string{
	"Planning the Kyoto trip with Ana: we arrive on March 3 and stay at the Gion ryokan",
	"For the Kyoto trip with Ana, the Gion ryokan costs 180 euros per night from March 3",
	"Kyoto trip with Ana update: we booked the Gion ryokan for March 3 to March 7",
}

const goodJSON = `{"episodic":"The user and Ana plan a Kyoto trip, March 3-7, at the Gion ryokan (180 EUR/night).","semantic":["The user travels with Ana."],"contradicts":[]}`

func (e *env) sayAll(s memory.Scope, msgs []string) []*memory.Turn {
	var out []*memory.Turn
	for _, m := range msgs {
		out = append(out, e.say(s, m))
		e.wait() // each event sees the ones before it
	}
	return out
}

func TestConsolidationScripted(t *testing.T) {
	cases := []struct {
		name    string
		replies []fakeupstream.Reply
		calls   int64
		ok      bool
	}{
		{"good", []fakeupstream.Reply{{Content: goodJSON}}, 1, true},
		{"prose", []fakeupstream.Reply{{Content: "Here you go:\n```json\n" + goodJSON + "\n```\nHope this helps."}}, 1, true},
		{"invalid_then_good", []fakeupstream.Reply{{Content: "I think the user likes Kyoto."}, {Content: goodJSON}}, 2, true},
		{"always_invalid", []fakeupstream.Reply{{Content: "nope"}, {Content: `{"episodic":""}`}, {Content: "{broken"}}, 3, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fake := fakeupstream.New()
			fake.Push(c.replies...)
			e := newEnv(t, "sqlite", envOpts{llm: fakeLLM(t, fake)})
			s := scope("dora")
			turns := e.sayAll(s, kyoto)
			e.wait()
			// A job that failed is retried by River later (the model may
			// answer better): count whole attempts of retries+1 calls.
			if got := e.q.LLMCalls(); got != c.calls && (c.ok || got%c.calls != 0) {
				t.Errorf("LLM calls %d, want %d", got, c.calls)
			}
			eps := e.list(s, memory.StateLive, memory.TierEpisodic)
			evs := e.list(s, memory.StateLive, memory.TierEvent)
			if len(evs) != 3 {
				t.Fatalf("%d events kept, want 3", len(evs))
			}
			if !c.ok {
				if len(eps) != 0 {
					t.Errorf("failed consolidation wrote %s", texts(eps))
				}
				for _, ev := range evs {
					if ev.ConsolidatedAt != nil {
						t.Errorf("event marked consolidated after failure")
					}
				}
				st, err := e.q.Pending(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if !slices.ContainsFunc(st.Failed, func(f FailedJob) bool {
					return f.Kind == kindConsolidate && len(f.Errors) > 0 && strings.Contains(f.Errors[0], "invalid consolidation answer")
				}) {
					t.Errorf("failure not visible in the queue view: %+v", st.Failed)
				}
				return
			}
			if len(eps) != 1 || !strings.Contains(eps[0].Text, "March 3-7") {
				t.Fatalf("episodic %s", texts(eps))
			}
			for _, tu := range turns {
				if !slices.Contains(eps[0].Provenance.RequestIDs, tu.RequestID) || !slices.Contains(eps[0].Provenance.TurnRefs, tu.Refs[0]) {
					t.Errorf("episodic provenance %+v misses %s", eps[0].Provenance, tu.RequestID)
				}
			}
			for _, ev := range evs {
				if ev.ConsolidatedAt == nil {
					t.Errorf("event %s not marked consolidated", ev.ID)
				}
			}
			facts := e.list(s, memory.StateLive, memory.TierSemantic)
			if !slices.ContainsFunc(facts, func(m *memory.Memory) bool { return m.Text == "The user travels with Ana." }) {
				t.Errorf("semantic facts %s", texts(facts))
			}
			if !strings.Contains(fake.Last().Path, "/chat/completions") || !strings.Contains(string(fake.Last().Body), "Gion ryokan") {
				t.Errorf("model not asked about the cluster: %s", fake.Last().Body)
			}
		})
	}
}

func TestConsolidationContradicts(t *testing.T) {
	fake := fakeupstream.New()
	fake.Push(fakeupstream.Reply{Content: `{"episodic":"The user rewrote the billing service in Rust over three sessions.","semantic":["The user writes Rust."],"contradicts":["The user uses Python for everything."]}`})
	e := newEnv(t, "postgres", envOpts{llm: fakeLLM(t, fake)})
	s := scope("erin")
	e.say(s, "I use Python for everything")
	e.wait()
	e.sayAll(s, []string{
		"Rewriting the billing service in Rust today, the borrow checker in the invoice module",
		"More Rust work on the billing service: the borrow checker complains in the invoice module",
		"Billing service in Rust again: fixed the borrow checker issue in the invoice module",
	})
	e.wait()
	sup := e.list(s, memory.StateSuperseded)
	if len(sup) != 1 || sup[0].Text != "The user uses Python." {
		t.Fatalf("superseded %s; all %s; calls %d", texts(sup), texts(e.list(s, memory.StateAny)), e.q.LLMCalls())
	}
	if e.q.LLMCalls() != 1 {
		t.Errorf("LLM calls %d", e.q.LLMCalls())
	}
}

func TestExtractiveConsolidation(t *testing.T) {
	e := newEnv(t, "sqlite", envOpts{})
	s := scope("fay")
	e.sayAll(s, kyoto)
	e.wait()
	eps := e.list(s, memory.StateLive, memory.TierEpisodic)
	if len(eps) != 1 || !strings.Contains(eps[0].Text, "Kyoto") {
		t.Fatalf("episodic %s", texts(eps))
	}
	if e.q.WouldBeLLMCalls() != 1 || e.q.LLMCalls() != 0 {
		t.Errorf("would-be %d real %d, want 1 and 0", e.q.WouldBeLLMCalls(), e.q.LLMCalls())
	}
}

// TestExtractiveConsolidationReadsNoTurnAgain: the offline consolidator
// states no fact of its own about ingested turns: their facts were read
// when they came in, dated by the turn's time. Read again at consolidation
// (today, a month after these turns), "yesterday" became the day before
// today.
func TestExtractiveConsolidationReadsNoTurnAgain(t *testing.T) {
	e := newEnv(t, "sqlite", envOpts{})
	s := scope("hiker")
	e.sayAll(s, []string{
		"Yesterday I went hiking at Mount Tam with my sister Jo, the trail was muddy",
		"Went hiking at Mount Tam with my sister Jo again yesterday, the trail was dry",
		"Yesterday hiking at Mount Tam with my sister Jo, we saw a coyote on the trail",
	})
	e.wait()
	if eps := e.list(s, memory.StateLive, memory.TierEpisodic); len(eps) != 1 {
		t.Fatalf("episodic %s, want the three turns consolidated", texts(eps))
	}
	day := e.clock.Now().AddDate(0, 0, -1).Format("2 Jan 2006")
	var dated int
	for _, m := range e.list(s, memory.StateAny) {
		if m.Source == memory.SourceConsolidated && m.Tier != memory.TierEpisodic {
			t.Errorf("consolidation stated %q again", m.Text)
		}
		if strings.Contains(m.Text, day) {
			dated++
		}
		if today := time.Now().AddDate(0, 0, -1).Format("2 Jan 2006"); today != day && strings.Contains(m.Text, today) {
			t.Errorf("%q is dated by the consolidation's day", m.Text)
		}
	}
	if dated == 0 {
		t.Errorf("no memory dated %s: %s", day, texts(e.list(s, memory.StateAny)))
	}
}

func TestLLMBudget(t *testing.T) {
	fake := fakeupstream.New()
	fake.Push(fakeupstream.Reply{Content: goodJSON}, fakeupstream.Reply{Content: goodJSON})
	pol := policy.Default()
	pol.Consolidation.MaxCallsPerHour = 1
	e := newEnv(t, "sqlite", envOpts{llm: fakeLLM(t, fake), pol: pol})
	e.sayAll(scope("g1"), kyoto)
	e.sayAll(scope("g2"), kyoto)
	e.wait()
	if e.q.LLMCalls() != 1 {
		t.Errorf("LLM calls %d, want 1 (budget)", e.q.LLMCalls())
	}
	st, err := e.q.Pending(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if st.Scheduled < 1 {
		t.Errorf("over-budget cluster not kept as a scheduled job: %+v", st)
	}
	done := 0
	for _, u := range []string{"g1", "g2"} {
		done += len(e.list(scope(u), memory.StateLive, memory.TierEpisodic))
	}
	if done != 1 {
		t.Errorf("%d clusters consolidated, want 1", done)
	}
}

// TestRepeatedTopicsBudget: 200 turns of varied one-off chat plus 3 topics
// repeated 4 times each → at most one model call per 10 turns, and every
// repeated topic consolidated.
func TestRepeatedTopicsBudget(t *testing.T) {
	e := newEnv(t, "sqlite", envOpts{})
	s := scope("hank")
	topics := [][]string{
		{"Our team offsite in Lisbon on May 12: budget 4000 euros for 12 people",
			"Lisbon offsite May 12 update: the 4000 euros budget must cover 12 people and the boat tour",
			"Lisbon offsite on May 12 for 12 people: 4000 euros budget, boat tour booked",
			"Final check on the Lisbon offsite May 12, 12 people, 4000 euros budget"},
		{"My sourdough starter smells like acetone after feeding it rye flour twice a day",
			"Sourdough starter again: acetone smell after the rye flour feeding twice a day",
			"The sourdough starter still smells of acetone, rye flour feeding twice a day",
			"Sourdough starter acetone smell is back after rye flour feedings"},
		{"Postgres vacuum is slow on the orders table with 80 million rows",
			"The orders table vacuum in Postgres takes hours with 80 million rows",
			"Postgres orders table: vacuum still slow at 80 million rows",
			"Vacuum on the Postgres orders table with 80 million rows again"},
	}
	var turns []string
	for i := 0; i < 200; i++ {
		turns = append(turns, oneOff(i))
	}
	// Spread each topic over the conversation.
	for k, tp := range topics {
		for j, m := range tp {
			at := 10 + k*7 + j*45
			turns = slices.Insert(turns, at, m)
		}
	}
	for _, m := range turns {
		e.say(s, m)
		e.wait()
	}
	n := int64(len(turns))
	calls := e.q.WouldBeLLMCalls() + e.q.LLMCalls()
	t.Logf("%d turns, %d consolidation calls (%.3f per turn)", n, calls, float64(calls)/float64(n))
	if calls*10 > n {
		t.Errorf("%d consolidation calls for %d turns: more than 1 per 10", calls, n)
	}
	eps := e.list(s, memory.StateLive, memory.TierEpisodic)
	for _, tp := range topics {
		key := strings.Fields(tp[0])[1]
		if !slices.ContainsFunc(eps, func(m *memory.Memory) bool {
			for _, x := range tp {
				if strings.Contains(x, firstWords(m.Text)) {
					return true
				}
			}
			return false
		}) {
			t.Errorf("topic %q not consolidated; episodic: %s", key, texts(eps))
		}
	}
}

func firstWords(s string) string {
	f := strings.Fields(s)
	return strings.Join(f[:min(5, len(f))], " ")
}

// oneOff is varied chat: each turn pairs a subject and a setting no other
// turn pairs, in one of ten phrasings, so no three turns form a cluster.
func oneOff(i int) string {
	n := oneOffNouns[i%len(oneOffNouns)]
	c := oneOffSettings[(i*37+i/len(oneOffNouns))%len(oneOffSettings)]
	tmpl := oneOffForms[(i+i/len(oneOffNouns))%len(oneOffForms)]
	return strings.Replace(strings.Replace(tmpl, "{n}", n, 1), "{t}", c, 1)
}

// oneOffReply is an assistant's answer to oneOff(i): informative, as a
// model's answers are, so the turn is kept as an event for it (a question
// answered by "ok" leaves nothing to remember).
func oneOffReply(i int) string {
	n := oneOffNouns[i%len(oneOffNouns)]
	return "Short answer: " + n + " works well there if you plan about 2 hours ahead and check the conditions first."
}

var oneOffForms = []string{
	"What do you think about {n} for {t}?", "Is {n} a good idea when {t}?", "How does {n} work with {t}?",
	"Tell me something about {n} and {t}.", "Why is {n} so hard in {t}?", "Should I try {n} before {t}?",
	"Any tips on {n} during {t}?", "Which {n} is best for {t}?", "Where can I find {n} for {t}?",
	"Compare {n} with {t} please.",
}

var oneOffNouns = strings.Fields(`photosynthesis volcanoes jazz mortgages telescopes origami espresso glaciers
	chess sourcing kayaks bonsai vinyl sunscreen compost ukulele lasagna tarot sextants archery
	beekeeping crochet drones fermentation geocaching hammocks igloos juggling kombucha lanterns
	marimbas nebulae opals pottery quilting radishes saffron tandems umbrellas violins
	watercolors xylophones yogurt zeppelins anchovies bagpipes cacti dumplings eclipses falconry
	gondolas harmonicas icebergs jellyfish kites lichens meteorites nougat octopuses pretzels
	quasars rhubarb snorkels tulips unicycles vanilla walruses yurts zucchini acorns
	boomerangs canoes dominoes emeralds fjords gargoyles hedgehogs inkwells jasmine kilns
	lobsters mangroves nutmeg obelisks parsnips quinoa reindeer samovars trombones urchins
	vultures wombats yaks zithers abacus bobsleds catapults dulcimers`)

var oneOffSettings = []string{
	"a rainy weekend", "my grandmother", "a job interview", "the night shift", "a school project",
	"winter camping", "a wedding toast", "the dentist", "a long flight", "tax season",
	"a birthday party", "a marathon", "the farmers market", "a power outage", "moving house",
	"a first date", "jury duty", "a hackathon", "the science fair", "a road trip",
	"learning Spanish", "a heatwave", "night photography", "a book club", "the library",
	"a snowstorm", "retirement", "a museum visit", "the county fair", "ice fishing",
	"a thunderstorm", "the harvest festival", "a garage sale", "a piano recital", "spring cleaning",
	"a lunar eclipse", "a sailing race", "the playground", "a chemistry exam", "a cruise",
	"a pottery class", "the night market", "a charity run", "a haunted house", "a salsa lesson",
	"a ski trip", "the carnival", "a poetry slam", "a baby shower", "the zoo",
	"a desert hike", "a jazz club", "the aquarium", "a cooking contest", "a barn dance",
	"a chess tournament", "the observatory", "a treehouse", "a yard party", "a canoe trip",
	"a trivia night", "the botanical garden", "a comic convention", "an art auction", "a fishing village",
	"a mountain cabin", "a rooftop garden", "the flea market", "a magic show", "a vineyard tour",
	"a puppet theater", "a lighthouse", "the orchard", "a tea ceremony", "a regatta",
	"a dog show", "the planetarium", "a sandcastle contest", "a quiz show", "a tailor shop",
	"a bakery", "a glacier hike", "a film festival", "a rodeo", "the opera",
	"a kite festival", "a street parade", "a paddle race", "a sculpture park", "a village fete",
	"a bird sanctuary", "the riverbank", "a hot spring", "a ghost tour", "a craft fair",
	"a drum circle", "a bowling alley", "a pumpkin patch", "a mosaic workshop", "the harbor",
}

// lisbon are three turns about one repeated topic: a move.
var lisbon = []string{
	"Planning the Lisbon move with Ana: the movers come on March 3 to the Alfama flat",
	"For the Lisbon move with Ana, the Alfama flat costs 1800 euros per month from March 3",
	"Lisbon move with Ana update: we signed the Alfama flat lease from March 3",
}

// TestConsolidationTriples: the consolidation call's triples become facts
// of their slots in the same call (a move supersedes the old city); a
// triple that lost its value or kept a first person is dropped; a
// malformed triples list is rejected and asked again, within the
// policy's retries; the model is called once per cluster, never per turn.
func TestConsolidationTriples(t *testing.T) {
	const good = `{"episodic":"The user and Ana are moving to an Alfama flat in Lisbon on March 3 (1800 EUR/month).",
		"semantic":["The user is moving to Lisbon with Ana."],"contradicts":[],
		"triples":[{"subject":"user","attribute":"lives_in","value":"Lisbon"},
			{"subject":"user","attribute":"likes","value":"it"},
			{"subject":"User","attribute":"Partner","value":"Ana"}]}`
	cases := []struct {
		name    string
		replies []fakeupstream.Reply
		calls   int64
	}{
		{"good", []fakeupstream.Reply{{Content: good}}, 1},
		{"malformed_then_good", []fakeupstream.Reply{{Content: `{"episodic":"A move.","triples":"lives in Lisbon"}`}, {Content: good}}, 2},
		{"missing_value_then_good", []fakeupstream.Reply{{Content: `{"episodic":"A move.","triples":[{"subject":"user","attribute":"lives_in"}]}`}, {Content: good}}, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			forBackends(t, func(t *testing.T, backend string) {
				if c.name != "good" && backend != "sqlite" {
					t.Skip("the retry of a bad answer does not depend on the store")
				}
				fake := fakeupstream.New()
				fake.Push(c.replies...)
				e := newEnv(t, backend, envOpts{llm: fakeLLM(t, fake)})
				s := scope("tripl")
				e.say(s, "I live in Berlin.")
				e.wait()
				e.sayAll(s, lisbon)
				e.wait()
				if got := e.q.LLMCalls(); got != c.calls {
					t.Errorf("LLM calls %d for one cluster of %d turns, want %d", got, len(lisbon)+1, c.calls)
				}
				live := e.list(s, memory.StateLive, memory.TierSemantic, memory.TierProfile)
				var city, partner *memory.Memory
				for _, m := range live {
					f := m.Fact()
					switch {
					case f == nil:
					case f.Attribute == "lives_in" && f.Value == "Lisbon":
						city = m
					case f.Attribute == "partner" && f.Value == "Ana":
						partner = m
					case f.Attribute == "likes":
						t.Errorf("a triple without a real value was stored: %q", m.Text)
					}
				}
				if city == nil || city.Source != memory.SourceConsolidated || city.Text != "The user lives in Lisbon." {
					t.Fatalf("no consolidated lives_in Lisbon fact among %s", texts(live))
				}
				if partner == nil || partner.Text != "The user's partner is Ana." {
					t.Errorf("no partner Ana fact among %s", texts(live))
				}
				sup := e.list(s, memory.StateSuperseded)
				if len(sup) != 1 || !strings.Contains(sup[0].Text, "Berlin") || sup[0].SupersededBy != city.ID {
					t.Errorf("superseded %s, want Berlin replaced by %s", texts(sup), city.ID)
				}
				for _, m := range live {
					if strings.Contains(m.Text, "Berlin") {
						t.Errorf("Berlin still live: %q", m.Text)
					}
				}
			})
		})
	}
}

func TestParseConsolidationTriples(t *testing.T) {
	c, err := ParseConsolidation(`{"episodic":"x","triples":[{"subject":"user","attribute":"pet","value":"a cat","ended":true}]}`)
	if err != nil || len(c.Triples) != 1 || c.Triples[0] != (memory.Triple{Subject: "user", Attribute: "pet", Value: "a cat", Ended: true}) {
		t.Fatalf("parsed %+v, err %v", c, err)
	}
	for _, bad := range []string{
		`{"episodic":"x","triples":{"subject":"user"}}`,
		`{"episodic":"x","triples":[{"subject":"user","attribute":"pet","value":3}]}`,
		`{"episodic":"x","triples":[{"subject":"user","attribute":"pet","value":"cat","ended":"yes"}]}`,
		`{"episodic":"x","triples":["user pet cat"]}`,
	} {
		if _, err := ParseConsolidation(bad); !errors.Is(err, errBadAnswer) {
			t.Errorf("ParseConsolidation(%s) err %v, want a bad answer", bad, err)
		}
	}
}
