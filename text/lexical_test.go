package text

import (
	"slices"
	"testing"
)

func TestLexicalForm(t *testing.T) {
	cases := []struct{ in, want string }{
		{"Hello, World! It's 2026.", "hello world it s 2026"},
		{"我记得上次", "我记 记得 得上 上次"},
		{"猫", "猫"},
		{"I like 北京烤鸭 a lot", "i lik 北京 京烤 烤鸭 a lot"},
		{"東京に行きました", "東京 京に に行 行き きま まし した"},
		{"コーヒーが好き", "コー ーヒ ヒー ーが が好 好き"},
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
	if got := ContentTerms(QueryTerms("我的猫")); !slices.Equal(got, []string{"我的", "的猫"}) {
		t.Errorf("CJK terms = %q", got)
	}
}
