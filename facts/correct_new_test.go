package facts

import "testing"

// TestCorrectionNewValueOnly: a correction that names only its new value
// corrects the last value of the same kind; anything else is none.
func TestCorrectionNewValueOnly(t *testing.T) {
	cases := []struct{ msg, stated, newV, old string }{
		{"Sorry, I meant Tuesday.", "The user's piano lesson is on Monday.", "Tuesday", "Monday"},
		{"Oops, I meant 8pm.", "My flight to Oslo lands at 6pm on Friday.", "8pm", "6pm"},
		{"Make that the 16th.", "The party is on the 14th.", "16th", "14th"},
		{"不对，是五月四号。", "用户的生日是五月三号。", "五月四号", "五月三号"},
		{"说错了，是周四。", "用户的瑜伽课在周三。", "周四", "周三"},
		{"我是说下午三点。", "会议在下午两点。", "下午三点", "下午两点"},
		{"Sorry, I meant Preeti.", "The user's manager is Priya.", "Preeti", "Priya"},
	}
	for _, c := range cases {
		v, ok := ExtractCorrectionNew(c.msg)
		if !ok || v != c.newV {
			t.Errorf("ExtractCorrectionNew(%q) = %q, %v; want %q", c.msg, v, ok, c.newV)
			continue
		}
		if old := CorrectedIn(c.stated, v); old != c.old {
			t.Errorf("CorrectedIn(%q, %q) = %q, want %q", c.stated, v, old, c.old)
		}
	}
	for _, msg := range []string{
		"Sorry, I meant to say thanks for the tips.", "I meant it.", "Sorry, my bad.", "It's Tuesday.",
		"I mean, whatever works.", "不对。", "Sorry, I meant that as a joke.",
	} {
		if v, ok := ExtractCorrectionNew(msg); ok {
			t.Errorf("ExtractCorrectionNew(%q) = %q, want none", msg, v)
		}
	}
	if old := CorrectedIn("The user lives in Paris.", "Tuesday"); old != "" {
		t.Errorf("a day corrects no city: %q", old)
	}
}
