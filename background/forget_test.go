package background

import (
	"context"
	"strings"
	"testing"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/store/sqlite"
)

// scanEverything is scanTables over the store's database and, on SQLite,
// the turn spool's file.
func (e *env) scanEverything(backend string, needles []string) []string {
	e.t.Helper()
	t := e.t.(*testing.T)
	hits := scanTables(t, e.st.DB(), backend, needles)
	if sp, ok := e.spool.(*sqlite.Spool); ok {
		hits = append(hits, scanDB(t, sp.DB(), "sqlite", needles, false)...)
	}
	return hits
}

// TestForgetMeansGone: after "forget my passport number", the number is
// in no memory (live or history), no turn-log row, no audit image and no
// queue row, on both stores, whether the forget arrives in a later job or
// in the same round as the statement; the audit keeps who, when and which
// ids; other memories and other users stay.
func TestForgetMeansGone(t *testing.T) {
	forBackends(t, func(t *testing.T, backend string) {
		e := newEnv(t, backend, envOpts{})
		ctx := context.Background()
		s, other := scope("pia"), scope("oli")
		secrets := []string{"X1234567", "Y7654321"}
		e.say(s, "My passport number is X1234567.")
		e.say(s, "I like green tea in the morning.")
		e.say(other, "My passport number is Z5550001.") // another user's, kept
		e.wait()
		e.say(s, "My passport number is Y7654321 now.") // supersedes: history holds the old one
		e.wait()
		if len(e.scanEverything(backend, secrets)) == 0 {
			t.Fatal("the number was stored nowhere: the scan proves nothing")
		}
		f := e.say(s, "Forget my passport number.")
		e.wait()
		for _, h := range e.scanEverything(backend, secrets) {
			t.Errorf("after forget: %s holds the number", h)
		}
		for _, m := range e.list(s, memory.StateAny) {
			for _, x := range secrets {
				if strings.Contains(m.Text, x) || strings.Contains(m.Context, x) {
					t.Errorf("memory %s still holds %s: %q", m.ID, x, m.Text)
				}
			}
		}
		if live := e.list(s, memory.StateLive); !strings.Contains(texts(live), "green tea") {
			t.Errorf("an unrelated memory went: %s", texts(live))
		}
		if o := e.list(other, memory.StateLive); !strings.Contains(texts(o), "Z5550001") {
			t.Errorf("another user's memory went: %s", texts(o))
		}
		// The statement and the forget in one import: one round.
		q := scope("quinn")
		if err := e.q.ImportTurns(ctx, []*memory.Turn{
			e.turn(q, "My locker code is W9990001.", "Noted."),
			e.turn(q, "Forget my locker code.", "Done."),
		}); err != nil {
			t.Fatal(err)
		}
		e.wait()
		for _, h := range e.scanEverything(backend, []string{"W9990001"}) {
			t.Errorf("after a forget in the same round: %s holds the code", h)
		}
		au, err := e.st.Audit(ctx, s, e.clock.Now().AddDate(-1, 0, 0), 1000)
		if err != nil {
			t.Fatal(err)
		}
		deletes := 0
		for _, a := range au {
			if a.Action == "delete" && a.Actor == "explicit" && a.MemoryID != "" && strings.Contains(a.Detail, f.RequestID) {
				deletes++
			}
		}
		if deletes < 2 {
			t.Errorf("%d audited deletes naming the forget request, want the fact and its history", deletes)
		}
	})
}
