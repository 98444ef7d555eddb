package embed

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/tmc/langchaingo/embeddings"
	"github.com/tmc/langchaingo/llms/openai"
)

// OpenAI embeds through any OpenAI-compatible /embeddings endpoint
// (OpenAI, Azure-style proxies, Ollama, vLLM, LiteLLM) via langchaingo.
type OpenAI struct {
	model   string
	baseURL string
	emb     *embeddings.EmbedderImpl
	dim     atomic.Int64
}

// noKey is sent when no key is configured: local servers (Ollama, vLLM)
// ignore it, and langchaingo would otherwise fall back to OPENAI_API_KEY,
// sending that secret to whatever base URL is configured.
const noKey = "memproxy-no-key"

// requestTimeout bounds one embeddings call.
const requestTimeout = 60 * time.Second

// batchSize is how many texts go in one request.
const batchSize = 256

// NewOpenAI returns an embedder for model at baseURL (e.g.
// "https://api.openai.com/v1", "http://localhost:11434/v1"). dim is the
// expected vector length; 0 learns it from the first answer (see Probe).
func NewOpenAI(baseURL, model, apiKey string, dim int) (*OpenAI, error) {
	if model == "" {
		return nil, errors.New("openai embedder: model is empty")
	}
	u, err := url.Parse(baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("openai embedder: base URL %q is not an http(s) URL", baseURL)
	}
	if apiKey == "" {
		apiKey = noKey
	}
	llm, err := openai.New(
		openai.WithBaseURL(strings.TrimRight(baseURL, "/")),
		openai.WithToken(apiKey),
		openai.WithModel(model),
		openai.WithEmbeddingModel(model),
		openai.WithHTTPClient(&http.Client{Timeout: requestTimeout}),
	)
	if err != nil {
		return nil, fmt.Errorf("openai embedder: %w", err)
	}
	emb, err := embeddings.NewEmbedder(llm, embeddings.WithBatchSize(batchSize), embeddings.WithStripNewLines(false))
	if err != nil {
		return nil, fmt.Errorf("openai embedder: %w", err)
	}
	o := &OpenAI{model: model, baseURL: baseURL, emb: emb}
	o.dim.Store(int64(max(dim, 0)))
	return o, nil
}

// Model implements Embedder.
func (o *OpenAI) Model() string { return o.model }

// Dim implements Embedder: the configured or learned dimension, 0 before
// the first answer when none was configured.
func (o *OpenAI) Dim() int { return int(o.dim.Load()) }

// Probe embeds one short text to learn (or check) the dimension.
func (o *OpenAI) Probe(ctx context.Context) (int, error) {
	if _, err := o.Embed(ctx, []string{"memproxy dimension probe"}); err != nil {
		return 0, err
	}
	return o.Dim(), nil
}

// Embed implements Embedder. Every answer must hold one vector per text
// and all vectors the same length.
func (o *OpenAI) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return [][]float32{}, nil
	}
	in := make([]string, len(texts))
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			t = " " // the API rejects empty input; a blank embeds as a blank
		}
		in[i] = t
	}
	vecs, err := o.emb.EmbedDocuments(ctx, in)
	if err != nil {
		return nil, fmt.Errorf("embed with %s at %s: %w", o.model, o.baseURL, err)
	}
	if len(vecs) != len(texts) {
		return nil, fmt.Errorf("embed with %s at %s: %d vectors for %d texts", o.model, o.baseURL, len(vecs), len(texts))
	}
	want := o.dim.Load()
	for i, v := range vecs {
		if len(v) == 0 {
			return nil, fmt.Errorf("embed with %s at %s: empty vector for text %d", o.model, o.baseURL, i)
		}
		if want == 0 {
			o.dim.CompareAndSwap(0, int64(len(v)))
			want = o.dim.Load()
		}
		if int64(len(v)) != want {
			return nil, fmt.Errorf("embed with %s at %s: got %d dimensions, expected %d", o.model, o.baseURL, len(v), want)
		}
	}
	return vecs, nil
}
