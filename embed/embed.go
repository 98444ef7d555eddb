// Package embed turns text into vectors for memory search: the Embedder
// interface, an offline feature-hashing embedder (the default: no model
// files, no network, deterministic), an OpenAI-compatible embedder (OpenAI,
// Ollama, vLLM, LiteLLM … through langchaingo) and a cache in front of
// either.
//
// A store remembers the model name and dimension it was created with, so
// an embedder's Model must change whenever its vectors would: the local
// embedder's features are frozen under "local-hash-v1".
package embed

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/memproxy/memproxy/policy"
)

// Embedder embeds texts in batches.
type Embedder interface {
	// Embed returns one vector of Dim() values per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Dim is the vector length.
	Dim() int
	// Model names the vector space: two embedders with the same Model and
	// Dim produce comparable vectors.
	Model() string
}

// Interface guards.
var (
	_ Embedder = (*Local)(nil)
	_ Embedder = (*OpenAI)(nil)
	_ Embedder = (*Cached)(nil)
)

// FromPolicy builds the configured embedder wrapped in the cache. getenv
// reads the API key named by p.APIKeyEnv (os.Getenv in production). The
// result is a *Cached: it implements io.Closer (the cache's goroutines)
// and Stats.
//
// For the openai provider the dimension is not configured: it is learned
// by embedding one probe text, so a wrong base URL, key or model fails
// here, at start, with the provider's error.
func FromPolicy(p policy.Embedder, getenv func(string) string) (Embedder, error) {
	var inner Embedder
	switch strings.ToLower(p.Provider) {
	case "", "local":
		inner = NewLocal(p.Dim)
	case "openai":
		key := ""
		if p.APIKeyEnv != "" && getenv != nil {
			key = getenv(p.APIKeyEnv)
		}
		o, err := NewOpenAI(cmp.Or(p.BaseURL, DefaultOpenAIBaseURL), p.Model, key, 0)
		if err != nil {
			return nil, err
		}
		ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
		defer cancel()
		if _, err := o.Probe(ctx); err != nil {
			return nil, err
		}
		inner = o
	default:
		return nil, fmt.Errorf("embedder: unknown provider %q (use local or openai)", p.Provider)
	}
	return NewCached(inner, p.CacheSize), nil
}

// DefaultOpenAIBaseURL is used by the openai provider when no base URL is
// configured.
const DefaultOpenAIBaseURL = "https://api.openai.com/v1"

// probeTimeout bounds the start-up call that learns a remote model's
// dimension.
const probeTimeout = 30 * time.Second

// IsLocal reports whether e is (or wraps) the local hashed embedder, whose
// similarities run lower than a semantic model's and which the recall
// fusion weighs less.
func IsLocal(e Embedder) bool {
	return strings.HasPrefix(e.Model(), "local")
}
