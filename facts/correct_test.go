package facts

import "testing"

func TestCorrection(t *testing.T) {
	cases := []struct{ in, fact, want string }{
		{"Sorry, I meant Tuesday, not Monday.", "The user's sister's birthday party is on Monday.", "The user's sister's birthday party is on Tuesday."},
		{"Correction: the Rome flight is on the 16th, not the 14th.", "The user's flight to Rome is on the 14th of May.", "The user's flight to Rome is on the 16th of May."},
		{"Actually it's spelled Kathryn, not Katherine.", "The user's manager's name is Katherine.", "The user's manager's name is Kathryn."},
		{"The meeting is not Monday but Wednesday.", "The meeting is on Monday.", "The meeting is on Wednesday."},
		{"Sorry, typo: his name is Kwame, not Kofi.", "The user's husband's name is Kofi.", "The user's husband's name is Kwame."},
		{"Actually it's Friday, not Thursday.", "The user's flight to Oslo is on Thursday morning.", "The user's flight to Oslo is on Friday morning."},
		{"No, it's spelled Kathryn, not Katherine.", "The user's manager's name is Katherine.", "The user's manager's name is Kathryn."},
		{"Correction: the meeting is at 3pm, not 2pm.", "The user's meeting is at 2pm.", "The user's meeting is at 3pm."},
		{"我说错了，不是周一，是周二。", "用户周一去看牙医。", "用户周二去看牙医。"},
		{"更正一下，聚会是周五晚上，不是周三。", "用户和同学的聚会在周三晚上。", "用户和同学的聚会在周五晚上。"},
		{"其实我是周四的航班，不是周三。", "用户的航班在周三。", "用户的航班在周四。"},
		{"Actually it's not Porto, it's Braga.", "The user's sister lives in Porto.", "The user's sister lives in Braga."},
		{"Not Porto, Braga!", "The user's sister lives in Porto.", "The user's sister lives in Braga."},
		{"I said Monday but I meant Tuesday.", "The user's dentist appointment is on Monday.", "The user's dentist appointment is on Tuesday."},
		{"Actually I'm 34, not 33.", "The user is 33 years old.", "The user is 34 years old."},
		{"更正一下，我女儿9岁，不是8岁。", "用户的女儿8岁。", "用户的女儿9岁。"},
	}
	for _, c := range cases {
		co, ok := ExtractCorrection(c.in)
		if !ok {
			t.Errorf("ExtractCorrection(%q): none", c.in)
			continue
		}
		got, ok := co.Apply(c.fact)
		if !ok || got != c.want {
			t.Errorf("%q on %q = %q (%+v), want %q", c.in, c.fact, got, co, c.want)
		}
	}
	for _, s := range []string{"I like tea, not coffee.", "Not now, thanks.", "I live in Lisbon."} {
		if co, ok := ExtractCorrection(s); ok {
			t.Errorf("ExtractCorrection(%q) = %+v", s, co)
		}
	}
}

func TestCorrectAge(t *testing.T) {
	c, ok := ExtractCorrection("Oops, he's actually 12, I keep forgetting his birthday passed.")
	if !ok {
		t.Fatal("no correction read")
	}
	got, ok := c.Apply("The user's son is 11 years old.")
	if !ok || got != "The user's son is 12 years old." {
		t.Errorf("Apply = %q, %v", got, ok)
	}
	if _, ok := c.Apply("The user lives in Paris."); ok {
		t.Error("a fact without an age must not be corrected")
	}
}
