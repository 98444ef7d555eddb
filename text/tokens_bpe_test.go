package text

import (
	"os"
	"strings"
	"testing"

	"github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
)

// TestCountTokensMatchesBPE holds the estimate against real BPE tokenizers
// on chat messages (English and Chinese) and prose: the injection budget
// is meant in a model's tokens, so the estimate must neither overcount
// (the block would carry less than the operator set) nor undercount (it
// would cost more). Tolerances: English within -5%/+15% of cl100k_base;
// Chinese between o200k_base and cl100k_base, which spend about 0.8 and
// 1.15 tokens a Han character.
func TestCountTokensMatchesBPE(t *testing.T) {
	tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
	cl, err := tiktoken.GetEncoding("cl100k_base")
	if err != nil {
		t.Fatal(err)
	}
	o2, err := tiktoken.GetEncoding("o200k_base")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("testdata/tokens-corpus.txt")
	if err != nil {
		t.Fatal(err)
	}
	type sums struct{ est, cl, o2, texts int }
	var en, zh sums
	for _, p := range strings.Split(string(b), "\n\n") {
		p = strings.TrimSpace(p)
		if p == "" || strings.HasPrefix(p, "#") {
			continue
		}
		s := &en
		for _, r := range p {
			if CJKScript(r) {
				s = &zh
				break
			}
		}
		s.est += CountTokens(p)
		s.cl += len(cl.Encode(p, nil, nil))
		s.o2 += len(o2.Encode(p, nil, nil))
		s.texts++
	}
	if en.texts < 100 || zh.texts < 50 {
		t.Fatalf("corpus too small: %d English, %d Chinese texts", en.texts, zh.texts)
	}
	t.Logf("English: %d texts, estimate %d, cl100k %d (%.3f), o200k %d", en.texts, en.est, en.cl, float64(en.est)/float64(en.cl), en.o2)
	t.Logf("Chinese: %d texts, estimate %d, cl100k %d (%.3f), o200k %d", zh.texts, zh.est, zh.cl, float64(zh.est)/float64(zh.cl), zh.o2)
	if r := float64(en.est) / float64(en.cl); r < 0.95 || r > 1.15 {
		t.Errorf("English: estimate/cl100k = %.3f, want within [0.95, 1.15]", r)
	}
	if zh.est < zh.o2 || zh.est > zh.cl {
		t.Errorf("Chinese: estimate %d, want between o200k %d and cl100k %d", zh.est, zh.o2, zh.cl)
	}
}
