package admin

import (
	"strings"
	"testing"
)

func TestPercentile(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for p, want := range map[float64]float64{0.5: 5, 0.95: 10, 0.1: 1, 0: 1, 1: 10} {
		if got := percentile(xs, p); got != want {
			t.Errorf("p%v = %v, want %v", p, got, want)
		}
	}
	if percentile(nil, 0.5) != 0 {
		t.Error("empty percentile")
	}
}

func TestBearer(t *testing.T) {
	for h, want := range map[string]string{"Bearer abc": "abc", "bearer  abc ": "abc", "BEARER x": "x", "Basic abc": "", "Bearer": "", "Bearer ": "", "": ""} {
		got, ok := bearer(h)
		if got != want || ok != (want != "") {
			t.Errorf("bearer(%q) = %q %v", h, got, ok)
		}
	}
}

// FuzzMarkdownLine checks that any memory text stays on its list line and
// cannot open a heading, front matter or a wiki link in the export.
func FuzzMarkdownLine(f *testing.F) {
	for _, s := range []string{"plain", "# heading", "---\ntitle: x", "a\nb\r\nc", "[[Other note]]", "<script>", "line\u2028sep"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := mdText(s)
		if strings.ContainsAny(out, "\n\r") {
			t.Fatalf("mdText(%q) = %q spans lines", s, out)
		}
		if strings.HasPrefix(out, "#") || strings.HasPrefix(out, "---") || strings.Contains(out, "[[") || strings.Contains(out, "<") {
			t.Fatalf("mdText(%q) = %q opens structure", s, out)
		}
	})
}

func FuzzCursor(f *testing.F) {
	f.Add("alice")
	f.Add("")
	f.Add("\x00\xff")
	f.Fuzz(func(t *testing.T, s string) {
		enc := encodeCursor(s)
		if s == "" {
			if enc != "" {
				t.Fatal("empty cursor encoded")
			}
			return
		}
		if strings.ContainsAny(enc, "&=?/+ ") {
			t.Fatalf("cursor %q is not URL-safe", enc)
		}
	})
}
