package admin_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/memproxy/memproxy/admin"
	"github.com/memproxy/memproxy/memory"
)

func TestTurnImportDecayAndQueue(t *testing.T) {
	forEachStore(t, func(t *testing.T, st testStore) {
		now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
		q := newQueue(t, st, false, func() time.Time { return now })
		e := newEnv(t, st, func(c *admin.Config) { c.Queue = q })

		r := e.do("POST", "/admin/v1/users/alice/turns", map[string]any{
			"session": "old-chat",
			"turns": []map[string]any{
				{"time": "2026-10-01T09:00:00Z", "user": "My favourite colour is teal-green", "assistant": "Noted!", "refs": []string{"m1"}},
				{"time": "2026-10-01T09:01:00Z", "user": "I work at Acme-Robotics as an engineer", "assistant": "Cool."},
			},
		})
		want(t, r, http.StatusAccepted)
		if r.obj(t)["accepted"].(float64) != 2 {
			t.Fatalf("accepted %s", r.Body)
		}
		waitIdle(t, q)
		page, err := st.List(context.Background(), scope("alice"), memory.ListFilter{})
		must(t, err)
		var texts []string
		for _, m := range page.Data {
			texts = append(texts, m.Text)
		}
		if !strings.Contains(strings.Join(texts, "|"), "teal-green") {
			t.Fatalf("imported turns were not ingested: %v", texts)
		}
		tp, err := st.Turns(context.Background(), scope("alice"), memory.TurnFilter{})
		must(t, err)
		if len(tp.Data) != 2 || tp.Data[0].Session != "old-chat" || !tp.Data[0].Time.Equal(time.Date(2026, 10, 1, 9, 0, 0, 0, time.UTC)) {
			t.Fatalf("turn log %+v", tp.Data)
		}

		for body, param := range map[string]string{
			`{"turns": []}`:                                   "turns",
			`{"turns": [{"user": "hi"}]}`:                     "turns[0].time",
			`{"turns": [{"time": "2026-10-01T09:00:00Z"}]}`:   "turns[0]",
			`{"turns": [{"time": "yesterday", "user": "x"}]}`: "body",
			`{"turns": [{"time": "2026-10-01T09:00:00Z", "user": "x", "request_id": "a b"}]}`:                             "turns[0].request_id",
			`{"namespace": "` + strings.Repeat("n", 300) + `", "turns": [{"time": "2026-10-01T09:00:00Z", "user": "x"}]}`: "namespace",
		} {
			wantBad(t, e.do("POST", "/admin/v1/users/alice/turns", body), param)
		}

		r = e.do("GET", "/admin/v1/queue", nil)
		want(t, r, http.StatusOK)
		if _, ok := r.obj(t)["available"]; !ok {
			t.Fatalf("queue view %s", r.Body)
		}

		r = e.do("POST", "/admin/v1/maintenance/decay?at=2027-06-01T00:00:00Z", nil)
		want(t, r, http.StatusOK)
		var d struct {
			At    time.Time
			Stats struct{ Scanned int }
		}
		if r.json(t, &d); d.Stats.Scanned == 0 || !d.At.Equal(time.Date(2027, 6, 1, 0, 0, 0, 0, time.UTC)) {
			t.Fatalf("decay %s", r.Body)
		}
		wantBad(t, e.do("POST", "/admin/v1/maintenance/decay?at=tomorrow", nil), "at")

		none := newEnv(t, st)
		want(t, none.do("GET", "/admin/v1/queue", nil), http.StatusNotImplemented)
		want(t, none.do("POST", "/admin/v1/maintenance/decay", nil), http.StatusNotImplemented)
		want(t, none.do("POST", "/admin/v1/users/alice/turns", `{"turns":[]}`), http.StatusNotImplemented)
	})
}
