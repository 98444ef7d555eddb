package background

import (
	"context"
	"strings"
	"testing"

	"github.com/memproxy/memproxy/memory"
)

// TestMemoriesKeepTheirAPI checks that every memory made from a turn
// (event, extracted fact, explicit remember) records the API the turn
// came through, and that the turn log keeps it too.
func TestMemoriesKeepTheirAPI(t *testing.T) {
	forBackends(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, envOpts{})
		s := scope("alice")
		ctx := context.Background()
		want := map[string]string{}
		for i, c := range []struct{ api, user string }{
			{"chat", "I live in Lisbon."},
			{"responses", "Please remember that my sister's name is Ottilie."},
			{"messages", "Can you explain how the Raft election timeout works with 150ms intervals?"},
			{"messages", "I work at Acme as a welder."},
		} {
			tr := e.turn(s, c.user, "Noted, reply number "+itoa(i)+".")
			tr.API = c.api
			if err := e.q.Enqueue(ctx, tr); err != nil {
				t.Fatal(err)
			}
			want[tr.RequestID] = c.api
		}
		e.wait()
		all := e.list(s, memory.StateLive)
		seen := map[string]bool{}
		for _, m := range all {
			for _, rid := range m.Provenance.RequestIDs {
				api, ok := want[rid]
				if !ok {
					continue
				}
				seen[rid] = true
				if len(m.Provenance.RequestIDs) == 1 && m.API != api {
					t.Errorf("%s memory %q from a %s turn has api %q", m.Tier, m.Text, api, m.API)
				}
			}
		}
		for rid := range want {
			if !seen[rid] {
				t.Errorf("no memory from turn %s among %d", rid, len(all))
			}
		}
		turns, err := e.st.Turns(ctx, s, memory.TurnFilter{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		var apis []string
		for _, tr := range turns.Data {
			if tr.API != want[tr.RequestID] {
				t.Errorf("turn log: %s has api %q, want %q", tr.RequestID, tr.API, want[tr.RequestID])
			}
			apis = append(apis, tr.API)
		}
		if len(apis) != len(want) {
			t.Errorf("turn log has %d turns, want %d", len(apis), len(want))
		}
	})
}

func TestSharedAPI(t *testing.T) {
	m := func(api string) *memory.Memory { return &memory.Memory{API: api} }
	for _, c := range []struct {
		in   []*memory.Memory
		want string
	}{
		{nil, ""},
		{[]*memory.Memory{m("messages"), m("messages")}, "messages"},
		{[]*memory.Memory{m("messages"), m("chat")}, ""},
		{[]*memory.Memory{m(""), m("chat")}, ""},
	} {
		if got := sharedAPI(c.in); got != c.want {
			t.Errorf("sharedAPI of %d memories = %q, want %q", len(c.in), got, c.want)
		}
	}
}

// TestHeldTurnsThroughTheQueue: a background response's turn held through
// the queue is redacted like any captured turn, is not ingested while
// held, and once released with its reply (redacted too) is ingested once.
func TestHeldTurnsThroughTheQueue(t *testing.T) {
	forBackends(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, envOpts{pol: defaultPolicyRedact()})
		s := scope("ivy")
		ctx := context.Background()
		const secret = "sk-proj-Zx9abcdefghijklmnopqrs"
		tr := e.turn(s, "Please remember that my API key is "+secret+" and my sister is Ottilie.", "")
		tr.API, tr.ResponseID = "responses", "resp_held_1"
		if err := e.q.HoldTurn(ctx, tr); err != nil {
			t.Fatal(err)
		}
		e.wait()
		if n := len(e.list(s, memory.StateLive)); n != 0 {
			t.Fatalf("%d memories from a held turn", n)
		}
		h, ok, err := e.q.HeldTurn(ctx, s, "resp_held_1")
		if err != nil || !ok {
			t.Fatalf("HeldTurn = %v, %v", ok, err)
		}
		if strings.Contains(h.User, secret) {
			t.Errorf("the held turn keeps the secret: %q", h.User)
		}
		h.Assistant = "Noted; your key " + secret + " is safe."
		if ok, err := e.q.ReleaseTurn(ctx, h); err != nil || !ok {
			t.Fatalf("ReleaseTurn = %v, %v", ok, err)
		}
		if ok, _ := e.q.ReleaseTurn(ctx, h); ok {
			t.Error("released twice")
		}
		e.wait()
		turns, err := e.st.Turns(ctx, s, memory.TurnFilter{})
		if err != nil {
			t.Fatal(err)
		}
		if len(turns.Data) != 1 || turns.Data[0].API != "responses" || !strings.Contains(turns.Data[0].Assistant, "Noted") {
			t.Fatalf("turn log after release: %+v", turns.Data)
		}
		if strings.Contains(turns.Data[0].User+turns.Data[0].Assistant, secret) {
			t.Errorf("the released turn keeps the secret: %+v", turns.Data[0])
		}
		found := false
		for _, m := range e.list(s, memory.StateLive) {
			if strings.Contains(m.Text, secret) {
				t.Errorf("memory keeps the secret: %q", m.Text)
			}
			if strings.Contains(m.Text, "Ottilie") && m.API == "responses" {
				found = true
			}
		}
		if !found {
			t.Error("no memory of Ottilie from the released turn")
		}
	})
}
