package research

import (
	"context"
	"reflect"
	"testing"

	"github.com/memproxy/memproxy/eval/locomo"
)

func TestStem(t *testing.T) {
	for in, want := range map[string]string{
		"painted": "paint", "painting": "paint", "paints": "paint",
		"running": "run", "hoped": "hop", "hope": "hop", "stories": "story",
		"class": "class", "bus": "bus",
	} {
		if got := stem(in); got != want {
			t.Errorf("stem(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBM25RanksMatchFirst(t *testing.T) {
	x := NewBM25(Analyzer{Stem: true, Stopwords: true}, []string{
		"I went hiking with my dog",
		"She painted a sunset last week",
		"We talked about the weather",
	})
	got := x.Search("When did she paint the sunset?", 10)
	if len(got) != 1 || got[0].Doc != 1 {
		t.Fatalf("search = %+v, want only doc 1", got)
	}
}

func TestUnitsContext(t *testing.T) {
	ss, err := locomo.Load("../testdata/tiny-locomo.json")
	if err != nil {
		t.Fatal(err)
	}
	us := UnitDesign{Kind: "pair", Before: 1, DatePrefix: true}.Build(&ss[0])
	if len(us) != 5 {
		t.Fatalf("units = %d, want 5", len(us))
	}
	// Context does not cross sessions; the date leads the index text.
	if want := "27 June 2023\nAssistant: Hi Ann, long time!"; us[2].Index != want {
		t.Errorf("index = %q, want %q", us[2].Index, want)
	}
	if !reflect.DeepEqual(us[3].Refs, []string{"D2:2", "D2:3"}) {
		t.Errorf("refs = %q", us[3].Refs)
	}
	if us[3].Text != "Hi Bob! Tom turned one.\nAssistant: Did you paint anything lately? [shares a photo: a photo of a painting of a sunset]" {
		t.Errorf("text = %q", us[3].Text)
	}
}

// TestRunTiny checks the harness end to end on the hand-made file: BM25
// over pairs finds the single-turn answers, and recall is scored with the
// product's metric (empty evidence counts 1, missing ids stay).
func TestRunTiny(t *testing.T) {
	ss, err := locomo.Load("../testdata/tiny-locomo.json")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), ss, Design{Units: UnitDesign{Kind: "pair"}, Retrieval: Retrieval{Lexical: &Analyzer{Stem: true, Stopwords: true}}, TopK: 1, Budget: 500})
	if err != nil {
		t.Fatal(err)
	}
	if r.Summary.Questions != 6 {
		t.Fatalf("questions = %d", r.Summary.Questions)
	}
	// "Does Ann like jazz?" has evidence D2:3 and the missing D9:9: at
	// most half can be found.
	if got := r.Summary.ByCategory["4"].EvidenceRecall["5"]; got > 0.75+1e-9 {
		t.Errorf("cat 4 recall = %v, want <= 0.75", got)
	}
	if got := r.Summary.ByCategory["3"].EvidenceRecall["5"]; got != 1 {
		t.Errorf("cat 3 (no evidence) recall = %v, want 1", got)
	}
	if r.Summary.MeanInjectedTokens <= 0 || r.Summary.P95InjectedTokens > 500 {
		t.Errorf("tokens mean %v p95 %v", r.Summary.MeanInjectedTokens, r.Summary.P95InjectedTokens)
	}
}
