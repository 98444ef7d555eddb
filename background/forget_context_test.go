package background

import (
	"context"
	"strings"
	"testing"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
)

// TestForgetScrubsLaterContext: the turns after a forgotten one in the
// same conversation carry its words as their context (the exchange before
// them); after the forget no memory's text or context holds them, with
// the turn log on and off (policy ingest.turn_log), on both stores.
func TestForgetScrubsLaterContext(t *testing.T) {
	for _, turnLog := range []bool{true, false} {
		name := "turnlog-on"
		if !turnLog {
			name = "turnlog-off"
		}
		t.Run(name, func(t *testing.T) {
			forBackends(t, func(t *testing.T, backend string) {
				pol := policy.Default()
				pol.Ingest.TurnLog = turnLog
				e := newEnv(t, backend, envOpts{pol: pol})
				s := scope("rhea")
				ctx := context.Background()
				say := func(user, before string) *memory.Turn {
					tt := e.turn(s, user, "Noted.")
					tt.Session, tt.Context = "chat-1", before
					if err := e.q.Enqueue(ctx, tt); err != nil {
						t.Fatal(err)
					}
					return tt
				}
				first := "My gate code is 48213, the building on Quay Street."
				say(first, "")
				ex := first + "\nAssistant: Noted."
				say("Training for a half marathon in the spring has been tough.", ex)
				ex += "\nTraining for a half marathon in the spring has been tough.\nAssistant: Noted."
				e.wait()
				held := func() []string {
					var out []string
					for _, m := range e.list(s, memory.StateAny) {
						if strings.Contains(m.Text, "48213") || strings.Contains(m.Context, "48213") {
							out = append(out, m.ID+": "+m.Text+" | "+m.Context)
						}
					}
					return out
				}
				if len(held()) < 2 {
					t.Fatalf("the code is in %d memories before the forget, want the fact and a later context: the test proves nothing", len(held()))
				}
				say("Please forget my gate code.", ex)
				e.wait()
				for _, h := range held() {
					t.Errorf("after forget: %s", h)
				}
				if live := texts(e.list(s, memory.StateLive)); !strings.Contains(live, "half marathon") {
					t.Errorf("the later turn's own memory went: %s", live)
				}
			})
		})
	}
}
