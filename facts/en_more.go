package facts

import (
	"strings"

	"github.com/memproxy/memproxy/internal/rx"
)

// relAdj are the words between "my" and a relative or a pet that do not
// change who it is ("my little sister", "our third baby").
var relAdj = map[string]bool{
	"little": true, "big": true, "baby": true, "older": true, "younger": true, "oldest": true, "eldest": true, "youngest": true,
	"new": true, "old": true, "best": true, "twin": true, "first": true, "second": true, "third": true, "fourth": true,
	"fifth": true, "only": true, "late": true, "dear": true, "lovely": true, "sweet": true, "newborn": true, "adopted": true,
}

// foods a diet can start or stop ("I started eating meat again").
var foods = map[string]bool{"meat": true, "fish": true, "chicken": true, "pork": true, "beef": true, "dairy": true,
	"eggs": true, "seafood": true, "sugar": true, "gluten": true}

// childWords name the user's children in "we have two kids, …".
var childWords = map[string]bool{"kid": true, "kids": true, "child": true, "children": true, "son": true, "sons": true,
	"daughter": true, "daughters": true, "boys": true, "girls": true, "baby": true, "babies": true, "twins": true}

var countWord = map[string]bool{"a": true, "an": true, "one": true, "two": true, "three": true, "four": true, "five": true,
	"six": true, "little": true, "young": true, "grown": true, "lovely": true, "wonderful": true, "teenage": true}

// children reads "have two kids, Sofia and Leo" / "a son named Tom".
func children(ts []tok, j int, subject string) []Fact {
	k := j
	for k < len(ts) && (countWord[ts[k].low] || ts[k].tag == "CD") {
		k++
	}
	if k >= len(ts) || !childWords[ts[k].low] || subject != "user" {
		return nil
	}
	word := childWord(ts[k].low)
	if n := ts[j].low; petCounts[n] && j+1 == k && strings.HasSuffix(ts[k].low, "s") || n == "twins" {
		// "I have three kids", "two daughters": how many, when no name
		// follows.
		named := false
		for _, t := range ts[k+1 : min(len(ts), k+4)] {
			named = named || t.capital || t.low == "named" || t.low == "called"
		}
		if !named {
			return []Fact{{Triple: tripleOf("user", "children", n+" "+ts[k].low)}}
		}
	}
	k++
	var out []Fact
	for ; k < len(ts); k++ {
		t := ts[k]
		switch {
		case t.low == "," || t.low == "and" || t.low == "named" || t.low == "called" || t.low == ":" || t.tag == ":":
			continue
		case (t.low == "a" || t.low == "an") && k+1 < len(ts) && childWords[ts[k+1].low] && len(out) > 0:
			// "a son named Max and a daughter named Ella": the next child
			// by its own word.
			k++
			word = childWord(ts[k].low)
			continue
		case t.capital:
			out = append(out, Fact{Triple: tripleOf("user", "child", t.w), word: word, aword: word})
			if age, end := childAge(ts, k+1); age != "" {
				// "Ella who is 5", "Ella (5)", "Ella, 5,", "Ella aged 5".
				out = append(out, Fact{Triple: tripleOf(t.w, "age", age), word: word})
				k = end - 1
			}
			continue
		}
		break
	}
	return out
}

// childWord is the word a child is named by in a fact: son, daughter, or
// child for the rest (kids, boys, twins).
func childWord(w string) string {
	w = strings.TrimSuffix(w, "s")
	if w == "kid" || w == "children" || w == "boy" || w == "girl" || w == "babie" || w == "twin" {
		return "child"
	}
	return w
}

// childAge reads an age said right after a child's name at ts[k]: "who
// is 5", "who's 5", "(5)", ", 5" (before a comma, "and" or the end),
// "aged 5", "age 5". It returns the age and the index past it.
func childAge(ts []tok, k int) (string, int) {
	num := func(i int) bool {
		return i < len(ts) && ts[i].tag == "CD" && len(ts[i].low) <= 2 && strings.Trim(ts[i].low, "0123456789") == ""
	}
	switch {
	case k+2 < len(ts) && ts[k].low == "who" && (ts[k+1].low == "is" || ts[k+1].low == "'s") && num(k+2):
		return ts[k+2].low, k + 3
	case k+2 < len(ts) && ts[k].low == "(" && num(k+1) && ts[k+2].low == ")":
		return ts[k+1].low, k + 3
	case k+1 < len(ts) && (ts[k].low == "aged" || ts[k].low == "age") && num(k+1):
		return ts[k+1].low, k + 2
	case k+1 < len(ts) && ts[k].low == "," && num(k+1) && (k+2 == len(ts) || ts[k+2].low == "," || ts[k+2].low == "and" || ts[k+2].tag == "."):
		return ts[k+1].low, k + 2
	}
	return "", k
}

// brands name what a device is: a car, a phone, a computer.
var brands = map[string]string{
	"honda": "car", "toyota": "car", "tesla": "car", "ford": "car", "bmw": "car", "audi": "car", "mercedes": "car",
	"volkswagen": "car", "vw": "car", "nissan": "car", "hyundai": "car", "kia": "car", "subaru": "car", "mazda": "car",
	"volvo": "car", "chevrolet": "car", "chevy": "car", "jeep": "car", "porsche": "car", "fiat": "car", "peugeot": "car",
	"renault": "car", "skoda": "car", "lexus": "car", "mini": "car", "rivian": "car", "polestar": "car", "byd": "car",
	"civic": "car", "corolla": "car", "camry": "car", "prius": "car", "golf": "car", "jaguar": "car", "land": "car",
	"iphone": "phone_model", "pixel": "phone_model", "galaxy": "phone_model", "samsung": "phone_model", "oneplus": "phone_model",
	"xiaomi": "phone_model", "huawei": "phone_model", "nokia": "phone_model", "motorola": "phone_model", "android": "phone_model",
	"macbook": "computer", "thinkpad": "computer", "chromebook": "computer", "imac": "computer", "xps": "computer", "surface": "computer",
	"laptop": "computer", "car": "car", "phone": "phone_model", "smartphone": "phone_model", "computer": "computer",
	"suv": "car", "truck": "car", "minivan": "car", "bike": "bike", "bicycle": "bike", "e-bike": "bike", "ebike": "bike",
}

// deviceKind is the slot a thing the user owns goes to ("Tesla Model 3"
// → car), "" when it is none of them.
func deviceKind(v string) string {
	for _, w := range strings.Fields(v) {
		w = strings.Trim(w, ",.")
		if k := brands[strings.ToLower(w)]; k != "" {
			return k
		}
		if bikeBrands[w] {
			return "bike" // a capital: "Specialized", not "a specialized role"
		}
	}
	return ""
}

// bikeBrands name a bicycle when capitalised; "bike" and "bicycle" do in
// any case (brands).
var bikeBrands = map[string]bool{"Trek": true, "Specialized": true, "Cannondale": true, "Brompton": true,
	"Bianchi": true, "Canyon": true, "Pinarello": true, "Orbea": true, "Cervélo": true, "Cervelo": true,
	"Schwinn": true, "Raleigh": true, "VanMoof": true, "Colnago": true}

// device reads a thing the user has or bought: "an Android phone, a
// Pixel 7" (the named one wins), "an iPhone 16 to replace the Pixel".
func device(ts []tok, j int, subject, word string) []Fact {
	val, end, ok := np(ts, j)
	if !ok {
		return nil
	}
	kind := deviceKind(val)
	if kind == "" {
		return nil
	}
	if w, rest, ok := strings.Cut(val, " "); ok && relAdj[strings.ToLower(w)] {
		val = rest // "a new MacBook Pro": the MacBook Pro
	}
	if end+2 < len(ts) && ts[end].low == "," && (ts[end+1].low == "a" || ts[end+1].low == "an" || ts[end+1].low == "the") {
		if v2, e2, ok := np(ts, end+1); ok && ts[end+2].capital {
			val, end = v2, e2
		}
	}
	f := Fact{Triple: tripleOf(subject, kind, val), word: word}
	for k := end; k+1 < len(ts) && k < end+4; k++ {
		if ts[k].low == "replace" || ts[k].low == "replacing" || ts[k].low == "instead" {
			f.Change = true
			if p, _, ok := np(ts, k+1); ok {
				f.Prior = p
			}
		}
	}
	return []Fact{f}
}

// studyContext: the sentence is about studies ("this term").
func studyContext(ts []tok) bool {
	for _, t := range ts {
		switch t.low {
		case "term", "semester", "degree", "major", "course", "courses", "university", "college", "studying", "study",
			"studies", "dropped", "minor", "phd", "masters", "bachelor", "school", "module":
			return true
		}
	}
	return false
}

// weekdayList reads "Mondays and Wednesdays", "Tuesday, Thursday".
func weekdayList(ts []tok, j int) (string, int) {
	var days []string
	k := j
	for ; k < len(ts); k++ {
		l := strings.TrimSuffix(ts[k].low, "s")
		if _, ok := dayNames[l]; ok {
			days = append(days, ts[k].w)
			continue
		}
		if (ts[k].low == "and" || ts[k].low == "," || ts[k].low == "or") && len(days) > 0 {
			continue
		}
		break
	}
	switch len(days) {
	case 0:
		return "", j
	case 1:
		return days[0], k
	}
	return strings.Join(days[:len(days)-1], ", ") + " and " + days[len(days)-1], k
}

// possessivePet reads "our dog Biscuit is a beagle", "my cat Luna".
func possessivePet(ts []tok, j int) []Fact {
	kind := ts[j].low
	k := j + 1
	switch {
	case k+1 < len(ts) && ts[k].low == "is" && (ts[k+1].low == "named" || ts[k+1].low == "called"):
		k += 2 // "my dog is named Rex"
	case k+2 < len(ts) && (ts[k].low == "'s" || ts[k].low == "s") && ts[k+1].low == "name" && ts[k+2].low == "is":
		k += 3 // "my cat's name is Luna"
	case k < len(ts) && (ts[k].low == "named" || ts[k].low == "called" || ts[k].low == ","):
		k++
	}
	if k >= len(ts) || !ts[k].capital {
		if a := ageAt(ts, j+1); a != "" {
			// "My dog is 3", "our cat just turned 2": the unnamed pet's
			// age, which a name said later takes over (LinkAge).
			return []Fact{{Triple: tripleOf(kind, "age", a), word: kind}}
		}
		return nil
	}
	name := ts[k].w
	f := Fact{Triple: tripleOf("user", "pet", kind+" named "+name)}
	k++
	if k < len(ts) && ts[k].low == "," {
		k++
	}
	if k+1 < len(ts) && ts[k].low == "is" && (ts[k+1].low == "a" || ts[k+1].low == "an") {
		if what, _, ok := np(ts, k+1); ok && !strings.EqualFold(what, kind) {
			f.detail = article(what) + " " + what
		}
	}
	if k < len(ts) && (ts[k].low == "died" || ts[k].low == "passed") ||
		k+1 < len(ts) && (ts[k].low == "ran" && ts[k+1].low == "away" || ts[k].low == "went" && ts[k+1].low == "missing" ||
			ts[k].low == "was" && ts[k+1].low == "put") {
		// "Our cat Mochi died", "… ran away", "… was put down".
		f.Ended = true
	}
	out := []Fact{f}
	// "My cat Miso turned 2", "our dog Rex is 3 (years old)": the pet's
	// age, about the pet by its name.
	if a := ageAt(ts, k); a != "" && !f.Ended {
		out = append(out, Fact{Triple: tripleOf(name, "age", a), word: kind})
	}
	return out
}

// ageAt reads an age said at ts[k]: "turned 10", "just turned 5", "is 9",
// "is now 3 years old", "'s 12"; "" when none.
func ageAt(ts []tok, k int) string {
	for k < len(ts) && (ts[k].low == "just" || ts[k].low == "has" || ts[k].low == "recently" || ts[k].low == "finally") {
		k++
	}
	if k >= len(ts) {
		return ""
	}
	verb := ts[k].low
	if verb != "turned" && verb != "turns" && verb != "is" && verb != "'s" {
		return ""
	}
	k++
	for k < len(ts) && (ts[k].low == "now" || ts[k].low == "already" || ts[k].low == "officially") {
		k++
	}
	if k >= len(ts) || ts[k].tag != "CD" {
		return ""
	}
	n := atoi(ts[k].w)
	if n <= 0 || n >= 120 {
		return ""
	}
	if verb == "is" || verb == "'s" {
		// "is 9" must be an age, not "is 9 minutes away".
		if k+1 < len(ts) && strings.HasPrefix(ts[k+1].tag, "NN") && ts[k+1].low != "years" && ts[k+1].low != "year" && ts[k+1].low != "months" {
			return ""
		}
	}
	if k+1 < len(ts) && (ts[k+1].low == "months" || ts[k+1].low == "month") {
		return ts[k].w + " months"
	}
	return ts[k].w
}

// bareAgeRe: "Ava turned 10 last week", "Rex is 3 years old now", "Milo
// just turned 4": a name's age, said without a first-person word.
var bareAgeRe = rx.MustCompile(`^\s*(?:(?:so|and|oh|well|btw|also|guess what),?\s+)?(?:[Ll]ittle\s+)?([A-Z][a-z]+)(?:(?:\s+(?:just|finally|officially|has|has just))?\s+(?:turned|turns|is)|'s)\s+(?:now\s+)?(\d{1,2})\b(?:\s+(years?|months?) old)?`)

// notAgeNames start sentences and are no one's name.
var notAgeNames = map[string]bool{"it": true, "this": true, "that": true, "he": true, "she": true, "they": true, "there": true,
	"today": true, "who": true, "what": true, "which": true, "everyone": true, "nobody": true, "chapter": true, "level": true,
	"version": true, "python": true, "java": true, "go": true, "rust": true, "windows": true, "ios": true, "android": true,
	"room": true, "gate": true, "page": true, "section": true, "step": true, "week": true, "day": true, "season": true}

// bareAge reads a name's age from a sentence without a first-person word
// ("Ava turned 10 last week"); the subject is the name, which the
// entity index ties to the user's child or pet of that name.
func bareAge(sent string) []Fact {
	m := bareAgeRe.FindStringSubmatch(strings.ReplaceAll(sent, "’", "'"))
	if m == nil || notAgeNames[strings.ToLower(m[1])] {
		return nil
	}
	low := strings.ToLower(sent)
	if m[3] == "" && !strings.Contains(low, "turn") && !ContainsWord(low, "now") && !ContainsWord(low, "today") {
		return nil // "Gate is 12", "Ava is 9 minutes away": an age says "turned", "years old" or "now"
	}
	v := m[2]
	if strings.HasPrefix(m[3], "month") {
		v += " months"
	}
	return []Fact{{Triple: tripleOf(m[1], "age", v)}}
}

// favoriteKey folds the words for one kind of favourite: favorite_cuisine,
// favorite_dish → favorite_food.
func favoriteKey(a string) string {
	a = strings.ReplaceAll(a, "favourite", "favorite")
	for _, w := range []string{"cuisine", "dish", "meal", "food"} {
		if a == "favorite_"+w {
			return "favorite_food"
		}
	}
	switch a {
	case "favorite_film":
		return "favorite_movie"
	case "favorite_colour":
		return "favorite_color"
	case "favorite_tune":
		return "favorite_song"
	}
	return a
}

// toolWords name what the user works with ("Python is my go-to
// language").
var toolWords = map[string]bool{"language": true, "editor": true, "tool": true, "stack": true, "framework": true,
	"database": true, "ide": true, "os": true, "distro": true, "browser": true, "shell": true}

// valueIsMine reads "<value> is my <attribute>": "Ethiopian food is my new
// favourite", "Priya is my manager", "Python is my go-to language".
func valueIsMine(ts []tok) []Fact {
	for i := 1; i+2 < len(ts); i++ {
		if ts[i].low != "is" || (ts[i+1].low != "my" && ts[i+1].low != "our") {
			continue
		}
		// The value: the noun phrase that ends before "is".
		s := i
		for s > 0 && (strings.HasPrefix(ts[s-1].tag, "NN") || strings.HasPrefix(ts[s-1].tag, "JJ") || ts[s-1].tag == "CD" || ts[s-1].capital) &&
			ts[s-1].tag != "RB" && !stopNP[ts[s-1].low] {
			s--
		}
		if s == i {
			return nil
		}
		if s < i-1 && ts[s].tag == "RB" || ts[s].tag == "UH" {
			s++
		}
		val := joinW(ts[s:i])
		var name []string
		fav := false
		for k := i + 2; k < len(ts); k++ {
			l := ts[k].low
			if l == "favorite" || l == "favourite" {
				fav = true
				continue
			}
			if relAdj[l] || l == "current" || l == "main" || l == "go-to" || l == "preferred" || l == "primary" ||
				l == "absolute" || l == "all-time" || l == "ultimate" || l == "very" || l == "total" || l == "biggest" {
				continue
			}
			if !strings.HasPrefix(ts[k].tag, "NN") {
				break
			}
			name = append(name, l)
		}
		head := strings.ToLower(val[strings.LastIndexByte(val, ' ')+1:])
		switch {
		case fav && len(name) == 0:
			a := favoriteKey("favorite_" + head)
			return []Fact{{Triple: tripleOf("user", a, val), aword: "favorite " + head, Open: !InVocabulary(a), Change: true}}
		case fav:
			a := favoriteKey("favorite_" + strings.Join(name, "_"))
			return []Fact{{Triple: tripleOf("user", a, val), aword: "favorite " + strings.Join(name, " "), Open: !InVocabulary(a)}}
		case len(name) == 1 && relations[name[0]] != "" && ts[s].capital:
			return []Fact{{Triple: tripleOf("user", relAttr(relations[name[0]]), val), word: name[0], aword: name[0]}}
		case len(name) > 0 && toolWords[name[len(name)-1]]:
			return []Fact{{Triple: tripleOf("user", "uses", val)}}
		}
		return nil
	}
	return nil
}

// atAs reads "at <Org> as a <job>" in a sentence without a subject:
// "First week at Brightwave as a product manager".
func atAs(ts []tok) []Fact {
	for _, t := range ts {
		switch t.low {
		case "he", "she", "they", "his", "her", "their", "you", "your":
			return nil
		}
	}
	for i := 0; i+3 < len(ts); i++ {
		if ts[i].low != "at" || !ts[i+1].capital {
			continue
		}
		org, end, ok := np(ts, i+1)
		if !ok || end+1 >= len(ts) || ts[end].low != "as" {
			continue
		}
		job, _, ok := np(ts, end+1)
		if !ok {
			continue
		}
		return []Fact{
			{Triple: tripleOf("user", "works_at", org), Change: true},
			{Triple: tripleOf("user", "job_title", strings.ToLower(job)), Change: true},
		}
	}
	return nil
}

// purpose reads what a value is for, after it: "for our backend
// services" → "for their backend services"; "" when the sentence goes on
// otherwise.
func purpose(ts []tok, j int) string {
	if j+1 >= len(ts) || ts[j].low != "for" {
		return ""
	}
	k := j + 1
	owner := ""
	switch ts[k].low {
	case "my", "our":
		owner = "their "
		k++
	case "the", "a", "an":
		owner = ts[k].low + " "
		k++
	}
	v, _, ok := np(ts, k)
	if !ok || strings.EqualFold(v, "everything") {
		return ""
	}
	return "for " + owner + v
}

// homeRes say where home is without "I live": "home for me is Lisbon
// now", "home's Lisbon these days", "Lisbon is home now", "Austin has been
// home for six years", "I call Lisbon home", "my home base is Porto". The
// place is a name.
var homeRes = []*rx.Regexp{
	rx.MustCompile(`(?i)^\s*(?:(?:so|and|well|anyway|these days|nowadays|now),?\s+)?(?:my\s+|our\s+)?home(?:\s+base)?(?:\s+for\s+(?:me|us))?(?:\s+(?:is|'s)|'s)\s+(?:now\s+|actually\s+)?(?-i:([A-Z][\p{L}'.-]+(?:\s+[A-Z][\p{L}'.-]+){0,2}))`),
	rx.MustCompile(`^\s*(?:(?:So|And|Well|Anyway),?\s+)?([A-Z][\p{L}'.-]+(?:\s+[A-Z][\p{L}'.-]+){0,2})\s+(?:is|has been|'s been)\s+(?:now\s+)?(?:my\s+|our\s+)?(?:new\s+)?home\b(?:\s+(?:now|these days|for good|for\s+(?:(?:the\s+)?(?:last|past)\s+)?(?:[\w-]+\s+){0,2}(?:years?|months?|decades?)(?:\s+now)?))?\s*[.!]?\s*$`),
	rx.MustCompile(`(?i)\b(?:i|we)\s+(?:now\s+)?call\s+(?-i:([A-Z][\p{L}'.-]+(?:\s+[A-Z][\p{L}'.-]+){0,2}))\s+home\b`),
}

// homeSaid reads a home said by one of homeRes.
func homeSaid(sent string) []Fact {
	s := strings.ReplaceAll(sent, "’", "'")
	for _, re := range homeRes {
		if m := re.FindStringSubmatch(s); m != nil && !notAgeNames[strings.ToLower(m[1])] && !isDay(m[1]) {
			f := Fact{Triple: tripleOf("user", "lives_in", strings.TrimRight(m[1], ".'"))}
			f.Change = true
			return []Fact{f}
		}
	}
	return nil
}

func isDay(w string) bool {
	_, ok := dayNames[strings.ToLower(w)]
	return ok
}

// togetherRe: "Sam and I got engaged", "Priya and I just got married":
// the partner, by name.
var togetherRe = rx.MustCompile(`^\s*(?:(?:so|and|guess what|big news),?:?\s+)?([A-Z][a-z]+) and I (?:just |finally |officially )?(?:got|are|'re|are now) (?:engaged|married)\b`)

func together(sent string) []Fact {
	m := togetherRe.FindStringSubmatch(strings.ReplaceAll(sent, "’", "'"))
	if m == nil || notAgeNames[strings.ToLower(m[1])] {
		return nil
	}
	f := Fact{Triple: tripleOf("user", "partner", m[1])}
	f.Change = true
	f.aword = "spouse" // "The user's spouse is Priya."
	if strings.Contains(m[0], "engaged") {
		f.aword = "fiancé"
	}
	return []Fact{f}
}
