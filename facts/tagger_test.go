package facts

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jdkato/prose/v2"
	"github.com/memproxy/memproxy/text"
)

// TestFastTaggerMatchesProse: every message and sentence of the scenario
// stories (as written, lowered, uppercased, and as tagEN hands them over)
// gets from proseTokens the tokens and tags prose's own tagger gives, and
// the array form tags nine in ten of those without Chinese itself (not
// falling back to prose).
// One difference is prose's: its tokenizer hands out one token for every
// occurrence of a repeated word, so each takes the tag of the last ("i"
// in "i grew up in cork but these days i live in dublin" became a verb);
// here each occurrence keeps its own, and prose's tag is the one of
// another occurrence.
func TestFastTaggerMatchesProse(t *testing.T) {
	if fastTagger() == nil {
		t.Fatal("prose's model data could not be read")
	}
	var own, total int
	for _, s := range storyTexts(t) {
		for _, in := range []string{s, possPunct.ReplaceAllString(contractions.Replace(s), "$1 $2")} {
			doc, err := prose.NewDocument(in, prose.WithSegmentation(false), prose.WithExtraction(false), prose.UsingModel(tagger()))
			if err != nil {
				t.Fatal(err)
			}
			want, got := doc.Tokens(), proseTokens(in)
			if len(got) != len(want) {
				t.Fatalf("%q: %d tokens, prose %d", in, len(got), len(want))
			}
			for i := range want {
				if got[i].Text != want[i].Text {
					t.Fatalf("%q: token %d %q, prose %q", in, i, got[i].Text, want[i].Text)
				}
				if got[i].Tag != want[i].Tag && !repeatTag(got, i, want[i].Tag) {
					t.Errorf("%q: token %d %q/%s, prose %s", in, i, got[i].Text, got[i].Tag, want[i].Tag)
				}
			}
			words := make([]string, len(want))
			for i, w := range want {
				words[i] = w.Text
			}
			if strings.ContainsFunc(in, text.CJKScript) {
				continue // Chinese is not tagged (extractEN only)
			}
			if fastTagger().tag(words, make([]string, len(words))) {
				own++
			}
			total++
		}
	}
	if own < total*9/10 {
		t.Errorf("the array form tagged %d of %d texts itself, want nine in ten", own, total)
	}
	t.Logf("%d of %d texts tagged by the array form", own, total)
}

// repeatTag reports whether another occurrence of toks[i]'s word was
// tagged tag.
func repeatTag(toks []prose.Token, i int, tag string) bool {
	for j, x := range toks {
		if j != i && x.Text == toks[i].Text && x.Tag == tag {
			return true
		}
	}
	return false
}

// TestExtractKeepsUTF8: whatever a sentence starts or ends with (an
// emoji, an accented or a CJK letter), every string of every fact is
// valid UTF-8: a rewrite that cut a character in two failed the turn's
// every retry ("🌟 I took it at the beach last month." became the
// fact "\xef\xbf\xbd\x9f\x8c\x9f the user took it …").
func TestExtractKeepsUTF8(t *testing.T) {
	var n int
	for _, s := range storyTexts(t) {
		if strings.ContainsFunc(s, text.CJKScript) {
			continue
		}
		for _, in := range []string{"🌟 " + s, "Wow!🌟 " + s, "é" + s, s + " 🌟", "Ça va. " + s, "ñ " + strings.ToLower(s)} {
			for _, f := range Extract(in, Options{At: at}) {
				n++
				for _, x := range append([]string{f.Text, f.Subject, f.Attribute, f.Value, f.Prior}, f.Alts...) {
					if !utf8.ValidString(x) {
						t.Errorf("%q: fact %q holds invalid UTF-8 %q", in, f.Text, x)
					}
				}
			}
		}
	}
	if n < 1000 {
		t.Fatalf("only %d facts read", n)
	}
	got := Extract("Caroline, so glad! This book I read last year reminds me to pursue my dreams!🌟 I took it at the beach last month.", Options{At: at})
	for _, f := range got {
		if strings.Contains(f.Text, "beach") && !strings.HasPrefix(f.Text, "🌟") {
			t.Errorf("the emoji before the sentence was lost or cut: %q", f.Text)
		}
	}
}
