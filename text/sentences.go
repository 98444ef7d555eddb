package text

import (
	"strings"

	"github.com/memproxy/memproxy/internal/rx"
)

// sentenceRe keeps each sentence's terminator so questions stay visible.
var sentenceRe = rx.MustCompile(`[^.!?;。！？；\n]+[.!?;。！？；\n]*`)

// Sentences splits text into trimmed sentences, each with its terminator.
// A period inside a number, an e-mail address or a domain ("3.5",
// "jane.doe@example.com") does not end a sentence.
func Sentences(text string) []string {
	var out []string
	var cur strings.Builder
	parts := sentenceRe.FindAllString(text, -1)
	for i, p := range parts {
		cur.WriteString(p)
		// A '.' directly followed by a non-space (the next part starts
		// without a space) joins the parts back: "jane.doe", "3.5".
		if i+1 < len(parts) && abbrev(p) {
			continue
		}
		if i+1 < len(parts) && strings.HasSuffix(p, ".") && !strings.HasSuffix(p, "..") {
			next := parts[i+1]
			if next != "" && next[0] != ' ' && next[0] != '\n' && next[0] != '\t' {
				continue
			}
		}
		if s := strings.TrimSpace(cur.String()); strings.Trim(s, ".!?;。！？；") != "" {
			out = append(out, s)
		}
		cur.Reset()
	}
	if s := strings.TrimSpace(cur.String()); strings.Trim(s, ".!?;。！？；") != "" {
		out = append(out, s)
	}
	return out
}

var questionStart = rx.MustCompile(`(?i)^(?:so |and |but |hey,? |ok,? |okay,? )?(what|where|when|who|whom|whose|why|how|which|do|does|did|can|could|would|should|is|are|am|was|were|will|shall|have|has|any idea|remind me|i wonder|i was wondering|i'm wondering|wondering|i'd like to know|i want to know)\b`)

// zhQuestionWords mark a Chinese sentence as a question: question words
// (哪 in any compound: 哪天, 哪年, 哪位), how many of a date or an age
// (几号, 星期几), and the A-not-A forms (是不是, 有没有).
var zhQuestionWords = []string{"哪", "什么", "为什么", "怎么", "怎样", "如何", "多少", "几岁", "几号", "几点", "几月", "几年级",
	"星期几", "周几", "礼拜几", "是谁", "谁", "是否", "是不是", "有没有", "能不能", "会不会", "要不要", "可不可以", "对不对", "好不好",
	"啥", "何时", "多久", "多大", "多远", "多长"}

// zhNotQuestion are the same words in a statement: "我什么都吃" (I eat
// anything), "哪怕", "谁都", "没什么", "不怎么".
var zhNotQuestion = strings.NewReplacer("什么都", "", "什么也", "", "没什么", "", "不怎么", "", "怎么也", "", "哪怕", "", "谁都", "", "谁也", "", "多少有", "")

// IsQuestion reports whether one sentence asks rather than states.
func IsQuestion(s string) bool {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, "?") || strings.HasSuffix(s, "？") {
		return true
	}
	if z := strings.TrimRight(s, "。.!！ "); strings.HasSuffix(z, "吗") || strings.HasSuffix(z, "呢") || strings.HasSuffix(z, "么") && !strings.HasSuffix(z, "什么") {
		return true
	}
	if strings.ContainsAny(s, "哪什怎多几谁是否有能会要可对好啥何") {
		z := zhNotQuestion.Replace(s)
		for _, w := range zhQuestionWords {
			if strings.Contains(z, w) {
				return true
			}
		}
	}
	return questionStart.MatchString(s) || requestStart.MatchString(s)
}

// requestStart: a sentence that asks for something without a question
// mark ("Recommend a good sci-fi novel", "推荐一本好看的科幻小说").
var requestStart = rx.MustCompile(`(?i)^(?:please |pls |can you |could you )?(?:recommend|suggest|tell me|give me|explain|show me|list|help me|remind me)\b|^(?:请|麻烦|能不能|可以)?(?:推荐|介绍一下|告诉我|帮我|给我推荐|解释一下|请问)`)

// OnlyAsks reports whether a message only asks: every sentence of it is a
// question (or a bare politeness around one: "thanks", "please"). An
// empty message asks nothing.
func OnlyAsks(msg string) bool {
	ss := Sentences(msg)
	asked := false
	for _, s := range ss {
		switch {
		case IsQuestion(s):
			asked = true
		case filler(s):
		default:
			return false
		}
	}
	return asked
}

// filler is a sentence that says nothing by itself ("Thanks!", "Hi.",
// "Quick question:").
func filler(s string) bool {
	w := strings.Fields(strings.ToLower(strings.Trim(s, ".!,:;。！，：")))
	if len(w) == 0 {
		return true
	}
	if len(w) > 3 {
		return false
	}
	for _, x := range w {
		switch strings.Trim(x, ".!,:;") {
		case "thanks", "thank", "you", "please", "hi", "hey", "hello", "ok", "okay", "so", "quick", "question",
			"one", "more", "again", "sorry", "谢谢", "请问", "你好":
		default:
			return false
		}
	}
	return true
}

// abbrev reports a part ending in a title or short form that takes a
// period ("Dr.", "Mrs.", "St.", "e.g."): the sentence goes on.
func abbrev(p string) bool {
	i := strings.LastIndexAny(p, " \t\n")
	w := strings.ToLower(p[i+1:])
	switch w {
	case "dr.", "mr.", "mrs.", "ms.", "st.", "prof.", "jr.", "sr.", "e.g.", "i.e.", "vs.", "mt.", "no.":
		return true
	}
	return false
}
