package facts

import (
	"slices"
	"testing"

	"github.com/memproxy/memproxy/memory"
)

func TestForgetTopic(t *testing.T) {
	for _, tc := range []struct {
		payload string
		phrases []string
	}{
		{"my address, I shouldn't have shared it", []string{"address"}},
		{"I said about the therapist, I'd rather you didn't keep that", []string{"therapist"}},
		{"what I told you about my sister", []string{"sister"}},
		{"my home address and my phone number", []string{"home address", "phone number"}},
		{"about my ex, it's over", []string{"ex"}},
		{"我说的看心理医生的事吧", []string{"看心理医生"}},
		{"我的地址", []string{"地址"}},
		{"我学吉他的事了", []string{"学吉他"}},
		{"I work at Initech", []string{"i work at initech"}},
	} {
		if got := ForgetTopic(tc.payload); !slices.Equal(got.Phrases, tc.phrases) {
			t.Errorf("%q: phrases %q, want %q", tc.payload, got.Phrases, tc.phrases)
		}
	}
}

func TestTopicNames(t *testing.T) {
	home := &memory.Triple{Subject: "user", Attribute: "home_address", Value: "42 Harbour Lane"}
	email := &memory.Triple{Subject: "user", Attribute: "email", Value: "jane@example.com"}
	job := &memory.Triple{Subject: "user", Attribute: "works_at", Value: "Initech"}
	sis := &memory.Triple{Subject: "sister", Attribute: "lives_in", Value: "Oslo"}
	pet := &memory.Triple{Subject: "user", Attribute: "pet", Value: "dog named Biscuit"}
	for _, tc := range []struct {
		payload string
		tr      *memory.Triple
		want    bool
	}{
		{"my address, I shouldn't have shared it", home, true},
		{"my address, I shouldn't have shared it", email, false},
		{"my email address", email, true},
		{"my email address", home, false},
		{"my job", job, true},
		{"that I work at Initech", job, true},
		{"my job", home, false},
		{"what I said about my sister", sis, true},
		{"what I said about my sister", job, false},
		{"Biscuit", pet, true},
		{"the therapist", home, false},
	} {
		if got := ForgetTopic(tc.payload).Names(tc.tr) != ""; got != tc.want {
			t.Errorf("%q names %+v: %v, want %v", tc.payload, tc.tr, got, tc.want)
		}
	}
	th := ForgetTopic("I said about the therapist, I'd rather you didn't keep that")
	if !th.Covers("I'm seeing a therapist on Thursdays for my anxiety.") || th.Covers("I go swimming on Thursdays.") {
		t.Error("therapist topic covers the wrong texts")
	}
	if zh := ForgetTopic("我说的看心理医生的事吧"); !zh.Covers("我每周四去看心理医生。") || zh.Covers("我每周四去游泳。") {
		t.Error("心理医生 topic covers the wrong texts")
	}
	if zh := ForgetTopic("我学吉他的事了"); !zh.Covers("我在学吉他。") || zh.Covers("我在学日语。") {
		t.Error("吉他 topic covers the wrong texts")
	}
	addr := &memory.Triple{Subject: "user", Attribute: "address", Value: "朝阳区建国路88号"}
	if ForgetTopic("我的地址吧").Names(addr) == "" || ForgetTopic("我的邮箱").Names(addr) != "" {
		t.Error("地址 names the wrong slot")
	}
}

func TestThirdPerson(t *testing.T) {
	for in, want := range map[string]string{
		"I drink about four coffees a day.":                                    "The user drinks about four coffees a day.",
		"My doctor told me to cut out gluten, so I'm avoiding it from now on.": "The user's doctor told the user to cut out gluten, so the user is avoiding it from now on.",
		"I also use Go for my backend.":                                        "The user also uses Go for their backend.",
		"I don't eat pork.":                                                    "The user doesn't eat pork.",
		"I go swimming on Thursdays and I study French at night.":              "The user goes swimming on Thursdays and the user studies French at night.",
		"I moved to Lisbon and we bought a flat.":                              "The user moved to Lisbon and the user bought a flat.",
		"I can't stand cilantro.":                                              "The user can't stand cilantro.",
		"We were in Rome.":                                                     "The user was in Rome.",
		"I have two cats.":                                                     "The user has two cats.",
		"I always have almond milk in my coffee.":                              "The user always has almond milk in their coffee.",
		"We still have the old car and I really am attached to it.":            "The user still has the old car and the user really is attached to it.",
		"Let me know when I watch too much TV.":                                "Let the user know when the user watches too much TV.",
		"Ugh, I had a bad reaction to shellfish, my throat swelled up.":        "The user had a bad reaction to shellfish, their throat swelled up.",
		"Big news: I got engaged.":                                             "The user got engaged.",
		"Oh well, I ran my first marathon!":                                    "The user ran their first marathon.",
		"So I started pottery classes.":                                        "The user started pottery classes.",
		"So much for my diet, I ate cake.":                                     "So much for the user's diet, the user ate cake.",
		"我每周四去看心理医生。":                                                          "用户每周四去看心理医生。",
		"我的猫叫咪咪":                                                               "用户的猫叫咪咪。",
	} {
		if got := ThirdPerson(in); got != want {
			t.Errorf("ThirdPerson(%q) = %q, want %q", in, got, want)
		}
	}
}
