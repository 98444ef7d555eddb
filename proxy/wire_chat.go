package proxy

import (
	"encoding/json"
	"fmt"

	"github.com/memproxy/memproxy/inject"
)

// chatWire is the Chat Completions adapter (/v1/chat/completions).
type chatWire struct{}

func (chatWire) api() string { return APIChat }

func (chatWire) parse(body []byte) (*convo, error) {
	cb, err := parseChat(body)
	if err != nil {
		return nil, err
	}
	return &convo{
		raw: body, Model: cb.Model, Stream: cb.Stream, User: cb.User, SafetyIdentifier: cb.SafetyIdentifier,
		Messages:       cb.Messages,
		spliceMessages: cb.splice,
		place: func(section, placement string) ([]byte, error) {
			msgs := make([]json.RawMessage, len(cb.Messages))
			for i, m := range cb.Messages {
				msgs[i] = m.Raw
			}
			out, err := inject.Apply(msgs, section, placement)
			if err != nil {
				return nil, fmt.Errorf("place memory section: %w", err)
			}
			return cb.splice(out), nil
		},
	}, nil
}

func (chatWire) bodyReply(body []byte) reply {
	text, finish, model, ok := completionReply(body)
	return reply{Text: text, Finish: finish, Model: model, OK: ok}
}

func (chatWire) stream() streamReply { return &chatStream{} }

// chatStream adapts the chunk assembler: the stream ends at [DONE], or at
// its end once a finish reason was seen.
type chatStream struct{ a assembler }

func (s *chatStream) Add(data []byte) { s.a.Add(data) }
func (s *chatStream) Done() bool      { return s.a.done }

func (s *chatStream) Reply() reply {
	text, finish := s.a.Reply()
	return reply{Text: text, Finish: finish, Model: s.a.model, OK: s.a.done || finish != ""}
}
