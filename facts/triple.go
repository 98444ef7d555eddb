package facts

import (
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/memproxy/memproxy/memory"
)

// FromTriple builds the fact a triple states, as Extract would have: the
// attribute normalised (lowercase, snake_case, legacy names mapped), its
// vocabulary flags (multi-valued, open), the stored sentence rendered from
// the triple in English or Chinese, valid from at. A subject is "user", a
// relation word ("sister", "wife", 妹妹), or for an age or a birthday a
// name ("Ava"). It reports false for a triple
// Extract would never store: no value, a first-person or vague value, an
// unknown subject, an attribute that is not a short snake_case name.
// Consolidation models answer triples through it.
func FromTriple(t memory.Triple, at time.Time) (Fact, bool) {
	subj := strings.ToLower(strings.TrimSpace(t.Subject))
	word := ""
	switch subj {
	case "user", "the user", "用户":
		subj = "user"
	default:
		r, ok := relations[subj]
		if !ok {
			// A child or pet by name ("Ava", age, 10), as Extract keys
			// a named age: only for an age or a birthday.
			subj = strings.TrimSpace(t.Subject)
			if a := normAttribute(t.Attribute); (a != "age" && a != "birthday") || !named(subj) || len(strings.Fields(subj)) > 2 {
				return Fact{}, false
			}
			break
		}
		word, subj = subj, r
	}
	attr := normAttribute(t.Attribute)
	if n, ok := LegacyKeys[attr]; ok {
		attr = n
	}
	f := Fact{
		Triple: memory.Triple{Subject: subj, Attribute: attr, Value: strings.Trim(strings.TrimSpace(t.Value), ".。"), Ended: t.Ended},
		word:   word,
	}
	if attr == "" || !valid(&f) {
		return Fact{}, false
	}
	f.Multi = IsMulti(attr)
	f.Open = !InVocabulary(attr)
	f.ValidFrom = at
	f.Text = render(&f, hasHan(f.Value) || hasHan(t.Subject))
	return f, true
}

// normAttribute is a model's attribute name as the vocabulary spells
// them: lowercase snake_case ASCII, at most four words; "" when it is not
// one.
func normAttribute(a string) string {
	a = strings.ToLower(strings.TrimSpace(a))
	a = strings.NewReplacer(" ", "_", "-", "_").Replace(a)
	if a == "" || len(a) > 40 || strings.Count(a, "_") > 3 {
		return ""
	}
	for _, r := range a {
		if r != '_' && (r > unicode.MaxASCII || !(unicode.IsLower(r) || unicode.IsDigit(r))) {
			return ""
		}
	}
	return strings.Trim(a, "_")
}

// Vocabulary lists the controlled attributes, sorted (a model is told
// them; "favorite_*" is open-ended and not listed).
func Vocabulary() []string {
	out := make([]string, 0, len(vocab))
	for a := range vocab {
		out = append(out, a)
	}
	slices.Sort(out)
	return out
}

// KindOf reports whether v is a value of kind k said with more: "dog
// named Rex" and 狗（名叫旺财） are of the kind "dog", 狗. An ended value
// said by its kind ("I no longer have a dog") ends the one named so.
// PetNamed reports whether a pet value names the pet name ("dog named
// Rex", 狗（名叫旺财）).
// NameOf is the name a value gives what it is ("golden retriever named
// Max" → Max, "狗（名叫旺财）" → 旺财), "" for a value naming none.
func NameOf(v string) string {
	if i := strings.LastIndex(v, " named "); i >= 0 {
		return strings.TrimSpace(v[i+len(" named "):])
	}
	if i := strings.Index(v, "（名叫"); i >= 0 {
		return strings.TrimSuffix(v[i+len("（名叫"):], "）")
	}
	return ""
}

func PetNamed(v, name string) bool {
	name = strings.TrimSpace(name)
	lv, ln := strings.ToLower(v), strings.ToLower(name)
	return name != "" && (strings.HasSuffix(lv, " named "+ln) || strings.HasPrefix(lv, ln+", ") || strings.Contains(v, "（名叫"+name+"）"))
}

func KindOf(v, k string) bool {
	k = strings.TrimSpace(k)
	if k == "" || len(v) <= len(k) || !strings.EqualFold(v[:len(k)], k) {
		return false
	}
	rest := v[len(k):]
	return strings.HasPrefix(rest, " named ") || strings.HasPrefix(rest, "（") || strings.HasPrefix(rest, ", ")
}

// PetKindOf is the kind of pet a pet value is ("dog" for "border collie
// named Pepper", "dog named Rex", "puppy"), "" when none is known.
func PetKindOf(v string) string {
	low := strings.ToLower(v)
	if i := strings.LastIndex(low, " named "); i >= 0 {
		low = low[:i]
	}
	ws := strings.Fields(low)
	for i := len(ws) - 1; i >= 0; i-- {
		w := strings.TrimSuffix(ws[i], "s")
		switch {
		case dogBreeds[w] || dogBreeds[ws[i]]:
			return "dog"
		case catBreeds[w] || catBreeds[ws[i]]:
			return "cat"
		case pets[w] || pets[ws[i]]:
			return petKind(strings.TrimSuffix(ws[i], "s"))
		}
	}
	return ""
}

// BarePet reports whether a pet value names only its kind ("dog", "a
// dog"): no name, no count. Said beside a live pet of that kind, it is
// that pet in other words.
func BarePet(v string) bool {
	low := strings.TrimPrefix(strings.TrimPrefix(strings.ToLower(strings.TrimSpace(v)), "a "), "an ")
	return NameOf(v) == "" && !strings.Contains(low, " ") && pets[low]
}
