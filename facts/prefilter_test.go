package facts

import (
	"os"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/memproxy/memproxy/internal/rx"
	"github.com/memproxy/memproxy/text"
)

// TestPrefiltersTurnNoMatchAway runs every pattern extraction compiled
// over every message of the scenario stories (and each sentence of them,
// lowercased and uppercased too): wherever regexp finds a match, the
// literal prefilter (internal/rx) lets the pattern run.
// storyTexts are the messages of the scenario stories, each sentence of
// them too, lowered and uppercased.
func storyTexts(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile("../test/scenarios/stories.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var texts []string
	var walk func(v any, say bool)
	walk = func(v any, say bool) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				walk(x, say || k == "say" || k == "ask")
			}
		case []any:
			for _, x := range v {
				walk(x, say)
			}
		case string:
			if say {
				texts = append(texts, v)
				for _, s := range text.Sentences(v) {
					texts = append(texts, s, strings.ToLower(s), strings.ToUpper(s))
				}
			}
		}
	}
	walk(doc, false)
	if len(texts) < 5000 {
		t.Fatalf("only %d texts read from the stories", len(texts))
	}
	return texts
}

func TestPrefiltersTurnNoMatchAway(t *testing.T) {
	texts := storyTexts(t)
	matches := 0
	for _, re := range rx.All() {
		for _, s := range texts {
			if re.Regexp.MatchString(s) {
				matches++
				if !re.May(s) {
					t.Errorf("%s on %q: a match the prefilter %q turned away", re, s, re.Need())
				}
			}
		}
	}
	if matches < 1000 {
		t.Errorf("only %d matches: the test checks little", matches)
	}
}
