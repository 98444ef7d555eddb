package fakeupstream

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"net/http"
)

func (s *Server) embeddings(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	s.record(r, body)
	var req struct {
		Model          string          `json:"model"`
		Input          json.RawMessage `json:"input"`
		EncodingFormat string          `json:"encoding_format"`
		Dimensions     int             `json:"dimensions"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid JSON", "invalid_request_error", "")
		return
	}
	var inputs []string
	var one string
	if json.Unmarshal(req.Input, &one) == nil {
		inputs = []string{one}
	} else if err := json.Unmarshal(req.Input, &inputs); err != nil {
		writeError(w, http.StatusBadRequest, "input must be a string or an array of strings", "invalid_request_error", "")
		return
	}
	dim := cmpOr(req.Dimensions, cmpOr(s.EmbeddingDim, 8))
	var data []map[string]any
	for i, in := range inputs {
		vec := Embedding(in, dim)
		var emb any = vec
		if req.EncodingFormat == "base64" {
			buf := make([]byte, 4*len(vec))
			for j, f := range vec {
				binary.LittleEndian.PutUint32(buf[4*j:], math.Float32bits(f))
			}
			emb = base64.StdEncoding.EncodeToString(buf)
		}
		data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": emb})
	}
	writeJSON(w, nil, map[string]any{"object": "list", "data": data, "model": cmpOr(req.Model, "fake-embedding"),
		"usage": map[string]any{"prompt_tokens": len(inputs), "total_tokens": len(inputs)}})
}

// Embedding is the deterministic unit vector the fake returns for text.
func Embedding(text string, dim int) []float32 {
	vec := make([]float32, dim)
	var norm float64
	for i := range vec {
		h := sha256.Sum256([]byte{byte(i), byte(i >> 8)})
		h = sha256.Sum256(append(h[:], text...))
		v := float64(int32(binary.LittleEndian.Uint32(h[:]))) / math.MaxInt32
		vec[i] = float32(v)
		norm += v * v
	}
	if norm > 0 {
		n := float32(math.Sqrt(norm))
		for i := range vec {
			vec[i] /= n
		}
	}
	return vec
}
