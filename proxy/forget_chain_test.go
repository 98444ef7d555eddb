package proxy_test

import (
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/memproxy/memproxy/memory"
)

// TestForgetUserDropsChains: once a user is deleted (FenceUser, which the
// management API's forget-user calls first), a request chained to one of
// the user's earlier responses gets no context from it: the link's
// exchange would otherwise be stored again with the new turn.
func TestForgetUserDropsChains(t *testing.T) {
	testForgetDropsChains(t, func(h *harness, s memory.Scope) { h.srv.FenceUser(s.User) })
}

// TestForgetScopeDropsChains: the same after a forget in the scope
// ("forget that …", which the background reports with ForgetScope).
func TestForgetScopeDropsChains(t *testing.T) {
	testForgetDropsChains(t, func(h *harness, s memory.Scope) { h.srv.ForgetScope(s) })
}

func testForgetDropsChains(t *testing.T, forget func(*harness, memory.Scope)) {
	h := newHarness(t)
	first, err := h.client.Responses.New(t.Context(), responses.ResponseNewParams{Model: "gpt-test",
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("My passport number is in the blue folder.")}})
	if err != nil {
		t.Fatal(err)
	}
	t1 := h.sink.wait(t)
	ask := func() string {
		t.Helper()
		if _, err := h.client.Responses.New(t.Context(), responses.ResponseNewParams{Model: "gpt-test", PreviousResponseID: openai.String(first.ID),
			Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Where did I say it was?")}}); err != nil {
			t.Fatal(err)
		}
		return h.sink.wait(t).Context
	}
	if ctx := ask(); !strings.Contains(ctx, "blue folder") {
		t.Fatalf("before the deletion the chained turn's context is %q", ctx)
	}
	forget(h, t1.Scope)
	if ctx := ask(); strings.Contains(ctx, "blue folder") {
		t.Errorf("after the forget a chained turn stored %q again", ctx)
	}
}
