package background

import (
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
