package background

import (
	"context"
	"strings"
	"testing"

	"github.com/memproxy/memproxy/memory"
)

// TestReextract: facts an older extraction left (here a fact that lost
// its value) are replaced by what today's extraction makes of the turn
// log; events and explicit notes stay; running it twice changes nothing.
func TestReextract(t *testing.T) {
	forBackends(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, envOpts{})
		ctx := context.Background()
		s := scope("rex")
		e.say(s, "I live in Berlin.")
		e.say(s, "Remember that my locker is number 12.")
		e.wait()
		want := e.list(s, memory.StateLive, memory.TierSemantic, memory.TierProfile)
		if len(want) < 2 {
			t.Fatalf("ingest made %s", texts(want))
		}
		events := len(e.list(s, memory.StateAny, memory.TierEvent))
		// What an older version left: a broken fact.
		junk := &memory.Memory{ID: "0000000000junk01", Tier: memory.TierSemantic, Text: "The user lives in.", Source: memory.SourceExtracted,
			Value: 0.6, Confidence: 0.7, Key: "user.lives", Embedding: e.vec("The user lives in.")}
		if err := e.st.Insert(ctx, s, junk); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			r, err := e.q.Reextract(ctx, s)
			if err != nil {
				t.Fatal(err)
			}
			if r.Turns != 2 || r.Facts == 0 || r.Removed == 0 {
				t.Errorf("result %+v", r)
			}
			got := e.list(s, memory.StateLive, memory.TierSemantic, memory.TierProfile)
			if strings.Contains(texts(got), "The user lives in.") {
				t.Errorf("the broken fact survived: %s", texts(got))
			}
			if texts(got) != texts(want) {
				t.Errorf("after reextract %s, want %s", texts(got), texts(want))
			}
			if n := len(e.list(s, memory.StateAny, memory.TierEvent)); n != events {
				t.Errorf("%d events, want %d", n, events)
			}
		}
	})
}

func (e *env) vec(text string) []float32 {
	e.t.Helper()
	v, err := e.emb.Embed(context.Background(), []string{text})
	if err != nil {
		e.t.Fatal(err)
	}
	return v[0]
}
