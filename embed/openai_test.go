package embed

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/memproxy/memproxy/internal/fakeupstream"
)

func newFake(t *testing.T, dim int) (*fakeupstream.Server, string) {
	t.Helper()
	f := fakeupstream.New()
	f.EmbeddingDim = dim
	srv := httptest.NewServer(f.Handler())
	t.Cleanup(srv.Close)
	return f, srv.URL + "/v1"
}

func TestOpenAIEmbed(t *testing.T) {
	f, base := newFake(t, 12)
	o, err := NewOpenAI(base, "text-embedding-3-small", "sk-test", 0)
	if err != nil {
		t.Fatal(err)
	}
	if o.Dim() != 0 || o.Model() != "text-embedding-3-small" {
		t.Fatalf("before probe: dim %d model %q", o.Dim(), o.Model())
	}
	texts := []string{"I'm allergic to peanuts", "我对花生过敏", ""}
	vecs, err := o.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if o.Dim() != 12 {
		t.Fatalf("learned dim %d, want 12", o.Dim())
	}
	for i, v := range vecs {
		if i < 2 {
			want := fakeupstream.Embedding(texts[i], 12)
			for j := range want {
				if v[j] != want[j] {
					t.Fatalf("text %d: vector differs from the upstream's at %d", i, j)
				}
			}
		}
		if len(v) != 12 {
			t.Fatalf("text %d: %d dims", i, len(v))
		}
	}
	req := f.Last()
	if req.Path != "/v1/embeddings" || req.Header.Get("Authorization") != "Bearer sk-test" {
		t.Fatalf("request %s with auth %q", req.Path, req.Header.Get("Authorization"))
	}
	var body struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Model != "text-embedding-3-small" || len(body.Input) != 3 {
		t.Fatalf("request body %s", req.Body)
	}
}

// Without a key memproxy must not fall back to OPENAI_API_KEY: that secret
// would go to whatever base URL is configured.
func TestOpenAINoKeyDoesNotLeakEnv(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-secret-from-env")
	f, base := newFake(t, 4)
	o, err := NewOpenAI(base, "nomic-embed-text", "", 4)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := o.Embed(context.Background(), []string{"hello"}); err != nil {
		t.Fatal(err)
	}
	if auth := f.Last().Header.Get("Authorization"); strings.Contains(auth, "sk-secret-from-env") {
		t.Fatalf("environment key sent: %q", auth)
	}
}

func TestOpenAIErrors(t *testing.T) {
	_, base := newFake(t, 8)
	if _, err := NewOpenAI("not a url", "m", "", 0); err == nil {
		t.Error("bad base URL accepted")
	}
	if _, err := NewOpenAI(base, "", "", 0); err == nil {
		t.Error("empty model accepted")
	}
	// Wrong dimension configured: refused with both numbers.
	o, err := NewOpenAI(base, "m", "", 16)
	if err != nil {
		t.Fatal(err)
	}
	_, err = o.Embed(context.Background(), []string{"x"})
	if err == nil || !strings.Contains(err.Error(), "got 8 dimensions, expected 16") {
		t.Errorf("dimension mismatch: %v", err)
	}
	// Wrong path: the upstream's 404 comes back wrapped with model and URL.
	o, err = NewOpenAI(strings.TrimSuffix(base, "/v1")+"/nope", "m", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = o.Probe(context.Background())
	if err == nil || !strings.Contains(err.Error(), "embed with m at ") {
		t.Errorf("upstream error: %v", err)
	}
	// Cancelled context.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o, _ = NewOpenAI(base, "m", "", 0)
	if _, err := o.Embed(ctx, []string{"x"}); err == nil {
		t.Error("cancelled context: no error")
	}
}
