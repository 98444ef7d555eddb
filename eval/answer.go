package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode"
)

// AnswerInstruction is the system message sent with each question when a
// model answers: the LoCoMo paper's short-answer instruction, and the
// phrase its scorer accepts for unanswerable (adversarial) questions. It is
// a system message so the recall query stays the question alone.
const AnswerInstruction = "You are answering a question about your earlier conversations with this user. " +
	"Write a short phrase, using exact words from those conversations whenever possible; " +
	"for a question about time, give the date. If the conversations do not contain the answer, " +
	"reply \"No information available\"."

// Judge asks an OpenAI-compatible model whether an answer is right.
type Judge struct {
	// BaseURL is the endpoint including /v1.
	BaseURL string
	Model   string
	APIKey  string
	HTTP    *http.Client
}

// judgePrompt follows the LLM-as-judge setup used by memory-layer
// evaluations on LoCoMo: generous about wording, strict about facts.
const judgePrompt = `Label an answer to a question about a conversation as CORRECT or WRONG.
You get the question, a gold answer and a generated answer. Be generous: the
generated answer is CORRECT if it refers to the same fact, person, thing or
time as the gold answer, even if worded differently, longer, or with a
relative date that resolves to the same date. It is WRONG if it misses or
contradicts the gold answer.

Question: %s
Gold answer: %s
Generated answer: %s

Reply with one word: CORRECT or WRONG.`

// Correct reports the judge's verdict.
func (j *Judge) Correct(ctx context.Context, question, gold, answer string) (bool, error) {
	out, err := complete(ctx, j.HTTP, j.BaseURL, j.APIKey, map[string]any{
		"model":       j.Model,
		"temperature": 0,
		"messages":    []map[string]string{{"role": "user", "content": fmt.Sprintf(judgePrompt, question, gold, answer)}},
	}, nil)
	if err != nil {
		return false, fmt.Errorf("judge: %w", err)
	}
	v := strings.ToUpper(out)
	return strings.Contains(v, "CORRECT") && !strings.Contains(v, "WRONG"), nil
}

// chatResponse is the part of a chat completion the evaluation reads.
type chatResponse struct {
	Choices []struct {
		Message struct {
			Content string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
}

// complete posts a chat completion and returns the first choice's text.
func complete(ctx context.Context, c *http.Client, baseURL, key string, body map[string]any, hdr http.Header) (string, error) {
	r := &Replayer{BaseURL: strings.TrimSuffix(strings.TrimRight(baseURL, "/"), "/v1"), HTTP: c}
	if hdr == nil {
		hdr = http.Header{}
	}
	if key != "" {
		hdr.Set("Authorization", "Bearer "+key)
	}
	resp, err := r.send(ctx, http.MethodPost, "/v1/chat/completions", body, hdr)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("status %d: %s", resp.StatusCode, strings.TrimSpace(string(data)))
	}
	var cr chatResponse
	if err := json.Unmarshal(data, &cr); err != nil {
		return "", fmt.Errorf("decode completion: %w", err)
	}
	if len(cr.Choices) == 0 {
		return "", fmt.Errorf("completion has no choices")
	}
	return cr.Choices[0].Message.Content, nil
}

// AnswerScore is LoCoMo's official answer score (task_eval/evaluation.py):
// category 5 (adversarial) is right when the answer says the information
// is not available; category 1 (multi-hop) averages, over the gold's
// comma-separated parts, the best token F1 against the answer's parts;
// category 3 scores only the gold before its first ';'; the others score
// token F1.
func AnswerScore(category int, answer, gold string) float64 {
	switch category {
	case 5:
		a := strings.ToLower(answer)
		if strings.Contains(a, "no information available") || strings.Contains(a, "not mentioned") {
			return 1
		}
		return 0
	case 1:
		golds := strings.Split(gold, ",")
		preds := strings.Split(answer, ",")
		var sum float64
		for _, g := range golds {
			best := 0.0
			for _, p := range preds {
				best = max(best, TokenF1(p, g))
			}
			sum += best
		}
		return sum / float64(len(golds))
	case 3:
		g, _, _ := strings.Cut(gold, ";")
		return TokenF1(answer, g)
	}
	return TokenF1(answer, gold)
}

// TokenF1 is the F1 of the normalised, stemmed tokens of pred against gold
// (SQuAD normalisation: lowercase, no punctuation, no articles).
func TokenF1(pred, gold string) float64 {
	p, g := answerTokens(pred), answerTokens(gold)
	if len(p) == 0 || len(g) == 0 {
		if len(p) == len(g) {
			return 1
		}
		return 0
	}
	count := map[string]int{}
	for _, t := range g {
		count[t]++
	}
	common := 0
	for _, t := range p {
		if count[t] > 0 {
			count[t]--
			common++
		}
	}
	if common == 0 {
		return 0
	}
	prec := float64(common) / float64(len(p))
	rec := float64(common) / float64(len(g))
	return 2 * prec * rec / (prec + rec)
}

func answerTokens(s string) []string {
	s = strings.ToLower(strings.ReplaceAll(s, ",", ""))
	s = strings.Map(func(r rune) rune {
		if unicode.IsPunct(r) || unicode.IsSymbol(r) {
			return -1
		}
		return r
	}, s)
	var out []string
	for _, w := range strings.Fields(s) {
		switch w {
		case "a", "an", "the", "and":
			continue
		}
		out = append(out, stemAnswer(w))
	}
	return out
}

// stemAnswer is a light suffix stripper standing in for the Porter stemmer
// of the official scorer.
func stemAnswer(w string) string {
	for _, suf := range []string{"ing", "ed", "es", "s"} {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 3 {
			return w[:len(w)-len(suf)]
		}
	}
	return w
}

// meanOf averages the non-nil values (nil when there are none).
func meanOf(xs []*float64) *float64 {
	var sum float64
	n := 0
	for _, x := range xs {
		if x != nil {
			sum += *x
			n++
		}
	}
	if n == 0 {
		return nil
	}
	m := sum / float64(n)
	return &m
}
