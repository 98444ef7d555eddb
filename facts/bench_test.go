package facts

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// BenchmarkExtract is the per-turn cost of extraction over everyday
// statements, questions and chit-chat in English and Chinese.
func BenchmarkExtract(b *testing.B) {
	msgs := []string{
		"I live in Berlin, in a small flat in Kreuzberg.",
		"I quit Acme last week and joined Globex. New badge, new laptop.",
		"I joined Strava last week, it's great for tracking my runs.",
		"My daughter Ava turned 10 last week, we had a huge party.",
		"Home for me is Lisbon now. The light here is unreal.",
		"Can you suggest a weekend bike route near home?",
		"That sounds great, thanks! What time does the museum open?",
		"My dentist appointment is next Thursday at 3pm.",
		"We went hiking yesterday and the view was amazing.",
		"I've gone vegetarian since March, feeling great.",
		"我上个月从北京搬到上海了。",
		"我家狗狗今年三岁了，越来越懒。",
	}
	at := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	Extract(msgs[0], Options{At: at}) // load the tagger's model
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Extract(msgs[i%len(msgs)], Options{At: at})
	}
}

// BenchmarkExtractLong: messages of the largest size a turn keeps
// (ingest.max_turn_bytes, 32 KB) made of one sentence repeated, the shapes
// that had each fact read the whole message again (a destination's
// naming, a pronoun's antecedent, one endless sentence). Each costs in
// proportion to its length: go test ./facts -run '^$' -bench ExtractLong.
func BenchmarkExtractLong(b *testing.B) {
	for _, c := range []struct{ name, unit string }{
		{"moves", "I moved to Lisbon and my sister Anna lives in Porto. "},
		{"distinct-moves", ""},
		{"one-sentence", "I moved to 0\x80 "},
		{"pronouns", "I switched to it. "},
		{"prose", "Yesterday I went hiking with Anna and we saw a deer near the lake. "},
	} {
		var msg string
		if c.unit == "" {
			var sb strings.Builder
			for i := 0; sb.Len() < 32768-32; i++ {
				fmt.Fprintf(&sb, "I moved to Town%d. ", i)
			}
			msg = sb.String()
		} else {
			msg = strings.Repeat(c.unit, 32768/len(c.unit))
		}
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				Extract(msg, Options{At: at})
			}
		})
	}
}
