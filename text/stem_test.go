package text

import "testing"

func TestStem(t *testing.T) {
	groups := [][]string{
		{"hike", "hikes", "hiked", "hiking"},
		{"movie", "movies"},
		{"paint", "paints", "painted", "painting", "paintings"},
		{"run", "runs", "running"},
		{"study", "studies", "studied"},
		{"class", "classes"},
		{"play", "plays", "played", "playing"},
		{"family", "families"},
		{"adopt", "adopted", "adopting", "adopts"},
	}
	for _, g := range groups {
		want := Stem(g[0])
		for _, w := range g[1:] {
			if got := Stem(w); got != want {
				t.Errorf("Stem(%q) = %q, want %q (as %q)", w, got, want, g[0])
			}
		}
	}
	for _, w := range []string{"cat", "does", "this", "2026", "café", "status", "bus", "need", "fall", "kiss", "business"} {
		if Stem(w) == "" {
			t.Errorf("Stem(%q) is empty", w)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"does", "does"}, {"2026", "2026"}, {"café", "café"}, {"status", "status"},
		{"falling", "fall"}, {"kissed", "kiss"}, {"things", "thing"}, {"family", "famili"},
	} {
		if got := Stem(c.in); got != c.want {
			t.Errorf("Stem(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if Stem("family") == Stem("fami") {
		t.Error("derivational suffixes must not be cut: family ≠ fami")
	}
}

func TestStemAllocatesNothing(t *testing.T) {
	w := []byte("paintings")
	if n := testing.AllocsPerRun(100, func() { copy(w, "paintings"); StemBytes(w) }); n != 0 {
		t.Errorf("StemBytes allocates %v times", n)
	}
}
