package entity

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

func TestProperNames(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{"I met Anna at Blue Bottle on Monday.", []string{"Anna", "Blue Bottle"}},
		{"Anna called. I told her about Globex, and Tom's new job.", []string{"Globex", "Tom"}},
		{"my dentist is Dr. Okafor", []string{"Okafor"}},
		{"I'm fine, OK? I think so.", nil},
		{"我住在北京", nil},
	} {
		if got := ProperNames(c.in); !slices.Equal(got, c.want) {
			t.Errorf("ProperNames(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func fact(id, text, s, a, v string) *memory.Memory {
	return &memory.Memory{ID: id, Tier: memory.TierSemantic, Text: text,
		Provenance: memory.Provenance{Fact: &memory.Triple{Subject: s, Attribute: a, Value: v}}}
}

func TestBuildAliases(t *testing.T) {
	now := time.Now()
	gone := now.Add(-time.Hour)
	ms := []*memory.Memory{
		fact("1", "The user has a sister named Anna.", "user", "sister", "Anna"),
		fact("2", "The user's sister lives in Porto.", "sister", "lives_in", "Porto"),
		fact("3", "The user's dog is called Rex.", "dog", "name", "Rex"),
		fact("4", "The user has a cat named Luna.", "user", "pet", "cat named Luna"),
		fact("5", "The user's email is a@b.c.", "user", "email", "a@b.c"),
		fact("6", "The user lives in 北京.", "user", "lives_in", "北京"),
		fact("7", "The user's sister lives in Berlin.", "sister", "lives_in", "Berlin"),
	}
	ms[6].ValidTo = &gone
	g := Build(ms)
	for _, c := range []struct {
		name, want string
		kind       Kind
	}{{"anna", "Anna", Person}, {"Sister", "Anna", Person}, {"porto", "Porto", Place}, {"dog", "Rex", Pet}, {"cat", "Luna", Pet}, {"北京", "北京", Place}} {
		es := g.Lookup(c.name)
		if len(es) != 1 || es[0].Name != c.want || es[0].Kind != c.kind {
			t.Errorf("Lookup(%q) = %+v, want %s (%s)", c.name, es, c.want, c.kind)
		}
	}
	if es := g.Lookup("a@b.c"); len(es) != 0 {
		t.Errorf("an e-mail is not an entity: %+v", es)
	}
	anna := g.Lookup("anna")[0]
	if len(anna.Facts) != 3 || len(anna.Live(now)) != 2 {
		t.Errorf("Anna's facts %d (live %d), want 3 (2)", len(anna.Facts), len(anna.Live(now)))
	}
	about := Matcher{}.About("Where does my sister live now?", ms, now)
	if want := []bool{true, true, false, false, false, false, false}; !slices.Equal(about, want) {
		t.Errorf("About = %v, want %v (the live facts of the sister, by alias)", about, want)
	}
	about = Matcher{}.About("我想去北京", ms, now)
	if !about[5] || about[0] {
		t.Errorf("About(北京) = %v", about)
	}
}

// TestDescribedPlace: a home said as a description is the entity of the
// name it holds; an employer stays as said (Berlin is no organisation).
func TestDescribedPlace(t *testing.T) {
	g := Build([]*memory.Memory{
		fact("1", "The user lives in a small village near Oxford.", "user", "lives_in", "a small village near Oxford"),
		fact("2", "The user works at a startup in Berlin.", "user", "works_at", "a startup in Berlin"),
		fact("3", "The user lives in the countryside.", "user", "from", "the countryside"),
	})
	for name, kind := range map[string]Kind{"Oxford": Place, "a startup in berlin": Organisation, "the countryside": Place} {
		if es := g.Lookup(name); len(es) != 1 || es[0].Kind != kind || len(es[0].Facts) != 1 {
			t.Errorf("Lookup(%q) = %+v, want one %s with its fact", name, es, kind)
		}
	}
	if about := (Matcher{}).About("Is it rainy near Oxford this week?", g.Lookup("Oxford")[0].Facts, time.Now()); !about[0] {
		t.Errorf("a message naming Oxford is about the home near it")
	}
}

// BenchmarkBuild: the admin entity endpoints' graph over the most
// memories one request reads (maxEntityScan in admin).
func BenchmarkBuild(b *testing.B) {
	var ms []*memory.Memory
	for i := range 20000 {
		ms = append(ms, &memory.Memory{ID: fmt.Sprint(i), Tier: memory.TierEvent,
			Text: fmt.Sprintf("Yesterday I met Person%d at Place%d and we talked about Topic%d for a while.\nAssistant: Great!", i%500, i%300, i%700)})
	}
	for i := range 300 {
		ms = append(ms, fact(fmt.Sprint("f", i), "The user has a friend.", "user", "friend", fmt.Sprint("Person", i)))
	}
	b.ReportAllocs()
	for b.Loop() {
		Build(ms)
	}
}
