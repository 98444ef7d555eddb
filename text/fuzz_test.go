package text

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// FuzzUserText: the functions every captured message and every recalled
// query go through return for any input, and keep valid UTF-8 valid.
func FuzzUserText(f *testing.F) {
	for _, s := range []string{
		"I went hiking yesterday", "We met last night. Next Friday I fly to Rome!", "上个月我搬到了上海，下周三开会。",
		"On 3 Mar 2026 I started; in June 2019 I married.", "What's new with Anna?", "isſecret \u212aelvin 0\x80",
		"2 weeks ago, 10 days later, the day before yesterday", "ＡＢＣ１２３ fullwidth", "",
	} {
		f.Add(s)
	}
	at := time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		valid := utf8.ValidString(s)
		check := func(what string, outs ...string) {
			for _, o := range outs {
				if valid && !utf8.ValidString(o) {
					t.Fatalf("%s(%q) gave invalid UTF-8 %q", what, s, o)
				}
			}
		}
		for _, rs := range [][]DateRef{ResolveDates(s, at, time.UTC), ExplicitDates(s, at, time.UTC)} {
			for _, r := range rs {
				if r.Start < 0 || r.End > len(s) || r.Start > r.End || s[r.Start:r.End] != r.Text {
					t.Fatalf("dates of %q: %+v does not point at its text", s, r)
				}
				check("dates", r.Text, r.Format())
			}
		}
		check("AnnotateDates", AnnotateDates(s, at, time.UTC))
		check("LexicalForm", LexicalForm(s))
		check("Sentences", Sentences(s)...)
		check("QueryTerms", QueryTerms(s)...)
		check("ContentWords", ContentWords(s)...)
		_ = IsQuestion(s) || OnlyAsks(s) || SpeaksOfNow(s)
		if n := CountTokens(s); n < 0 || n > 2*len(s)+1 {
			t.Fatalf("CountTokens(%q) = %d", s, n)
		}
		_ = Coverage(s, strings.ToUpper(s))
	})
}
