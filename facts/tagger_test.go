package facts

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jdkato/prose/v2"
	"github.com/memproxy/memproxy/text"
)

// TestFastTaggerMatchesProse: every message and sentence of the scenario
// stories (as written, lowered, uppercased, and as tagEN hands them over)
// gets from proseTokens the tokens and tags prose's own tagger gives.
// One difference is prose's: its tokenizer hands out one token for every
// occurrence of a repeated word, so each takes the tag of the last ("i"
// in "i grew up in cork but these days i live in dublin" became a verb);
// here each occurrence keeps its own, and prose's tag is the one of
// another occurrence.
func TestFastTaggerMatchesProse(t *testing.T) {
	if fastTagger() == nil {
		t.Fatal("prose's model data could not be read")
	}
	var n int
	for _, s := range storyTexts(t) {
		for _, in := range []string{s, possPunct.ReplaceAllString(contractions.Replace(s), "$1 $2")} {
			sameTagsAsProse(t, in)
			n++
		}
	}
	if n < 1000 {
		t.Fatalf("only %d texts compared", n)
	}
}

// TestRuleTagsMatchProse: the words prose tags by rule rather than by its
// model (every emoticon it lists, links, e-mail addresses, handles, "-",
// "0", *- traces, -LRB- brackets) get prose's tags, and so do their
// neighbours, whose features read them.
func TestRuleTagsMatchProse(t *testing.T) {
	words := []string{"-", "0", "@maya", "maya@example.com", "https://example.com/a?b=1", "www.example.org",
		"example.com", "*", "*-1", "*T*-12", "*?*", "-LRB-", "-RRB-", "$", "3.5", "e.g.", "U.S.", "Mr.", "10:30", "#1", "&"}
	for e := range emoticons {
		words = append(words, e)
	}
	sym := map[string]bool{}
	for _, w := range words {
		for _, in := range []string{
			"I moved to Lisbon " + w + " last week and I love it",
			w + " I work at Google now",
			"My sister " + w,
		} {
			got := sameTagsAsProse(t, in)
			for _, tk := range got {
				if emoticons[tk.Text] && tk.Tag == "SYM" {
					sym[tk.Text] = true
				}
			}
		}
	}
	for e := range emoticons {
		if !sym[e] {
			t.Errorf("emoticon %q was never tagged SYM", e)
		}
	}
}

// sameTagsAsProse checks proseTokens(in) against prose's own tagger and
// returns them.
func sameTagsAsProse(t *testing.T, in string) []prose.Token {
	t.Helper()
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
		if got[i].Tag != want[i].Tag && !repeatTag(got, i, want[i].Tag) && !proseTie(in, i, got[i].Tag) {
			t.Errorf("%q: token %d %q/%s, prose %s", in, i, got[i].Text, got[i].Tag, want[i].Tag)
		}
	}
	return got
}

// proseTie reports whether prose also tags token i of in as tag on
// another run: where two tags score the same, prose picks one in its map's
// order, differently from run to run ("should i put on some jazz": "put"
// VB or VBD), and the fast tagger keeps one. A tag prose never gives is
// no tie, so a real difference still fails.
func proseTie(in string, i int, tag string) bool {
	for range 40 {
		doc, err := prose.NewDocument(in, prose.WithSegmentation(false), prose.WithExtraction(false), prose.UsingModel(tagger()))
		if err == nil && len(doc.Tokens()) > i && doc.Tokens()[i].Tag == tag {
			return true
		}
	}
	return false
}

// TestStrTable: every key put is found with its value, through growth
// from a table sized for one; keys not put are not.
func TestStrTable(t *testing.T) {
	tb := newStrTable(1, 0)
	const n = 5000
	for i := range n {
		tb.put(fmt.Sprintf("feature %d", i), uint32(i), uint32(2*i))
	}
	tb.put("", 7, 8)
	for i := range n {
		k := fmt.Sprintf("feature %d", i)
		if a, b, ok := tb.getBytes([]byte(k)); !ok || a != uint32(i) || b != uint32(2*i) {
			t.Fatalf("%q: (%d, %d, %v), want (%d, %d, true)", k, a, b, ok, i, 2*i)
		}
	}
	if a, b, ok := tb.get(""); !ok || a != 7 || b != 8 {
		t.Fatalf("the empty key: (%d, %d, %v)", a, b, ok)
	}
	for _, k := range []string{"feature", "feature 5000", "feature -1", "eature 1"} {
		if _, _, ok := tb.get(k); ok {
			t.Errorf("%q found, never put", k)
		}
	}
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
