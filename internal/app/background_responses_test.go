package app_test

import (
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/memproxy/memproxy/internal/app"
	"github.com/memproxy/memproxy/internal/fakeupstream"
	"github.com/memproxy/memproxy/memory"
)

// startBackground posts a background Responses request through h and
// checks it was answered "queued" with nothing captured.
func startBackground(t *testing.T, h *harness, user, text string) *responses.Response {
	t.Helper()
	c := h.client(user)
	res, err := c.Responses.New(t.Context(), responses.ResponseNewParams{
		Model: "gpt-test", Background: openai.Bool(true),
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String(text)},
	})
	if err != nil {
		t.Fatalf("responses: %v", err)
	}
	if res.Status != "queued" {
		t.Fatalf("status = %q, want queued", res.Status)
	}
	return res
}

// fetch gets a response through h and returns it.
func fetch(t *testing.T, h *harness, user, id string) *responses.Response {
	t.Helper()
	c := h.client(user)
	got, err := c.Responses.Get(t.Context(), id, responses.ResponseGetParams{})
	if err != nil {
		t.Fatalf("get %s: %v", id, err)
	}
	return got
}

// turnsOf is the turn log of user's default namespace, after h's queue
// processed everything.
func turnsOf(t *testing.T, h *harness, user string) []*memory.Turn {
	t.Helper()
	h.idle()
	page, err := h.app.Store.Turns(t.Context(), memory.Scope{User: user, Namespace: memory.DefaultNamespace}, memory.TurnFilter{})
	if err != nil {
		t.Fatal(err)
	}
	return page.Data
}

// A background response started through replica A and fetched through
// replica B (one PostgreSQL store, one upstream) is captured by B, once:
// the held turn lives in the shared turn spool. A fetch while it still
// runs captures nothing; fetching it again through A captures nothing
// more.
func TestBackgroundResponseAcrossReplicas(t *testing.T) {
	var dbURL, upstream string
	a := newHarness(t, "postgres", func(o *app.Options) { dbURL, upstream = o.DatabaseURL, o.Upstream })
	b := newHarness(t, "postgres", func(o *app.Options) { o.DatabaseURL, o.Upstream = dbURL, upstream })
	a.fake.Push(fakeupstream.Reply{Content: "I'll remember that your sister is Ottilie.", Polls: 1})

	res := startBackground(t, a, "fay", "Please remember that my sister's name is Ottilie.")
	if got := fetch(t, b, "fay", res.ID); got.Status != "in_progress" {
		t.Fatalf("first fetch: status %q, want in_progress", got.Status)
	}
	if n := len(turnsOf(t, b, "fay")); n != 0 {
		t.Fatalf("%d turns captured while the response ran", n)
	}
	done := fetch(t, b, "fay", res.ID)
	if done.Status != "completed" || done.OutputText() == "" {
		t.Fatalf("second fetch: status %q, text %q", done.Status, done.OutputText())
	}
	fetch(t, a, "fay", res.ID)
	// Another user fetching the same id captures nothing of fay's.
	fetch(t, b, "gus", res.ID)
	turns := turnsOf(t, b, "fay")
	a.idle()
	if len(turns) != 1 {
		t.Fatalf("turns = %d, want 1", len(turns))
	}
	tr := turns[0]
	if tr.API != "responses" || tr.User != "Please remember that my sister's name is Ottilie." ||
		tr.Assistant != done.OutputText() {
		t.Errorf("captured turn = %+v", tr)
	}
	if n := len(turnsOf(t, a, "gus")); n != 0 {
		t.Errorf("gus got %d turns", n)
	}
	// The turn became memories, which recall through A.
	page, err := a.app.Store.List(t.Context(), memory.Scope{User: "fay", Namespace: memory.DefaultNamespace}, memory.ListFilter{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, m := range page.Data {
		if strings.Contains(m.Text, "Ottilie") && m.API == "responses" {
			found = true
		}
	}
	if !found {
		t.Errorf("no memory of Ottilie from the responses API among %d", len(page.Data))
	}
}

// A restart between the POST and the GET loses nothing: the held turn is
// in the store, not in the process.
func TestBackgroundResponseSurvivesRestart(t *testing.T) {
	forEachBackend(t, func(t *testing.T, backend string) {
		var saved app.Options
		first := newHarness(t, backend, func(o *app.Options) { saved = *o })
		res := startBackground(t, first, "hal", "Please remember that my sister's name is Ottilie.")
		first.srv.Close()
		if err := first.app.Close(); err != nil {
			t.Fatal(err)
		}
		second := newHarness(t, backend, func(o *app.Options) {
			o.DB, o.DatabaseURL, o.Upstream = saved.DB, saved.DatabaseURL, saved.Upstream
		})
		done := fetch(t, second, "hal", res.ID)
		turns := turnsOf(t, second, "hal")
		if len(turns) != 1 || turns[0].Assistant != done.OutputText() || turns[0].API != "responses" {
			t.Fatalf("after a restart: turns %+v", turns)
		}
	})
}
