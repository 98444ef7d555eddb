package facts

import (
	"strings"

	"github.com/memproxy/memproxy/internal/rx"
)

// lifeEvents are the life events a note names by a verb or a noun that a
// question asks with another: "we're getting married on June 12th" is
// found by "When is my wedding?", 我下个月做手术 by "surgery". The words
// go into the note's search text (Context), not its text. Events keep
// their own words: given the same words, LoCoMo dev lost a temporal
// answer or two (answer-in-context 0.7061–0.7068 → 0.7054) to events that
// mention a birth or a death in passing.
var lifeEvents = []struct {
	re    *rx.Regexp
	words string
}{
	{rx.MustCompile(`(?i)\b(?:marr(?:y|ied|ying|iage)|wed|wedding|weds|nuptials|get(?:ting)? hitched)\b|结婚|婚礼|办酒`), "wedding marriage married marry 婚礼 结婚"},
	{rx.MustCompile(`(?i)\b(?:engaged|engagement|proposed|proposal)\b|订婚|求婚`), "engagement engaged proposal 订婚"},
	{rx.MustCompile(`(?i)\b(?:born|birth|pregnant|pregnancy|expecting a baby|due date)\b|出生|生了|怀孕|预产期`), "baby birth born pregnancy 宝宝 出生"},
	{rx.MustCompile(`(?i)\bgraduat(?:e|ed|es|ing|ion)\b|毕业`), "graduation graduate 毕业"},
	{rx.MustCompile(`(?i)\bretir(?:e|ed|es|ing|ement)\b|退休`), "retirement retire 退休"},
	{rx.MustCompile(`(?i)\b(?:surgery|operation|operated)\b|手术`), "surgery operation 手术"},
	{rx.MustCompile(`(?i)\b(?:funeral|passed away|died|death)\b|去世|葬礼|过世`), "funeral death 去世 葬礼"},
	{rx.MustCompile(`(?i)\b(?:divorce|divorced|divorcing)\b|离婚`), "divorce divorced 离婚"},
	{rx.MustCompile(`(?i)\b(?:interview|interviewing)\b|面试`), "interview job interview 面试"},
}

func lifeEventWords(s string) string {
	var out []string
	for _, e := range lifeEvents {
		if e.re.MatchString(s) {
			out = append(out, e.words)
		}
	}
	return strings.Join(out, " ")
}
