package text

import (
	"regexp"
	"strings"
)

// sentenceRe keeps each sentence's terminator so questions stay visible.
var sentenceRe = regexp.MustCompile(`[^.!?;。！？；\n]+[.!?;。！？；\n]*`)

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

var questionStart = regexp.MustCompile(`(?i)^(?:so |and |but |hey,? |ok,? |okay,? )?(what|where|when|who|whom|whose|why|how|which|do|does|did|can|could|would|should|is|are|am|was|were|will|shall|have|has|any idea|remind me|i wonder|i was wondering|i'm wondering|wondering|i'd like to know|i want to know)\b`)

// zhQuestionWords mark a Chinese sentence as a question.
var zhQuestionWords = []string{"哪里", "哪儿", "什么", "为什么", "怎么", "多少", "几岁", "是谁", "谁", "哪个", "哪家", "几点", "是不是"}

// IsQuestion reports whether one sentence asks rather than states.
func IsQuestion(s string) bool {
	s = strings.TrimSpace(s)
	if strings.HasSuffix(s, "?") || strings.HasSuffix(s, "？") || strings.HasSuffix(s, "吗") || strings.HasSuffix(s, "呢") || strings.HasSuffix(s, "吗。") {
		return true
	}
	for _, w := range zhQuestionWords {
		if strings.Contains(s, w) {
			return true
		}
	}
	return questionStart.MatchString(s) || requestStart.MatchString(s)
}

// requestStart: a sentence that asks for something without a question
// mark ("Recommend a good sci-fi novel", "推荐一本好看的科幻小说").
var requestStart = regexp.MustCompile(`(?i)^(?:please |pls |can you |could you )?(?:recommend|suggest|tell me|give me|explain|show me|list|help me|remind me)\b|^(?:请|麻烦|能不能|可以)?(?:推荐|介绍一下|告诉我|帮我|给我推荐|解释一下|请问)`)

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
