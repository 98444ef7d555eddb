package facts

import (
	"testing"
	"time"
)

// TestSlotEndings: a sentence that ends a slot without naming a new value
// gives an ended fact of that slot and subject, and nothing of another.
func TestSlotEndings(t *testing.T) {
	at := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		msg, key, value string // key "" wants no ended fact at all
	}{
		{"I quit my job last week.", "user.works_at", ""},
		{"I resigned, Friday is my last day.", "user.works_at", ""},
		{"I got laid off yesterday.", "user.works_at", ""},
		{"My sister quit her job.", "sister.works_at", ""},
		{"My sister quit my job.", "", ""},
		{"I told my boss I quit my job.", "", ""}, // reported speech: not read
		{"My boss quit his job.", "boss.works_at", ""},
		{"I'm single now.", "user.partner", ""},
		{"We broke up last month.", "user.partner", ""},
		{"I sold my car.", "user.car", ""},
		{"Our car got stolen.", "user.car", ""},
		{"My cat died.", "user.pet", "cat"},
		{"We had to put our puppy down.", "user.pet", "dog"},
		{"I quit sugar.", "", ""},
		{"I sold my old bike.", "", ""},
		{"My sister's cat died.", "", ""},
		{"Maya and I broke up last month.", "user.partner", ""},
		{"I graduated in May.", "user.studies_at", ""},
		{"I'm not with Tom anymore.", "user.partner", ""},
		{"Tom and I aren't together anymore.", "user.partner", ""},
		{"I'm not seeing Tom any more.", "user.partner", ""},
		{"I'm no longer in a relationship.", "user.partner", ""},
		{"We are done with the renovation.", "", ""},
		{"I'm not with the kids today.", "", ""},
		{"I don't have a car anymore.", "user.car", ""},
		{"I no longer own a car.", "user.car", ""},
		{"I don't drive a car to work.", "", ""},
		{"我上个月毕业了。", "user.studies_at", ""},
		{"我上周辞职了。", "user.works_at", ""},
		{"我妹妹辞职了。", "sister.works_at", ""},
		{"我们分手了。", "user.partner", ""},
		{"我离婚了。", "user.partner", ""},
		{"我把车卖了。", "user.car", ""},
		{"我的狗去世了。", "user.pet", "狗"},
		{"我不喜欢辞职这个话题吗？", "", ""},
	} {
		var got *Fact
		fs := Extract(tc.msg, Options{At: at})
		for i := range fs {
			if fs[i].Ended && !fs[i].Note {
				got = &fs[i]
			}
		}
		switch {
		case tc.key == "" && got != nil:
			t.Errorf("%q: ended %s=%q, want none", tc.msg, got.Key(), got.Value)
		case tc.key == "":
		case got == nil:
			t.Errorf("%q: no ended fact, want %s (%v)", tc.msg, tc.key, fs)
		case got.Key() != tc.key || got.Value != tc.value || got.AnyValue != (tc.value == ""):
			t.Errorf("%q: ended %s=%q any %v, want %s=%q", tc.msg, got.Key(), got.Value, got.AnyValue, tc.key, tc.value)
		case got.Text == "":
			t.Errorf("%q: no sentence", tc.msg)
		}
	}
}

// TestEndValue: the ended slot's sentence names the live value it ends
// and keeps its date.
func TestEndValue(t *testing.T) {
	at := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct{ msg, value, want string }{
		{"I quit my job last week.", "Acme", "The user no longer works at Acme (since the week of 2 Mar 2026)."},
		{"We broke up.", "Maya", "The user is no longer with Maya."},
		{"我们分手了。", "李明", "用户和李明分开了。"},
		{"My cat died.", "cat named Miso", "The user no longer has a pet cat named Miso."},
	} {
		fs := Extract(tc.msg, Options{At: at})
		if len(fs) != 1 {
			t.Fatalf("%q: %d facts", tc.msg, len(fs))
		}
		fs[0].EndValue(tc.value)
		if fs[0].Text != tc.want || fs[0].Value != tc.value || fs[0].AnyValue {
			t.Errorf("%q: %q (%q), want %q", tc.msg, fs[0].Text, fs[0].Value, tc.want)
		}
	}
}

// TestNamedEndings: a named ending names the value and the slots it may
// be of; reconcile ends the one holding it live.
func TestNamedEndings(t *testing.T) {
	at := time.Date(2026, 3, 10, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		msg, key, value string
		alts            int
	}{
		{"I left Acme last month.", "user.works_at", "Acme", 2},
		{"My sister left Initech.", "sister.works_at", "Initech", 2},
		{"I moved out of Berlin.", "user.lives_in", "Berlin", 0},
		{"I dropped out of Stanford.", "user.studies_at", "Stanford", 0},
		{"I graduated from MIT.", "user.studies_at", "MIT", 0},
		{"我搬离了北京。", "user.lives_in", "北京", 0},
		{"我离开了腾讯。", "user.works_at", "腾讯", 2},
		{"I left the party early.", "", "", 0},
	} {
		var got *Fact
		fs := Extract(tc.msg, Options{At: at})
		for i := range fs {
			if fs[i].Ended {
				got = &fs[i]
			}
		}
		switch {
		case tc.key == "":
			if got != nil {
				t.Errorf("%q: ended %s=%q, want none", tc.msg, got.Key(), got.Value)
			}
		case got == nil:
			t.Errorf("%q: no ended fact, want %s=%q", tc.msg, tc.key, tc.value)
		case got.Key() != tc.key || got.Value != tc.value || len(got.Alts) != tc.alts:
			t.Errorf("%q: ended %s=%q alts %v, want %s=%q (%d alts)", tc.msg, got.Key(), got.Value, got.Alts, tc.key, tc.value, tc.alts)
		}
	}
	fs := Extract("I left Hooli.", Options{At: at})
	fs[0].EndAs("studies_at", "Hooli")
	if fs[0].Key() != "user.studies_at" || fs[0].Text != "The user no longer studies at Hooli." {
		t.Errorf("EndAs: %s %q", fs[0].Key(), fs[0].Text)
	}
}

// TestSuccessor: "left X for Y" names the value that takes X's place:
// the employer after "to join"; with "for", the slot the name's own
// evidence says, or, with none, whichever slot holds X (Succeeds).
func TestSuccessor(t *testing.T) {
	at := time.Date(2026, 4, 2, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		msg, key, value string
		succeeds        bool
	}{
		{"I left Acme for Globex last month.", "user.works_at", "Globex", true},
		{"Big news: I left Acme to join Globex.", "user.works_at", "Globex", false},
		{"We left Hamburg for Porto.", "user.works_at", "Porto", true},
		{"I quit Initech for Hooli Labs.", "user.works_at", "Hooli Labs", false},
		{"I left Acme.", "", "", false},
		{"I left Acme for a startup.", "", "", false},
	}
	for _, c := range cases {
		var got *Fact
		for _, f := range Extract(c.msg, Options{At: at}) {
			if !f.Ended && !f.Note {
				got = &f
			}
		}
		switch {
		case got == nil && c.key != "":
			t.Errorf("%q: no successor", c.msg)
		case got != nil && c.key == "":
			t.Errorf("%q: successor %s=%s, want none", c.msg, got.Key(), got.Value)
		case got != nil && (got.Key() != c.key || got.Value != c.value || got.Succeeds != c.succeeds || got.Prior == ""):
			t.Errorf("%q: %s=%s succeeds=%v prior=%q, want %s=%s succeeds=%v", c.msg, got.Key(), got.Value, got.Succeeds, got.Prior, c.key, c.value, c.succeeds)
		}
	}
	f := Extract("I left Berlin for Lisbon last month.", Options{At: at})[0]
	f.SucceedAs("lives_in")
	if f.Key() != "user.lives_in" || f.Text != "The user lives in Lisbon (since Mar 2026)." || f.Succeeds {
		t.Errorf("SucceedAs: %s %q", f.Key(), f.Text)
	}
}
