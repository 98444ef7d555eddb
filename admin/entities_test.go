package admin_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

type entityJSON struct {
	Name       string   `json:"name"`
	Kind       string   `json:"kind"`
	Aliases    []string `json:"aliases"`
	Facts      int      `json:"live_facts"`
	Superseded int      `json:"superseded_facts"`
	Mentions   int      `json:"mentions"`
	FactList   []struct {
		ID    string `json:"id"`
		Text  string `json:"text"`
		State string `json:"state"`
	} `json:"facts"`
	Recent []struct {
		ID string `json:"id"`
	} `json:"recent_mentions"`
}

// seedFact writes a semantic fact with its triple, hours before now.
func (e *env) seedFact(s memory.Scope, text, subject, attr, value string, hours int) *memory.Memory {
	e.t.Helper()
	return e.seed(s, memory.TierSemantic, text, func(m *memory.Memory) {
		m.Key = subject + "." + attr
		m.Provenance.Fact = &memory.Triple{Subject: subject, Attribute: attr, Value: value,
			Multi: attr == "sister" || attr == "pet"}
		at := e.now.Add(-time.Duration(hours) * time.Hour)
		m.CreatedAt, m.LastUsedAt, m.ValidFrom = at, at, at
	})
}

func TestEntities(t *testing.T) {
	forEachStore(t, func(t *testing.T, st testStore) {
		e := newEnv(t, st)
		ctx := context.Background()
		alice, bob := scope("alice"), scope("bob")
		sister := e.seedFact(alice, "The user has a sister named Anna.", "user", "sister", "Anna", 50)
		berlin := e.seedFact(alice, "The user's sister lives in Berlin.", "sister", "lives_in", "Berlin", 40)
		lisbon := e.seedFact(alice, "The user's sister lives in Lisbon.", "sister", "lives_in", "Lisbon", 30)
		if err := st.Supersede(ctx, alice, berlin.ID, lisbon.ID, e.now.Add(-30*time.Hour)); err != nil {
			t.Fatal(err)
		}
		e.seedFact(alice, "The user works at Globex.", "user", "works_at", "Globex", 20)
		e.seedFact(alice, "The user has a cat named Luna.", "user", "pet", "cat named Luna", 10)
		ev := e.seed(alice, memory.TierEvent, "I had coffee with Anna at Blue Bottle.\nAssistant: Nice!")
		e.seed(alice, memory.TierEvent, "Then we walked to Blue Bottle again.\nAssistant: Lovely.")
		// Another namespace and another user hold their own entities.
		e.seedFact(memory.Scope{User: "alice", Namespace: "work"}, "The user works at Initech.", "user", "works_at", "Initech", 5)
		e.seedFact(bob, "The user has a sister named Zoe.", "user", "sister", "Zoe", 5)
		e.seed(bob, memory.TierEvent, "Zoe met Carla in Madrid.\nAssistant: Fun.")

		list := func(user, query string) []entityJSON {
			var all []entityJSON
			cursor := ""
			for range 20 {
				q := url.Values{}
				if query != "" {
					q, _ = url.ParseQuery(query)
				}
				q.Set("limit", "2")
				if cursor != "" {
					q.Set("cursor", cursor)
				}
				r := e.do("GET", "/admin/v1/users/"+user+"/entities?"+q.Encode(), nil)
				want(t, r, http.StatusOK)
				var p struct {
					Data []entityJSON `json:"data"`
					Next *string      `json:"next"`
				}
				r.json(t, &p)
				if p.Next == nil || len(p.Data) > 2 {
					t.Fatalf("not a page of at most 2: %s", r.Body)
				}
				all = append(all, p.Data...)
				if *p.Next == "" {
					return all
				}
				cursor = *p.Next
			}
			t.Fatal("paging did not end")
			return nil
		}
		names := func(es []entityJSON) string {
			var n []string
			for _, x := range es {
				n = append(n, x.Name)
			}
			return strings.Join(n, ",")
		}
		got := list("alice", "")
		if w := "Anna,Berlin,Blue Bottle,Globex,Lisbon,Luna"; names(got) != w {
			t.Fatalf("alice's entities %q, want %q", names(got), w)
		}
		kinds := map[string]string{"Anna": "person", "Berlin": "place", "Lisbon": "place", "Globex": "organisation", "Luna": "pet", "Blue Bottle": "other"}
		for _, x := range got {
			if kinds[x.Name] != x.Kind {
				t.Errorf("%s is a %s, want %s", x.Name, x.Kind, kinds[x.Name])
			}
		}
		if i := slices.IndexFunc(got, func(x entityJSON) bool { return x.Name == "Anna" }); got[i].Facts != 2 || got[i].Superseded != 1 ||
			got[i].Mentions != 1 || !slices.Equal(got[i].Aliases, []string{"sister"}) {
			t.Errorf("Anna listed as %+v, want 2 live facts, 1 superseded, 1 mention, alias sister", got[i])
		}
		if n := names(list("alice", "namespace=work")); n != "Initech" {
			t.Errorf("alice's work entities %q, want Initech", n)
		}
		if n := names(list("bob", "")); n != "Zoe" {
			t.Errorf("bob's entities %q, want Zoe alone (Carla and Madrid have one mention)", n)
		}

		// One entity, by name or alias, any case, with its history.
		get := func(user, name string) (entityJSON, int) {
			r := e.do("GET", "/admin/v1/users/"+user+"/entities/"+url.PathEscape(name), nil)
			var x entityJSON
			if r.Status == http.StatusOK {
				r.json(t, &x)
			}
			return x, r.Status
		}
		for _, n := range []string{"Anna", "anna", "SISTER"} {
			x, status := get("alice", n)
			if status != http.StatusOK || x.Name != "Anna" {
				t.Fatalf("entity %q: status %d, %+v", n, status, x)
			}
			var lines []string
			for _, f := range x.FactList {
				lines = append(lines, f.ID+"="+f.State)
			}
			wantLines := []string{sister.ID + "=live", berlin.ID + "=superseded", lisbon.ID + "=live"}
			slices.Sort(lines)
			slices.Sort(wantLines)
			if !slices.Equal(lines, wantLines) {
				t.Errorf("Anna's facts %v, want %v", lines, wantLines)
			}
			if len(x.Recent) != 1 || x.Recent[0].ID != ev.ID {
				t.Errorf("Anna's mentions %+v, want the coffee event", x.Recent)
			}
		}
		x, _ := get("alice", "lisbon")
		if len(x.FactList) != 2 || x.FactList[0].ID != berlin.ID || x.FactList[1].ID != lisbon.ID {
			t.Errorf("Lisbon's history %+v, want the Berlin fact it superseded, then Lisbon", x.FactList)
		}
		if x, _ := get("alice", "Cat"); x.Name != "Luna" {
			t.Errorf("alias cat names %q, want Luna", x.Name)
		}
		// Isolation: another user's and another namespace's entities are
		// never found.
		for _, c := range []struct{ user, name string }{{"bob", "Anna"}, {"bob", "Globex"}, {"alice", "Zoe"}, {"alice", "Initech"}, {"alice", "nobody"}} {
			if _, status := get(c.user, c.name); status != http.StatusNotFound {
				t.Errorf("%s's entity %q: status %d, want 404", c.user, c.name, status)
			}
		}
		wantBad(t, e.do("GET", "/admin/v1/users/alice/entities?limit=0", nil), "limit")
		wantBad(t, e.do("GET", "/admin/v1/users/alice/entities?cursor=nope", nil), "cursor")
		wantBad(t, e.do("GET", "/admin/v1/users/alice/entities?namespace="+strings.Repeat("n", 300), nil), "namespace")
	})
}
