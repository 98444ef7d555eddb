// Package entity is memproxy's entity index: the people, pets, places,
// organisations and projects a user's memories name, each with its facts
// (live and superseded) and the events that mention it. It is the temporal
// knowledge graph of DESIGN.md, derived from what the store already holds
// (the facts' triples and the named entities in memory text), so both
// stores have it without a schema of its own and it is never out of step
// with the memories: a superseded fact is in the graph as superseded, a
// forgotten one is gone with its memory.
//
// Two readers use it: recall (Matcher: among the candidates of a query,
// the live facts of an entity the query names go first) and the admin
// API (Build over a scope's memories: the listing and one entity with its
// history).
package entity

import (
	"cmp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/text"
)

// Kind is what an entity is.
type Kind string

const (
	Person       Kind = "person"
	Pet          Kind = "pet"
	Place        Kind = "place"
	Organisation Kind = "organisation"
	Project      Kind = "project"
	// Other is a name that is none of the above as far as the facts tell
	// (a tool, a title, or a name only events mention).
	Other Kind = "other"
)

// kindOf is the kind of the value of a user's attribute; "" when the
// attribute's value is not an entity (a diet, an age, an e-mail).
var kindOf = map[string]Kind{
	"lives_in": Place, "from": Place,
	"works_at": Organisation, "studies_at": Organisation, "member_of": Organisation,
	"pet":    Pet,
	"sister": Person, "brother": Person, "child": Person, "friend": Person, "mother": Person,
	"father": Person, "boss": Person, "partner": Person, "colleague": Person, "cousin": Person,
	"roommate": Person,
}

// notEntity are attributes whose value is never an entity, whatever its
// case.
var notEntity = map[string]bool{
	"name": true, "email": true, "phone": true, "birthday": true, "age": true, "timezone": true,
	"diet": true, "allergy": true, "avoids": true, "speaks": true,
}

// Entity is one node of the graph.
type Entity struct {
	// Name is how the memories spell it (the first spelling seen).
	Name string `json:"name"`
	Kind Kind   `json:"kind"`
	// Aliases are the other words the user names it by: the relation
	// ("sister" for the user's sister Anna), a pet's kind ("cat").
	Aliases []string `json:"aliases"`
	// Facts are the semantic and profile memories about it, in any state.
	Facts []*memory.Memory `json:"-"`
	// Mentions are the events that name it.
	Mentions []*memory.Memory `json:"-"`
	// LastSeen is the newest of its memories' creation times.
	LastSeen time.Time `json:"last_seen"`

	key string // lowercased Name
}

// Key is the entity's case-folded name, its identity in a graph.
func (e *Entity) Key() string { return e.key }

// Live returns the entity's facts that are live at t.
func (e *Entity) Live(t time.Time) []*memory.Memory {
	var out []*memory.Memory
	for _, m := range e.Facts {
		if m.Live(t) && m.SupersededBy == "" {
			out = append(out, m)
		}
	}
	return out
}

// Graph is the entities of one scope's memories.
type Graph struct {
	byKey   map[string]*Entity
	byAlias map[string][]*Entity
	// byFirst lists the keys by their first word (CJK keys under ""),
	// so a text is matched against the names its own words can start.
	byFirst map[string][]string
	indexed map[string]bool // keys in byFirst
}

// file indexes a new key under its first word.
func (g *Graph) file(k string) {
	if g.indexed[k] {
		return
	}
	g.indexed[k] = true
	first := ""
	if r, _ := utf8.DecodeRuneInString(k); !text.IsCJK(r) {
		kw := Words(k)
		if len(kw) == 0 {
			return
		}
		first = kw[0]
	}
	g.byFirst[first] = append(g.byFirst[first], k)
}

// Fold is the case-folded form of a name or alias, the graph's lookup key.
func Fold(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(strings.TrimSpace(s))), " ")
}

// Build derives the graph of ms (one scope's memories, any tier and
// state). Facts come first: their triples name entities and their
// aliases; then events and facts without a triple add mentions of the
// names in their text.
func Build(ms []*memory.Memory) *Graph {
	g := &Graph{byKey: map[string]*Entity{}, byAlias: map[string][]*Entity{}, byFirst: map[string][]string{}, indexed: map[string]bool{}}
	var rest []*memory.Memory
	// Subjects other than the user ("sister") are resolved once every
	// triple has named its value ("the user's sister is Anna").
	var bySubject []*memory.Memory
	for _, m := range ms {
		f := m.Fact()
		if f == nil || (m.Tier != memory.TierSemantic && m.Tier != memory.TierProfile) {
			rest = append(rest, m)
			continue
		}
		if f.Subject != "user" {
			bySubject = append(bySubject, m)
		}
		if name, kind, alias, ok := valueEntity(f); ok {
			e := g.add(name, kind, m)
			e.alias(alias)
			if f.Subject == "user" && alias != "" {
				g.byAlias[Fold(alias)] = appendOnce(g.byAlias[Fold(alias)], e)
			}
		}
		if f.Subject != "user" && f.Attribute == "name" && f.Value != "" {
			// ("sister", "name", "Anna"): Anna is the user's sister.
			e := g.add(f.Value, relationKind(f.Subject), m)
			e.alias(f.Subject)
			g.byAlias[Fold(f.Subject)] = appendOnce(g.byAlias[Fold(f.Subject)], e)
		}
	}
	for _, m := range bySubject {
		f := m.Fact()
		es := g.byAlias[Fold(f.Subject)]
		if len(es) == 0 {
			// An unnamed relative: the relation is the entity.
			e := g.add(f.Subject, relationKind(f.Subject), m)
			g.byAlias[Fold(f.Subject)] = appendOnce(g.byAlias[Fold(f.Subject)], e)
			continue
		}
		for _, e := range es {
			e.fact(m)
		}
	}
	for _, m := range rest {
		for _, key := range g.named(m) {
			e := g.byKey[key]
			if m.Tier == memory.TierSemantic || m.Tier == memory.TierProfile {
				e.fact(m)
			} else {
				e.mention(m)
			}
		}
	}
	return g
}

// named lists the entities m's text names: the graph's names and
// aliases, and proper names it spells (new entities of kind Other).
func (g *Graph) named(m *memory.Memory) []string {
	user := userText(m)
	var keys []string
	for _, n := range ProperNames(user) {
		k := Fold(n)
		if _, ok := g.byKey[k]; !ok {
			if len(g.byAlias[k]) > 0 {
				continue
			}
			kind := Other
			if strings.Contains(k, "project") {
				kind = Project
			}
			g.byKey[k] = &Entity{Name: n, Kind: kind, key: k}
			g.file(k)
		}
		keys = appendOnce(keys, k)
	}
	words := Words(user)
	check := func(k string) {
		if !slices.Contains(keys, k) && containsName(user, words, k) {
			keys = append(keys, k)
		}
	}
	for _, k := range g.byFirst[""] {
		check(k)
	}
	for i, w := range words {
		if i > 0 && slices.Contains(words[:i], w) {
			continue
		}
		for _, k := range g.byFirst[w] {
			check(k)
		}
	}
	return keys
}

// userText is the part of a memory that the user said: an event's user
// message (its reply is the assistant's), any other memory's text.
func userText(m *memory.Memory) string {
	if m.Tier == memory.TierEvent {
		u, _, _ := strings.Cut(m.Text, "\nAssistant: ")
		return u
	}
	return m.Text
}

func (g *Graph) add(name string, kind Kind, m *memory.Memory) *Entity {
	k := Fold(name)
	e, ok := g.byKey[k]
	if !ok {
		e = &Entity{Name: strings.TrimSpace(name), Kind: kind, key: k}
		g.byKey[k] = e
		g.file(k)
	} else if e.Kind == Other && kind != Other {
		e.Kind = kind
	}
	e.fact(m)
	return e
}

func (e *Entity) fact(m *memory.Memory) {
	if !slices.Contains(e.Facts, m) {
		e.Facts = append(e.Facts, m)
		e.seen(m)
	}
}

func (e *Entity) mention(m *memory.Memory) {
	e.Mentions = append(e.Mentions, m)
	e.seen(m)
}

func (e *Entity) seen(m *memory.Memory) {
	if m.CreatedAt.After(e.LastSeen) {
		e.LastSeen = m.CreatedAt
	}
}

func (e *Entity) alias(a string) {
	if a = strings.TrimSpace(strings.ReplaceAll(a, "_", " ")); a != "" && Fold(a) != e.key && !slices.ContainsFunc(e.Aliases, func(x string) bool { return Fold(x) == Fold(a) }) {
		e.Aliases = append(e.Aliases, a)
	}
}

func appendOnce[T comparable](s []T, v T) []T {
	if slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

// valueEntity reads the entity a triple's value names: its name, kind and
// the alias the attribute gives it ("sister" for (user, sister, Anna), the
// kind for (user, pet, "cat named Luna")).
func valueEntity(f *memory.Triple) (name string, kind Kind, alias string, ok bool) {
	v := strings.TrimSpace(f.Value)
	if v == "" || notEntity[f.Attribute] {
		return "", "", "", false
	}
	if f.Attribute == "pet" {
		if kindWord, n, ok := strings.Cut(v, " named "); ok {
			return n, Pet, kindWord, true
		}
		return v, Pet, "", true
	}
	if k, ok := kindOf[f.Attribute]; ok {
		if r, _ := utf8.DecodeRuneInString(v); k == Place && unicode.IsLower(r) {
			// "a small village near Oxford": a described place is filed
			// under the name it holds, which a message names; with none,
			// the words as said.
			if ns := ProperNames(v); len(ns) > 0 {
				return ns[0], k, "", true
			}
		}
		if k == Person && f.Subject == "user" {
			return v, k, f.Attribute, true
		}
		return v, k, "", true
	}
	if strings.Contains(f.Attribute, "project") || strings.HasSuffix(strings.ToLower(v), " project") {
		return v, Project, "", true
	}
	// An open attribute: its value is an entity when it is spelled as a
	// name ("my dentist is Dr. Okafor", "I use Rust").
	if properName(v) {
		return v, Other, "", true
	}
	return "", "", "", false
}

// relationKind is the kind of a non-user subject: a relative is a person,
// a pet word a pet.
func relationKind(subject string) Kind {
	if _, ok := kindOf[subject]; ok && kindOf[subject] == Person {
		return Person
	}
	switch subject {
	case "dog", "cat", "puppy", "kitten", "parrot", "hamster", "rabbit", "horse", "bird", "fish", "turtle":
		return Pet
	}
	return Person
}

// properName reports whether v is spelled as a name: a few words, the
// first capitalised (or CJK), not a sentence.
func properName(v string) bool {
	r, _ := utf8.DecodeRuneInString(v)
	if text.IsCJK(r) {
		return utf8.RuneCountInString(v) <= 8
	}
	return unicode.IsUpper(r) && len(strings.Fields(v)) <= 4 && !strings.ContainsAny(v, ".!?,;")
}

// Entities returns the graph's entities ordered by key.
func (g *Graph) Entities() []*Entity {
	out := make([]*Entity, 0, len(g.byKey))
	for _, e := range g.byKey {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b *Entity) int { return cmp.Compare(a.key, b.key) })
	return out
}

// Lookup finds an entity by name or alias, case-insensitively; an alias
// several entities share returns them all.
func (g *Graph) Lookup(name string) []*Entity {
	k := Fold(name)
	if e, ok := g.byKey[k]; ok {
		return []*Entity{e}
	}
	return g.byAlias[k]
}

// Named returns the entities q names, by name or alias.
func (g *Graph) Named(q string) []*Entity {
	words := Words(q)
	var out []*Entity
	for k, e := range g.byKey {
		if containsName(q, words, k) {
			out = appendOnce(out, e)
		}
	}
	for a, es := range g.byAlias {
		if containsName(q, words, a) {
			for _, e := range es {
				out = appendOnce(out, e)
			}
		}
	}
	slices.SortFunc(out, func(a, b *Entity) int { return cmp.Compare(a.key, b.key) })
	return out
}

// Words are the lowercased words of s (letters and digits; CJK runs kept
// whole), for matching names word by word.
func Words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-'
	})
}

// containsName reports whether text (words: Words(text)) names key: its
// words in a row, a possessive or plural -s allowed on the last; a CJK
// name as a substring.
func containsName(s string, words []string, key string) bool {
	if key == "" {
		return false
	}
	r, _ := utf8.DecodeRuneInString(key)
	if text.IsCJK(r) {
		return strings.Contains(s, key)
	}
	kw := Words(key)
	if len(kw) == 0 || len(kw) > len(words) {
		return false
	}
	for i := 0; i+len(kw) <= len(words); i++ {
		ok := true
		for j, w := range kw {
			x := words[i+j]
			if x != w && !(j == len(kw)-1 && x == w+"s") {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// ProperNames returns the proper names s spells: runs of capitalised
// words that do not open a sentence ("I met Anna at Blue Bottle" → Anna,
// Blue Bottle), common capitalised words (I, days, months) aside. A name
// that only ever opens a sentence is missed; the facts' triples name
// those.
func ProperNames(s string) []string {
	var out []string
	for _, sent := range text.Sentences(s) {
		fields := strings.Fields(sent)
		var run []string
		flush := func() {
			if len(run) > 0 {
				n := strings.Join(run, " ")
				if !slices.ContainsFunc(out, func(x string) bool { return Fold(x) == Fold(n) }) {
					out = append(out, n)
				}
				run = run[:0]
			}
		}
		for i, f := range fields {
			w := strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
			w = strings.TrimSuffix(strings.TrimSuffix(w, "'s"), "’s")
			r, _ := utf8.DecodeRuneInString(w)
			if i == 0 || w == "" || !unicode.IsUpper(r) || commonCapital[strings.ToLower(w)] || text.IsStopword(strings.ToLower(w)) {
				flush()
				continue
			}
			run = append(run, w)
			// Punctuation after the word ends the name.
			if strings.TrimRightFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) != f {
				flush()
			}
		}
		flush()
	}
	return out
}

// commonCapital are words capitalised for reasons other than naming.
var commonCapital = map[string]bool{
	"i": true, "i'm": true, "i've": true, "i'd": true, "i'll": true, "ok": true, "okay": true,
	"monday": true, "tuesday": true, "wednesday": true, "thursday": true, "friday": true, "saturday": true, "sunday": true,
	"january": true, "february": true, "march": true, "april": true, "may": true, "june": true, "july": true,
	"august": true, "september": true, "october": true, "november": true, "december": true,
	"mr": true, "mrs": true, "ms": true, "dr": true, "assistant": true, "user": true,
}

// Matcher is recall's use of the graph (memory.EntityMatcher): the graph
// of a query's candidate facts, and which of them are about an entity the
// query names, by name or alias. The candidates carry the aliases: "Where
// does Anna live?" finds "The user has a sister named Anna." by name, and
// through it "The user's sister lives in Porto.".
type Matcher struct{}

// About reports, for each of facts, whether it is a live fact about an
// entity q names. Only facts with a triple are about an entity: a free
// text that mentions a name ("Hey John, it's been a busy week") is not
// about John, and ranks as any other memory.
func (Matcher) About(q string, facts []*memory.Memory, at time.Time) []bool {
	out := make([]bool, len(facts))
	var dated []*memory.Memory
	for _, m := range facts {
		if m.Fact() != nil {
			dated = append(dated, m)
		}
	}
	if len(dated) == 0 {
		return out
	}
	g := Build(dated)
	named := g.Named(q)
	if len(named) == 0 {
		return out
	}
	for i, m := range facts {
		if !m.Live(at) || m.SupersededBy != "" {
			continue
		}
		for _, e := range named {
			if slices.Contains(e.Facts, m) {
				out[i] = true
				break
			}
		}
	}
	return out
}
