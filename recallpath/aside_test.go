package recallpath

import (
	"testing"

	"github.com/memproxy/memproxy/inject"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/text"
)

func TestMarkAside(t *testing.T) {
	items := []inject.Item{
		{ID: "p1", Tier: memory.TierProfile, Text: "The user is allergic to peanuts."},
		{ID: "p2", Tier: memory.TierProfile, Text: "The user is lactose intolerant."},
		{ID: "p3", Tier: memory.TierProfile, Text: "Call the user Theo."},
	}
	words := make([][]string, len(items))
	for i, it := range items {
		words[i] = text.ContentWords(it.Text)
	}
	markAside(items, words, "Are peanuts in satay sauce?")
	if items[0].Aside || !items[1].Aside || !items[2].Aside {
		t.Fatalf("aside = %v %v %v, want false true true", items[0].Aside, items[1].Aside, items[2].Aside)
	}
	// "user" is the facts' own wording, not a shared subject.
	markAside(items, words, "What did the user say about Theo?")
	if !items[0].Aside || !items[1].Aside || items[2].Aside {
		t.Fatalf("aside = %v %v %v, want true true false", items[0].Aside, items[1].Aside, items[2].Aside)
	}
}
