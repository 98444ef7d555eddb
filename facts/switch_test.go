package facts

import (
	"slices"
	"testing"
)

// TestSwitchResolved: a switch said through a pronoun, without a subject
// or without the old value reads as the plain switch.
func TestSwitchResolved(t *testing.T) {
	for _, tc := range []struct{ before, msg, attr, value string }{
		{"", "I gave VS Code a try and switched to it for my daily work.", "uses", "VS Code"},
		{"I've been trying out Obsidian for notes.\nAssistant: Nice choice.", "I switched to it last week.", "uses", "Obsidian"},
		{"", "Nope, back to vim.", "uses", "vim"},
		{"", "I quit caffeine entirely, it's only herbal tea for me now.", "drinks", "herbal tea"},
		{"", "These days it's Rust for everything at work.", "uses", "Rust"},
		{"", "I drink about four coffees a day.", "drinks", "coffee"},
		{"", "Back to work tomorrow.", "", ""},
		{"", "It's raining now.", "", ""},
		{"", "I went back to Lisbon for the summer.", "", ""},
		{"", "Back to Paris tomorrow!", "", ""},
		{"", "I ditched Spotify for Apple Music last month.", "uses", "Apple Music"},
		{"", "Swapped vim for Helix.", "uses", "Helix"},
		{"", "I swapped my Brooks for a pair of Hoka Cliftons, my knees feel better.", "uses", "Hoka Cliftons"},
		{"", "We swapped stories for an hour.", "", ""},
		{"", "I dropped Spotify for Apple Music.", "uses", "Apple Music"},
		{"", "I gave up coffee for tea.", "drinks", "tea"},
		{"", "I gave up my seat for an old lady.", "", ""},
		{"", "I dropped my kids off for school.", "", ""},
		{"", "There was a Coldplay concert and I went to it.", "", ""},
		{"", "We found a flat in Camden and moved to it.", "", ""},
	} {
		var got []string
		for _, f := range Extract(tc.msg, Options{Before: tc.before}) {
			if !f.Note {
				got = append(got, f.Attribute+"="+f.Value)
			}
		}
		want := []string{}
		if tc.attr != "" {
			want = append(want, tc.attr+"="+tc.value)
		}
		if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("%q after %q: %q, want %q", tc.msg, tc.before, got, want)
		}
	}
}
