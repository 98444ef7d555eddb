package facts

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestParents: the user's parents are one pair, keyed "parents" as a
// mother or a father is keyed by the relation, and what is said of them
// is rendered in the plural; "my mom and (my) dad" is the pair; a
// relative's retirement is their job, dated; the user's own slots are
// never theirs.
func TestParents(t *testing.T) {
	at := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		msg  string
		want []string // key=value|text
	}{
		{"My parents live in Lyon and my sister lives in Paris.", []string{
			"parents.lives_in=Lyon|The user's parents live in Lyon.", "sister.lives_in=Paris|The user's sister lives in Paris."}},
		{"My parents moved to Florida last year.", []string{"parents.lives_in=Florida|The user's parents live in Florida (since 2025)."}},
		{"My mom and dad live in Spain.", []string{"parents.lives_in=Spain|The user's parents live in Spain."}},
		{"My mom and my dad live in a small village near Oxford.", []string{
			"parents.lives_in=a small village near Oxford|The user's parents live in a small village near Oxford."}},
		{"My folks live in Ohio.", []string{"parents.lives_in=Ohio|The user's folks live in Ohio."}},
		{"My parents are retired.", []string{"parents.job_title=retired|The user's parents are retired."}},
		{"My parents are both teachers.", []string{"parents.job_title=teachers|The user's parents work as teachers."}},
		{"My mother and father are both doctors.", []string{"parents.job_title=doctors|The user's parents work as doctors."}},
		{"My parents are vegetarian.", []string{"parents.diet=vegetarian|The user's parents are vegetarian."}},
		{"My parents have a dog named Rex.", []string{"parents.pet=dog named Rex|The user's parents have a pet dog named Rex."}},
		{"My parents no longer live in Lyon.", []string{"parents.lives_in=Lyon|The user's parents no longer live in Lyon."}},
		{"My parents speak French.", []string{"parents.speaks=French|The user's parents speak French."}},
		{"我父母住在里昂。", []string{"parents.lives_in=里昂|用户的父母住在里昂。"}},
		{"My mom is a nurse.", []string{"mother.job_title=nurse|The user's mom works as a nurse."}},
		{"My mother is a nurse.", []string{"mother.job_title=nurse|The user's mother works as a nurse."}},
		{"My dad retired last year.", []string{"father.job_title=retired|The user's dad is retired (since 2025)."}},
		{"My sister retired in 2020.", []string{"sister.job_title=retired|The user's sister is retired (since 2020)."}},
		{"My dad lives in Madrid and my mom lives in Paris.", []string{
			"father.lives_in=Madrid|The user's dad lives in Madrid.", "mother.lives_in=Paris|The user's mom lives in Paris."}},
		{"My mom quit her job.", []string{"mother.works_at=|The user's mom left her job."}},
		{"My parents sold their car.", []string{"parents.car=|The user's parents no longer have a car."}},
		// a divorce of the parents ends no partner of theirs: a dated note
		{"My parents got divorced last year.", nil},
	} {
		var got []string
		for _, f := range Extract(c.msg, Options{At: at}) {
			if !f.Note {
				got = append(got, f.Key()+"="+f.Value+"|"+f.Text)
			}
			if f.Subject == "user" {
				t.Errorf("%q: the user's %s = %q", c.msg, f.Attribute, f.Value)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%q:\n got %q\nwant %q", c.msg, got, c.want)
		}
	}
}

func TestPluralEN(t *testing.T) {
	for in, want := range map[string]string{
		"%S lives in %v.":           "%S live in %v.",
		"%S no longer lives in %v.": "%S no longer live in %v.",
		"%S is %v.":                 "%S are %v.",
		"%S has a pet %v.":          "%S have a pet %v.",
		"%S does not eat %v.":       "%S do not eat %v.",
		"%S studies %v.":            "%S study %v.",
		"%S's name is %v.":          "%S' name is %v.",
		"%S watches %v.":            "%S watch %v.",
		"%S no longer has %a %v.":   "%S no longer have %a %v.",
		"%S took up %v as a hobby.": "%S took up %v as a hobby.",
	} {
		if got := pluralEN(in); got != want {
			t.Errorf("pluralEN(%q) = %q, want %q", in, got, want)
		}
	}
	if !strings.Contains(render(&Fact{Triple: tripleOf("parents", "age", "70"), word: "parents"}, false), "are 70") {
		t.Error("parents' age not plural")
	}
}

// TestPronounLaterClause: "they", "he" or "she" starting a later clause
// is the relative the sentence began with, when it fits them.
func TestPronounLaterClause(t *testing.T) {
	at := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	for msg, want := range map[string][]string{
		"My parents don't live in Nice anymore, they moved back to Lyon.": {"parents.lives_in=Nice", "parents.lives_in=Lyon"},
		"My brother lives in Rome, he works at FAO.":                      {"brother.lives_in=Rome", "brother.works_at=FAO"},
		"My sister quit Google and she joined Meta.":                      {"sister.works_at=Google", "sister.works_at=Meta"},
		"My mom and dad live in Spain, they have a dog named Toby.":       {"parents.lives_in=Spain", "parents.pet=dog named Toby"},
		"My dad lives in Madrid, she works at a bank.":                    {"father.lives_in=Madrid"},
	} {
		if got := stated(msg, at); !slices.Equal(got, want) {
			t.Errorf("%q: %q, want %q", msg, got, want)
		}
	}
}

// TestRelativeNamedByName: "my mom's name is Linda" names the relative,
// as "my mom is Linda" does; a partner's name stays the partner's name.
func TestRelativeNamedByName(t *testing.T) {
	at := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	for msg, want := range map[string][]string{
		"My mom's name is Linda and my dad's name is Robert.": {"user.mother=Linda|The user's mom is Linda.", "user.father=Robert|The user's dad is Robert."},
		"My sister's name is Anna.":                           {"user.sister=Anna|The user has a sister named Anna."},
		"My manager's name is Katherine.":                     {"user.boss=Katherine|The user's manager is Katherine."},
		"My wife's name is Sofia.":                            {"partner.name=Sofia|The user's wife's name is Sofia."},
	} {
		var got []string
		for _, f := range Extract(msg, Options{At: at}) {
			got = append(got, f.Key()+"="+f.Value+"|"+f.Text)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q:\n got %q\nwant %q", msg, got, want)
		}
	}
}

// TestAgesByNameAlone: "Emma is 7 and Noah is 4" are the ages of the children
// (or pets) the message or the one before names; a name named as
// anything else ("My boss is Emma") gives none.
func TestAgesByNameAlone(t *testing.T) {
	at := time.Date(2026, 6, 10, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		before, msg string
		want        []string
	}{
		{"My kids are Emma and Noah.", "Emma is 7 and Noah is 4.", []string{"Emma.age=7", "Noah.age=4"}},
		{"", "My kids are Emma and Noah. Emma is 7 and Noah is 4.", []string{"user.child=Emma", "user.child=Noah", "Emma.age=7", "Noah.age=4"}},
		{"We have a dog named Rex.", "Rex is 3.", []string{"Rex.age=3"}},
		{"My boss is Emma.", "Emma is 7.", nil},
		{"", "Gate is 12.", nil},
		{"My daughter Emma loves horses.", "Emma is 7 and Noah is 4.", nil},
	} {
		var got []string
		for _, f := range Extract(c.msg, Options{At: at, Before: c.before}) {
			if !f.Note {
				got = append(got, f.Key()+"="+f.Value)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%q after %q: %q, want %q", c.msg, c.before, got, c.want)
		}
	}
}
