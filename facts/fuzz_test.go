package facts

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzExtract: whatever a user writes, extraction returns (no panic) and
// every fact it returns is valid UTF-8 with a text (the stores refuse
// invalid text, and a turn that fails is retried until it is parked).
func FuzzExtract(f *testing.F) {
	for _, s := range []string{
		"I moved to Lisbon last month.", "My sister Anna lives in Porto, and I'm now working at Globex.",
		"我现在住在上海。", "Not Berlin, Braga.", "I've been vegan since 2019; I switched to Rust instead of Go.",
		"isſecret I \u212aeep my password: Tr0ub4dor&3", "I, been living in", "My birthday is on Tuesday, 3 Mar 2026.",
		"I'm allergic to peanuts 🥜 and my dog Max is a golden retriever.", "We can'T go", "\xff\xfe I live in \xc3",
	} {
		f.Add(s, "")
	}
	f.Add("yes, that one", "What's your favourite game? I switched to Catan.")
	f.Fuzz(func(t *testing.T, msg, before string) {
		for _, fa := range Extract(msg, Options{At: at, Before: before}) {
			for _, s := range []string{fa.Text, fa.Subject, fa.Attribute, fa.Value, fa.Prior, fa.Triple.Prior} {
				if !utf8.ValidString(s) {
					t.Fatalf("Extract(%q) gave invalid UTF-8 %q", msg, s)
				}
			}
			if fa.Text == "" {
				t.Fatalf("Extract(%q) gave a fact without text: %+v", msg, fa)
			}
		}
	})
}

// TestBounded: long sentences are cut at spaces into pieces of at most
// maxSentenceBytes, losing no word and cutting no character; short ones
// pass as they are.
func TestBounded(t *testing.T) {
	short := []string{"I moved to Lisbon.", "My sister lives in Porto."}
	if got := bounded(short); len(got) != 2 || got[0] != short[0] || got[1] != short[1] {
		t.Fatalf("bounded(short) = %q", got)
	}
	long := strings.Repeat("I moved to Zürich and then ", 100) + strings.Repeat("é", 700)
	got := bounded([]string{"Hi.", long})
	if got[0] != "Hi." || len(got) < 4 {
		t.Fatalf("bounded gave %d pieces", len(got))
	}
	for _, p := range got {
		if len(p) > maxSentenceBytes || p == "" || !utf8.ValidString(p) {
			t.Fatalf("piece of %d bytes, valid UTF-8 %v", len(p), utf8.ValidString(p))
		}
	}
	if j := strings.Join(got[1:], ""); strings.ReplaceAll(j, " ", "") != strings.ReplaceAll(long, " ", "") {
		t.Fatal("the pieces do not make up the sentence")
	}
}
