package admin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// memoryView is a memory as the API shows it: every stored field plus its
// lifecycle state and current retention (for the page's bars). The
// embedding is left out unless asked for (?embedding=true): it is large and
// meaningless to a person.
type memoryView struct {
	*memory.Memory
	State     memory.State `json:"state"`
	Retention float64      `json:"retention"`
}

func (a *API) view(m *memory.Memory, at time.Time, withEmbedding bool) memoryView {
	cp := *m
	if !withEmbedding {
		cp.Embedding = nil
	}
	return memoryView{Memory: &cp, State: stateOf(m, at), Retention: a.retention(m, at)}
}

func stateOf(m *memory.Memory, at time.Time) memory.State {
	switch {
	case m.ValidTo != nil:
		return memory.StateSuperseded
	case m.ArchivedAt != nil:
		return memory.StateArchived
	case m.ExpiresAt != nil && !m.ExpiresAt.After(at):
		return memory.StateExpired
	}
	return memory.StateLive
}

// snapshot is the audit form of a memory: JSON without the embedding.
func snapshot(m *memory.Memory) string {
	if m == nil {
		return ""
	}
	cp := *m
	cp.Embedding = nil
	b, _ := json.Marshal(&cp)
	return string(b)
}

// nullTime is a JSON time that tells "absent" from "null" in a PATCH.
type nullTime struct {
	Set bool
	T   *time.Time
}

func (n *nullTime) UnmarshalJSON(b []byte) error {
	n.Set = true
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		n.T = nil
		return nil
	}
	var t time.Time
	if err := json.Unmarshal(b, &t); err != nil {
		return fmt.Errorf("expected an RFC 3339 time or null")
	}
	t = t.UTC()
	n.T = &t
	return nil
}
