package facts

import (
	"strings"
	"time"

	"github.com/memproxy/memproxy/memory"
)

// A relative or a pet is often named only after its age was stored
// unnamed: "My son is 12." then "Leo turned 13." The named age updates
// the unnamed one when it can only be that one: the one live unnamed age
// of the name's relation (the sentence's word, "my son Leo", or a stored
// fact naming the relative, "The user has a son named Leo"), or, when the
// relation is unknown, the one live unnamed age the new one can follow
// (an age grows no faster than the time since it was said).

// LinkAge picks the stored unnamed age that f, a named relative's age
// with no live age of that name stored, updates; nil when none or more
// than one could be it. ages are live age memories of the scope; about
// are live facts that may name f's subject (the user's child, pet,
// sister …).
func LinkAge(f *Fact, ages, about []*memory.Memory, at time.Time) *memory.Memory {
	if f == nil || f.Attribute != "age" || f.Ended || !named(f.Subject) {
		return nil
	}
	rel := relSubject(f.word)
	if rel == "" {
		for _, m := range about {
			t := m.Fact()
			if t == nil || t.Subject != "user" || !namesRelative(t.Value, f.Subject) {
				continue
			}
			r := t.Attribute
			if r == "pet" {
				r = strings.ToLower(strings.Fields(t.Value)[0]) // "dog named Rex"
			}
			if rel != "" && rel != r {
				return nil // the name is two relatives' names
			}
			rel = r
		}
	}
	var pick *memory.Memory
	for _, m := range ages {
		t := m.Fact()
		if t == nil || t.Attribute != "age" || t.Subject == "user" || named(t.Subject) || !m.Live(at) {
			continue
		}
		if rel != "" && t.Subject != rel && relSubject(t.Subject) != rel {
			continue
		}
		if !follows(t.Value, f.Value, m.ValidFrom, at) {
			continue
		}
		if pick != nil {
			return nil
		}
		pick = m
	}
	return pick
}

// NameAge makes f, the named age LinkAge linked to old, say the
// relation old said ("The user's son Leo is 13 years old."), keeping
// what its sentence said after the value (a date).
func (f *Fact) NameAge(old *memory.Memory) {
	if f.word != "" || old.Fact() == nil {
		return
	}
	word := old.Fact().Subject
	if w, ok := strings.CutPrefix(old.Text, "The user's "); ok {
		if i := strings.Index(w, " is "); i > 0 && !strings.Contains(w[:i], " ") {
			word = w[:i]
		}
	} else if w, ok := strings.CutPrefix(old.Text, "用户的"); ok {
		if i := strings.IndexAny(w, "0123456789一二两三四五六七八九十"); i > 0 {
			word = w[:i]
		}
	}
	f.rerender(func() { f.word = word })
}

// rerender applies change to f and renders its text again, keeping what
// its sentence said after the value (a date).
func (f *Fact) rerender(change func()) {
	zh := hasHan(f.Text)
	base := strings.TrimRight(render(f, zh), ".。")
	tail := "."
	if zh {
		tail = "。"
	}
	if strings.HasPrefix(f.Text, base) {
		tail = f.Text[len(base):]
	}
	change()
	f.Text = strings.TrimRight(render(f, zh), ".。") + tail
}

// NameSubject makes f, said of an unnamed relative, the fact of the one
// relative of that relation the user named ("The user's sister lives in
// Rome." → "The user's sister Anna lives in Rome.", key Anna.lives_in),
// keeping what its sentence said after the value (a date).
func (f *Fact) NameSubject(name string) {
	if name == "" || f.Subject == "user" || named(f.Subject) {
		return
	}
	f.rerender(func() {
		if f.word == "" {
			f.word = f.Subject
		}
		f.Subject = name
	})
}

// relSubject is the subject an unnamed relative's fact has for word
// ("son": child, "dog": dog); "" for no relative's word.
func relSubject(word string) string {
	w := strings.ToLower(word)
	if r := relations[w]; r != "" {
		return r
	}
	if pets[w] {
		return w
	}
	return ""
}

// namesRelative: a relation fact's value names the name ("Leo", "dog
// named Rex").
func namesRelative(value, name string) bool {
	return strings.EqualFold(value, name) || strings.HasSuffix(strings.ToLower(value), " named "+strings.ToLower(name)) ||
		strings.HasSuffix(strings.ToLower(value), " called "+strings.ToLower(name))
}

// follows: an age now can follow an age said at then (the same or older,
// by no more than the years between and one).
func follows(old, now string, then, at time.Time) bool {
	o, n := ageNumber(old), ageNumber(now)
	if o < 0 || n < 0 {
		return false
	}
	years := int(at.Sub(then).Hours() / 24 / 365)
	return n >= o && n-o <= years+1
}

// ageNumber is an age value in years ("12", "三"); -1 for another unit
// ("4 months") or no number.
func ageNumber(v string) int {
	v = strings.TrimSpace(v)
	if n := atoi(v); n > 0 {
		return n
	}
	if n, ok := zhNumber(v); ok {
		return n
	}
	return -1
}

// zhNumber reads a Chinese numeral up to 99 (三, 十二, 二十).
func zhNumber(v string) (int, bool) {
	digits := map[rune]int{'一': 1, '二': 2, '两': 2, '三': 3, '四': 4, '五': 5, '六': 6, '七': 7, '八': 8, '九': 9}
	r := []rune(v)
	if len(r) == 0 || len(r) > 3 {
		return 0, false
	}
	n, cur := 0, 0
	for _, c := range r {
		switch {
		case c == '十':
			if cur == 0 {
				cur = 1
			}
			n, cur = n+cur*10, 0
		case digits[c] > 0:
			cur = digits[c]
		default:
			return 0, false
		}
	}
	return n + cur, true
}

// Named reports a subject that is a name ("Ava", "小美"), not the user or
// a relation.
func Named(subject string) bool { return named(subject) }
