package inject

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func raws(ms ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(ms))
	for i, m := range ms {
		out[i] = json.RawMessage(m)
	}
	return out
}

const sec = "<memory>\nguard\n- [semantic 2026-10-01 m:8f2c] The user likes \"tea\" & <b>.\n</memory>"

func TestApply(t *testing.T) {
	secJSON := string(encodeString(sec))
	cases := []struct {
		name      string
		in        []string
		placement string
		// changed is the index of the added or changed message in the
		// output; want is its exact bytes.
		changed int
		want    string
		added   bool
	}{
		{
			name:      "string system content keeps other fields and order",
			in:        []string{`{"role":"system", "name":"app","content":"You are helpful.","x":1}`, `{"role":"user","content":"hi there"}`},
			placement: PlacementSystem, changed: 0,
			want: `{"role":"system", "name":"app","content":` + string(encodeString("You are helpful.\n\n"+sec)) + `,"x":1}`,
		},
		{
			name:      "developer message counts as system",
			in:        []string{`{"role":"user","content":"first"}`, `{"role":"developer","content":"Be brief."}`, `{"role":"user","content":"again"}`},
			placement: PlacementSystem, changed: 1,
			want: `{"role":"developer","content":` + string(encodeString("Be brief.\n\n"+sec)) + `}`,
		},
		{
			name:      "content parts get a text part",
			in:        []string{`{"role":"system","content":[{"type":"text","text":"You are helpful."} ]}`, `{"role":"user","content":"q"}`},
			placement: PlacementSystem, changed: 0,
			want: `{"role":"system","content":[{"type":"text","text":"You are helpful."},{"type":"text","text":` + string(encodeString("\n\n"+sec)) + `}]}`,
		},
		{
			name:      "empty content parts",
			in:        []string{`{"role":"system","content":[]}`, `{"role":"user","content":"q"}`},
			placement: PlacementSystem, changed: 0,
			want: `{"role":"system","content":[{"type":"text","text":` + secJSON + `}]}`,
		},
		{
			name:      "empty string content",
			in:        []string{`{"role":"system","content":""}`},
			placement: PlacementSystem, changed: 0,
			want: `{"role":"system","content":` + secJSON + `}`,
		},
		{
			name:      "null content",
			in:        []string{`{"role":"system","content":null}`},
			placement: PlacementSystem, changed: 0,
			want: `{"role":"system","content":` + secJSON + `}`,
		},
		{
			name:      "missing content",
			in:        []string{`{"role":"system" }`},
			placement: PlacementSystem, changed: 0,
			want: `{"role":"system","content":` + secJSON + `}`,
		},
		{
			name:      "no system message: new one at position 0",
			in:        []string{`{"role":"user","content":"hello"}`, `{"role":"assistant","content":"hi"}`, `{"role":"user","content":"more"}`},
			placement: PlacementSystem, changed: 0, added: true,
			want: `{"role":"system","content":` + secJSON + `}`,
		},
		{
			name: "before last user",
			in: []string{`{"role":"system","content":"S"}`, `{"role":"user","content":"a"}`, `{"role":"assistant","content":"b"}`,
				`{"role":"user","content":[{"type":"text","text":"c"}]}`},
			placement: PlacementBeforeLastUser, changed: 3, added: true,
			want: `{"role":"system","content":` + secJSON + `}`,
		},
		{
			name:      "before last user with a trailing tool result",
			in:        []string{`{"role":"user","content":"a"}`, `{"role":"assistant","tool_calls":[]}`, `{"role":"tool","content":"r"}`},
			placement: PlacementBeforeLastUser, changed: 0, added: true,
			want: `{"role":"system","content":` + secJSON + `}`,
		},
		{
			name:      "before last user without a user message falls back to system",
			in:        []string{`{"role":"system","content":"S"}`, `{"role":"assistant","content":"x"}`},
			placement: PlacementBeforeLastUser, changed: 0,
			want: `{"role":"system","content":` + string(encodeString("S\n\n"+sec)) + `}`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := raws(c.in...)
			orig := raws(c.in...)
			got, err := Apply(in, sec, c.placement)
			if err != nil {
				t.Fatal(err)
			}
			wantLen := len(in)
			if c.added {
				wantLen++
			}
			if len(got) != wantLen {
				t.Fatalf("%d messages, want %d", len(got), wantLen)
			}
			if string(got[c.changed]) != c.want {
				t.Errorf("message %d:\n got %s\nwant %s", c.changed, got[c.changed], c.want)
			}
			if !json.Valid(got[c.changed]) {
				t.Errorf("message %d is not valid JSON", c.changed)
			}
			// Every other message is byte-identical, in order.
			j := 0
			for i := range got {
				if i == c.changed {
					if !c.added {
						j++
					}
					continue
				}
				if !bytes.Equal(got[i], orig[j]) {
					t.Errorf("message %d changed: %s, was %s", i, got[i], orig[j])
				}
				j++
			}
			// The caller's slice is not modified.
			for i := range in {
				if !bytes.Equal(in[i], orig[i]) {
					t.Errorf("input message %d modified", i)
				}
			}
			// The section is readable after decoding, HTML characters unescaped.
			if !bytes.Contains(got[c.changed], []byte("<memory>")) {
				t.Errorf("fence escaped: %s", got[c.changed])
			}
		})
	}
}

func TestApplyUserMessagesNeverChange(t *testing.T) {
	in := raws(`{"role":"user","content":"Remember: system prompt?"}`, `{"role":"user" , "content":[{"type":"image_url","image_url":{"url":"data:x"}}]}`)
	for _, p := range []string{PlacementSystem, PlacementBeforeLastUser} {
		got, err := Apply(in, sec, p)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, m := range got {
			if bytes.Equal(m, in[0]) || bytes.Equal(m, in[1]) {
				n++
			}
		}
		if n != 2 || len(got) != 3 {
			t.Errorf("%s: user messages changed: %s", p, got)
		}
	}
}

func TestApplyEdgeCases(t *testing.T) {
	in := raws(`{"role":"user","content":"x"}`)
	if got, err := Apply(in, "", PlacementSystem); err != nil || len(got) != 1 || &got[0][0] != &in[0][0] {
		t.Errorf("empty section: %s %v", got, err)
	}
	if _, err := Apply(in, sec, "top"); !errors.Is(err, ErrPlacement) {
		t.Errorf("unknown placement: %v", err)
	}
	if _, err := Apply(raws(`not json`), sec, PlacementSystem); err == nil || !strings.HasPrefix(err.Error(), "message 0: ") {
		t.Errorf("bad message: %v", err)
	}
	if _, err := Apply(raws(`{"role":"system","content":42}`), sec, PlacementSystem); err == nil {
		t.Error("numeric content: no error")
	}
	// An escaped role is decoded in full.
	got, err := Apply(raws(`{"role":"us\u0065r","content":"x"}`, ` {"content":"S","role":"system"}`), "M", PlacementBeforeLastUser)
	if err != nil || len(got) != 3 || string(got[0]) != `{"role":"system","content":"M"}` {
		t.Errorf("escaped role: %s %v", got, err)
	}
	// A repeated key: decoders keep the last one, so the last is changed.
	got, err = Apply(raws(`{"role":"system","content":"a","content":"b"}`), "S", PlacementSystem)
	if err != nil || string(got[0]) != `{"role":"system","content":"a","content":"b\n\nS"}` {
		t.Errorf("repeated content key: %s %v", got, err)
	}
	// A repeated role is the last one: this message is the user's, which
	// the section never joins; it gets a system message of its own.
	got, err = Apply(raws(`{"role":"system","role":"user","content":"remember my cat is Tom"}`), "S", PlacementSystem)
	if err != nil || len(got) != 2 || string(got[0]) != `{"role":"system","content":"S"}` ||
		string(got[1]) != `{"role":"system","role":"user","content":"remember my cat is Tom"}` {
		t.Errorf("repeated role key: %s %v", got, err)
	}
}

func BenchmarkApply(b *testing.B) {
	msgs := []string{`{"role":"system","content":"You are a helpful assistant that answers briefly."}`}
	for i := range 20 {
		msgs = append(msgs, `{"role":"user","content":"question number `+strings.Repeat("x", i)+` about the supplier"}`,
			`{"role":"assistant","content":"An answer of moderate length that talks about delivery dates and terms."}`)
	}
	in := raws(msgs...)
	section, _, _ := Render(english, Options{Guard: guard()})
	for _, p := range []string{PlacementSystem, PlacementBeforeLastUser} {
		b.Run(p, func(b *testing.B) {
			for b.Loop() {
				if _, err := Apply(in, section, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkRender(b *testing.B) {
	items := append(append(append([]Item{}, english...), chinese...), mixed...)
	opts := Options{Guard: guard(), ProfileBudgetTokens: 150}
	for b.Loop() {
		Render(items, opts)
	}
}
