package eval

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// The APIs the replay can ask its questions through (Replayer.API): the
// same memory pipeline serves each, so on the same data they must give
// the same memory results.
const (
	APIChat      = "chat"
	APIResponses = "responses"
	APIMessages  = "messages"
)

// APIs lists them in the order the eval names them.
var APIs = []string{APIChat, APIResponses, APIMessages}

// ValidAPI reports whether api is one the replay can ask through.
func ValidAPI(api string) bool {
	for _, a := range APIs {
		if a == api {
			return true
		}
	}
	return false
}

// anthropicVersion is the Messages API version the replay sends.
const anthropicVersion = "2023-06-01"

// questionRequest is the request asking question through api: its path,
// body and the API's own headers (key, version); system, when set, is
// the answer instruction, in each API's place for it.
func questionRequest(api, model, system, question, key string) (path string, body map[string]any, hdr http.Header) {
	hdr = http.Header{}
	switch api {
	case APIResponses:
		body = map[string]any{"model": model, "input": []map[string]any{{"role": "user", "content": question}}}
		if system != "" {
			body["instructions"] = system
		}
		hdr.Set("Authorization", "Bearer "+key)
		return "/v1/responses", body, hdr
	case APIMessages:
		body = map[string]any{"model": model, "max_tokens": 1024,
			"messages": []map[string]any{{"role": "user", "content": question}}}
		if system != "" {
			body["system"] = system
		}
		hdr.Set("X-Api-Key", key)
		hdr.Set("Anthropic-Version", anthropicVersion)
		return "/v1/messages", body, hdr
	}
	msgs := []map[string]string{{"role": "user", "content": question}}
	if system != "" {
		msgs = append([]map[string]string{{"role": "system", "content": system}}, msgs...)
	}
	hdr.Set("Authorization", "Bearer "+key)
	return "/v1/chat/completions", map[string]any{"model": model, "messages": msgs}, hdr
}

// replyText is the answer's text in a non-streamed reply of api.
func replyText(api string, data []byte) (string, error) {
	var text strings.Builder
	switch api {
	case APIResponses:
		var r struct {
			Output []struct {
				Type    string `json:"type"`
				Content []struct {
					Type string `json:"type"`
					Text string `json:"text"`
				} `json:"content"`
			} `json:"output"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			return "", fmt.Errorf("responses: %w", err)
		}
		for _, o := range r.Output {
			for _, c := range o.Content {
				if o.Type == "message" && c.Type == "output_text" {
					text.WriteString(c.Text)
				}
			}
		}
	case APIMessages:
		var r struct {
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			return "", fmt.Errorf("messages: %w", err)
		}
		for _, c := range r.Content {
			if c.Type == "text" {
				text.WriteString(c.Text)
			}
		}
	default:
		var cr chatResponse
		if err := json.Unmarshal(data, &cr); err != nil || len(cr.Choices) == 0 {
			return "", errors.New("chat: no answer in the completion")
		}
		return cr.Choices[0].Message.Content, nil
	}
	if text.Len() == 0 {
		return "", fmt.Errorf("%s: no answer text in the reply", api)
	}
	return text.String(), nil
}

// requestBlock reads an upstream request of any of the APIs (told apart
// by its path): the last user message's own text and the fenced
// <memory> block it carried ("" when none).
func requestBlock(path string, body []byte) (question, block string, ok bool) {
	switch {
	case strings.HasSuffix(path, "/chat/completions"):
		return memoryBlock(body)
	case strings.HasSuffix(path, "/responses"):
		var req struct {
			Instructions json.RawMessage `json:"instructions"`
			Input        json.RawMessage `json:"input"`
		}
		if json.Unmarshal(body, &req) != nil {
			return "", "", false
		}
		block = fenced(contentText(req.Instructions))
		var s string
		if json.Unmarshal(req.Input, &s) == nil {
			return s, block, true
		}
		var items []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		_ = json.Unmarshal(req.Input, &items)
		for _, it := range items {
			text := contentText(it.Content)
			if it.Role == "user" {
				question, ok = text, true
			} else if b := fenced(text); b != "" && block == "" {
				block = b
			}
		}
		return question, block, ok
	case strings.HasSuffix(path, "/messages"):
		var req struct {
			System   json.RawMessage `json:"system"`
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if json.Unmarshal(body, &req) != nil {
			return "", "", false
		}
		block = fenced(contentText(req.System))
		for _, m := range req.Messages {
			if m.Role != "user" {
				continue
			}
			// With before_last_user the section is a block of its own
			// ahead of the user's blocks.
			var own []string
			for _, part := range textParts(m.Content) {
				if b := fenced(part); b != "" {
					if block == "" {
						block = b
					}
					continue
				}
				own = append(own, part)
			}
			question, ok = strings.Join(own, ""), true
		}
		return question, block, ok
	}
	return "", "", false
}

// fenced is the <memory> … </memory> part of text, "" when none.
func fenced(text string) string {
	i := strings.Index(text, "<memory>")
	if i < 0 {
		return ""
	}
	b := text[i:]
	if j := strings.Index(b, "</memory>"); j >= 0 {
		b = b[:j+len("</memory>")]
	}
	return b
}

// textParts is a content value's texts: the string, or each text part.
func textParts(raw json.RawMessage) []string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}
	}
	var parts []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &parts)
	out := make([]string, 0, len(parts))
	for _, p := range parts {
		out = append(out, p.Text)
	}
	return out
}
