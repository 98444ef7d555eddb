package embed

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/cespare/xxhash/v2"
)

func TestLocalShape(t *testing.T) {
	l := NewLocal(0)
	if l.Dim() != DefaultLocalDim || l.Model() != "local-hash-v1" {
		t.Fatalf("dim %d model %q", l.Dim(), l.Model())
	}
	texts := []string{"I went to a LGBTQ support group yesterday", "", "   ", "我对花生过敏", "😂", "x"}
	vecs, err := NewLocal(64).Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(vecs) != len(texts) {
		t.Fatalf("%d vectors for %d texts", len(vecs), len(texts))
	}
	for i, v := range vecs {
		if len(v) != 64 {
			t.Fatalf("text %d: %d dims", i, len(v))
		}
		var n float64
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				t.Fatalf("text %q: non-finite value", texts[i])
			}
			n += float64(x) * float64(x)
		}
		if math.Abs(n-1) > 1e-4 {
			t.Errorf("text %q: norm² %v, want 1", texts[i], n)
		}
	}
}

// The vectors are part of the stored data: the same text must give the same
// vector in every process, forever (or the model name changes).
func TestLocalDeterministic(t *testing.T) {
	a := NewLocal(256).Vector("Caroline went to the LGBTQ support group on 7 May 2023.")
	b := NewLocal(256).Vector("Caroline went to the LGBTQ support group on 7 May 2023.")
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("dimension %d differs: %v vs %v", i, a[i], b[i])
		}
	}
	// A frozen fingerprint of local-hash-v1 (rounded, so last-bit float
	// differences between CPUs do not matter): if this changes, the features
	// changed and LocalModel must get a new name.
	d := xxhash.New()
	for _, x := range a {
		_ = binary.Write(d, binary.LittleEndian, int32(math.Round(float64(x)*1000)))
	}
	got := fmt.Sprintf("%016x", d.Sum64())
	const want = "92301dcb4a4d31f0"
	if got != want {
		t.Fatalf("local-hash-v1 fingerprint changed: got %s, want %s", got, want)
	}
	t.Logf("fingerprint %s", got)
}

func TestLocalCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewLocal(32).Embed(ctx, []string{"a"}); err == nil {
		t.Fatal("cancelled context: no error")
	}
}

// Paraphrases and question/evidence pairs must score higher than unrelated
// pairs: this is what drives recall of raw turns without a model.
func TestLocalQuality(t *testing.T) {
	l := NewLocal(256)
	related := [][2]string{
		{"When did Caroline go to the LGBTQ support group?", "I went to a LGBTQ support group yesterday and it was so powerful."},
		{"What did Melanie paint recently?", "I just finished painting a sunrise over the lake last week."},
		{"Where does Sam work now?", "I started working at a bakery downtown in March."},
		{"What instrument does John play?", "In my free time I like hiking and playing the guitar."},
		{"How many children does Melanie have?", "My three kids keep me busy, but I love being a mom to my children."},
		{"What is the user allergic to?", "I'm allergic to peanuts, so please avoid them in recipes."},
		{"Which city did Jon move to?", "We finally moved to Seattle last month, the rain is real."},
		{"What did Caroline buy for her daughter?", "I bought my daughter a new bike for her birthday."},
		{"我对什么过敏？", "我对花生过敏，做菜的时候别放花生。"},
		{"上次说的那家餐厅叫什么", "我们上次去的那家川菜餐厅叫蜀香园"},
		{"用户喜欢什么编程语言", "我更喜欢用TypeScript写前端"},
	}
	unrelated := [][2]string{
		{"When did Caroline go to the LGBTQ support group?", "I just finished painting a sunrise over the lake last week."},
		{"What did Melanie paint recently?", "We finally moved to Seattle last month, the rain is real."},
		{"Where does Sam work now?", "I'm allergic to peanuts, so please avoid them in recipes."},
		{"What instrument does John play?", "I bought my daughter a new bike for her birthday."},
		{"How many children does Melanie have?", "I started working at a bakery downtown in March."},
		{"What is the user allergic to?", "In my free time I like hiking and playing the guitar."},
		{"Which city did Jon move to?", "I went to a LGBTQ support group yesterday and it was so powerful."},
		{"What did Caroline buy for her daughter?", "We finally moved to Seattle last month, the rain is real."},
		{"我对什么过敏？", "我们上次去的那家川菜餐厅叫蜀香园"},
		{"上次说的那家餐厅叫什么", "我更喜欢用TypeScript写前端"},
		{"用户喜欢什么编程语言", "我对花生过敏，做菜的时候别放花生。"},
	}
	minRel, maxUnrel := 1.0, -1.0
	for i := range related {
		r := Cosine(l.Vector(related[i][0]), l.Vector(related[i][1]))
		u := Cosine(l.Vector(unrelated[i][0]), l.Vector(unrelated[i][1]))
		t.Logf("%.3f vs %.3f  %s", r, u, related[i][0])
		if r <= u {
			t.Errorf("%q: related %.3f <= unrelated %.3f", related[i][0], r, u)
		}
		minRel, maxUnrel = min(minRel, r), max(maxUnrel, u)
	}
	t.Logf("min related %.3f, max unrelated %.3f", minRel, maxUnrel)

	// Ranking: each question's evidence beats every other candidate.
	var docs [][]float32
	for _, p := range related {
		docs = append(docs, l.Vector(p[1]))
	}
	for i, p := range related {
		q := l.Vector(p[0])
		best, bestJ := -2.0, -1
		for j, d := range docs {
			if s := Cosine(q, d); s > best {
				best, bestJ = s, j
			}
		}
		if bestJ != i {
			t.Errorf("%q ranks %q first", p[0], related[bestJ][1])
		}
	}
}

// Stemming and irregular verbs make forms of one word meet.
func TestLocalMorphology(t *testing.T) {
	l := NewLocal(256)
	for _, p := range [][2]string{
		{"go", "went"}, {"buy", "bought"}, {"painting", "paints"}, {"hoped", "hoping"}, {"stories", "story"},
		{"running", "run"}, {"children", "child"}, {"Caroline's", "caroline"}, {"groups", "group"},
	} {
		if s := Cosine(l.Vector(p[0]), l.Vector(p[1])); s < 0.7 {
			t.Errorf("%q vs %q: %.3f, want >= 0.7", p[0], p[1], s)
		}
	}
	if s := Cosine(l.Vector("dog"), l.Vector("cat")); s > 0.3 {
		t.Errorf("dog vs cat: %.3f", s)
	}
}

func BenchmarkLocalEmbed(b *testing.B) {
	l := NewLocal(256)
	texts := []string{
		"I went to a LGBTQ support group yesterday and it was so powerful.",
		"Hey Mel! Good to see you! How have you been?",
		"When did Caroline go to the LGBTQ support group?",
		"我对花生过敏，做菜的时候别放花生。",
		"Thanks! I just finished painting a sunrise over the lake, it took me three weekends but I'm really proud of how the colours came out.",
		"ok",
		"We finally moved to Seattle last month, the rain is real.",
		"What did Melanie paint recently?",
	}
	ctx := context.Background()
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if _, err := l.Embed(ctx, texts); err != nil {
			b.Fatal(err)
		}
		n += len(texts)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "texts/s")
}
