package facts

import "testing"

// TestJoinedOrganisation: a named organisation the user joined is the
// employer; a group (a lowercase noun or a name whose head is a group
// noun), something joined as a member, or someone joined is not.
func TestJoinedOrganisation(t *testing.T) {
	cases := []struct{ msg, attr, value string }{
		{"I joined Stripe.", "works_at", "Stripe"},
		{"I've joined Globex.", "works_at", "Globex"},
		{"I joined Stripe as an engineer.", "works_at", "Stripe"},
		{"I joined the BBC in March.", "works_at", "BBC"},
		{"I joined a gym.", "member_of", "gym"},
		{"I joined the choir.", "member_of", "choir"},
		{"I joined a book club.", "member_of", "book club"},
		{"I joined the Sierra Club.", "member_of", "Sierra Club"},
		{"I joined a Facebook group for runners.", "member_of", "Facebook group"},
		{"I joined Greenpeace as a volunteer.", "member_of", "Greenpeace"},
		{"I joined Mike for lunch.", "works_at", ""},
	}
	for _, c := range cases {
		got := ""
		for _, f := range Extract(c.msg, Options{}) {
			if f.Attribute == c.attr {
				got = f.Value
			}
			if f.Attribute == "works_at" && c.attr != "works_at" {
				t.Errorf("%q: employer %q", c.msg, f.Value)
			}
		}
		if got != c.value {
			t.Errorf("%q: %s = %q, want %q", c.msg, c.attr, got, c.value)
		}
	}
}

// TestMembershipText: a group named by a common noun keeps an article in
// the stored sentence; a named group does not get one.
func TestMembershipText(t *testing.T) {
	cases := []struct{ msg, text string }{
		{"I joined a climbing gym.", "The user is a member of a climbing gym."},
		{"I joined the choir.", "The user is a member of a choir."},
		{"I joined an orchestra.", "The user is a member of an orchestra."},
		{"I joined the Sierra Club.", "The user is a member of Sierra Club."},
	}
	for _, c := range cases {
		got := ""
		for _, f := range Extract(c.msg, Options{}) {
			if f.Attribute == "member_of" {
				got = f.Text
			}
		}
		if got != c.text {
			t.Errorf("%q: text %q, want %q", c.msg, got, c.text)
		}
	}
}
