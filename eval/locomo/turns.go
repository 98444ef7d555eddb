package locomo

import (
	"strings"
	"time"
)

// Turn is one chat turn to import: speaker A's message as the user message
// and speaker B's following utterance(s) as the assistant reply.
type Turn struct {
	Session int
	Time    time.Time
	// User is empty for a session that opens with speaker B.
	User string
	// Assistant is empty when speaker A has the last word of a session.
	Assistant string
	// Refs are the dia_ids of the utterances in this turn, in order.
	Refs []string
}

// ChatText renders an utterance as the chat text a client would send: image
// turns carry their caption because the image itself is not in the data.
func (d Dialog) ChatText() string {
	text := strings.TrimSpace(d.Text)
	if d.BlipCaption == "" {
		return text
	}
	photo := "[shares a photo: " + strings.TrimSpace(d.BlipCaption) + "]"
	if text == "" {
		return photo
	}
	return text + " " + photo
}

// ChatTurns splits a session into chat turns. Every utterance lands in exactly
// one turn, so every dia_id is carried by exactly one turn's refs.
func (sess *Session) ChatTurns(speakerA string) []Turn {
	var out []Turn
	var cur *Turn
	flush := func() {
		if cur != nil {
			out = append(out, *cur)
			cur = nil
		}
	}
	for _, d := range sess.Turns {
		text := d.ChatText()
		if d.Speaker == speakerA {
			// A new user message starts a new turn, unless the current
			// turn has no reply yet (consecutive A utterances).
			if cur == nil || cur.Assistant != "" || cur.User == "" {
				flush()
				cur = &Turn{Session: sess.N, Time: sess.Date}
			}
			cur.User = join(cur.User, text)
		} else {
			if cur == nil {
				cur = &Turn{Session: sess.N, Time: sess.Date}
			}
			cur.Assistant = join(cur.Assistant, text)
		}
		cur.Refs = append(cur.Refs, d.DiaID)
	}
	flush()
	return out
}

// ChatTurns returns every session's turns in session order.
func (s *Sample) ChatTurns() []Turn {
	var out []Turn
	for i := range s.Sessions {
		out = append(out, s.Sessions[i].ChatTurns(s.SpeakerA)...)
	}
	return out
}

func join(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}
