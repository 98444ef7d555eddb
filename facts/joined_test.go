package facts

import "testing"

// TestJoinedOrganisation: a named organisation the user joined is the
// employer when the sentence or the message says it is work (a role, a
// job word, an employer ended); a group (a lowercase noun or a name whose
// head is a group noun), a platform, something joined as a member, a bare
// join, or someone joined is not.
func TestJoinedOrganisation(t *testing.T) {
	cases := []struct{ msg, attr, value string }{
		{"I joined Stripe as an engineer.", "works_at", "Stripe"},
		{"I joined the BBC in March as a producer.", "works_at", "BBC"},
		{"I quit Initech. I joined Globex last week.", "works_at", "Globex"},
		{"I've joined Stripe! First day at the new office was great.", "works_at", "Stripe"},
		{"I got an offer and joined Hooli.", "works_at", "Hooli"},
		// A bare join says nothing of work: a membership, never an employer.
		{"I joined Stripe.", "member_of", "Stripe"},
		{"I joined Reddit.", "member_of", "Reddit"},
		{"I joined Strava last week, it's great for tracking my runs.", "member_of", "Strava"},
		{"I joined Duolingo to learn Spanish.", "member_of", "Duolingo"},
		{"I joined Slack at work.", "member_of", "Slack"},
		{"I joined Mastodon because Twitter got annoying.", "member_of", "Mastodon"},
		{"I joined Discord as a moderator-free member.", "member_of", "Discord"},
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
// the stored sentence; a named group keeps the "the" it was said with, or
// that its head noun takes ("Sierra Club"); a bare name gets none.
func TestMembershipText(t *testing.T) {
	cases := []struct{ msg, text string }{
		{"I joined a climbing gym.", "The user is a member of a climbing gym."},
		{"I joined the choir.", "The user is a member of a choir."},
		{"I joined an orchestra.", "The user is a member of an orchestra."},
		{"I joined the Sierra Club.", "The user is a member of the Sierra Club."},
		{"I'm a member of Sierra Club.", "The user is a member of the Sierra Club."},
		{"I became a member of the Sierra Club.", "The user is a member of the Sierra Club."},
		{"I joined the BBC Singers.", "The user is a member of the BBC Singers."},
		{"I joined Greenpeace.", "The user is a member of Greenpeace."},
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
