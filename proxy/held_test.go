package proxy_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/memproxy/memproxy/internal/fakeupstream"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
	"github.com/memproxy/memproxy/proxy"
)

// recHeld is a HeldTurns that records what the proxy did with it.
type recHeld struct {
	mu       sync.Mutex
	held     map[string]*memory.Turn // by scope and response id
	lookups  int
	released []*memory.Turn
}

func heldKey(s memory.Scope, id string) string { return s.String() + "|" + id }

func (h *recHeld) HoldTurn(_ context.Context, t *memory.Turn) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := *t
	h.held[heldKey(t.Scope, t.ResponseID)] = &c
	return nil
}

func (h *recHeld) HeldTurn(_ context.Context, s memory.Scope, id string) (*memory.Turn, bool, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.lookups++
	t, ok := h.held[heldKey(s, id)]
	if !ok {
		return nil, false, nil
	}
	c := *t
	return &c, true, nil
}

func (h *recHeld) ReleaseTurn(_ context.Context, t *memory.Turn) (bool, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	k := heldKey(t.Scope, t.ResponseID)
	if _, ok := h.held[k]; !ok {
		return false, nil
	}
	delete(h.held, k)
	h.released = append(h.released, t)
	return true, nil
}

func (h *recHeld) snapshot() (held []*memory.Turn, lookups int, released []*memory.Turn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, t := range h.held {
		held = append(held, t)
	}
	return held, h.lookups, append([]*memory.Turn(nil), h.released...)
}

// TestBackgroundTurnHeldAndReleased: with a HeldTurns configured (the
// queue's, over the shared spool), a background response's turn is held,
// cut to ingest.max_turn_bytes, not handed to the Sink; a fetch while it
// runs looks nothing up; the completed fetch by the same caller releases
// it with the reply, once; another caller's fetch releases nothing.
func TestBackgroundTurnHeldAndReleased(t *testing.T) {
	rh := &recHeld{held: map[string]*memory.Turn{}}
	h := newHarness(t, sectionRewriter(nil), func(c *proxy.Config) {
		p := policy.Default()
		p.Ingest.MaxTurnBytes = 1024
		c.Policy, c.Held = p, rh
	})
	h.fake.Push(fakeupstream.Reply{Content: "Noted, Ottilie.", Polls: 1})
	long := "Please remember that my sister is Ottilie. " + strings.Repeat("More words. ", 200)
	res, err := h.client.Responses.New(t.Context(), responses.ResponseNewParams{
		Model: "gpt-test", Background: openai.Bool(true),
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String(long)},
	})
	if err != nil || res.Status != "queued" {
		t.Fatalf("responses: %v (status %q)", err, res.Status)
	}
	held, _, _ := rh.snapshot()
	if len(held) != 1 {
		t.Fatalf("%d turns held, want 1", len(held))
	}
	if tr := held[0]; tr.ResponseID != res.ID || tr.API != proxy.APIResponses || len(tr.User) > 1024 || !tr.Truncated || tr.Assistant != "" {
		t.Errorf("held turn: response %q api %q user %d bytes truncated %v", tr.ResponseID, tr.API, len(tr.User), tr.Truncated)
	}
	if n := len(h.sink.Turns()); n != 0 {
		t.Errorf("%d turns went to the sink", n)
	}
	running, err := h.client.Responses.Get(t.Context(), res.ID, responses.ResponseGetParams{})
	if err != nil || running.Status != "in_progress" {
		t.Fatalf("first fetch: %v (status %q)", err, running.Status)
	}
	if _, lookups, _ := rh.snapshot(); lookups != 0 {
		t.Errorf("a running response was looked up %d times", lookups)
	}
	other := openai.NewClient(option.WithBaseURL(h.front.URL+"/v1"), option.WithAPIKey("sk-other"), option.WithMaxRetries(0))
	if _, err := other.Responses.Get(t.Context(), res.ID, responses.ResponseGetParams{}); err != nil {
		t.Fatal(err)
	}
	if _, _, rel := rh.snapshot(); len(rel) != 0 {
		t.Fatalf("another caller's fetch released %d turns", len(rel))
	}
	for range 2 {
		done, err := h.client.Responses.Get(t.Context(), res.ID, responses.ResponseGetParams{})
		if err != nil || done.Status != "completed" {
			t.Fatalf("fetch: %v (status %q)", err, done.Status)
		}
	}
	_, _, rel := rh.snapshot()
	if len(rel) != 1 || rel[0].Assistant != "Noted, Ottilie." || rel[0].FinishReason == "" {
		t.Fatalf("released %+v, want one turn with the reply", rel)
	}
	if n := len(h.sink.Turns()); n != 0 {
		t.Errorf("%d turns went to the sink", n)
	}
}
