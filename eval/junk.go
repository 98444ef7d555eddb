package eval

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/text"
)

// Junk is what the background kept, per ingested turn, and how much of
// what is live says nothing (questions only) or says it again.
type Junk struct {
	// IngestedTurns are the turns the background ingested: the imported
	// conversation, and the questions of an arm that ingests them.
	IngestedTurns int `json:"ingested_turns"`
	// MemoriesPerTurn counts every stored memory (any state) per tier,
	// divided by the turns ingested.
	MemoriesPerTurn map[string]float64 `json:"memories_per_turn"`
	// Live counts the live memories per tier.
	Live      map[string]int `json:"live"`
	LiveTotal int            `json:"live_total"`
	// QuestionOnly is the share of live memories whose user text is only
	// questions (an event's reply aside): nothing stated, nothing to
	// remember.
	QuestionOnly float64 `json:"question_only_share"`
	// Duplicates is the share of live memories whose content words equal
	// those of another live memory of the same user (all but one of each
	// group count).
	Duplicates float64 `json:"duplicate_share"`
	// JunkShare is the share of live memories that are either.
	JunkShare float64 `json:"junk_share"`
}

// listed is the part of an admin memory listing item the junk figures read.
type listed struct {
	ID    string       `json:"id"`
	Tier  memory.Tier  `json:"tier"`
	Text  string       `json:"text"`
	State memory.State `json:"state"`
}

// listMemories pages through every memory of user (any state).
func (r *Replayer) listMemories(ctx context.Context, user string) ([]listed, error) {
	var all []listed
	cursor := ""
	for {
		q := url.Values{"limit": {"500"}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		var page struct {
			Data []listed `json:"data"`
			Next string   `json:"next"`
		}
		if err := r.do(ctx, http.MethodGet, "/admin/v1/users/"+url.PathEscape(user)+"/memories?"+q.Encode(), nil, &page); err != nil {
			return nil, fmt.Errorf("list memories of %s: %w", user, err)
		}
		all = append(all, page.Data...)
		if page.Next == "" || len(page.Data) == 0 {
			return all, nil
		}
		cursor = page.Next
	}
}

// junkOf computes the junk figures over the users' memories.
func junkOf(turns int, users [][]listed) *Junk {
	j := &Junk{IngestedTurns: turns, MemoriesPerTurn: map[string]float64{}, Live: map[string]int{}}
	questions, dups, junk := 0, 0, 0
	for _, ms := range users {
		seen := map[string]bool{}
		for _, m := range ms {
			j.MemoriesPerTurn[string(m.Tier)]++
			if m.State != memory.StateLive {
				continue
			}
			j.Live[string(m.Tier)]++
			j.LiveTotal++
			q := QuestionOnly(m.Text)
			if q {
				questions++
			}
			words := AnswerWords(m.Text)
			slices.Sort(words)
			key := strings.Join(slices.Compact(words), " ")
			dup := key != "" && seen[key]
			if dup {
				dups++
			}
			if key != "" {
				seen[key] = true
			}
			if q || dup {
				junk++
			}
		}
	}
	for t, n := range j.MemoriesPerTurn {
		if turns > 0 {
			j.MemoriesPerTurn[t] = n / float64(turns)
		}
	}
	if j.LiveTotal > 0 {
		j.QuestionOnly = float64(questions) / float64(j.LiveTotal)
		j.Duplicates = float64(dups) / float64(j.LiveTotal)
		j.JunkShare = float64(junk) / float64(j.LiveTotal)
	}
	return j
}

// QuestionOnly reports whether a memory's text states nothing: its user
// part (before an event's "Assistant:" reply) only asks (text.OnlyAsks,
// the rule the background uses too).
func QuestionOnly(t string) bool {
	return text.OnlyAsks(memory.EventUser(t))
}
