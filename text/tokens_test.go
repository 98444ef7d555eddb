package text

import (
	"strings"
	"testing"
)

func TestCountTokens(t *testing.T) {
	cases := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"   \n\t", 0},
		{"hello", 1},                // 5 ASCII letters → ceil(5/8)
		{"internationalization", 3}, // 20 → ceil(20/8)
		{"a b c", 3},                // min 1 per word
		{"The user prefers TypeScript.", 1 + 1 + 1 + 2 + 1},
		{"May 18", 1 + 1},                 // digits: ceil(2/3)
		{"2026-10-01", 2 + 1 + 1 + 1 + 1}, // 4 digits=2, '-', 2 digits=1 ...
		{"我喜欢咖啡", 5},                      // one per CJK character
		{"我的狗叫Rex。", 4 + 1 + 1},           // 4 Han, "Rex", fullwidth 。
		// "-" "[" "fact" "2026"(2) "-" "10" "-" "01" "m" ":" "8" "f" "2" "c" "]" "x"
		{"- [fact 2026-10-01 m:8f2c] x", 17},
		{"…", 1},
		{"naïve café", 2 + 1}, // non-ASCII letter runs: ceil(runes/4)
		{"Привет мир", 2 + 1},
	}
	for _, c := range cases {
		if got := CountTokens(c.in); got != c.want {
			t.Errorf("CountTokens(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}

// The injector counts lines one by one and relies on the sum being the
// count of the whole block.
func TestCountTokensAdditiveOverLines(t *testing.T) {
	lines := []string{"<memory>", "Notes from earlier conversations.", "- [fact 2026-10-01 m:8f2c] 我的狗叫Rex。", "</memory>"}
	sum := 0
	for _, l := range lines {
		sum += CountTokens(l)
	}
	if got := CountTokens(strings.Join(lines, "\n")); got != sum {
		t.Fatalf("whole block %d tokens, lines sum to %d", got, sum)
	}
}

func BenchmarkCountTokens(b *testing.B) {
	s := strings.Repeat("The supplier moved delivery from May 10 to May 18. 供应商把交货日期改到了五月十八日。", 8)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		CountTokens(s)
	}
}
