package locomo

import (
	"reflect"
	"testing"
	"time"
)

func loadTiny(t *testing.T) Sample {
	t.Helper()
	ss, err := Load("../testdata/tiny-locomo.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 1 {
		t.Fatalf("samples = %d, want 1", len(ss))
	}
	return ss[0]
}

func TestParseTiny(t *testing.T) {
	s := loadTiny(t)
	if s.ID != "tiny-1" || s.SpeakerA != "Ann" || s.SpeakerB != "Bob" {
		t.Fatalf("header = %q %q %q", s.ID, s.SpeakerA, s.SpeakerB)
	}
	// session_3 has a date but no turns: it does not count.
	if len(s.Sessions) != 2 {
		t.Fatalf("sessions = %d, want 2", len(s.Sessions))
	}
	want := time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)
	if !s.Sessions[0].Date.Equal(want) {
		t.Errorf("session 1 date = %v, want %v", s.Sessions[0].Date, want)
	}
	if got := s.LastDate(); !got.Equal(time.Date(2023, 6, 27, 10, 37, 0, 0, time.UTC)) {
		t.Errorf("last date = %v", got)
	}
	if s.QA[1].Answer != "2022" {
		t.Errorf("integer answer = %q, want 2022", s.QA[1].Answer)
	}
	if s.QA[5].Answer != "Tom" || s.QA[5].Category != 5 {
		t.Errorf("adversarial = %+v", s.QA[5])
	}
	evidence := [][]string{
		{"D1:1"},
		{"D1:1", "D2:2"},
		{"D2:3"},
		{"D2:3", "D9:9"},
		nil,
		{"D1:2"},
	}
	for i, want := range evidence {
		if got := s.QA[i].Evidence; !reflect.DeepEqual(got, want) {
			t.Errorf("qa %d evidence = %q, want %q", i, got, want)
		}
	}
}

func TestNormalizeEvidence(t *testing.T) {
	cases := []struct {
		in   []string
		want []string
	}{
		{[]string{"D8:6; D9:17"}, []string{"D8:6", "D9:17"}},
		{[]string{"D"}, nil},
		{[]string{"D:11:26"}, []string{"D11:26"}},
		{[]string{"D10:19"}, []string{"D10:19"}},
		{[]string{"D1:2 D1:3", "D1:2"}, []string{"D1:2", "D1:3"}},
		{nil, nil},
	}
	for _, c := range cases {
		if got := NormalizeEvidence(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("NormalizeEvidence(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestParseDate(t *testing.T) {
	cases := map[string]time.Time{
		"1:56 pm on 8 May, 2023":         time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC),
		"12:09 am on 13 September, 2023": time.Date(2023, 9, 13, 0, 9, 0, 0, time.UTC),
		"10:31 am on 13 October, 2023":   time.Date(2023, 10, 13, 10, 31, 0, 0, time.UTC),
	}
	for in, want := range cases {
		got, err := ParseDate(in)
		if err != nil || !got.Equal(want) {
			t.Errorf("ParseDate(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseDate("yesterday"); err == nil {
		t.Error("ParseDate(yesterday) succeeded")
	}
}

func TestChatTurns(t *testing.T) {
	s := loadTiny(t)
	got := s.ChatTurns()
	want := []Turn{
		{Session: 1, User: "I adopted a cat named Tom in 2022.", Assistant: "Tom is a great name!", Refs: []string{"D1:1", "D1:2"}},
		// Trailing A: empty reply.
		{Session: 1, User: "He sleeps all day.", Refs: []string{"D1:3"}},
		// Session opening with B: assistant-only turn.
		{Session: 2, Assistant: "Hi Ann, long time!", Refs: []string{"D2:1"}},
		{Session: 2, User: "Hi Bob! Tom turned one.", Assistant: "Did you paint anything lately? [shares a photo: a photo of a painting of a sunset]", Refs: []string{"D2:2", "D2:3"}},
		{Session: 2, User: "Yes, and I listen to jazz while I paint.", Assistant: "Nice.", Refs: []string{"D2:4", "D2:5"}},
	}
	if len(got) != len(want) {
		t.Fatalf("turns = %d, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		g := got[i]
		g.Time = time.Time{}
		if !reflect.DeepEqual(g, want[i]) {
			t.Errorf("turn %d = %+v\nwant %+v", i, g, want[i])
		}
	}
	if !got[3].Time.Equal(s.Sessions[1].Date) {
		t.Errorf("turn time = %v, want session date", got[3].Time)
	}
}
