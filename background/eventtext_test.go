package background

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/text"
)

// TestEventReplyReadsAPrefix: an event keeps a reply's first 400 runes
// with their dates annotated; reading only a prefix of a long reply gives
// what annotating all of it and cutting it would, wherever its dates fall
// (before the cut, across it, just after it) and whatever its script.
func TestEventReplyReadsAPrefix(t *testing.T) {
	at := time.Date(2024, 5, 8, 12, 0, 0, 0, time.UTC)
	fill := func(n int, unit string) string { return strings.Repeat(unit, n) }
	dates := []string{"yesterday", "last week", "two weeks ago", "next Friday", "on the 14th of May", "the 21st", "上个月", "下周五"}
	var replies []string
	for _, d := range dates {
		for _, pos := range []int{0, 380, 395, 399, 400, 405, 480, 495} {
			for _, unit := range []string{"a ", "é ", "好"} {
				replies = append(replies,
					fill(pos/len([]rune(unit)), unit)+d+" "+fill(300, unit),
					fill(pos/len([]rune(unit)), unit)+d,
				)
			}
		}
	}
	replies = append(replies, "", "short reply yesterday", fill(1000, "x"))
	for _, a := range replies {
		want := truncate(text.AnnotateDates(a, at, time.UTC), eventReplyRunes)
		if got := eventReply(a, at, time.UTC); got != want {
			t.Fatalf("eventReply of a %d-rune reply:\n got %q\nwant %q", len([]rune(a)), got, want)
		}
	}
}

// TestPersonFactKeepsItsSentence: a fact that only names a person does not
// stand for a sentence that says what happened with them; the event keeps
// it. A sentence that only names the person needs no event beside its
// fact.
func TestPersonFactKeepsItsSentence(t *testing.T) {
	e := newEnv(t, "sqlite", envOpts{})
	for user, event := range map[string]bool{
		"I had dinner with my brother Tom last night at a Thai place":                 true,
		"Yesterday I went hiking at Mount Tam with my sister Jo, the trail was muddy": true,
		"I have a sister named Jo.": false,
	} {
		s := scope("u" + fmt.Sprint(len(user)))
		e.say(s, user)
		e.wait()
		evs := e.list(s, memory.StateLive, memory.TierEvent)
		if got := len(evs) == 1 && strings.Contains(evs[0].Text, user[len(user)-12:]); got != event { // dates are annotated
			t.Errorf("%q: events %s, want an event %v; all %s", user, texts(evs), event, texts(e.list(s, memory.StateAny)))
		}
	}
}
