//go:build !tmpembed

package background

import "github.com/memproxy/memproxy/embed"

// newEmbedder is the local offline embedder every test uses.
func newEmbedder() Embedder { return embed.NewLocal(testDim) }
