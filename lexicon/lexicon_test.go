package lexicon

import (
	"slices"
	"strings"
	"testing"
)

func TestHyponyms(t *testing.T) {
	for _, tc := range []struct {
		words []string
		want  []string // each among the hyponyms
		not   []string // none of these
	}{
		{[]string{"martial", "arts"}, []string{"karate", "judo", "taekwondo"}, nil},
		{[]string{"European", "countries"}, []string{"spain", "england", "france"}, []string{"china"}},
		{[]string{"sports"}, []string{"football", "swimming"}, nil},
		{[]string{"musical", "instruments"}, []string{"piano", "guitar", "drum"}, nil},
		// A word is a category's only in its commonest sense: "piece" and
		// "view" are kinds of art in WordNet, but rarely mean that.
		{[]string{"art"}, []string{"painting", "sculpture"}, []string{"piece", "view"}},
	} {
		k := strings.ToLower(strings.Join(tc.words, " "))
		ws := strings.Fields(k)
		hs := Hyponyms(0, ws...)
		for _, w := range tc.want {
			if !slices.Contains(hs, w) {
				t.Errorf("Hyponyms(%q) = %v, lacks %q", k, hs, w)
			}
		}
		for _, w := range tc.not {
			if slices.Contains(hs, w) {
				t.Errorf("Hyponyms(%q) holds %q", k, w)
			}
		}
		if got := Hyponyms(2, ws...); len(got) != 2 || !slices.Equal(got, hs[:2]) {
			t.Errorf("Hyponyms(%q, 2) = %v, want the first two of %v", k, got, hs)
		}
	}
	// Too general a word (its kinds alone exceed the table's bound) and a
	// word that is no noun are not categories.
	// "news" is no plural of "new", "plans" none of "plane" (a kind of
	// craft): the lookup singularises, it does not stem.
	for _, k := range []string{"person", "animal", "quickly", "martial", "new", "plans", ""} {
		if Has(k) || Hyponyms(0, k) != nil {
			t.Errorf("%q is a category: %v", k, Hyponyms(5, k))
		}
	}
	if !Has("children") || !Has("news") {
		t.Errorf("children %v, news %v", Hyponyms(5, "children"), Hyponyms(5, "news"))
	}
}

// Every entry of the embedded table is usable: a key of one or two
// lowercase words, at least two single lowercase hyponyms.
func TestTable(t *testing.T) {
	m := table()
	if len(m) < 1000 {
		t.Fatalf("table has %d categories", len(m))
	}
	for k, list := range m {
		if n := len(strings.Fields(k)); n < 1 || n > 2 || strings.ToLower(k) != k {
			t.Errorf("key %q", k)
		}
		hs := strings.Split(list, ",")
		if len(hs) < 2 {
			t.Errorf("%q: %v", k, hs)
		}
		for _, h := range hs {
			if h == "" || strings.ToLower(h) != h || strings.ContainsAny(h, " _") {
				t.Errorf("%q: hyponym %q", k, h)
			}
		}
	}
}
