package admin_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memproxy/memproxy/admin"
	"github.com/memproxy/memproxy/memory"
)

// comparable is a memory reduced to what a round trip must keep.
func comparable(m *memory.Memory) memory.Memory {
	c := *m
	c.Embedding = nil
	return c
}

func TestExportDeleteImportRoundTrip(t *testing.T) {
	forEachStore(t, func(t *testing.T, st testStore) {
		e := newEnv(t, st)
		ctx := context.Background()
		s, work := scope("alice"), memory.Scope{User: "alice", Namespace: "work"}
		old := e.seed(s, memory.TierSemantic, "Alice lives in Berlin", func(m *memory.Memory) {
			m.Key = "user.city"
			m.Provenance = memory.Provenance{RequestIDs: []string{"r1"}, TurnRefs: []string{"msg-1"}}
		})
		nw := e.seed(s, memory.TierSemantic, "Alice moved to Lisbon", func(m *memory.Memory) { m.Key = "user.city"; m.Hits = 4 })
		if err := st.Supersede(ctx, s, old.ID, nw.ID, e.now); err != nil {
			t.Fatal(err)
		}
		e.seed(s, memory.TierProfile, "Alice prefers short answers", func(m *memory.Memory) { m.NoDecay = true; m.Source = memory.SourceExplicit })
		e.seed(s, memory.TierEvent, "User: hi there [[link]] # heading", func(m *memory.Memory) {
			at := e.now.Add(-time.Minute)
			m.ArchivedAt = &at
		})
		e.seed(work, memory.TierEpisodic, "Alice shipped the billing release on Nov 3")
		turn := &memory.Turn{RequestID: "r1", Scope: s, Session: "s1", Time: e.now.Add(-time.Hour), User: "I live in Berlin", Assistant: "Noted.", Refs: []string{"msg-1"}}
		if err := st.AppendTurn(ctx, turn); err != nil {
			t.Fatal(err)
		}
		e.seed(scope("bob"), memory.TierSemantic, "Bob is not exported")

		before := map[string]memory.Memory{}
		embs := map[string][]float32{}
		for _, sc := range []memory.Scope{s, work} {
			p, err := st.List(ctx, sc, memory.ListFilter{})
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range p.Data {
				before[m.ID] = comparable(m)
				embs[m.ID] = m.Embedding
			}
		}
		if len(before) != 5 {
			t.Fatalf("seeded %d memories", len(before))
		}

		r := e.do("GET", "/admin/v1/users/alice/export?format=json", nil)
		want(t, r, http.StatusOK)
		if !strings.Contains(r.Header.Get("Content-Disposition"), "memproxy-alice.json") {
			t.Fatalf("disposition %q", r.Header.Get("Content-Disposition"))
		}
		var ex admin.Export
		r.json(t, &ex)
		if ex.Format != admin.ExportFormat || len(ex.Memories) != 5 || len(ex.Turns) != 1 || ex.Turns[0].User != "I live in Berlin" {
			t.Fatalf("export: %d memories, %d turns", len(ex.Memories), len(ex.Turns))
		}
		if strings.Contains(string(r.Body), "Bob") {
			t.Fatal("export holds another user's memory")
		}

		md := e.do("GET", "/admin/v1/users/alice/export?format=markdown", nil)
		want(t, md, http.StatusOK)
		body := string(md.Body)
		for _, w := range []string{"---\ntitle: \"Memories of alice\"\n", "user: \"alice\"", "tags:\n  - memproxy", "## Profile\n", "## Facts\n", "## Episodes\n", "## Events\n", "## History\n",
			"- Alice moved to Lisbon ^m-" + nw.ID, "superseded by [[#^m-" + nw.ID + "]]", `\[\[link\]\]`} {
			if !strings.Contains(body, w) {
				t.Fatalf("markdown lacks %q:\n%s", w, body)
			}
		}
		if strings.Contains(body, "\n# heading") || strings.Index(body, "Alice lives in Berlin") < strings.Index(body, "## History") {
			t.Fatalf("markdown structure:\n%s", body)
		}
		if !strings.HasPrefix(md.Header.Get("Content-Type"), "text/markdown") {
			t.Fatalf("markdown type %q", md.Header.Get("Content-Type"))
		}
		wantBad(t, e.do("GET", "/admin/v1/users/alice/export?format=pdf", nil), "format")

		// Importing over the live user is a conflict and writes nothing.
		r = e.do("POST", "/admin/v1/users/alice/import", ex)
		want(t, r, http.StatusConflict)

		want(t, e.do("DELETE", "/admin/v1/users/alice", nil), http.StatusOK)
		r = e.do("GET", "/admin/v1/users/alice/memories?namespace=work", nil)
		if want(t, r, http.StatusOK); strings.Contains(string(r.Body), "billing") {
			t.Fatal("delete left memories")
		}

		r = e.do("POST", "/admin/v1/users/alice/import", ex)
		want(t, r, http.StatusOK)
		var ir struct{ Memories, Turns int }
		if r.json(t, &ir); ir.Memories != 5 || ir.Turns != 1 {
			t.Fatalf("import counts %+v", ir)
		}
		for id, w := range before {
			got, err := st.Get(ctx, w.Scope, id)
			if err != nil {
				t.Fatalf("memory %s not restored: %v", id, err)
			}
			if !slices.Equal(got.Embedding, embs[id]) {
				t.Fatalf("memory %s: embedding changed", id)
			}
			g := comparable(got)
			if !equalJSON(t, g, w) {
				t.Fatalf("memory %s changed in the round trip:\n got %+v\nwant %+v", id, g, w)
			}
		}
		tp, err := st.Turns(ctx, s, memory.TurnFilter{})
		if err != nil || len(tp.Data) != 1 || tp.Data[0].User != turn.User || tp.Data[0].RequestID != "r1" {
			t.Fatalf("turns after import: %+v %v", tp.Data, err)
		}

		// Import as another user: a copy with fresh ids, links kept.
		want(t, e.do("POST", "/admin/v1/users/alice2/import", ex), http.StatusOK)
		r = e.do("GET", "/admin/v1/users/alice2/memories?state=superseded", nil)
		want(t, r, http.StatusOK)
		var cp struct{ Data []map[string]any }
		r.json(t, &cp)
		if len(cp.Data) != 1 || cp.Data[0]["id"] == old.ID || cp.Data[0]["superseded_by"] == nw.ID {
			t.Fatalf("copy keeps ids: %s", r.Body)
		}
		succ, err := st.Get(ctx, scope("alice2"), cp.Data[0]["superseded_by"].(string))
		if err != nil || succ.Text != "Alice moved to Lisbon" {
			t.Fatalf("copy's supersede link: %+v %v", succ, err)
		}

		wantBad(t, e.do("POST", "/admin/v1/users/alice3/import", map[string]any{"format": "other", "memories": []any{}}), "format")
		wantBad(t, e.do("POST", "/admin/v1/users/alice3/import", map[string]any{"format": admin.ExportFormat, "user": "alice3",
			"memories": []any{map[string]any{"id": "x y", "tier": "semantic", "text": "t", "scope": map[string]any{"namespace": "default"}}}}), "memories[0].id")
		wantBad(t, e.do("POST", "/admin/v1/users/alice3/import", map[string]any{"format": admin.ExportFormat,
			"memories": []any{map[string]any{"id": "abc", "tier": "nope", "text": "t"}}}), "memories[0]")
	})
}
