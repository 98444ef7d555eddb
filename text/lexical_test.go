package text

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestLexicalForm(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Hello, World! It's 2026.", "hello world it s 2026"},
		{"我记得上次", "记得 得上 上次 记 得 上 次"},
		{"我的狗叫豆豆", "狗 豆豆 豆 豆"},
		{"用户养了宠物狗", "用户 户养 用 户 养 宠物 物狗 宠 物 狗"},
		{"猫", "猫"},
		{"I like 北京烤鸭 a lot", "i lik 北京 京烤 烤鸭 北 京 烤 鸭 a lot"},
		{"東京に行きました", "東京 京に に行 行き きま まし した 東 京 行"},
		{"コーヒーが好き", "コー ーヒ ヒー ーが が好 好き 好"},
		{"  ...  ", ""},
		{"Café CRÈME", "café crème"},
	}
	for _, c := range cases {
		if got := LexicalForm(c.in); got != c.want {
			t.Errorf("LexicalForm(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestQueryTerms(t *testing.T) {
	got := QueryTerms("Tea tea, 喝茶喝茶!")
	want := []string{"tea", "喝茶", "茶喝"}
	if !slices.Equal(got, want) {
		t.Errorf("QueryTerms = %q, want %q", got, want)
	}
	if got := QueryTerms("我的狗叫什么？小白很乖"); !slices.Equal(got, []string{"狗", "小白", "白很", "很乖"}) {
		t.Errorf("QueryTerms = %q, want the lone 狗 and the bigrams of 小白很乖 (none of its characters)", got)
	}
	if got := QueryTerms("我平时喝什么"); !slices.Equal(got, []string{"平时", "时喝", "平", "喝"}) {
		t.Errorf("QueryTerms = %q, want 平 and 喝 (next to 我 and 什么) besides the bigrams", got)
	}
	if got := QueryTerms("?!"); len(got) != 0 {
		t.Errorf("QueryTerms(punctuation) = %q, want none", got)
	}
}

func TestContentTerms(t *testing.T) {
	if got := ContentTerms(QueryTerms("What is my dog's name?")); !slices.Equal(got, []string{"dog", "nam"}) {
		t.Errorf("ContentTerms = %q", got)
	}
	if got := ContentTerms(QueryTerms("what is it")); !slices.Equal(got, []string{"what", "is", "it"}) {
		t.Errorf("all-stopword query = %q, want kept", got)
	}
	if got := ContentTerms(QueryTerms("我的猫")); !slices.Equal(got, []string{"猫"}) {
		t.Errorf("CJK terms = %q", got)
	}
}

// TestTokensOfMixedText: words are lowercased and stemmed whatever their
// case (a stem that changes a letter, happy → happi, is no prefix of the
// word), letters outside ASCII are lowercased and not stemmed, digits
// split at punctuation, and CJK runs give their bigrams and characters.
func TestTokensOfMixedText(t *testing.T) {
	const s = "Happy HIKES, running; café Ölé 3.5kg 狗叫小白 studies the Boxes happy cries y Ys"
	var indexed, query []string
	emitTokens(s, true, func(x string) { indexed = append(indexed, x) })
	emitTokens(s, false, func(x string) { query = append(query, x) })
	want := []string{"happi", "hik", "run", "café", "ölé", "3", "5kg", "狗", "小白", "小", "白", "studi", "the", "box", "happi", "cri", "y", "ys"}
	if !slices.Equal(indexed, want) {
		t.Errorf("indexed tokens = %q, want %q", indexed, want)
	}
	want = slices.Delete(want, 10, 11) // 白: inside its piece, no query term
	if !slices.Equal(query, want) {
		t.Errorf("query tokens = %q, want %q", query, want)
	}
}

// TestQueryTermsManyTerms: past the terms QueryTerms looks along a slice
// for (linearTerms), a repeated term is still dropped and order kept.
func TestQueryTermsManyTerms(t *testing.T) {
	var b strings.Builder
	var want []string
	for i := range 3 * linearTerms {
		w := "w" + strconv.Itoa(i) + "x" // digits: no stemming
		want = append(want, w)
		b.WriteString(w + " " + want[i/2] + " ")
	}
	if got := QueryTerms(b.String()); !slices.Equal(got, want) {
		t.Errorf("QueryTerms kept %d terms %q, want the %d distinct ones in order", len(got), got, len(want))
	}
}

// TestQueryTermsManyDistinct: past the terms looked up along the list
// (32), those in the stack table (256) and into the map, a text's terms
// come back once each, in order of first appearance.
func TestQueryTermsManyDistinct(t *testing.T) {
	for _, n := range []int{10, 32, 33, 255, 256, 257, 700} {
		var words, want []string
		for i := range n {
			w := "zq" + strconv.Itoa(i) + "x" // one term each, kept as written
			words = append(words, w)
			want = append(want, QueryTerms(w)...)
		}
		rev := slices.Clone(words)
		slices.Reverse(rev)
		got := QueryTerms(strings.Join(words, " ") + " " + strings.Join(rev, " "))
		if !slices.Equal(got, want) {
			t.Errorf("%d distinct terms, each twice: got %d terms (%.5v…), want %d (%.5v…)", n, len(got), got, len(want), want)
		}
	}
}
