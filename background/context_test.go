package background

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

func TestWithImportContext(t *testing.T) {
	s := memory.Scope{User: "u", Namespace: "default"}
	in := []*memory.Turn{
		{Scope: s, Session: "a", User: "Did you go hiking?", Assistant: "Yes, at Rainier."},
		{Scope: s, Session: "b", User: "other conversation", Assistant: "ok"},
		{Scope: s, Session: "a", User: "Was it cold?", Assistant: "Freezing."},
		{Scope: s, Session: "a", User: "kept", Context: "given by the client"},
		{Scope: s, User: "no session", Assistant: "none"},
	}
	out := withImportContext(in)
	want := []string{"", "", "Did you go hiking?\nAssistant: Yes, at Rainier.", "given by the client", ""}
	for i, w := range want {
		if out[i].Context != w {
			t.Errorf("turn %d: context %q, want %q", i, out[i].Context, w)
		}
	}
	if in[2].Context != "" {
		t.Error("the caller's turn was modified")
	}
}

func TestEventContext(t *testing.T) {
	tm := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	if got := eventContext(&memory.Turn{Time: tm, Context: "How was the trip?"}); got != "8 May 2023\nHow was the trip?" {
		t.Errorf("eventContext = %q", got)
	}
	if got := eventContext(&memory.Turn{Time: tm}); got != "8 May 2023" {
		t.Errorf("eventContext without context = %q", got)
	}
}

// A turn whose user message is noise or a greeting is dropped unless its
// reply is informative; a round without user text (a tool result fed back)
// is never an event; an event is valued by the whole turn.
func TestInformativeReplyKept(t *testing.T) {
	e := newEnv(t, "sqlite", envOpts{})
	s := scope("mel")
	ctx := context.Background()
	for _, tr := range []*memory.Turn{
		e.turn(s, "Hey Mel! How have you been?", "Swamped with the kids and work, and I start pottery classes at the Riverside studio on Monday."),
		e.turn(s, "", "Caroline, I finally adopted the two kittens from the Portland shelter last weekend!"),
		e.turn(s, "hi", "Hello! How can I help?"),
		e.turn(s, "thanks", "You're welcome."),
	} {
		if err := e.q.Enqueue(ctx, tr); err != nil {
			t.Fatal(err)
		}
	}
	e.wait()
	evs := e.list(s, memory.StateLive, memory.TierEvent)
	var got []string
	for _, m := range evs {
		got = append(got, m.Text)
		if m.Value < e.q.pol.Decay.LowValue {
			t.Errorf("informative turn %q valued %v, below decay's low_value %v", m.Text, m.Value, e.q.pol.Decay.LowValue)
		}
	}
	if len(evs) != 1 || !slices.ContainsFunc(got, func(s string) bool { return strings.Contains(s, "pottery") }) {
		t.Errorf("events %q, want the greeting with an informative reply only", got)
	}
}
