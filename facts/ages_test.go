package facts

import (
	"slices"
	"testing"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// TestNamedAges: the age of a child or a pet said with its name is that
// name's ("Ava.age"), so a second child keeps their own; a bare name and
// "turned" is read without a first-person word; Chinese pets and named
// children too.
func TestNamedAges(t *testing.T) {
	at := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	cases := []struct{ msg, subject, value, text string }{
		{"My daughter Ava is 9.", "Ava", "9", "The user's daughter Ava is 9 years old."},
		{"My son Leo just turned 5.", "Leo", "5", "The user's son Leo is 5 years old."},
		{"Ava turned 10 today.", "Ava", "10", "Ava is 10 years old (since 4 Mar 2026)."},
		{"Ava's 10 now.", "Ava", "10", "Ava is 10 years old."},
		{"Our dog Rex is 3 years old.", "Rex", "3", "The user's dog Rex is 3 years old."},
		{"My puppy Bean is 4 months old.", "Bean", "4 months", "The user's puppy Bean is 4 months old."},
		{"My son's 12.", "son", "12", "The user's son is 12 years old."},
		{"My kid is 7.", "child", "7", "The user's kid is 7 years old."},
		{"我家狗狗今年三岁了。", "狗", "三", "用户的狗狗三岁。"},
		{"我的猫两岁了。", "猫", "两", "用户的猫两岁。"},
		{"我女儿小美今年六岁。", "小美", "六", "用户的女儿小美六岁。"},
		{"Python is 30 years old.", "", "", ""},
		{"Gate is 12.", "", "", ""},
		{"He's 12 now.", "", "", ""},
	}
	for _, c := range cases {
		var got *Fact
		for _, f := range Extract(c.msg, Options{At: at}) {
			if f.Attribute == "age" {
				got = &f
			}
		}
		switch {
		case got == nil && c.subject != "":
			t.Errorf("%q: no age", c.msg)
		case got != nil && c.subject == "":
			t.Errorf("%q: age %+v, want none", c.msg, got.Triple)
		case got != nil && (got.Subject != c.subject || got.Value != c.value || got.Text != c.text):
			t.Errorf("%q: %s.age = %q %q, want %s %q %q", c.msg, got.Subject, got.Value, got.Text, c.subject, c.value, c.text)
		}
	}
}

// TestTwoPets: "a dog named Rex and a cat named Miso" are two pets.
func TestTwoPets(t *testing.T) {
	n := 0
	for _, f := range Extract("We have a dog named Rex and a cat named Miso.", Options{At: time.Now()}) {
		if f.Attribute == "pet" {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d pets, want 2", n)
	}
	// Named pets of one kind, then another by its own kind.
	for msg, want := range map[string][]string{
		"We have two cats, Luna and Milo, and a dog called Rex.": {"cat named Luna", "cat named Milo", "dog named Rex"},
		"I have two dogs, Rex and Bo, and a hamster.":            {"dog named Rex", "dog named Bo", "hamster"},
	} {
		var got []string
		for _, f := range Extract(msg, Options{At: time.Now()}) {
			if f.Attribute == "pet" {
				got = append(got, f.Value)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q: pets %q, want %q", msg, got, want)
		}
	}
}

// TestFromTripleNamedAge: a model's (Ava, age, 10) is kept as Extract
// keys it; a name subject for another attribute is not.
func TestFromTripleNamedAge(t *testing.T) {
	f, ok := FromTriple(memory.Triple{Subject: "Ava", Attribute: "age", Value: "10"}, time.Now())
	if !ok || f.Subject != "Ava" || f.Text != "Ava is 10 years old." {
		t.Errorf("got %+v, %v", f, ok)
	}
	if _, ok := FromTriple(memory.Triple{Subject: "Ava", Attribute: "lives_in", Value: "Oslo"}, time.Now()); ok {
		t.Error("a name subject for lives_in was kept")
	}
	if _, ok := FromTriple(memory.Triple{Subject: "ava", Attribute: "age", Value: "10"}, time.Now()); ok {
		t.Error("a lowercase subject was kept")
	}
}

// TestChildrenAges: the ages of two children said by relation word are
// two slots ("son.age", "daughter.age"), so one never supersedes the
// other; a word that names no child in particular keeps the relation.
func TestChildrenAges(t *testing.T) {
	at := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		msg  string
		want []string
	}{
		{"My son is 12 and my daughter is 9.", []string{"son.age=12", "daughter.age=9"}},
		{"My grandma is 90 and my grandpa is 93.", []string{"grandmother.age=90", "grandfather.age=93"}},
		{"My son is 13 now.", []string{"son.age=13"}},
		{"My kid is 5.", []string{"child.age=5"}},
		{"我儿子12岁，女儿9岁。", []string{"儿子.age=12", "女儿.age=9"}},
		{"My sister is 30.", []string{"sister.age=30"}},
	}
	for _, c := range cases {
		var got []string
		for _, f := range Extract(c.msg, Options{At: at}) {
			if f.Attribute == "age" {
				got = append(got, f.Key()+"="+f.Value)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: ages %v, want %v", c.msg, got, c.want)
		}
	}
}

// TestChildrenListed: children listed by name keep each name and the age
// said beside it ("Ella who is 5", "Ella (5)", "Ella, 5,"), and a list
// that names each child by its own word ("a son named Max and a daughter
// named Ella") keeps both.
func TestChildrenListed(t *testing.T) {
	at := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	both := []string{"user.child=Ella", "Ella.age=5", "user.child=Max", "Max.age=3"}
	for msg, want := range map[string][]string{
		"We have two kids, Ella who is 5 and Max who is 3.": both,
		"We have two kids: Ella, 5, and Max, 3.":            both,
		"I have two kids, Ella (5) and Max (3).":            both,
		"I have two kids, Ella aged 5 and Max aged 3.":      both,
		"I have a son named Max and a daughter named Ella.": {"user.child=Max", "user.child=Ella"},
		"We have two kids, Ella and Max.":                   {"user.child=Ella", "user.child=Max"},
		"I have a daughter, Ella, 2023 was her first year.": {"user.child=Ella"},
	} {
		if got := stated(msg, at); !slices.Equal(got, want) {
			t.Errorf("%q: %v, want %v", msg, got, want)
		}
	}
}
