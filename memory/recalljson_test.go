package memory

import (
	"encoding/json"
	"math"
	"strconv"
	"testing"
	"time"
)

func TestAppendJSONStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", `quote " and \ backslash`, "<b>&amp;</b>", "tab\tnew\nline\r\x00\x1f\x7f",
		"\b\f", "héllo wörld 你好", "bad \xff utf8 \xc3", "line\u2028para\u2029end", "emoji 😀", "\u00e9\u0301"} {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendJSONString(nil, s); string(got) != string(want) {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
	}
}

func loggedRecord(score func(i int) float64) *RecallRecord {
	fb := score(99)
	r := &RecallRecord{API: "chat", RequestID: "0190c5e4a1b2c3d4e5f6a7b8", Scope: Scope{User: "ann <a&b>", Namespace: "default"},
		Session: "s1", Time: time.Date(2026, 12, 7, 15, 4, 5, 123456000, time.UTC), Arm: "on", Status: "injected",
		GateReason: "question", Injected: []string{"m1", "m2"}, InjectedTokens: 120, OverheadMs: score(7), Feedback: &fb}
	for i := range 25 {
		c := RankedCandidate{ID: "m" + strconv.Itoa(i), Tier: TierSemantic, Score: score(i), Sim: score(i + 1), Retention: score(i + 2),
			Freq: score(i + 3), Value: score(i + 4), Rank: i + 1, Injected: i < 2}
		if i%3 == 0 {
			c.Refs = []string{"t1", "t2"}
		}
		if i%4 == 1 {
			c.Filtered = "below threshold"
		}
		r.Candidates = append(r.Candidates, c)
	}
	return r
}

// With scores of few digits the record is byte for byte encoding/json's;
// with any scores it reads back as the record, its scores rounded.
func TestAppendRecallJSON(t *testing.T) {
	short := loggedRecord(func(i int) float64 { return []float64{0, 0.5, 0.25, 1, 0.125, 2}[i%6] })
	want, err := json.Marshal(short)
	if err != nil {
		t.Fatal(err)
	}
	if got := AppendRecallJSON(nil, short); string(got) != string(want) {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
	bare := &RecallRecord{RequestID: "r", Scope: Scope{User: "u", Namespace: "n"}, Time: time.Unix(0, 0).UTC(), Status: "skipped"}
	want, _ = json.Marshal(bare)
	if got := AppendRecallJSON(nil, bare); string(got) != string(want) {
		t.Fatalf("got  %s\nwant %s", got, want)
	}

	long := loggedRecord(func(i int) float64 { return math.Pi / float64(i+3) * math.Pow(10, float64(i%9-6)) })
	var back RecallRecord
	if err := json.Unmarshal(AppendRecallJSON(nil, long), &back); err != nil {
		t.Fatal(err)
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 5e-4*math.Abs(b) }
	if !near(back.OverheadMs, long.OverheadMs) || back.Feedback == nil || !near(*back.Feedback, *long.Feedback) {
		t.Fatalf("overhead %v feedback %v", back.OverheadMs, back.Feedback)
	}
	for i, c := range long.Candidates {
		b := back.Candidates[i]
		if !near(b.Score, c.Score) || !near(b.Sim, c.Sim) || !near(b.Retention, c.Retention) || !near(b.Freq, c.Freq) || !near(b.Value, c.Value) {
			t.Fatalf("candidate %d: %+v, want about %+v", i, b, c)
		}
		b.Score, b.Sim, b.Retention, b.Freq, b.Value = c.Score, c.Sim, c.Retention, c.Freq, c.Value
		if g, w := mustJSON(t, b), mustJSON(t, c); g != w {
			t.Fatalf("candidate %d: %s, want %s", i, g, w)
		}
	}
	if !back.Time.Equal(long.Time) || back.Scope != long.Scope || back.RequestID != long.RequestID {
		t.Fatalf("read back %+v", back)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func BenchmarkAppendRecallJSON(b *testing.B) {
	r := loggedRecord(func(i int) float64 { return math.Pi / float64(i+3) })
	b.Run("encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(r); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("append", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			buf = AppendRecallJSON(buf[:0], r)
		}
		b.ReportMetric(float64(len(buf)), "bytes")
	})
}
