package memory

import (
	"errors"
	"fmt"
)

// OpenOptions names the embedder a store is opened for. A store records
// the model and dimension it was created with and refuses to open for a
// different one, because vectors of two models cannot be compared.
type OpenOptions struct {
	// Model is the embedder's model name ("local-hash-v1",
	// "text-embedding-3-small").
	Model string
	// Dim is the embedding dimension (> 0).
	Dim int
}

// Validate reports whether o names an embedder.
func (o OpenOptions) Validate() error {
	switch {
	case o.Model == "":
		return fmt.Errorf("%w: embedder model is empty", ErrInvalid)
	case o.Dim <= 0:
		return fmt.Errorf("%w: embedder dimension %d must be positive", ErrInvalid, o.Dim)
	}
	return nil
}

// ErrEmbedderMismatch is returned by Open when the store was created for
// another embedder model or dimension.
var ErrEmbedderMismatch = errors.New("embedder mismatch")

// MismatchError builds the error Open returns when a store created for
// (haveModel, haveDim) is opened for want. Both backends use it so the
// message is the same everywhere.
func MismatchError(haveModel string, haveDim int, want OpenOptions) error {
	return fmt.Errorf("%w: the store was created with embedder %q (%d dimensions) but is opened with %q (%d dimensions); "+
		"run \"memproxy reembed\" or point --db at a new file",
		ErrEmbedderMismatch, haveModel, haveDim, want.Model, want.Dim)
}

// Meta keys under which a store records its embedder.
const (
	MetaEmbedModel = "embed.model"
	MetaEmbedDim   = "embed.dim"
)
