package background

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/memproxy/memproxy/facts"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"
)

// LLM is one text-in, text-out model call.
type LLM interface {
	Complete(ctx context.Context, prompt string) (string, error)
}

// openAILLM calls any OpenAI-compatible chat model through langchaingo.
type openAILLM struct {
	model   llms.Model
	timeout time.Duration
}

// NewOpenAILLM builds the consolidation model from policy: base URL, model
// and the key read from the environment variable the policy names.
func NewOpenAILLM(c policy.Consolidation) (LLM, error) {
	key := ""
	if c.APIKeyEnv != "" {
		key = os.Getenv(c.APIKeyEnv)
	}
	if key == "" {
		key = "none" // local servers (Ollama, vLLM) take any key
	}
	m, err := openai.New(openai.WithBaseURL(c.BaseURL), openai.WithModel(c.Model), openai.WithToken(key))
	if err != nil {
		return nil, err
	}
	return &openAILLM{model: m, timeout: c.Timeout.D()}, nil
}

func (o *openAILLM) Complete(ctx context.Context, prompt string) (string, error) {
	if o.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.timeout)
		defer cancel()
	}
	return llms.GenerateFromSinglePrompt(ctx, o.model, prompt, llms.WithTemperature(0))
}

// Consolidation is a model's (or the extractive consolidator's) answer.
type Consolidation struct {
	Episodic    string   `json:"episodic"`
	Semantic    []string `json:"semantic"`
	Contradicts []string `json:"contradicts"`
	// Triples are the durable facts as (subject, attribute, value), from
	// the same call: each becomes a fact of its slot (facts.FromTriple),
	// superseding the slot's old value as an extracted fact would.
	Triples []memory.Triple `json:"triples,omitempty"`
}

// consolidationPrompt asks for strict JSON. It names what a good summary
// keeps, since the summary replaces the events in recall.
const consolidationPrompt = `You maintain long-term memory for a chat assistant. Below are related
conversation turns between the user and the assistant, oldest first, with
their dates. Known facts about the user follow.

Return ONLY a JSON object, no prose, with exactly these keys:
  "episodic": one or two sentences summarising what happened across these
    turns, keeping concrete parameters: dates, people, places, amounts,
    versions, states and decisions;
  "semantic": a list of durable facts about the user stated in these turns,
    each a short standalone sentence in the third person ("The user ..."),
    empty if none;
  "contradicts": a list of the known facts (copied verbatim) that these
    turns show are no longer true, empty if none;
  "triples": the durable facts of "semantic" that fit one attribute, as
    objects {"subject": "user" or a relation word such as "sister" or
    "wife", "attribute": one of %s or a short
    snake_case name, "value": a short noun phrase, "ended": true only if the
    turns say it stopped being true}, empty if none.

Known facts:
%s

Turns:
%s`

// buildPrompt renders the consolidation prompt.
func buildPrompt(turns []string, known []string) string {
	k := "(none)"
	if len(known) > 0 {
		k = "- " + strings.Join(known, "\n- ")
	}
	return fmt.Sprintf(consolidationPrompt, strings.Join(facts.Vocabulary(), ", "), k, strings.Join(turns, "\n\n"))
}

// errBadAnswer marks a model answer that is not valid consolidation JSON.
var errBadAnswer = errors.New("invalid consolidation answer")

// ParseConsolidation reads a model answer: the JSON object may be wrapped
// in prose or a code fence; it must have a non-empty episodic summary and
// string lists.
func ParseConsolidation(answer string) (*Consolidation, error) {
	obj, ok := findJSONObject(answer)
	if !ok {
		return nil, fmt.Errorf("%w: no JSON object", errBadAnswer)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(obj), &raw); err != nil {
		return nil, fmt.Errorf("%w: %v", errBadAnswer, err)
	}
	var c Consolidation
	if err := json.Unmarshal(raw["episodic"], &c.Episodic); err != nil || strings.TrimSpace(c.Episodic) == "" {
		return nil, fmt.Errorf("%w: episodic must be a non-empty string", errBadAnswer)
	}
	for _, f := range []struct {
		name string
		dst  *[]string
	}{{"semantic", &c.Semantic}, {"contradicts", &c.Contradicts}} {
		v, ok := raw[f.name]
		if !ok || string(v) == "null" {
			continue
		}
		if err := json.Unmarshal(v, f.dst); err != nil {
			return nil, fmt.Errorf("%w: %s must be a list of strings", errBadAnswer, f.name)
		}
	}
	if v, ok := raw["triples"]; ok && string(v) != "null" {
		var ts []map[string]json.RawMessage
		if err := json.Unmarshal(v, &ts); err != nil {
			return nil, fmt.Errorf("%w: triples must be a list of objects", errBadAnswer)
		}
		for _, t := range ts {
			var tr memory.Triple
			for _, f := range []struct {
				name string
				dst  *string
			}{{"subject", &tr.Subject}, {"attribute", &tr.Attribute}, {"value", &tr.Value}} {
				if err := json.Unmarshal(t[f.name], f.dst); err != nil || strings.TrimSpace(*f.dst) == "" {
					return nil, fmt.Errorf("%w: a triple's %s must be a non-empty string", errBadAnswer, f.name)
				}
			}
			if e, ok := t["ended"]; ok && string(e) != "null" {
				if err := json.Unmarshal(e, &tr.Ended); err != nil {
					return nil, fmt.Errorf("%w: a triple's ended must be a boolean", errBadAnswer)
				}
			}
			c.Triples = append(c.Triples, tr)
		}
	}
	c.Episodic = strings.TrimSpace(c.Episodic)
	c.Semantic = cleanList(c.Semantic)
	c.Contradicts = cleanList(c.Contradicts)
	return &c, nil
}

func cleanList(l []string) []string {
	out := l[:0]
	for _, s := range l {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// findJSONObject returns the first balanced {...} in s that parses as JSON.
func findJSONObject(s string) (string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] != '{' {
			continue
		}
		depth, inStr, esc := 0, false, false
		for j := i; j < len(s); j++ {
			c := s[j]
			switch {
			case esc:
				esc = false
			case inStr && c == '\\':
				esc = true
			case c == '"':
				inStr = !inStr
			case inStr:
			case c == '{':
				depth++
			case c == '}':
				depth--
				if depth == 0 {
					if cand := s[i : j+1]; json.Valid([]byte(cand)) {
						return cand, true
					}
					j = len(s)
				}
			}
		}
	}
	return "", false
}

// budget caps model calls per sliding hour. It is per process: replicas
// each hold the cap (the policy says so).
type budget struct {
	mu    sync.Mutex
	max   int
	calls []time.Time
}

func newBudget(max int) *budget { return &budget{max: max} }

// take reserves one call at now, or returns how long until one is free.
// max 0 means no cap.
func (b *budget) take(now time.Time) (time.Duration, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.max <= 0 {
		return 0, true
	}
	cut := now.Add(-time.Hour)
	i := 0
	for i < len(b.calls) && !b.calls[i].After(cut) {
		i++
	}
	b.calls = b.calls[i:]
	if len(b.calls) >= b.max {
		return b.calls[0].Sub(cut) + time.Second, false
	}
	b.calls = append(b.calls, now)
	return 0, true
}
