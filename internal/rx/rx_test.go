package rx

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

func TestNeed(t *testing.T) {
	for _, tc := range []struct {
		expr string
		want []string // nil: no prefilter
	}{
		{`(?i)\bi (?:moved|relocated) to (\w+)`, []string{"i moved to ", "i relocated to "}},
		{`(?i)\b(?:my|our) (dog|cat)\b`, []string{"my dog", "my cat", "our dog", "our cat"}},
		{`(?i)\bI(?:'m| am) (\w+) years old`, []string{" years old"}},
		{`(?i)\bi(?:’|')m\b`, []string{"i’m", "i'm"}},
		{`(?i)colou?r`, []string{"colour", "color"}},
		{`\w+`, nil},
		{`(?i)a|\w+`, nil},     // a branch with no literal
		{`(?i)\bi\b`, nil},     // too short to filter
		{`(?i)(?:cat|x)`, nil}, // a branch too short
		{`搬到(\p{Han}+)`, []string{"搬到"}},
		{`(?i)née (\w+)`, nil}, // a cased non-ASCII letter
	} {
		got := MustCompile(tc.expr).Need()
		if !slices.Equal(sorted(got), sorted(tc.want)) {
			t.Errorf("%s: need %q, want %q", tc.expr, got, tc.want)
		}
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// TestPrefilterIsNecessary compiles random patterns and checks on random
// texts that the prefilter never turns a match away, and that every
// method returns what regexp's does.
func TestPrefilterIsNecessary(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	atoms := []string{"a", "b", "ab", "Bak", "k", "s", " ", "’", "'", "[Aa]", "[ab]", "[’']", "\\b", ".", "\\w", "é", "搬到", "K"}
	var gen func(depth int) string
	gen = func(depth int) string {
		if depth == 0 {
			return atoms[r.IntN(len(atoms))]
		}
		switch r.IntN(7) {
		case 0:
			return "(?:" + gen(depth-1) + "|" + gen(depth-1) + ")"
		case 1:
			return "(?:" + gen(depth-1) + ")?"
		case 2:
			return "(?:" + gen(depth-1) + ")+"
		case 3:
			return "(?:" + gen(depth-1) + ")*"
		case 4:
			return "(" + gen(depth-1) + "){1,2}"
		default:
			return gen(depth-1) + gen(depth-1) + gen(depth-1)
		}
	}
	textRunes := []string{"a", "A", "b", "B", "k", "K", "\u212a", "s", "S", "\u017f", " ", "’", "'", "é", "É", "搬", "到", "x"}
	texts := make([]string, 400)
	for i := range texts {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(textRunes[r.IntN(len(textRunes))])
		}
		texts[i] = b.String()
	}
	filtered, checked := 0, 0
	for range 3000 {
		expr := gen(r.IntN(4))
		if r.IntN(2) == 0 {
			expr = "(?i)" + expr
		}
		re := MustCompile(expr)
		if re.Need() != nil {
			filtered++
		}
		for _, s := range texts {
			checked++
			if re.Regexp.MatchString(s) && !re.May(s) {
				t.Fatalf("%s on %q: a match the prefilter (%q) turned away", expr, s, re.Need())
			}
			if got, want := re.FindAllStringSubmatchIndex(s, -1), re.Regexp.FindAllStringSubmatchIndex(s, -1); !slices.EqualFunc(got, want, slices.Equal) {
				t.Fatalf("%s on %q: %v, regexp %v", expr, s, got, want)
			}
			if got, want := re.ReplaceAllString(s, "<$0>"), re.Regexp.ReplaceAllString(s, "<$0>"); got != want {
				t.Fatalf("%s on %q: replaced %q, regexp %q", expr, s, got, want)
			}
		}
	}
	if filtered < 300 {
		t.Errorf("only %d of 3000 random patterns had a prefilter: the test checks little", filtered)
	}
	t.Logf("%d patterns with a prefilter, %d pattern-text pairs", filtered, checked)
}

func TestContainsFold(t *testing.T) {
	for _, tc := range []struct {
		s, lit string
		want   bool
	}{
		{"I Moved To Lisbon", "i moved to ", true},
		{"I moved", "i moved to ", false},
		{"", "abc", false},
		{"xyzABC", "abc", true},
		{"我搬到上海了", "搬到", true},
		{"I’M here", "i’m", true},
		{"I'M here", "i’m", false},
	} {
		if got := containsFold(tc.s, tc.lit); got != tc.want {
			t.Errorf("containsFold(%q, %q) = %v", tc.s, tc.lit, got)
		}
	}
}

// TestContainsFoldRandom checks containsFold against lowercasing both.
func TestContainsFoldRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	alpha := []string{"a", "A", "b", "B", " ", "’", "x", "1"}
	word := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(alpha[r.IntN(len(alpha))])
		}
		return b.String()
	}
	for range 20000 {
		s, lit := word(r.IntN(14)), strings.ToLower(word(1+r.IntN(3)))
		if got, want := containsFold(s, lit), strings.Contains(strings.ToLower(s), lit); got != want {
			t.Fatalf("containsFold(%q, %q) = %v, want %v", s, lit, got, want)
		}
	}
}

// TestScanAgreesWithEachLiteral: the one scan a text (scan.go) finds a
// pattern's literal exactly when looking for each literal on its own
// does, from many goroutines at once, and a text's scan follows its
// content, not its address: a string over a buffer that changes is
// scanned again.
func TestScanAgreesWithEachLiteral(t *testing.T) {
	pats := []*Regexp{
		MustCompile(`(?i)\bi (?:moved|relocated) to (\w+)`),
		MustCompile(`(?i)\b(?:my|our) (dog|cat)\b`),
		MustCompile(`(?i)colou?r`),
		MustCompile(`搬到(\p{Han}+)`),
		MustCompile(`(?i)\bi(?:’|')m\b`),
	}
	direct := func(re *Regexp, s string) bool {
		for _, l := range re.Need() {
			if containsFold(s, l) {
				return true
			}
		}
		return false
	}
	words := []string{"I ", "moved", "MOVED ", "to ", "Relocated", "my ", "Our ", "DOG", "cat", "colour", "COLOR", "搬到", "上海", "i’m", "I'M", "x", "\u212a"}
	done := make(chan error, 4)
	for g := range 4 {
		go func() {
			r := rand.New(rand.NewPCG(uint64(g), 7))
			for range 5000 {
				var b strings.Builder
				for range r.IntN(8) {
					b.WriteString(words[r.IntN(len(words))])
				}
				s := b.String()
				for _, re := range pats {
					if got, want := re.May(s), direct(re, s) || re.ks && strings.ContainsAny(s, "\u212a\u017f"); got != want {
						done <- fmt.Errorf("%s on %q: May %v, each literal %v", re, s, got, want)
						return
					}
				}
			}
			done <- nil
		}()
	}
	for range 4 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	buf := []byte("I moved to Lisbon")
	s := unsafe.String(&buf[0], len(buf))
	if !pats[0].May(s) {
		t.Fatal("no literal found in the first text")
	}
	copy(buf, "I stayed in Lisb")
	if pats[0].May(s) {
		t.Error("a text changed under the same address kept its old scan")
	}
}
