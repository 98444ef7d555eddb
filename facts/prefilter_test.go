package facts

import (
	"os"
	"strings"
	"testing"
	"time"

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

// TestExtractionCompilesNothingListed: extraction builds some patterns
// from what a message says (a move's destination, a correction's old
// value); those are never listed in rx.All, which would grow with every
// message (each listed pattern is kept for the program's life, and the
// literal index every text is scanned against is rebuilt after each).
func TestExtractionCompilesNothingListed(t *testing.T) {
	at := time.Date(2026, 3, 11, 10, 0, 0, 0, time.UTC)
	Extract("warm up", Options{At: at})
	before := len(rx.All())
	for _, msg := range []string{
		"I moved to Prague last month.", "I moved to Globex as a senior engineer.",
		"I got an offer from Globex. I moved to Globex last week.", "Moved to Brightwave last week, the team is lovely.",
	} {
		Extract(msg, Options{At: at})
	}
	for _, c := range []string{"It's the 16th, not the 14th.", "聚会是周五晚上，不是周三"} {
		if co, ok := ExtractCorrection(c); ok {
			co.Apply("the meeting is on the 14th, 聚会在周三晚上")
		}
	}
	if after := len(rx.All()); after != before {
		t.Errorf("extraction listed %d patterns at run time", after-before)
	}
}
