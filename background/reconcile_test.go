package background

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/memproxy/memproxy/internal/fakeupstream"
	"github.com/memproxy/memproxy/memory"
)

// TestContradictions runs every pair through ingest: the new fact is live,
// the old one superseded (valid_to and superseded_by set) and still in
// History; non-contradictions supersede nothing. "model" configures a
// consolidation model: single statements still never call it.
func TestContradictions(t *testing.T) {
	for _, withModel := range []bool{false, true} {
		name := "rules"
		if withModel {
			name = "model"
		}
		t.Run(name, func(t *testing.T) {
			forBackends(t, func(t *testing.T, backend string) {
				o := envOpts{}
				if withModel {
					o.llm = fakeLLM(t, fakeupstream.New())
				}
				e := newEnv(t, backend, o)
				ctx := context.Background()
				for i, p := range contradictionPairs {
					s := scope(fmt.Sprintf("c%d", i))
					e.say(s, p[0])
					e.wait()
					e.say(s, p[1])
				}
				for i, p := range nonContradictions {
					s := scope(fmt.Sprintf("n%d", i))
					e.say(s, p[0])
					e.wait()
					e.say(s, p[1])
				}
				e.wait()
				for i, p := range contradictionPairs {
					s := scope(fmt.Sprintf("c%d", i))
					sup := e.list(s, memory.StateSuperseded)
					live := e.list(s, memory.StateLive, memory.TierSemantic, memory.TierProfile)
					if len(sup) != 1 || len(live) == 0 {
						t.Errorf("%q → %q: %d superseded, %d live facts; want 1 and ≥1 (%s)", p[0], p[1], len(sup), len(live), texts(e.list(s, memory.StateAny)))
						continue
					}
					old := sup[0]
					if old.ValidTo == nil || !slices.ContainsFunc(live, func(m *memory.Memory) bool { return m.ID == old.SupersededBy }) {
						t.Errorf("%q: superseded_by %q valid_to %v, not a live fact (%s)", p[0], old.SupersededBy, old.ValidTo, texts(live))
					}
					if old.Key != "" {
						h, err := e.st.History(ctx, s, old.Key)
						if err != nil || len(h) < 2 || h[0].ID != old.ID {
							t.Errorf("%q: history %s (err %v)", p[0], texts(h), err)
						}
					}
				}
				for i, p := range nonContradictions {
					s := scope(fmt.Sprintf("n%d", i))
					if sup := e.list(s, memory.StateSuperseded); len(sup) != 0 {
						t.Errorf("%q → %q superseded %s", p[0], p[1], texts(sup))
					}
				}
				if e.q.LLMCalls() != 0 {
					t.Errorf("single statements made %d model calls", e.q.LLMCalls())
				}
			})
		})
	}
}

func texts(ms []*memory.Memory) string {
	out := "["
	for _, m := range ms {
		st := "live"
		if m.ValidTo != nil {
			st = "old"
		}
		out += fmt.Sprintf(" %s:%s:%q", m.Tier, st, m.Text)
	}
	return out + " ]"
}

// TestRetirementEndsEmployer: a retirement closes the employer held
// before it, the user's or a relative's, with the job; an employer the
// same turn names stays.
func TestRetirementEndsEmployer(t *testing.T) {
	e := newEnv(t, "sqlite", envOpts{})
	for i, c := range []struct{ before, retired, live, gone string }{
		{"My dad works at Airbus as an engineer.", "My dad retired last year.", "dad is retired", "Airbus"},
		{"I work at Siemens.", "I retired last month.", "user is retired", "Siemens"},
		{"I work at Siemens.", "I work part-time at Costco since I retired.", "Costco", "Siemens"},
	} {
		s := scope(fmt.Sprintf("retire%d", i))
		e.say(s, c.before)
		e.wait()
		e.say(s, c.retired)
		e.wait()
		live := texts(e.list(s, memory.StateLive))
		if !strings.Contains(live, c.live) || strings.Contains(live, c.gone) {
			t.Errorf("%q then %q: live %s, want %q and no %q", c.before, c.retired, live, c.live, c.gone)
		}
	}
}
