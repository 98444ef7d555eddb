package facts

import (
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jdkato/prose/v2"
	"github.com/memproxy/memproxy/internal/rx"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/text"
)

// tok is one tagged word.
type tok struct {
	w, low, tag string
	capital     bool // starts with a capital letter (and is not "I")
}

var (
	modelOnce sync.Once
	model     *prose.Model
)

// tagger loads prose's embedded model once (about a second); every
// document after shares it. Only tests and a build whose array-form
// tagger could not be read use it.
func tagger() *prose.Model {
	modelOnce.Do(func() { model = prose.ModelFromData("memproxy") })
	return model
}

var contractions = strings.NewReplacer(
	"’", "'", "I'm", "I am", "i'm", "I am", "I've", "I have", "i've", "I have", "I'd", "I would",
	"can't", "can not", "won't", "will not", "n't", " not", "It's", "It is", "it's", "it is",
	"We're", "We are", "we're", "we are", "We've", "We have", "we've", "we have", "I'll", "I will", "i'll", "I will",
)

// enCue is the screen a sentence passes before it is tagged: a first-person
// statement with a fact verb or noun.
var enCue = rx.MustCompile(`(?i)\bcall me\b|\b(i|my|we|our)\b.*\b(go|goes|drive|drives|bought|own|kids|children|born|flight|live|living|reside|moved|relocated|based|located|from|work|working|joined|started|quit|left|resigned|handed|rent|rents|renting|owns|job|use|using|code|program|write|switched|changed|migrated|like|love|enjoy|prefer|adore|hate|dislike|stand|vegan|vegetarian|pescatarian|keto|allergic|speak|have|has|got|adopted|name|call|am|is|are|study|studying|married|eat|drink|call|avoid|avoiding|cut|play|teach|been|speak|lived|grew|learning|retired|laid|birthday|anniversary|settled|start|starting|begin|beginning|first|gave|give|stopped|stop|promoted|became|went|born|wear|wearing|run|ride|riding|cycle|train|hike|swim|ski|climb|shoot|skate|read|reread|finished|watched|rewatched|binged|visited|traveled|travelled|flew|trip|took|picked|turned|drinker|allergy|allergies|phd|doctorate|master's|masters|degree|back|learned|learnt|fluent|native|conversational|proficient|called|diagnosed|hired)` + practiceCue())

// gerunds are the activities a product is used for ("I run in Brooks":
// for running).
var gerunds = map[string]string{"run": "running", "runs": "running", "ride": "riding", "rides": "riding", "cycle": "cycling",
	"train": "training", "hike": "hiking", "swim": "swimming", "ski": "skiing", "climb": "climbing", "shoot": "shooting",
	"shoots": "shooting", "skate": "skating"}

// activityVerbs are the pastimes said with their verb alone ("I swim"),
// as the activity they name.
var activityVerbs = map[string]string{"swim": "swimming", "run": "running", "jog": "jogging", "hike": "hiking", "climb": "climbing",
	"boulder": "bouldering", "cycle": "cycling", "bike": "biking", "ski": "skiing", "snowboard": "snowboarding", "skate": "skating",
	"skateboard": "skateboarding", "surf": "surfing", "sail": "sailing", "row": "rowing", "kayak": "kayaking", "box": "boxing",
	"fence": "fencing", "dance": "dancing", "paint": "painting", "sketch": "sketching", "knit": "knitting", "crochet": "crocheting",
	"sew": "sewing", "bake": "baking", "garden": "gardening", "meditate": "meditating", "golf": "golf", "bowl": "bowling"}

// bareActivityRe is a statement that the user does a pastime, its verb
// alone or with where, how often or with whom ("Now I swim", "I climb at
// the gym on Fridays"); a verb with an object ("I run a bakery", "I paint
// the fence") is something else.
var bareActivityRe = rx.MustCompile(`(?i)^\s*(?:(?:and|but|so|now|these days|nowadays|lately|mostly|instead),?\s+){0,2}i\s+(?:now\s+|mostly\s+|mainly\s+|also\s+|still\s+|usually\s+|often\s+|regularly\s+)?(swim|run|jog|hike|climb|boulder|cycle|bike|ski|snowboard|skate|skateboard|surf|sail|row|kayak|box|fence|dance|paint|sketch|knit|crochet|sew|bake|garden|meditate|golf|bowl)(?:\s+(?:instead|now|again|a lot|competitively|outdoors|indoors)|\s+(?:at|in|with|on|around|along|near|by)\s+[^,;.!?]{1,40})*\s*[.!]*\s*$`)

// possPunct is a possessive directly before punctuation ("McDonald's.",
// "Joe's,"): the tokenizer drops such a token, so a space goes between.
var possPunct = rx.MustCompile(`('s|s')([.,!?;:])`)

// abbrevDot are the short forms whose period is part of the word ("St.
// Mary's", "Dr. Okafor"), kept in a value.
var abbrevDot = map[string]bool{"dr.": true, "mr.": true, "ms.": true, "mrs.": true, "st.": true, "mt.": true, "ft.": true,
	"prof.": true, "jr.": true, "sr.": true}

func tagEN(sent string) []tok {
	s := contractions.Replace(sent)
	s = possPunct.ReplaceAllString(s, "$1 $2")
	toks := proseTokens(s)
	var out []tok
	for i, t := range toks {
		w := t.Text
		if !emailRe.MatchString(w) && !(abbrevDot[strings.ToLower(w)] && w[0] >= 'A' && w[0] <= 'Z') {
			w = strings.TrimRight(w, ".,;:!")
		}
		if w == "" {
			if len(strings.TrimSpace(t.Text)) > 0 {
				out = append(out, tok{w: t.Text, low: t.Text, tag: "."})
			}
			continue
		}
		low := strings.ToLower(w)
		c := w[0] >= 'A' && w[0] <= 'Z' && low != "i" && (i > 0 || t.Tag == "NNP")
		out = append(out, tok{w: w, low: low, tag: t.Tag, capital: c})
	}
	return out
}

// proseTokens is s tokenised and tagged as prose does it, the tags
// predicted by the array form of its model (tagger.go); prose's own
// model is loaded only if that form's data could not be read.
func proseTokens(s string) []prose.Token {
	p := fastTagger()
	if p == nil {
		doc, err := prose.NewDocument(s, prose.WithSegmentation(false), prose.WithExtraction(false), prose.UsingModel(tagger()))
		if err != nil {
			return nil
		}
		return doc.Tokens()
	}
	// No tagging, no extraction: prose's tokenizer alone, no model.
	doc, err := prose.NewDocument(s, prose.WithSegmentation(false), prose.WithExtraction(false), prose.WithTagging(false))
	if err != nil {
		return nil
	}
	toks := doc.Tokens()
	words, tags := make([]string, len(toks)), make([]string, len(toks))
	for i, t := range toks {
		words[i] = t.Text
	}
	p.tag(words, tags)
	for i := range toks {
		toks[i].Tag = tags[i]
	}
	return toks
}

var (
	emailRe = rx.MustCompile(`[A-Za-z0-9._%+\-]+@[A-Za-z0-9.\-]+\.[A-Za-z]{2,}`)
	phoneRe = rx.MustCompile(`\+?\d[\d\s().\-]{6,}\d`)
	ageRe   = rx.MustCompile(`(?i)\bi am (\d{1,3}) (?:years old|yo)\b`)
)

// stopNP are words that end a value: dates, time adverbs, clause words.
var stopNP = map[string]bool{
	"last": true, "next": true, "this": true, "yesterday": true, "today": true, "tomorrow": true, "ago": true,
	"since": true, "now": true, "these": true, "every": true, "week": true, "month": true, "year": true,
	"weekend": true, "online": true, "most": true, "twice": true, "once": true, "daily": true, "regularly": true, "often": true,
	"recently": true, "lately": true, "instead": true, "anymore": true, "too": true,
	"as": true, "because": true, "and": true, "or": true, "but": true, "with": true, "when": true, "while": true,
	"for": true, "at": true, "in": true, "on": true, "to": true, "from": true, "so": true, "though": true,
	"although": true, "again": true, "also": true, "there": true, "here": true, "then": true, "which": true, "who": true,
	"that": true, "if": true, "by": true, "about": true, "after": true, "before": true, "during": true, "a": true, "an": true, "the": true,
}

// np reads the noun phrase starting at j: a value. It skips a leading
// article and stops at a preposition, a conjunction, a clause word, a
// verb or a date word. ok is false for a first-person or missing value.
func np(ts []tok, j int) (string, int, bool) {
	for j < len(ts) && (ts[j].low == "a" || ts[j].low == "an" || ts[j].low == "the" || ts[j].low == "some" ||
		ts[j].low == "both" && j+1 < len(ts) && ts[j+1].capital) { // "I use both Vim and VS Code"
		j++
	}
	start := j
	var words []string
	for ; j < len(ts) && len(words) < 6; j++ {
		t := ts[j]
		if t.low == "my" || t.low == "our" {
			return "", j, false
		}
		if t.low == "of" && len(words) > 0 && j+1 < len(ts) && ts[j+1].capital {
			words = append(words, t.w)
			continue
		}
		if (t.low == "&" || t.low == "+" || t.low == "-") && len(words) > 0 {
			words = append(words, t.w)
			continue
		}
		if t.tag == "POS" && len(words) > 0 && ts[j-1].capital {
			// A possessive inside a name: "St. Mary's Hospital",
			// "McDonald's", "Trader Joe's"; "Anna's cooking".
			words[len(words)-1] += t.w
			if j+1 < len(ts) && (ts[j+1].capital || strings.HasPrefix(ts[j+1].tag, "NN") && !stopNP[ts[j+1].low]) {
				continue
			}
			j++
			break
		}
		if stopNP[t.low] && !t.capital && !(len(words) > 0 && strings.HasPrefix(ts[j-1].tag, "JJ") && strings.HasPrefix(t.tag, "NN")) {
			// (An adjective still wants its noun: "a service-focused
			// online group".)
			break
		}
		nounish := strings.HasPrefix(t.tag, "NN") || strings.HasPrefix(t.tag, "JJ") || t.tag == "CD" || t.tag == "FW" ||
			(t.tag == "VBG" && (len(words) == 0 || strings.HasPrefix(ts[j-1].tag, "JJ"))) ||
			// A pastime of a noun and a gerund ends the phrase: "rock
			// climbing", "bird watching", "scuba diving".
			(t.tag == "VBG" && len(words) > 0 && len(words) < 3 && !ts[j-1].capital && gerundEnds(ts, j)) ||
			// The tagger reads some object nouns as verbs ("peanuts/VB"):
			// in object position the first word is taken unless it is a
			// function word.
			(len(words) == 0 && strings.HasPrefix(t.tag, "VB") && t.tag != "VBG") ||
			// … and, before a list, as an adverb ("guitar/RB , piano/NN
			// and drums"): a word a noun is listed with is a noun.
			(len(words) == 0 && t.tag == "RB" && j+2 < len(ts) && (ts[j+1].low == "," || ts[j+1].low == "and" || ts[j+1].low == "or") &&
				strings.HasPrefix(ts[j+2].tag, "NN")) ||
			// … and before a time phrase ("tennis/RB every Sunday"): a
			// word that is no adverb is the object.
			(len(words) == 0 && t.tag == "RB" && objectAdverb(ts, j))
		// … and a noun before a time adverb as an adverb too ("a high
		// school teacher/RB now"): after a noun, a word that is no
		// adverb, followed by one or by the end, ends the phrase.
		nounish = nounish || t.tag == "RB" && len(words) > 0 && strings.HasPrefix(ts[j-1].tag, "NN") && !adverbWord(t.low) &&
			(j+1 == len(ts) || ts[j+1].tag == "." || ts[j+1].tag == "," || adverbWord(ts[j+1].low))
		if !(t.capital || nounish) || t.tag == "PRP" || t.tag == "." || t.tag == "," || t.tag == ":" {
			break
		}
		words = append(words, t.w)
	}
	if len(words) == 0 {
		return "", start, false
	}
	v := strings.Join(words, " ")
	v = strings.ReplaceAll(v, " 's", "'s")
	v = strings.ReplaceAll(v, " - ", "-")
	return v, j, true
}

// gerundEnds: the gerund at ts[j] ends its phrase (the clause, a list, a
// time or place phrase follows), so it is the head of a compound
// ("rock climbing these days"), not a verb with an object.
func gerundEnds(ts []tok, j int) bool {
	if j+1 == len(ts) {
		return true
	}
	n := ts[j+1]
	return n.tag == "." || n.tag == "," || n.tag == ":" || n.low == "and" || n.low == "or" || n.low == "but" ||
		stopNP[n.low] && n.low != "a" && n.low != "an" && n.low != "the" || adverbWord(n.low)
}

// objectAdverb: ts[j], tagged an adverb, is an object noun the tagger
// misread: not a word that is an adverb ("well", "often", "-ly") and
// followed by a time or place phrase or the end of the clause.
func objectAdverb(ts []tok, j int) bool {
	l := ts[j].low
	if strings.HasSuffix(l, "ly") || trueAdverbs[l] || !isLetters(l) {
		return false
	}
	if j+1 == len(ts) {
		return true
	}
	switch n := ts[j+1]; {
	case n.tag == "." || n.tag == ",":
		return true
	case n.tag == "VBG" && gerundEnds(ts, j+1):
		return true // "bird/RB watching": a compound's first noun
	case n.low == "every" || n.low == "each" || n.low == "on" || n.low == "at" || n.low == "with" || n.low == "in" || n.low == "twice" || n.low == "once":
		return true
	}
	return false
}

func isLetters(s string) bool {
	for _, r := range s {
		if (r < 'a' || r > 'z') && r != '-' {
			return false
		}
	}
	return s != ""
}

// trueAdverbs are words that are adverbs wherever they stand.
var trueAdverbs = map[string]bool{"well": true, "often": true, "again": true, "together": true, "now": true, "too": true, "there": true,
	"here": true, "alone": true, "online": true, "outside": true, "inside": true, "hard": true, "sometimes": true, "always": true,
	"never": true, "soon": true, "later": true, "today": true, "tonight": true, "tomorrow": true, "yesterday": true, "already": true,
	"still": true, "also": true, "even": true, "just": true, "very": true, "so": true, "much": true, "more": true, "most": true,
	"less": true, "back": true, "away": true, "home": true, "abroad": true, "ever": true, "once": true, "twice": true, "anymore": true,
	"instead": true, "though": true, "then": true, "out": true, "up": true, "down": true, "off": true, "over": true, "around": true,
	"about": true, "almost": true, "enough": true, "far": true, "fast": true, "late": true, "early": true, "long": true, "right": true,
	"first": true, "last": true, "maybe": true, "perhaps": true, "quite": true, "rather": true, "not": true, "yet": true, "else": true,
	"anyway": true, "anywhere": true, "somewhere": true, "everywhere": true, "nowhere": true, "lot": true, "lots": true,
	"ago": true, "before": true, "after": true, "since": true, "forward": true, "ahead": true, "apart": true, "indoors": true,
	"outdoors": true, "upstairs": true, "downstairs": true, "overseas": true, "nearby": true, "meanwhile": true, "otherwise": true,
	"either": true, "neither": true, "best": true, "better": true, "worse": true, "least": true}

// skipAdv moves past adverbs and auxiliaries between a subject and its
// verb, noting a negation.
func skipAdv(ts []tok, j int) (int, bool) {
	neg := false
	for j < len(ts) {
		switch l := ts[j].low; {
		case l == "not" || l == "never":
			neg = true
		case l == "no" && j+1 < len(ts) && ts[j+1].low == "longer":
			neg = true
			j++
		case l == "also" || l == "now" || l == "just" || l == "really" || l == "mostly" || l == "mainly" || l == "currently" ||
			l == "still" || l == "recently" || l == "finally" || l == "actually" || l == "totally" || l == "absolutely" ||
			l == "usually" || l == "always" || l == "only" || l == "both" || l == "exclusively" || l == "generally" || l == "officially" || l == "already" || l == "primarily" || l == "definitely" ||
			l == "originally" || l == "strictly" || l == "fully" || l == "completely" || l == "entirely":
		case (l == "do" || l == "does" || l == "did" || l == "can" || l == "will") && j+1 < len(ts) && (ts[j+1].low == "not" || ts[j+1].low == "never"):
		case l == "can" && j+1 < len(ts) && ts[j+1].low == "speak":
			// "I can speak a bit of Japanese"
		case (l == "have" || l == "has") && j+1 < len(ts) && (ts[j+1].tag == "VBN" || ts[j+1].tag == "VBD" || ts[j+1].low == "been" || ts[j+1].low == "just"):
		case (l == "have" || l == "has") && j+2 < len(ts) && (ts[j+1].low == "also" || ts[j+1].low == "finally" || ts[j+1].low == "recently" || ts[j+1].low == "already" || ts[j+1].low == "now" || ts[j+1].low == "since") && (ts[j+2].tag == "VBN" || ts[j+2].tag == "VBD"):
			// "I've also started …": the perfect past its adverb.
		case l == "been" && j+1 < len(ts) && ts[j+1].tag == "VBG":
		case l == "will" && j+2 < len(ts) && ts[j+1].low == "be" && ts[j+2].tag == "VBG":
			// "I'll be working at Deutsche Bank"
			j++
		case (l == "am" || l == "is" || l == "are") && vbgAfter(ts, j+1):
			// "I'm now working for Globex", "I'm not working at
			// Initech anymore": past the adverbs to the verb.
			for ts[j+1].tag != "VBG" {
				j++
				neg = neg || ts[j].low == "not"
			}
		default:
			return j, neg
		}
		j++
	}
	return j, neg
}

// vbgAfter: ts[j] is a present participle, or one after time adverbs
// ("now working", "currently living"), other than "going", "doing",
// "being" (read by the copula: "not doing keto anymore").
func vbgAfter(ts []tok, j int) bool {
	for j < len(ts) && (ts[j].low == "now" || ts[j].low == "currently" || ts[j].low == "still" || ts[j].low == "also" || ts[j].low == "actually" || ts[j].low == "not") {
		j++
	}
	return j < len(ts) && ts[j].tag == "VBG" && ts[j].low != "going" && ts[j].low != "doing" && ts[j].low != "being"
}

var jobHeads = map[string]bool{
	"engineer": true, "developer": true, "programmer": true, "teacher": true, "doctor": true, "nurse": true, "student": true,
	"designer": true, "lawyer": true, "manager": true, "writer": true, "researcher": true, "scientist": true, "accountant": true,
	"consultant": true, "artist": true, "chef": true, "architect": true, "analyst": true, "pharmacist": true, "dentist": true,
	"professor": true, "journalist": true, "photographer": true, "musician": true, "pilot": true, "mechanic": true,
	"electrician": true, "plumber": true, "firefighter": true, "officer": true, "counselor": true, "therapist": true,
	"editor": true, "translator": true, "librarian": true, "cook": true, "baker": true, "barista": true, "waiter": true,
	"waitress": true, "cashier": true, "freelancer": true, "entrepreneur": true, "founder": true, "ceo": true, "cto": true,
	"intern": true, "lead": true, "director": true, "administrator": true, "technician": true, "veterinarian": true, "vet": true,
	"surgeon": true, "paramedic": true, "physicist": true, "chemist": true, "biologist": true, "economist": true, "psychologist": true,
	"recruiter": true, "salesperson": true, "marketer": true, "tester": true, "sysadmin": true, "coach": true, "trainer": true,
	"actor": true, "actress": true, "singer": true, "dancer": true, "painter": true, "author": true, "farmer": true, "driver": true,
	"trader": true, "banker": true, "broker": true, "clerk": true, "assistant": true, "receptionist": true, "secretary": true,
	"carpenter": true, "welder": true, "janitor": true, "cleaner": true, "guard": true, "soldier": true, "specialist": true,
	"coordinator": true, "associate": true, "advisor": true, "adviser": true, "strategist": true, "planner": true, "producer": true,
	"reporter": true, "curator": true, "stylist": true, "hairdresser": true, "tutor": true, "lecturer": true, "principal": true,
	"instructor": true, "operator": true, "agent": true, "representative": true, "porter": true, "midwife": true, "optician": true,
	"physiotherapist": true, "radiologist": true, "dietitian": true, "nutritionist": true, "auditor": true, "actuary": true,
	"underwriter": true, "paralegal": true, "surveyor": true, "illustrator": true, "animator": true, "copywriter": true,
}

var diets = map[string]bool{"vegan": true, "vegetarian": true, "pescatarian": true, "keto": true, "gluten-free": true, "paleo": true, "plant-based": true,
	"halal": true, "kosher": true}

var pets = map[string]bool{"dog": true, "cat": true, "puppy": true, "kitten": true, "parrot": true, "hamster": true, "rabbit": true,
	"bunny": true, "turtle": true, "tortoise": true, "fish": true, "horse": true, "snake": true, "lizard": true, "guinea": true, "bird": true}

// dogBreeds and catBreeds are the breeds a pet is often named by instead
// of its kind ("my labrador Bella", "a beagle named Scout"): they are pet
// words, and the pet is found by "dog" or "cat".
var (
	dogBreeds = map[string]bool{"labrador": true, "beagle": true, "corgi": true, "poodle": true, "husky": true,
		"pug": true, "dachshund": true, "chihuahua": true, "collie": true, "terrier": true, "spaniel": true, "retriever": true,
		"bulldog": true, "rottweiler": true, "doberman": true, "greyhound": true, "whippet": true, "schnauzer": true,
		"pomeranian": true, "samoyed": true, "akita": true, "shiba": true, "dalmatian": true, "labradoodle": true,
		"cockapoo": true, "goldendoodle": true, "sheepdog": true, "shepherd": true, "mastiff": true, "maltese": true,
		"weimaraner": true, "vizsla": true, "pitbull": true}
	catBreeds = map[string]bool{"siamese": true, "persian": true, "ragdoll": true, "tabby": true, "bengal": true, "sphynx": true,
		"burmese": true, "abyssinian": true, "calico": true}
)

func init() {
	for b := range dogBreeds {
		pets[b] = true
	}
	for b := range catBreeds {
		pets[b] = true
	}
}

func workContext(ts []tok) bool {
	for _, t := range ts {
		switch t.low {
		case "quit", "job", "jobs", "company", "work", "team", "hired", "startup", "employer", "engineer", "position", "role", "firm", "offer":
			return true
		}
	}
	return false
}

// officeAt reports a place's office at ts[j]: a capitalised name and the
// word office within two words ("Tokyo office", "New York office").
func officeAt(ts []tok, j int) bool {
	for k := j; k < len(ts) && k < j+3; k++ {
		if ts[k].low == "office" || ts[k].low == "offices" || ts[k].low == "hq" {
			return k > j
		}
		if !ts[k].capital {
			return false
		}
	}
	return false
}

// companyHeads are the nouns that name an employer joined by its name
// ("a startup called Zest", "an agency named Brightly").
var companyHeads = map[string]bool{"startup": true, "company": true, "firm": true, "agency": true, "studio": true,
	"consultancy": true, "bank": true, "lab": true, "business": true, "practice": true}

// workplaceHeads are the nouns a workplace said without its name ends in
// ("I work at a hospital", "a small law firm", "a bakery in Porto"):
// the companies' heads and the places people work at.
var workplaceHeads = func() map[string]bool {
	m := map[string]bool{}
	for w := range companyHeads {
		m[w] = true
	}
	for _, w := range []string{"hospital", "clinic", "surgery", "hospice", "nursing home", "care home", "pharmacy", "school",
		"university", "college", "kindergarten", "nursery", "daycare", "restaurant", "cafe", "café", "bakery", "bar", "pub",
		"hotel", "shop", "store", "supermarket", "factory", "warehouse", "plant", "library", "museum", "gallery", "nonprofit",
		"non-profit", "charity", "newspaper", "magazine", "publisher", "garage", "salon", "farm", "winery", "brewery", "airline",
		"airport", "insurer", "retailer", "manufacturer", "bookshop", "bookstore", "call centre", "call center", "theatre",
		"theater", "zoo", "vet", "hedge fund", "fund", "ngo", "bistro", "diner", "gym", "hostel", "resort", "spa", "mill"} {
		m[w] = true
	}
	return m
}()

// workplaceAt reads the employer at ts[k] after "a job at": a name, or a
// workplace described ("a law firm", its article kept).
func workplaceAt(ts []tok, k int) (string, int, bool) {
	if v, end, ok := genericWorkplace(ts, k); ok {
		return v, end, true
	}
	v, end, ok := np(ts, k)
	if ok && k < len(ts) && (ts[k].low == "a" || ts[k].low == "an") {
		v = ts[k].low + " " + v // "a bakery downtown": said, not named
	}
	return v, end, ok
}

// genericWorkplace reads a workplace said without its name at ts[k]: an
// indefinite article, then a noun phrase ending in a workplace noun. The
// value keeps its article ("a hospital", "an animal shelter") so the
// fact reads as said; a value with one is a description (Generic).
func genericWorkplace(ts []tok, k int) (string, int, bool) {
	if k >= len(ts) || ts[k].low != "a" && ts[k].low != "an" {
		return "", k, false
	}
	v, end, ok := np(ts, k)
	if !ok {
		return "", k, false
	}
	low := strings.ToLower(v)
	head := lastWord(low)
	if i := strings.LastIndexByte(low[:len(low)-len(head)], ' '); len(head) < len(low) && workplaceHeads[low[i+1:]] {
		head = low[i+1:] // "call centre", "care home"
	}
	if !workplaceHeads[head] && !slices.ContainsFunc(strings.Fields(low), func(w string) bool { return workplaceHeads[w] }) {
		return "", k, false // (a head word may come before its place: "a bakery downtown")
	}
	v = ts[k].low + " " + v
	if end+1 < len(ts) && (ts[end].low == "in" || ts[end].low == "near" || ts[end].low == "outside") {
		// "a small startup in London": the place a described workplace
		// is in stays with it.
		if name, e := namedAt(ts, end+1); name != "" {
			v, end = v+" "+ts[end].low+" "+name, e
		}
	}
	return v, end, true
}

// groupHeads are the nouns that name a group one is a member of, not an
// employer: "I joined the Sierra Club", "a Facebook group", "the Hallé
// Choir".
var groupHeads = map[string]bool{"club": true, "clubs": true, "choir": true, "chorus": true, "band": true, "orchestra": true,
	"ensemble": true, "troupe": true, "society": true, "league": true, "union": true, "party": true, "group": true,
	"association": true, "church": true, "circle": true, "guild": true, "community": true, "class": true, "course": true,
	"gym": true, "crew": true, "squad": true, "federation": true, "council": true, "committee": true, "forum": true,
	"movement": true, "scouts": true, "guides": true, "congregation": true, "fellowship": true, "lodge": true,
	"chapter": true, "cooperative": true, "co-op": true, "program": true, "programme": true, "bootcamp": true,
	"network": true, "alliance": true, "collective": true, "meetup": true, "challenge": true, "waitlist": true,
	"server": true, "subreddit": true, "channel": true, "list": true, "cult": true, "coalition": true}

// joinKind says what joining the named organisation val (the phrase
// ending before ts[end]) was: joinGroup for a group or a service the
// user signed up to, joinEmployer when the sentence says it is a job,
// joinMaybe for a proper name the sentence says nothing more about ("I
// joined Stripe!", "I joined Reddit"): Extract decides that one on the
// whole message (employerTurn), and it is a membership unless the turn
// speaks of work. A wrong employer supersedes the real one, so the
// evidence must be there:
//
//   - a role: "as an engineer", "as their new CTO" (not "as a member",
//     "as a volunteer");
//   - work words in the sentence: job, hired, offer, position, role,
//     office, colleagues ("at work" says where it happened, not what);
//
// and never for a group ("the Sierra Club", a head noun such as club,
// choir, community), a platform (an app, a site, a server, a known
// service such as Reddit or Strava, "to learn Spanish", "to track my
// runs") unless a role says so, or someone joined for something ("I
// joined Mike for lunch").
func joinKind(ts []tok, val string, end int) int {
	words := strings.Fields(strings.ToLower(val))
	if len(words) == 0 || groupHeads[words[len(words)-1]] {
		return joinGroup
	}
	if end < len(ts) && (ts[end].low == "for" || ts[end].low == "with" || ts[end].low == "and") {
		return joinGroup
	}
	role := false
	for k := end; k+1 < len(ts); k++ {
		if ts[k].low != "as" {
			continue
		}
		m := k + 1
		for m < len(ts) && (ts[m].low == "a" || ts[m].low == "an" || ts[m].low == "the" || ts[m].low == "their" || ts[m].low == "its" || ts[m].tag == "JJ" || ts[m].tag == "PRP$") {
			m++
		}
		for ; m < len(ts) && strings.HasPrefix(ts[m].tag, "NN"); m++ {
			if nonRoles[ts[m].low] {
				return joinGroup
			}
			if jobHeads[ts[m].low] || jobHeads[strings.TrimSuffix(ts[m].low, "s")] {
				role = true
			}
		}
	}
	if role {
		return joinEmployer
	}
	if platforms[words[0]] || platformSentence(ts) {
		return joinGroup
	}
	for i, t := range ts {
		switch t.low {
		case "work", "working":
			// "I joined Slack at work": where it happened.
			if i > 0 && (ts[i-1].low == "at" || ts[i-1].low == "from") || i+1 < len(ts) && ts[i+1].low == "on" {
				continue
			}
			return joinEmployer
		case "job", "jobs", "hired", "employer", "position", "role", "offer", "office", "colleagues", "salary", "startup", "firm", "company":
			return joinEmployer
		}
	}
	return joinMaybe
}

const (
	joinGroup = iota
	joinEmployer
	joinMaybe
)

// nonRoles are what one joins as without being employed: "as a member".
var nonRoles = map[string]bool{"member": true, "volunteer": true, "guest": true, "fan": true, "user": true, "subscriber": true,
	"customer": true, "supporter": true, "donor": true, "patron": true, "participant": true, "beginner": true, "player": true,
	"runner": true, "rider": true, "reader": true, "listener": true, "viewer": true, "follower": true, "mentee": true, "trial": true}

// platforms are services people sign up to, which are rarely the
// employer joined ("I joined Reddit", "I joined Strava last week").
var platforms = map[string]bool{"reddit": true, "strava": true, "discord": true, "twitter": true, "instagram": true, "tiktok": true,
	"facebook": true, "linkedin": true, "mastodon": true, "bluesky": true, "threads": true, "duolingo": true, "peloton": true,
	"goodreads": true, "letterboxd": true, "pinterest": true, "snapchat": true, "whatsapp": true, "telegram": true, "signal": true,
	"tumblr": true, "youtube": true, "twitch": true, "patreon": true, "substack": true, "medium": true, "quora": true,
	"nextdoor": true, "meetup": true, "tinder": true, "hinge": true, "bumble": true, "github": true, "gitlab": true,
	"kaggle": true, "fitbit": true, "myfitnesspal": true, "headspace": true, "couchsurfing": true, "spotify": true,
	"netflix": true, "slack": true, "steam": true, "xbox": true, "playstation": true, "komoot": true, "zwift": true,
	"classpass": true, "audible": true, "kindle": true, "weibo": true, "wechat": true, "xiaohongshu": true, "bilibili": true}

// platformSentence: the sentence names a platform or what it is for
// ("the app", "their Discord server", "to learn Spanish", "to track my
// runs", "signed up", "an account").
func platformSentence(ts []tok) bool {
	for i, t := range ts {
		switch t.low {
		case "app", "apps", "site", "website", "platform", "server", "account", "forum", "subreddit", "community",
			"newsletter", "waitlist", "beta", "signed", "sign", "download", "downloaded", "username", "profile":
			return true
		case "to":
			if i+1 < len(ts) && (ts[i+1].low == "learn" || ts[i+1].low == "track" || ts[i+1].low == "log" || ts[i+1].low == "meet" || ts[i+1].low == "find" || ts[i+1].low == "follow" || ts[i+1].low == "chat" || ts[i+1].low == "practice" || ts[i+1].low == "practise") {
				return true
			}
		}
	}
	return false
}

// employerTurn: a message that speaks of a job change around a bare
// join ("I quit Initech. I joined Globex last week.", "Big news: I've
// joined Stripe! … near the new office."): an employer ended in it, or a
// work word in it.
func employerTurn(msg string, fs []Fact) bool {
	for _, f := range fs {
		if f.Attribute == "works_at" && f.Ended || f.Attribute == "job_title" && !f.join {
			return true
		}
	}
	return workTurnRe.MatchString(msg)
}

var workTurnRe = rx.MustCompile(`(?i)\b(job|jobs|office|offices|colleagues?|co-?workers?|boss|manager|hired|hiring|salary|offer|onboarding|badge|resigned|quit|notice|laid off|fired|employer|company|startup|position|role|career|interview|interviews|contract|first day|first week|new team|commute)\b`)

// stopsRe says a state has ended ("not … anymore", "no longer").
var stopsRe = rx.MustCompile(`(?i)\b(any ?more|no longer)\b`)

func tokText(ts []tok) string {
	var b strings.Builder
	for _, t := range ts {
		b.WriteString(t.low + " ")
	}
	return b.String()
}

// dietAt is the index of the diet named by "on a keto diet", "doing
// keto", "following a vegan diet" at ts[j], or -1.
func dietAt(ts []tok, j int) int {
	t := ts[j].low
	if t != "doing" && t != "following" && t != "on" {
		return -1
	}
	k := j + 1
	for k < len(ts) && (ts[k].low == "a" || ts[k].low == "the" || ts[k].low == "strict") {
		k++
	}
	if k < len(ts) && diets[ts[k].low] && (t == "doing" || k+1 < len(ts) && ts[k+1].low == "diet") {
		return k
	}
	return -1
}

// titleAfterEmployer reads the job said after the employer of a new or
// held job ("I got a new job at Shopify as a backend engineer", "I just
// started at Google as a product manager"): "as" and a noun phrase whose
// head is a job word, after the employer's name, when the sentence
// stated no job of its own.
func titleAfterEmployer(ts []tok, fs []Fact) []Fact {
	at := slices.IndexFunc(fs, func(f Fact) bool { return f.Subject == "user" && f.Attribute == "works_at" && !f.Ended })
	if at < 0 || slices.ContainsFunc(fs, func(f Fact) bool { return f.Attribute == "job_title" }) {
		return nil
	}
	org := strings.Fields(fs[at].Value)
	for k := 0; k+len(org) < len(ts); k++ {
		end := k + len(org)
		if ts[end].low != "as" || !slices.EqualFunc(ts[k:end], org, func(t tok, w string) bool { return strings.EqualFold(t.w, w) }) {
			continue
		}
		job, _, ok := np(ts, end+1)
		if !ok || !jobHeads[strings.ToLower(job[strings.LastIndexByte(job, ' ')+1:])] {
			return nil
		}
		f := Fact{Triple: tripleOf("user", "job_title", strings.ToLower(job)), Change: fs[at].Change}
		return []Fact{f}
	}
	return nil
}

// dwellings are the homes a user rents, owns or shares.
var dwellings = map[string]bool{"flat": true, "apartment": true, "house": true, "room": true, "studio": true,
	"place": true, "condo": true, "cottage": true, "bedsit": true, "loft": true, "home": true}

// extractEN reads one English sentence.
func extractEN(sent string) []Fact {
	if fs := extractENRules(sent); len(fs) > 0 {
		return fs
	}
	if m := bareActivityRe.FindStringSubmatch(sent); m != nil {
		// "Now I swim", "I climb at the local gym": a pastime said with
		// its verb alone, when nothing else read the sentence ("I run in
		// Brooks" names shoes).
		return []Fact{{Triple: tripleOf("user", "activity", activityVerbs[strings.ToLower(m[1])])}}
	}
	return usedTo(sent)
}

// usedToRe is a first clause saying what the user used to be or do ("I
// used to live in Berlin", "I used to love jazz, but …"): the verb and
// what follows it, to the clause's end.
var usedToRe = rx.MustCompile(`(?i)^\s*(?:(?:well|honestly|actually|so|and|but|oh),?\s+)?i\s+used\s+to\s+((?:be|live|work|play|love|like|enjoy|adore|hate|dislike|speak|study|drive|own|have|eat|drink|use|go)\b[^,;:!?]*?)(?:\s*(?:,|;|\bbut\b|\band\b|\buntil\b|\bbefore\b|\bwhen\b|\bback\b)|[.!?]*\s*$)`)

// usedTo reads what the user used to be or do as ended: the clause in the
// present, each of its facts no longer holding ("I used to live in
// Berlin" ends lives in Berlin; "I used to love jazz" the like). It read
// nothing, and a live fact it contradicts stayed.
func usedTo(sent string) []Fact {
	m := usedToRe.FindStringSubmatch(sent)
	if m == nil {
		return nil
	}
	clause := strings.TrimSpace(m[1])
	if v, rest, ok := strings.Cut(clause, " "); ok && strings.EqualFold(v, "be") {
		clause = "am " + rest
	}
	var out []Fact
	for _, f := range extractENRules("I " + clause) {
		if f.Note || f.AnyValue || f.Subject != "user" {
			continue
		}
		f.Ended, f.Change = true, true
		out = append(out, f)
	}
	return out
}

// extractENRules reads one English sentence with the patterns and the
// tagged tokens.
func extractENRules(sent string) []Fact {
	sent = resolvePronounEN(sent)
	if fs := bareAge(sent); fs != nil {
		return fs
	}
	if c := condition(sent); c != "" {
		// "I'm pregnant", "I'm a night owl": a standing condition; a
		// clause of its own after it is read too ("I have type 1
		// diabetes and I'm lactose intolerant").
		out := []Fact{{Triple: tripleOf("user", "condition", c)}}
		if loc := subjectClauseRe.FindStringIndex(sent); loc != nil && loc[0] > 0 {
			rest := strings.TrimLeft(sent[loc[0]:], " ,;")
			for _, w := range []string{"and ", "but ", "so ", "while ", "whereas ", "plus "} {
				rest = strings.TrimPrefix(rest, w)
			}
			out = append(out, extractEN(rest)...)
		}
		return out
	}
	if fs := homeSaid(sent); fs != nil {
		return fs
	}
	if fs := together(sent); fs != nil {
		return fs
	}
	if f, ok := reachMe(sent); ok {
		return []Fact{f}
	}
	if m := moveDoneRe.FindStringSubmatch(sent); m != nil {
		// "The move to Edinburgh went well": the move happened.
		f := Fact{Triple: tripleOf("user", "lives_in", m[1]+m[2]), Change: true, move: true}
		return []Fact{f}
	}
	if l := replyLanguage(sent); l != "" {
		return []Fact{{Triple: tripleOf("user", "reply_language", l)}}
	}
	var out []Fact
	if m := namedDeathRe.FindStringSubmatch(sent); m != nil && !notAgeNames[strings.ToLower(m[1])] {
		// "Rex passed away last week": the pet of that name, if the user
		// has one (reconcile ends it in the slot that holds it, and drops
		// it for anyone else: a person is no pet). The rest of the
		// sentence is read as well ("…, and we got a rabbit named Clover").
		f := Fact{Triple: tripleOf("user", "pet", m[1]), Alts: []string{"pet"}}
		f.Ended, f.Change = true, true
		out = append(out, f)
	}
	if m := namedGoneRe.FindStringSubmatch(sent); m != nil && len(out) == 0 {
		name := m[1] + m[2]
		if !notAgeNames[strings.ToLower(name)] {
			// "We had to rehome Buddy", "we gave Rex away": the pet of
			// that name, as a death says it.
			f := Fact{Triple: tripleOf("user", "pet", name), Alts: []string{"pet"}}
			f.Ended, f.Change = true, true
			out = append(out, f)
		}
	}
	implicit := implicitRe.MatchString(sent)
	if !enCue.MatchString(contractions.Replace(sent)) && !implicit && !aboutRe.MatchString(sent) && !relCue.MatchString(sent) && !newJobRe.MatchString(sent) {
		return out
	}
	if m := ageRe.FindStringSubmatch(contractions.Replace(sent)); m != nil {
		out = append(out, Fact{Triple: tripleOf("user", "age", m[1])})
	}
	if m := implicitRe.FindStringSubmatchIndex(sent); m != nil && !strings.EqualFold(sent[m[2]:m[3]], "living") {
		// "Went back to the iPhone": read as "I went back to the iPhone",
		// so the tagger sees the verb as one (alone, capitalised, it is
		// often a proper noun).
		sent = withSubject(sent, m[2])
		implicit = false
	}
	ts := tagEN(sent)
	// userClause reads the user's verb phrase at k and the ones after
	// "and" or "but" that share its subject ("I quit Acme and joined
	// Globex", "I'm from Kyoto but live in Osaka").
	userClause := func(k int) {
		out = append(out, clause(ts, k, "user", "")...)
		for m := k; m+1 < len(ts); m++ {
			if ts[m].low == "i" || ts[m].low == "we" || ts[m].tag == "." {
				break
			}
			// "… and my wife moved": a new subject. "I handed in my
			// notice … and started at …": an object, the user's clause
			// goes on.
			if (ts[m].low == "my" || ts[m].low == "our") && m > k && (ts[m-1].low == "and" || ts[m-1].low == "but" || ts[m-1].low == "so" || ts[m-1].tag == ",") {
				break
			}
			if ts[m].low == "and" || ts[m].low == "but" {
				n := m + 1
				for n+1 < len(ts) && (ts[n].low == "now" || ts[n].low == "then" || ts[n].low == "also" || ts[n].low == "still" || ts[n].low == "currently" || ts[n].low == "later") {
					n++ // "… but now live in London"
				}
				if strings.HasPrefix(ts[n].tag, "VB") || pastVerbs[ts[n].low] || andVerbs[ts[n].low] {
					fs := clause(ts, n, "user", "")
					if n > m+1 {
						for i := range fs {
							fs[i].Change = fs[i].Change || ts[m+1].low == "now"
						}
					}
					out = append(out, fs...)
				}
			}
		}
	}
	if implicit && len(ts) > 0 {
		// "Sold the Civic and bought a Tesla": a diary-style sentence
		// whose subject, left out, is the user.
		userClause(0)
	}
	for i := 0; i < len(ts); i++ {
		switch ts[i].low {
		case "i", "we":
			if !unreal(ts, i) {
				userClause(i + 1)
			}
		case "my", "our":
			if i+2 < len(ts) && (ts[i+1].low == "trip" || ts[i+1].low == "vacation" || ts[i+1].low == "holiday") && ts[i+2].low == "to" && !hypothetical(ts, i) && pastTags(ts) {
				// "on my trip to the Smoky Mountains last year" (not "I'm
				// excited for our trip to Rome in June": not been yet)
				if v, ok := titleAt(ts, i+3, true); ok {
					out = append(out, Fact{Triple: tripleOf("user", "visited", v)})
					continue
				}
			}
			out = append(out, possessive(ts, i+1, sent)...)
		case "me":
			// "my doctor told me to cut out gluten": what the user is
			// to do is the user's.
			if i+2 < len(ts) && ts[i+1].low == "to" && strings.HasPrefix(ts[i+2].tag, "VB") {
				out = append(out, clause(ts, i+2, "user", "")...)
			}
		case "call":
			if i == 0 {
				out = append(out, clause(ts, 0, "user", "")...)
			} else if name := goesBy(ts, i); name != "" && contains([]string{"please", "pls", "just", "can", "could", "may", "should", "to", "and", "now", ","}, ts[i-1].low) {
				// "Please call me Sasha from now on", "you can call me Sam"
				out = append(out, Fact{Triple: tripleOf("user", "name", name)})
			}
		}
	}
	if slices.ContainsFunc(out, func(f Fact) bool { return f.Subject == "user" && !f.Note && !f.appos }) && relAndIRe.MatchString(sent) {
		// "My boyfriend Tom and I live together in Leeds": the user's
		// clause holds what the sentence says of them both, so no note
		// of it is kept beside (it stayed live when the user moved).
		out = slices.DeleteFunc(out, func(f Fact) bool { return f.Note && f.Text == "" })
	}
	if !slices.ContainsFunc(out, func(f Fact) bool { return f.Attribute == "works_at" }) {
		out = append(out, newJobAt(ts)...)
	}
	out = append(out, coordinated(ts, out)...)
	out = append(out, titleAfterEmployer(ts, out)...)
	out = append(out, insteadOf(sent, out)...)
	if len(out) == 0 {
		out = append(out, valueIsMine(ts)...)
	}
	if len(out) == 0 {
		out = append(out, atAs(ts)...)
	}
	return out
}

// relAndIRe: a relative and the user are the sentence's subject.
var relAndIRe = rx.MustCompile(`(?i)^\W*(?:my|our)\s+[\w' ]{1,30}?\s+and\s+I\b`)

// relFirstRe: a sentence whose subject is one of the user's people ("My
// parents don't live in Nice anymore, …").
var relFirstRe = rx.MustCompile(`(?i)^\W*(?:(?:so|also|well|oh|and|but|btw|update)\W+)?(my|our)\s+((?:(?:little|big|older|younger|baby|twin|step|best)\s+)?(mom and dad|mum and dad|mother and father|[a-z-]+))\b`)

// laterPronounRe: "they/he/she" starting a later clause of the sentence.
var laterPronounRe = rx.MustCompile(`(?i)([,;]\s*(?:and\s+|but\s+|so\s+|now\s+)?|\s+(?:and|but|so)\s+)(they|he|she)('re|'s|'ve|'ll)?\b`)

// resolvePronounEN reads "they", "he" or "she" at the start of a later
// clause as the relative the sentence began with, when the pronoun fits
// them: "My parents don't live in Nice anymore, they moved back to Lyon"
// → "…, my parents moved back to Lyon", so the clause says the parents'
// home (it was read as no one's).
func resolvePronounEN(sent string) string {
	m := relFirstRe.FindStringSubmatchIndex(sent)
	if m == nil {
		return sent
	}
	word := strings.ToLower(sent[m[6]:m[7]])
	rel := relations[word]
	if strings.Contains(word, " and ") {
		rel = "parents"
	}
	if rel == "" {
		return sent
	}
	head := sent[:m[1]]
	tail := laterPronounRe.ReplaceAllStringFunc(sent[m[1]:], func(x string) string {
		sm := laterPronounRe.FindStringSubmatch(x)
		if pronounFits(strings.ToLower(sm[2]), rel, word) {
			return sm[1] + sent[m[2]:m[3]] + " " + sent[m[4]:m[5]] + sm[3]
		}
		return x
	})
	return head + tail
}

// pronounFits reports whether a pronoun can stand for the relative rel
// (said as word).
func pronounFits(p, rel, word string) bool {
	switch p {
	case "they":
		return Plural(rel)
	case "he":
		return pronounOf(rel, word) == "his"
	case "she":
		return pronounOf(rel, word) == "her"
	}
	return false
}

// relCue: the user names one of their people or pets ("our second
// child, Iris, arrived").
var relCue = func() *rx.Regexp {
	var words []string
	for w := range relations {
		if w[0] < 0x80 {
			words = append(words, regexp.QuoteMeta(w))
		}
	}
	for w := range pets {
		words = append(words, w)
	}
	sort.Strings(words)
	return rx.MustCompile(`(?i)\b(?:my|our)\s+(?:\w+\s+)?(?:` + strings.Join(words, "|") + `)s?\b`)
}()

// unrealWords before the user's clause at ts[i] make it no statement of
// the user's: role play ("Pretend I'm a doctor", "imagine I lived in
// Oslo") and what others assume or say ("people assume I'm from Texas").
var unrealWords = map[string]bool{"pretend": true, "pretending": true, "imagine": true, "imagining": true, "suppose": true,
	"supposing": true, "assume": true, "assumes": true, "assuming": true, "roleplay": true, "role-play": true,
	"thinks": true, "believes": true, "claims": true, "says": true, "insists": true, "hypothetically": true}

func unreal(ts []tok, i int) bool {
	for k := i - 1; k >= 0 && ts[k].low != "," && ts[k].tag != "."; k-- {
		// "If I moved to Japan, …", "… unless I move to Leeds": a
		// condition, not a statement (not "If I'm honest, I hate it").
		if ts[k].low == "if" || ts[k].low == "unless" {
			return true
		}
	}
	for _, t := range ts[:i] {
		if unrealWords[t.low] {
			return true
		}
	}
	return false
}

// adverbWord: a word that is an adverb whatever the tagger says (the
// -ly adverbs and the common short ones).
func adverbWord(w string) bool {
	return strings.HasSuffix(w, "ly") || commonAdverbs[w]
}

var commonAdverbs = map[string]bool{"now": true, "then": true, "too": true, "also": true, "here": true, "there": true,
	"again": true, "still": true, "already": true, "yet": true, "just": true, "even": true, "ever": true, "never": true,
	"always": true, "often": true, "soon": true, "today": true, "tonight": true, "tomorrow": true, "yesterday": true,
	"anymore": true, "together": true, "back": true, "away": true, "home": true, "abroad": true, "instead": true,
	"though": true, "so": true, "very": true, "well": true, "much": true, "more": true, "most": true, "less": true,
	"once": true, "twice": true, "almost": true, "quite": true, "rather": true, "around": true, "up": true,
	"down": true, "out": true, "off": true, "over": true, "on": true, "in": true, "not": true, "lately": true,
	"nowadays": true, "recently": true, "anyway": true, "either": true, "else": true, "ago": true, "full-time": true,
	"part-time": true, "remotely": true, "currently": true, "these": true, "this": true, "last": true, "next": true}

// userSubjectRe: a sentence whose subject is the user (after a lead such
// as "Big news:"); beenClauseRe a
// clause after a comma that leaves that subject out ("…, been living in
// Manchester"), read as a sentence of its own (splitBeenClauses).
var (
	userSubjectRe = rx.MustCompile(`^\W*(?:[A-Z][\w ]{0,20}:\s*)?(?:I|I'm|I've|I am|I have|We|We're|We've)\b`)
	notDietClause = rx.MustCompile(`,\s*(?:so\s+|and\s+)?(?:i'm\s+|I'm\s+)?not\s+((?:strictly\s+|really\s+|fully\s+)?(?:vegan|vegetarian|pescatarian|keto|paleo|gluten-free|plant-based))\s+any\s?more\b`)
	// commaVerbRe: a clause after a comma that starts with a past-tense
	// verb and leaves the user out as its subject ("I gave up coffee,
	// switched to green tea"): it shares the sentence's subject.
	commaVerbRe  = rx.MustCompile(`,\s+(?:then\s+|so\s+)?((?:switched|moved|started|joined|quit|bought|sold|adopted|picked|became|relocated|stopped|traded|upgraded|replaced|ditched|dropped|retired|graduated|married|began|learned|learnt|resigned|settled)\s+(?:back\s+|over\s+)?(?:to|from|at|in|into|up|a|an|the|my|our|for|as|on|with|[A-Z]))`)
	beenClauseRe = rx.MustCompile(`,\s+(?:and\s+)?(?:now\s+)?(been|living|working|based)\s+(living\s+|working\s+)?(in|at|for|from)\b`)
	// bornRe: a sentence that starts with where the user was born or
	// grew up, its subject left out ("Born and raised in Cardiff, …").
	bornRe = rx.MustCompile(`^\W*(?:Born|Grew up|Raised)\b`)
)

// withSubject puts the user back as the subject of a sentence whose verb
// starts at v: "Finally sold the Civic" → "I finally sold the Civic",
// "Today went back to Vim" → "Today I went back to Vim", "Staying at a
// hotel tonight" → "I am staying at a hotel tonight".
func withSubject(sent string, v int) string {
	verb := strings.ToLower(sent[v:v+1]) + sent[v+1:]
	pre := strings.TrimSpace(sent[:v])
	if w, _, _ := strings.Cut(verb, " "); strings.HasSuffix(w, "ing") {
		verb = "am " + verb // "Staying at a hotel in Denver tonight": I am staying
	}
	switch w := strings.ToLower(strings.TrimSuffix(pre, ",")); w {
	case "":
		return "I " + verb
	case "just", "finally", "honestly":
		return "I " + w + " " + verb
	}
	return pre + " I " + verb
}

// implicitRe: a statement that starts with a past-tense verb and no
// subject ("Sold the Civic and bought a Tesla", "Caved and bought an
// iPhone").
var implicitRe = rx.MustCompile(`(?i)^\s*(?:(?:finally|just|so|then|today|yesterday|honestly),?\s+)?(sold|bought|caved|got|moved|switched|started|quit|joined|adopted|left|dropped|traded|upgraded|replaced|finished|retired|married|began|took|gave|went|turned|living|ditched|learned|learnt|picked|became|relocated|settled|stopped|graduated|handed|resigned|staying|visiting|spending|heading|flying|travelling|traveling)\b`)

// aboutRe: a sentence that is about one of the user's things without a
// first-person subject ("Ethiopian food is my new favourite", "First week
// at Brightwave as a product manager").
var aboutRe = rx.MustCompile(`(?i)\bis (?:now )?my (?:new |current |main |go-to |preferred )?|\bat [A-Z]\w+.* as an? `)

// andVerbs are verbs the tagger may read as nouns after "and" ("I live
// in Leeds and work at Initech").
var andVerbs = map[string]bool{"work": true, "live": true, "study": true, "teach": true, "use": true, "speak": true,
	"play": true, "drive": true, "own": true, "love": true, "run": true, "cook": true, "code": true, "volunteer": true,
	"sing": true, "dance": true, "write": true, "paint": true, "draw": true, "swim": true, "read": true, "travel": true,
	"surf": true, "bake": true, "knit": true, "hike": true, "climb": true, "ski": true}

var pastVerbs = map[string]bool{"sold": true, "bought": true, "got": true, "moved": true, "switched": true, "started": true,
	"quit": true, "joined": true, "adopted": true, "left": true, "dropped": true, "traded": true, "upgraded": true, "replaced": true}

func tripleOf(subject, attribute, value string) memory.Triple {
	return memory.Triple{Subject: subject, Attribute: attribute, Value: value, Multi: IsMulti(attribute)}
}

// clause reads a verb phrase after its subject at ts[j]. A negated verb
// ("I don't speak French anymore", "I never visited Japan") states no
// value as held: such a value ended when the sentence says so ("any
// more", "no longer"), else nothing is stated (the readings that give the
// negation its own meaning, "I don't eat pork", "I don't like X", return
// their own attribute or an ended value).
func clause(ts []tok, j int, subject, word string) []Fact {
	fs := readClause(ts, j, subject, word)
	v, neg := skipAdv(ts, j)
	if !neg {
		return fs
	}
	stops := stopsRe.MatchString(tokText(ts))
	if len(fs) == 0 && stops && v < len(ts) && v > j {
		// "I don't play tennis anymore": what the verb reads without its
		// negation, ended.
		fs = slices.DeleteFunc(readClause(ts, v, subject, word), func(f Fact) bool { return !valid(&f) })
	}
	out := fs[:0]
	for _, f := range fs {
		switch {
		case f.Ended || f.Note || f.Attribute == "dislikes" || f.Attribute == "avoids" || f.Attribute == "diet" || f.Attribute == "condition":
		case stops && f.Value != "":
			f.Ended, f.Change, f.Replace = true, true, false
		default:
			continue
		}
		out = append(out, f)
	}
	return out
}

// readClause is clause before its negation check.
func readClause(ts []tok, j int, subject, word string) []Fact {
	j, neg := skipAdv(ts, j)
	if j >= len(ts) {
		return nil
	}
	mk := func(a, v string) Fact {
		f := Fact{Triple: tripleOf(subject, a, v), word: word}
		return f
	}
	next := func(k int, words ...string) bool {
		return k < len(ts) && contains(words, ts[k].low)
	}
	v := ts[j].low
	if f, ok := hiredAt(ts, j, mk); ok && !neg {
		return []Fact{f}
	}
	if f, ok := experienced(ts, j, mk, neg); ok {
		return []Fact{f}
	}
	if (v == "eat" || v == "eats") && next(j+1, "halal", "kosher") && !neg {
		// "I only eat halal (food)": the diet.
		return []Fact{mk("diet", "eats "+ts[j+1].low+" food")}
	}
	if (v == "eat" || v == "eats") && next(j+1, "meat", "fish") && !neg && slices.ContainsFunc(ts[j+2:], func(t tok) bool { return t.low == "again" || t.low == "now" }) {
		// "I eat meat again": the diet changed back, as "started eating
		// meat again" says.
		f := mk("diet", "eats "+ts[j+1].low)
		f.Change = true
		return []Fact{f}
	}
	if name := goesBy(ts, j+3); (v == "'d" || v == "would") && next(j+1, "like", "love", "prefer") && next(j+2, "to") && name != "" && subject == "user" && !neg {
		return []Fact{mk("name", name)} // "I'd like to be called Kim"
	}
	if (v == "staying" || v == "visiting" || v == "spending") && stayIn(ts, j+1) > 0 && !neg {
		// "I'm staying with my parents in Leeds", "visiting my sister
		// in Madrid": where the user is for now, not where they live.
		if val, _, ok := np(ts, stayIn(ts, j+1)); ok {
			return []Fact{mk("staying_in", val)}
		}
	}
	switch v {
	case "seeing":
		// "I've been seeing Mia for a few weeks" (not "I'm seeing Dr.
		// Patel tomorrow": the perfect says it goes on); "I'm seeing
		// someone new, her name is Mia".
		if next(j+1, "someone", "somebody") && subject == "user" && !neg {
			if f, ok := relNamed(ts, j+1, subject); ok {
				return []Fact{f}
			}
		}
		if j > 0 && ts[j-1].low == "been" && j+1 < len(ts) && ts[j+1].capital && ts[j+1].tag == "NNP" && !titles[ts[j+1].low] && subject == "user" && !neg {
			if val, _, ok := np(ts, j+1); ok {
				f := mk("partner", val)
				f.Change = true
				return []Fact{f}
			}
		}
	case "dating", "married":
		// "I'm dating Sam", "I married Sam last month".
		if j+1 < len(ts) && ts[j+1].capital && ts[j+1].tag == "NNP" && !neg {
			if val, _, ok := np(ts, j+1); ok {
				f := mk("partner", val)
				f.Change = true
				if v == "married" {
					f.aword = "spouse" // "The user's spouse is Sam."
				}
				return []Fact{f}
			}
		}
	case "live", "lives", "living", "reside", "resides", "lived":
		if v == "lived" && (j == 0 || ts[j-1].low != "have" && ts[j-1].low != "has") {
			return nil // "I lived in Rome" is the past; "I've lived in Rome since 2019" is not
		}
		for next(j+1, "together", "happily", "permanently", "full-time", "mostly", "currently", "still", "now") {
			j++ // "Tom and I live together in a flat in Leeds"
		}
		if next(j+1, "in") {
			// "I live in Berlin", "in a small flat in Lisbon" (Lisbon),
			// "in a small village near Oxford" (the village, as said).
			if val, _, _, ok := homePlace(ts, j+2); ok {
				f := mk("lives_in", val)
				f.Ended = neg
				return []Fact{f}
			}
		}
		if next(j+1, "at") && j+3 < len(ts) && ts[j+2].tag == "CD" && ts[j+3].capital && subject == "user" && !neg {
			// "I live at 14 Baker Street": the address (and not a home
			// city: the street is no place a question names).
			var w []string
			k := j + 2
			for ; k < len(ts) && len(w) < 8 && ts[k].tag != "." && ts[k].low != "and" && ts[k].low != "with"; k++ {
				w = append(w, ts[k].w)
			}
			f := mk("address", strings.Join(w, " "))
			f.Open, f.aword = true, "address"
			out := []Fact{f}
			if k+1 < len(ts) && ts[k].w == "," && ts[k+1].capital && ts[k+1].tag == "NNP" {
				// "… 42 Wallaby Way, Sydney": the city after the street.
				if city, _, ok := np(ts, k+1); ok {
					out = append(out, mk("lives_in", city))
				}
			}
			return out
		}
		if next(j+1, "with") {
			// "I live with my girlfriend in Berlin", "with our kids in a
			// flat in Lyon": the place after whom the user lives with.
			if val := placeAfterWith(ts, j+2); val != "" {
				f := mk("lives_in", val)
				f.Ended = neg
				return []Fact{f}
			}
		}
	case "moved", "relocated", "move":
		// "I moved my gym days to Tuesdays": the slot is what was moved.
		if next(j+1, "my", "our") {
			if f, ok := slotMovedTo(ts, j+2, mk); ok {
				return []Fact{f}
			}
			return nil
		}
		var prior, to string
		dest, placeSaid := false, false
		for k := j + 1; k < len(ts) && k < j+12; k++ {
			if ts[k].low == "from" {
				prior, _, _ = np(ts, k+1)
			}
			if ts[k].low == "to" {
				if k+3 < len(ts) && ts[k+1].low == "the" && placeNouns[ts[k+2].low] && ts[k+3].low == "of" {
					k += 3 // "moved to the city of Leeds"
				}
				to, _, _ = np(ts, k+1)
				dest = true
				if h := homeIn(ts, k+1); to != "" && to[0] >= 'a' && to[0] <= 'z' && h != "" {
					to, dest = h, false // "moved to a new flat in Leeds"
				} else if h, _, placed, ok := homePlace(ts, k+1); ok && placed && h[0] >= 'a' && h[0] <= 'z' {
					to, dest, placeSaid = h, false, true // "moved to a small village near Oxford", "to rural Ohio"
				}
				break
			}
			if ts[k].low == "into" && k == j+1 && fieldAt(ts, k+1) != "" && !neg && subject == "user" {
				// "I moved into product management": a line of work.
				f := mk("job_title", fieldAt(ts, k+1))
				f.Change = true
				return []Fact{f}
			}
			if ts[k].low == "into" && k == j+1 {
				// "We moved into a new place in Brooklyn", "into a
				// cottage outside York"
				if h := homeIn(ts, k+1); h != "" {
					to = h
					break
				}
				if h, _, placed, ok := homePlace(ts, k+1); ok && placed {
					to, placeSaid = h, true
					break
				}
			}
			// "I've moved in with my boyfriend in Camden": the place
			// the user moved in, not a month ("moved in March").
			if ts[k].low == "in" && k > j+1 && (next(j+1, "in") || next(j+1, "back") && next(j+2, "in") && k > j+2) && k+1 < len(ts) && ts[k+1].capital && !dateWords([]string{ts[k+1].w}) {
				to, _, _ = np(ts, k+1)
				break
			}
			if ts[k].tag == "." || ts[k].low == "and" {
				break
			}
		}
		if next(j+1, "all", "the", "a", "an", "everything", "it", "them", "some", "most", "his", "her", "their", "this", "that", "these", "those") {
			// "I moved all my notes from Evernote to Obsidian": a thing
			// moved, from one named tool to another, is a switch; no home.
			if to != "" && prior != "" && !neg && to[0] >= 'A' && to[0] <= 'Z' && prior[0] >= 'A' && prior[0] <= 'Z' {
				f := mk("uses", to)
				f.Replace, f.Change, f.Prior = true, true, prior
				return []Fact{f}
			}
			return nil
		}
		if to != "" && !neg && kindSlot(to) == "uses" && (prior != "" && kindSlot(prior) == "uses" || next(j+1, "over")) {
			// "I've moved from VS Code to Neovim", "Moved over to
			// Firefox": to a tool (from another of its kind, or "over")
			// is a switch, not a home.
			f := mk("uses", to)
			f.Replace, f.Change, f.Prior = true, true, prior
			return []Fact{f}
		}
		if to != "" && !neg && (to[0] < 'a' || to[0] > 'z' || placeSaid) && !next(j+1, "on") {
			// A home is a name: "moved to Lisbon"; "moved on from Initech
			// to a startup", "moved to the data team" are no home.
			f := mk("lives_in", to)
			f.Change, f.Prior, f.move = true, prior, dest
			return []Fact{f}
		}
	case "settled":
		// "I've settled in Lisbon", "we finally settled in Porto", "in a
		// quiet village in Devon".
		if next(j+1, "in", "into") && j+2 < len(ts) {
			if val, _, placed, ok := homePlace(ts, j+2); ok && placed && !neg {
				f := mk("lives_in", val)
				f.Change = true
				return []Fact{f}
			}
		}
	case "work", "works", "working":
		if next(j+1, "remotely", "full-time", "part-time", "freelance") {
			j++ // "I work remotely for …"
		} else if next(j+1, "from") && next(j+2, "home") && next(j+3, "for", "at") {
			j += 2 // "I work from home for Shopify"
		}
		switch {
		case next(j+1, "with", "in") && j+2 < len(ts) && progLangs[ts[j+2].low] && !neg:
			// "I work with Python and Go mostly", "I work in Rust": the
			// languages the user uses.
			var out []Fact
			for k := j + 2; k < len(ts); k++ {
				switch l := ts[k].low; {
				case progLangs[l] && (ts[k].capital || len(l) > 2):
					out = append(out, mk("uses", ts[k].w))
					continue
				case l == "," || l == "and" || l == "mostly" || l == "mainly" || l == "both":
					continue
				}
				break
			}
			if len(out) > 0 {
				return out
			}
		case next(j+1, "in") && j+2 < len(ts) && !ts[j+2].capital && fieldAt(ts, j+2) != "" && !neg:
			// "I work in marketing", "in product management": the line
			// of work ("The user works in marketing.").
			return []Fact{mk("job_title", fieldAt(ts, j+2))}
		case next(j+1, "from") && next(j+2, "our", "the", "my") && j+4 < len(ts) && ts[j+3].capital && tempEN.MatchString(tokText(ts)) && officeAt(ts, j+3):
			// "I'm working from our Tokyo office this week": where the
			// user is, for the period said.
			if val, _, ok := np(ts, j+3); ok && !neg {
				return []Fact{mk("staying_in", strings.TrimSuffix(strings.TrimSuffix(val, " office"), " Office"))}
			}
		case next(j+1, "from") && j+2 < len(ts) && ts[j+2].capital && ts[j+2].tag == "NNP":
			// "I'm working from Lisbon for two weeks": where the user is.
			if val, _, ok := np(ts, j+2); ok && !neg {
				return []Fact{mk("staying_in", val)}
			}
		case next(j+1, "at", "for"):
			if name, ok := calledName(ts, j+2); ok && !neg {
				// "for a fintech startup called Brightpay": the name.
				return []Fact{mk("works_at", name)}
			}
			if val, end, ok := np(ts, j+2); ok && nameAt(ts, j+2) {
				f := mk("works_at", val)
				f.Ended = neg
				out := []Fact{f}
				// "working at Globex as a designer": the job too.
				if next(end, "as") && !neg {
					if job, _, ok := np(ts, end+1); ok && jobHeads[strings.ToLower(job[strings.LastIndexByte(job, ' ')+1:])] {
						out = append(out, mk("job_title", strings.ToLower(job)))
					}
				}
				return out
			}
			if val, _, ok := genericWorkplace(ts, j+2); ok && !neg {
				// "I work at a hospital now": the workplace as described.
				return []Fact{mk("works_at", val)}
			}
		case next(j+1, "as"):
			if val, end, ok := np(ts, j+2); ok {
				f := mk("job_title", val)
				f.Ended = neg
				out := []Fact{f}
				// "I work as a nurse at St Mary's", "… at a café in
				// Leeds": the employer too.
				if next(end, "at", "for") && !neg && nameAt(ts, end+1) {
					if org, _, ok := np(ts, end+1); ok {
						out = append(out, mk("works_at", org))
					}
				} else if next(end, "at", "for") && !neg {
					if org, _, ok := genericWorkplace(ts, end+1); ok {
						out = append(out, mk("works_at", org))
					}
				}
				return out
			}
		}
	case "joined":
		if val, end, ok := np(ts, j+1); ok && !neg {
			k := j + 1
			for k < len(ts) && (ts[k].low == "a" || ts[k].low == "an" || ts[k].low == "the") {
				k++
			}
			if k < len(ts) && ts[k].capital {
				switch joinKind(ts, val, end) {
				case joinEmployer:
					f := mk("works_at", val)
					f.Change = true
					return []Fact{f}
				case joinMaybe:
					// Decided on the whole message (Extract).
					f := mk("works_at", val)
					f.Change, f.join, f.the = true, true, next(j+1, "the")
					return []Fact{f}
				}
			}
			if name, ok := calledName(ts, j+1); ok {
				switch head := strings.ToLower(lastWord(val)); {
				case companyHeads[head]:
					// "I joined a startup called Zest": the employer.
					f := mk("works_at", name)
					f.Change = true
					return []Fact{f}
				case groupHeads[head] || head == "gym":
					// "I joined a climbing gym called The Arch": the group
					// by its name, what it is said beside it.
					f := mk("member_of", name)
					f.detail = "a " + strings.ToLower(val)
					return []Fact{f}
				}
			}
			f := mk("member_of", val)
			f.the = next(j+1, "the")
			return []Fact{f}
		}
	case "started", "took", "picked":
		if w := instrumentAt(ts, j+1); w != "" && v != "started" && !neg {
			return []Fact{mk("plays", w)} // "I took up the violin", "picked up the ukulele"
		}
		if v == "started" && next(j+1, "learning", "playing") && !neg {
			if w := instrumentAt(ts, j+2); w != "" {
				// "I also started learning the cello": an instrument played.
				f := mk("plays", w)
				f.Change = true
				return []Fact{f}
			}
		}
		// "I've started eating meat again": a diet, not a hobby.
		if v == "started" && next(j+1, "eating") && j+2 < len(ts) && foods[ts[j+2].low] {
			return []Fact{mk("diet", "eats "+ts[j+2].low)}
		}
		if v == "started" && next(j+1, "speaking") && !neg {
			// "I've also started speaking some German": a language.
			if l := languageAt(ts, j+2); l != "" {
				return []Fact{mk("speaks", l)}
			}
			return nil
		}
		if v == "picked" && next(j+1, "up") && languageAt(ts, j+2) != "" && !neg {
			// "I've picked up some Italian": a language the user speaks.
			return []Fact{mk("speaks", languageAt(ts, j+2))}
		}
		if v == "started" && next(j+1, "learning") && languageAt(ts, j+2) != "" && !neg {
			// "I started learning Korean": a language the user studies.
			f := mk("studies", languageAt(ts, j+2))
			f.Change = true
			return []Fact{f}
		}
		if (v == "took" || v == "picked") && next(j+1, "up") && j+2 < len(ts) && !neg && !notPastime[ts[j+2].low] &&
			!slices.Contains([]string{"the", "my", "our", "a", "an", "his", "her", "their", "your", "all", "so", "too", "much", "more",
				"most", "space", "time", "room", "it", "that", "this", "them", "some", "any", "where", "on", "with"}, ts[j+2].low) && !ts[j+2].capital {
			// "I took up pottery last summer", "picked up rock climbing":
			// a pastime the user does now.
			if val, end, ok := np(ts, j+2); ok && !notPastime[strings.ToLower(lastWord(val))] {
				g, _, gok := gerundValue(ts, j+2, val, end)
				if gok {
					val = g
				} else if end < len(ts) && (ts[end].tag == "IN" || ts[end].tag == "TO") && ts[end].low != "in" && ts[end].low != "on" {
					gok = true // "knitting during lockdown", "running to lose weight"
				}
				if gok {
					f := mk("activity", strings.ToLower(val))
					f.Change = true
					return []Fact{f}
				}
			}
			return nil
		}
		if v == "started" && j+2 < len(ts) && ts[j+1].tag != "VBG" && !ts[j+1].capital && !neg && isLetters(ts[j+1].low) && !stopNP[ts[j+1].low] {
			// "I started rock climbing last month": a pastime of a noun
			// and a gerund.
			if val, end, ok := np(ts, j+1); ok && end == j+3 && ts[j+2].tag == "VBG" && !notPastime[ts[j+2].low] && !learners[ts[j+1].low] {
				f := mk("activity", strings.ToLower(val))
				f.Change = true
				return []Fact{f}
			}
		}
		if v == "started" && j+1 < len(ts) && ts[j+1].tag == "VBG" && !notPastime[ts[j+1].low] {
			if val, end, ok := np(ts, j+1); ok {
				if w := strings.Fields(val); len(w) > 1 && learners[strings.ToLower(w[1])] {
					return nil // "started teaching people how to …": work, not a pastime
				}
				if val, _, ok = gerundValue(ts, j+1, val, end); ok {
					return []Fact{mk("activity", val)}
				}
				return nil
			}
		}
		if v != "started" {
			return nil
		}
		k := j + 1
		if next(k, "working") {
			k++
		}
		if next(k, "at", "for") && k+1 < len(ts) && ts[k+1].capital {
			if val, _, ok := np(ts, k+1); ok {
				f := mk("works_at", val)
				if schoolName(val) && (subject != "user" || k == j+1) {
					// "My son started at Roosevelt Middle School": a
					// school, not an employer.
					f = mk("studies_at", val)
				}
				f.Change = true
				return []Fact{f}
			}
		}
		if next(k, "a") && next(k+1, "new") && next(k+2, "job") && next(k+3, "at") {
			if val, _, ok := workplaceAt(ts, k+4); ok {
				f := mk("works_at", val)
				f.Change = true
				return []Fact{f}
			}
		}
	case "got", "have", "has":
		k := j + 1
		if fs, ok := promoted(ts, k, mk); ok && !neg {
			return fs // "I got promoted to senior designer"
		}
		if f, ok := laidOff(ts, k, mk); ok && !neg {
			return []Fact{f} // "I got laid off from Meta"
		}
		for next(k, "a", "new") {
			k++
		}
		if next(k, "job") && next(k+1, "at") && !neg {
			if val, _, ok := workplaceAt(ts, k+2); ok {
				f := mk("works_at", val)
				f.Change = true
				return []Fact{f}
			}
		}
		if a := allergyNoun(ts, j+1); a != "" && !neg {
			return []Fact{mk("allergy", allergens(a))} // "I have a peanut allergy"
		}
		if kids := children(ts, j+1, subject); len(kids) > 0 && !neg {
			return kids
		}
		if f, ok := relNamed(ts, j+1, subject); ok && !neg {
			return []Fact{f} // "I have a new girlfriend, Mia", "a sister named Ana"
		}
		if d := device(ts, j+1, subject, word); len(d) > 0 && !neg {
			return d
		}
		return petFact(ts, j+1, subject, word, neg)
	case "bought", "buy", "ordered", "upgraded", "replaced":
		k := j + 1
		if next(k, "to") || next(k, "with") {
			k++
		}
		if h := homeIn(ts, k); h != "" && !neg && v != "ordered" {
			f := mk("lives_in", h) // "We bought a house in Leith"
			f.Change = true
			return []Fact{f}
		}
		if !neg {
			return device(ts, k, subject, word)
		}
	case "keep", "keeps":
		// "I keep kosher": the diet.
		if next(j+1, "kosher", "halal") && !neg {
			return []Fact{mk("diet", ts[j+1].low)}
		}
	case "drive", "drives", "driving":
		if val, _, ok := np(ts, j+1); ok && !neg {
			f := mk("car", val)
			return []Fact{f}
		}
	case "go", "goes", "going":
		if v == "go" && subject == "user" && next(j+1, "by") && j+2 < len(ts) && ts[j+2].capital {
			if val, _, ok := np(ts, j+2); ok && !neg {
				return []Fact{mk("name", val)} // "I go by Alex"
			}
		}
		// "My son goes to Lincoln Elementary", "I go to Carver High":
		// a school.
		if next(j+1, "to") && (v != "going" || subject != "user") && nameAt(ts, j+2) && !neg {
			// The user's own sentence says nothing more ("… every morning
			// to drop off my son" is a parent's errand).
			if val, end, ok := np(ts, j+2); ok && schoolName(val) && (subject != "user" || end == len(ts) || ts[end].tag == "." || next(end, "now")) {
				return []Fact{mk("studies_at", val)}
			}
		}
		// "I go to the gym on Mondays and Wednesdays": a weekly habit,
		// its days in a slot of their own (gym_days).
		if next(j+1, "to") {
			k := j + 2
			for next(k, "the", "a", "my") {
				k++
			}
			// The tagger reads some activities as verbs ("yoga/VB"): in
			// this position the word is the place or the activity.
			if k < len(ts) && (strings.HasPrefix(ts[k].tag, "NN") || strings.HasPrefix(ts[k].tag, "VB")) && next(k+1, "on") {
				if days, _ := weekdayList(ts, k+2); days != "" && !neg {
					f := mk(ts[k].low+"_days", days)
					f.aword = ts[k].low + " days"
					f.Open = true
					return []Fact{f}
				}
			}
		}
	case "adopted":
		return petFact(ts, j+1, subject, word, neg)
	case "brought", "bring", "bringing":
		// "We just brought home a parrot called Kiwi": a pet (or a
		// device) the user now has.
		if next(j+1, "home") && !neg {
			if d := device(ts, j+2, subject, word); len(d) > 0 {
				return d
			}
			return petFact(ts, j+2, subject, word, neg)
		}
	case "resigned", "handed", "hand", "handing":
		// "I resigned from Acme", "I handed in my notice at Acme": the
		// user's employer slot ends.
		k := j + 1
		if v == "resigned" {
			if !next(k, "from") {
				return nil
			}
			k++
		} else {
			if !next(k, "in") || !next(k+1, "my", "our") || !next(k+2, "notice", "resignation") || !next(k+3, "at", "to") {
				return nil
			}
			k += 4
		}
		if k < len(ts) && ts[k].capital && !neg {
			if val, _, ok := np(ts, k); ok {
				f := mk("works_at", val)
				f.Ended, f.Change = true, true
				return []Fact{f}
			}
		}
	case "start", "starting", "begin", "beginning":
		// "I start my new job at Shopify on Monday", "starting at
		// Shopify next month": the employer the user now has.
		k := j + 1
		for next(k, "my", "a", "the", "new", "job", "role", "position", "work", "working") {
			k++
		}
		if next(k, "at", "with") && k+1 < len(ts) && ts[k+1].capital && !neg {
			if val, _, ok := np(ts, k+1); ok {
				f := mk("works_at", val)
				f.Change, f.starts = true, true
				return []Fact{f}
			}
		}
	case "rent", "rents", "renting", "own", "owns":
		// "I rent a room in a shared flat in Manchester": where the
		// user's home is, is where they live.
		k := j + 1
		home := false
		for ; k < len(ts) && k < j+10; k++ {
			if dwellings[ts[k].low] {
				home = true
			}
			if ts[k].low == "in" && home && k+1 < len(ts) && ts[k+1].capital {
				if val, _, ok := np(ts, k+1); ok && !neg {
					return []Fact{mk("lives_in", val)}
				}
			}
			if ts[k].tag == "." || ts[k].low == "and" || ts[k].low == "but" {
				break
			}
		}
	case "stopped", "stop", "gave", "give", "giving":
		// "I stopped eating gluten", "gave up coffee", "stopped using
		// Notion": what the user eats, drinks or uses ends.
		k := j + 1
		if v == "gave" || v == "give" || v == "giving" {
			if !next(k, "up") {
				return nil
			}
			k++
			if next(k, "on") {
				k++ // "I gave up on learning Japanese"
			}
		}
		if f, ok := givenUp(ts, k, mk); ok && !neg {
			return []Fact{f}
		}
	case "grew":
		// "I grew up in Manchester": the hometown.
		if next(j+1, "up") && next(j+2, "in") && j+3 < len(ts) && ts[j+3].capital && !neg {
			if val, _, ok := np(ts, j+3); ok {
				return []Fact{mk("from", val)}
			}
		}
		if next(j+1, "up") && next(j+2, "in") && !neg {
			// "I grew up in a small town in Texas": a hometown described.
			if val, _, placed, ok := describedHome(ts, j+3, 0); ok && placed {
				return []Fact{mk("from", val)}
			}
		}
		if next(j+1, "out") && next(j+2, "of") {
			if a := allergyNoun(ts, j+3+btoi(next(j+3, "my", "her", "his", "their", "our", "the"))); a != "" && !neg {
				f := mk("allergy", allergens(a)) // "she grew out of her egg allergy"
				f.Ended, f.Change = true, true
				return []Fact{f}
			}
		}
	case "retired":
		// "I retired last year", "I retired from teaching in 2020" (not
		// "I retired my old laptop").
		if !neg && !next(j+1, "my", "our", "the", "a", "an", "his", "her", "their", "it", "them") {
			f := mk("job_title", "retired") // "my dad retired last year" too
			f.Change = true
			return []Fact{f}
		}
	case "quit", "left":
		if f, ok := givenUp(ts, j+1, mk); ok && v == "quit" && !neg {
			return []Fact{f} // "I quit sugar", "I quit coffee"
		}
		k := j + 1
		if next(k, "my") && next(k+1, "job") && next(k+2, "at") {
			k += 3
		}
		if k < len(ts) && ts[k].capital {
			if val, _, ok := np(ts, k); ok && (v == "quit" || workContext(ts)) {
				f := mk("works_at", val)
				f.Ended, f.Change = true, true
				return []Fact{f}
			}
		}
	case "use", "uses", "using", "code", "program", "write":
		k := j + 1
		if v == "code" || v == "program" || v == "write" {
			// "I write everything in Emacs", "I code mostly in Go".
			for n := 0; n < 3 && k < len(ts) && !next(k, "in") && (ts[k].low == "everything" || ts[k].low == "mostly" ||
				ts[k].low == "all" || ts[k].low == "code" || ts[k].low == "it" || ts[k].low == "my" || ts[k].low == "only" || ts[k].low == "mainly"); n++ {
				k++
			}
			if !next(k, "in") {
				if v != "code" && k < len(ts) && progLangs[ts[k].low] && ts[k].capital && (k+1 == len(ts) || !strings.HasPrefix(ts[k+1].tag, "NN")) {
					// "I mostly write Go now": a programming language
					// written is one used (not "I write Go code reviews").
					f := mk("uses", ts[k].w)
					f.Ended = neg
					return []Fact{f}
				}
				return nil
			}
			k++
		}
		if next(k, "a", "an") && !neg {
			// "I use an iPhone", "I use a MacBook Pro": a device used is
			// the one the user has (its slot, not a tool beside Vim).
			if d := device(ts, k, subject, word); len(d) > 0 {
				return d
			}
		}
		if val, end, ok := np(ts, k); ok {
			f := mk("uses", val)
			f.Ended = neg
			f.qual = purpose(ts, end)
			return []Fact{f}
		}
	case "switched", "changed", "migrated", "moving":
		if v == "changed" && next(j+1, "my") && next(j+2, "name") && next(j+3, "to") && j+4 < len(ts) && ts[j+4].capital && !neg {
			// "I changed my name to Alex": the name, not a tool.
			f := mk("name", ts[j+4].w)
			f.Change = true
			return []Fact{f}
		}
		if (v == "changed" || v == "switched") && next(j+1, "my", "our") && !neg {
			// "I changed my gym days to Tuesdays and Fridays": the slot
			// is what was changed, when it is a time (a phone changed
			// to a Pixel is a switch, below).
			if f, ok := slotMovedTo(ts, j+2, mk); ok && (scheduleWords[lastWord(f.aword)] || isDay(firstWord(f.Value))) {
				return []Fact{f}
			}
		}
		var prior, to string
		for k := j + 1; k < len(ts) && k < j+10; k++ {
			if ts[k].low == "from" {
				prior, _, _ = np(ts, k+1)
			}
			if ts[k].low == "to" {
				to, _, _ = np(ts, k+1)
				if fl := fieldAt(ts, k+1); fl != "" && !neg && (next(j+1, "careers", "career", "jobs", "fields") || workContext(ts) || jobEnded(ts)) {
					// "I switched careers to nursing", "I'm no longer a
					// developer, I've switched to product management".
					f := mk("job_title", fl)
					f.Change = true
					return []Fact{f}
				}
				break
			}
		}
		if to != "" && v != "moving" {
			a := "uses"
			switch {
			case drinkKind(strings.ToLower(to)):
				a, to = "drinks", drinkValue(to)
			case deviceKind(to) != "":
				a = deviceKind(to)
			case studyContext(ts):
				a = "studies"
				to = strings.ToLower(to)
			}
			f := mk(a, to)
			f.Replace, f.Change, f.Prior = true, true, prior
			return []Fact{f}
		}
	case "dropped":
		if val, _, ok := np(ts, j+1); ok && studyContext(ts) {
			f := mk("studies", strings.ToLower(val))
			f.Ended, f.Change = true, true
			return []Fact{f}
		}
	case "like", "likes", "love", "loves", "enjoy", "enjoys", "prefer", "prefers", "adore", "hate", "hates", "dislike", "dislikes", "stand", "eat", "drink":
		if name := goesBy(ts, j+2); next(j+1, "to") && name != "" && subject == "user" && !neg && v != "hate" && v != "hates" && v != "dislike" && v != "dislikes" && v != "stand" {
			return []Fact{mk("name", name)} // "I prefer to go by Sasha", "I'd like to be called Sam"
		}
		if v == "drink" && !neg && !next(j+1, "to") {
			// "I drink about four coffees a day", "a big mug of black
			// coffee": what the user drinks, the drink and the words
			// that qualify it.
			for k := j + 1; k < len(ts) && k < j+9; k++ {
				if !drinks[ts[k].low] {
					continue
				}
				s := k
				for s > j+1 && strings.HasPrefix(ts[s-1].tag, "JJ") || s > j+1 && strings.HasPrefix(ts[s-1].tag, "NN") && !drinks[ts[s-1].low] && ts[s-1].low != "mug" && ts[s-1].low != "cup" && ts[s-1].low != "glass" && ts[s-1].low != "cups" && ts[s-1].low != "mugs" && ts[s-1].low != "glasses" && ts[s-1].low != "pot" && ts[s-1].low != "bottle" {
					s--
				}
				for s < k && (ts[s].low == "big" || ts[s].low == "small" || ts[s].low == "little" || ts[s].low == "large") {
					s++
				}
				words := make([]string, 0, k-s+1)
				for _, t := range ts[s : k+1] {
					words = append(words, t.w)
				}
				return []Fact{mk("drinks", drinkValue(strings.Join(words, " ")))}
			}
			return nil
		}
		if next(j+1, "to") || ((v == "stand" || v == "eat" || v == "drink") && !neg) {
			return nil
		}
		if val, end, ok := np(ts, j+1); ok {
			if v == "drink" {
				// "I don't drink coffee anymore": what the user drinks
				// ends (not a food they avoid).
				f := mk("drinks", drinkValue(val))
				f.Ended = true
				return []Fact{f}
			}
			if v == "eat" {
				return []Fact{mk("avoids", val)}
			}
			a := "likes"
			if neg != (v == "hate" || v == "hates" || v == "dislike" || v == "dislikes") {
				a = "dislikes"
			}
			if t, ok := titleAt(ts, j+1, false); ok && isQuote(ts[j+1].w) {
				val = t // "We love "Home Alone""
			} else if likedNothing(ts, j+1, end) {
				return nil
			}
			val, end, ok := gerundValue(ts, j+1, val, end)
			if !ok {
				return nil
			}
			val = strings.TrimSuffix(val, " -")
			out := []Fact{mk(a, val)}
			for _, g := range moreGerunds(ts, end) {
				out = append(out, mk(a, g))
			}
			return out
		}
	case "avoid", "avoids", "avoiding", "cut":
		k := j + 1
		if v == "cut" {
			if !next(k, "out") {
				return nil
			}
			k++
		}
		if val, _, ok := np(ts, k); ok && !neg {
			return []Fact{mk("avoids", val)}
		}
	case "running", "runs", "run":
		if j+1 < len(ts) && ts[j+1].capital && kindSlot(ts[j+1].w) == "uses" && !neg {
			// "I'm running Ubuntu now on a ThinkPad": software the user
			// runs, and the machine it runs on.
			if val, end, ok := np(ts, j+1); ok {
				out := []Fact{mk("uses", val)}
				for k := end; k+2 < len(ts) && k < end+3; k++ {
					if ts[k].low == "on" && (ts[k+1].low == "a" || ts[k+1].low == "an" || ts[k+1].low == "my") {
						if d, _, ok := np(ts, k+2); ok && deviceKind(d) != "" {
							out = append(out, mk(deviceKind(d), d))
						}
						break
					}
				}
				return out
			}
		}
		if v == "running" {
			return nil
		}
		fallthrough
	case "wear", "wears", "wearing", "ride", "rides", "cycle", "train", "hike", "swim", "ski", "climb", "shoot", "shoots", "skate":
		// "I run in Brooks Ghost shoes", "I wear Nike Pegasus for
		// running", "I ride a Trek": a product the user uses, named (a
		// capital: a brand or a model); "I run a bakery" is none.
		k := j + 1
		if next(k, "in", "on", "with") {
			k++
		} else if v != "wear" && v != "wears" && v != "wearing" && v != "ride" && v != "rides" {
			return nil
		}
		for next(k, "a", "an", "the", "some", "new") {
			k++
		}
		if k >= len(ts) || !ts[k].capital {
			return nil
		}
		val, end, ok := np(ts, k)
		if !ok {
			return nil
		}
		f := mk("uses", val)
		f.Ended = neg // "I don't run in Brooks anymore"
		if q := purpose(ts, end); q != "" {
			f.qual = q
		} else if g := gerunds[v]; g != "" {
			f.qual = "for " + g
		}
		return []Fact{f}
	case "outgrew", "outgrown", "grown":
		// "My daughter outgrew her peanut allergy", "I've grown out of
		// my cat allergy": that allergy ends.
		k := j + 1
		if v == "grown" {
			if !next(k, "out") || !next(k+1, "of") {
				return nil
			}
			k += 2
		}
		if next(k, "my", "her", "his", "their", "our", "the") {
			k++
		}
		if a := allergyNoun(ts, k); a != "" && !neg {
			f := mk("allergy", allergens(a))
			f.Ended, f.Change = true, true
			return []Fact{f}
		}
	case "do", "does":
		// "I do yoga", "now I mostly do padel": a practice the user
		// keeps (not "do the dishes", "do marketing").
		if j+1 < len(ts) && practices[ts[j+1].low] && !neg && (j+2 == len(ts) || !strings.HasPrefix(ts[j+2].tag, "NN")) {
			return []Fact{mk("activity", ts[j+1].low)}
		}
	case "play", "plays":
		if w := instrumentAt(ts, j+1); w != "" && !neg {
			return []Fact{mk("plays", w)} // "I only play piano now" (the tagger may read "piano" as an adverb)
		}
		if val, _, ok := np(ts, j+1); ok && !neg {
			return []Fact{mk("plays", val)}
		}
	case "teach", "teaches":
		val, end, ok := np(ts, j+1)
		if !ok || neg || learners[strings.ToLower(val)] || next(end, "how") || next(end, "to") || next(end, "about") {
			// "teach people about trans folks", "teach others to chase
			// their dreams": who learns, not a subject taught.
			return nil
		}
		out := []Fact{mk("job_title", strings.ToLower(val)+" teacher")}
		if next(end, "at") && end+1 < len(ts) && ts[end+1].capital {
			if org, _, ok := np(ts, end+1); ok {
				out = append(out, mk("works_at", org))
			}
		}
		return out
	case "speak", "speaks":
		if l := languageAt(ts, j+1); l != "" {
			return []Fact{mk("speaks", l)} // "I can speak a bit of Japanese"
		}
		if val, _, ok := np(ts, j+1); ok && val[0] >= 'A' && val[0] <= 'Z' {
			return []Fact{mk("speaks", val)}
		}
	case "learned", "learnt":
		// "I learned Spanish in school", "I've learnt some German": a
		// language the user now speaks.
		if l := languageAt(ts, j+1); l != "" && !neg {
			return []Fact{mk("speaks", l)}
		}
	case "learning", "learn":
		if l := languageAt(ts, j+1); l != "" && !neg {
			return []Fact{mk("studies", l)} // "I'm learning some Korean"
		}
		if w := instrumentAt(ts, j+1); w != "" && !neg {
			return []Fact{mk("plays", w)} // "I'm learning (to play) the violin"
		}
		// "I'm learning Korean": a language (a capital) the user studies.
		if j+1 < len(ts) && ts[j+1].capital && !neg {
			if val, _, ok := np(ts, j+1); ok {
				return []Fact{mk("studies", val)}
			}
		}
	case "study", "studies", "studying":
		if next(j+1, "at") {
			if val, _, ok := np(ts, j+2); ok && nameAt(ts, j+2) {
				return []Fact{mk("studies_at", val)}
			}
		}
		if val, end, ok := np(ts, j+1); ok && !neg {
			out := []Fact{mk("studies", strings.ToLower(val))}
			if next(end, "at") && end+1 < len(ts) && ts[end+1].capital {
				if org, _, ok := np(ts, end+1); ok {
					out = append(out, mk("studies_at", org))
				}
			}
			return out
		}
	case "am", "is", "are", "was", "been", "were", "get":
		if fs, ok := promoted(ts, j+1, mk); ok && !neg {
			return fs // "I was promoted to team lead"
		}
		if f, ok := laidOff(ts, j+1, mk); ok && !neg {
			return []Fact{f} // "I was let go from Meta"
		}
		if (v == "was" || v == "were") && next(j+1, "born") && next(j+2, "in") && j+3 < len(ts) && ts[j+3].capital {
			if val, _, ok := np(ts, j+3); ok {
				return []Fact{mk("from", val)} // "I was born in Lyon"
			}
		}
		if (v == "was" || v == "were") && next(j+1, "born") && next(j+2, "in") && !neg {
			if val, _, placed, ok := describedHome(ts, j+3, 0); ok && placed {
				return []Fact{mk("from", val)} // "I was born in a small town in Ohio"
			}
		}
		if (v == "was" || v == "were") && next(j+1, "born") && next(j+2, "on") {
			// "I was born on 3 March 1990": the birthday.
			var d []string
			for k := j + 3; k < len(ts) && (ts[k].tag == "CD" || ts[k].capital || ts[k].low == "of") && len(d) < 4; k++ {
				d = append(d, ts[k].w)
			}
			if len(d) > 0 && dateWords(d) {
				return []Fact{mk("birthday", strings.Join(d, " "))}
			}
		}
		if (v == "was" || v == "were" || v == "get") && !next(j+1, "diagnosed") {
			return nil // (a diagnosis said in the past still holds)
		}
		return copula(ts, j+1, subject, word, neg)
	case "gone", "went", "turned", "became", "become", "becoming":
		if next(j+1, "freelance") && !neg {
			return []Fact{mk("job_title", "freelancer")}
		}
		// "I went vegetarian in January", "became vegan", "going keto".
		k := j + 1
		for next(k, "fully", "completely", "full", "strictly") {
			k++
		}
		if k < len(ts) && diets[ts[k].low] && !neg {
			f := mk("diet", ts[k].low)
			f.Change = true
			return []Fact{f}
		}
		// "I became a member of …", "became a teacher": as "I am".
		if (v == "became" || v == "become") && next(j+1, "a", "an") {
			fs := copula(ts, j+1, subject, word, neg)
			for i := range fs {
				fs[i].Change = true
			}
			return fs
		}
		// "My mum just turned 60"
		if v == "turned" && j+1 < len(ts) && ts[j+1].tag == "CD" && atoi(ts[j+1].w) > 0 && atoi(ts[j+1].w) < 120 {
			return []Fact{mk("age", ts[j+1].w)}
		}
	case "call":
		if subject == "user" && next(j+1, "me") && j+2 < len(ts) && ts[j+2].capital {
			if val, _, ok := np(ts, j+2); ok {
				return []Fact{mk("name", val)}
			}
		}
	}
	return nil
}

func copula(ts []tok, j int, subject, word string, neg bool) []Fact {
	j, n2 := skipAdv(ts, j)
	neg = neg || n2
	if j >= len(ts) {
		return nil
	}
	mk := func(a, v string) Fact { return Fact{Triple: tripleOf(subject, a, v), word: word} }
	t := ts[j]
	switch {
	case diets[t.low] && !neg:
		return []Fact{mk("diet", t.low)}
	case diets[t.low] && neg && stopsRe.MatchString(tokText(ts)):
		// "I'm not keto any more": the diet slot ends.
		f := mk("diet", t.low)
		f.Ended, f.Change = true, true
		return []Fact{f}
	case dietAt(ts, j) > 0:
		// "I'm on a keto diet", "I'm not doing keto anymore".
		if k := dietAt(ts, j); true {
			if !neg {
				return []Fact{mk("diet", ts[k].low)}
			}
			if stopsRe.MatchString(tokText(ts)) {
				f := mk("diet", ts[k].low)
				f.Ended, f.Change = true, true
				return []Fact{f}
			}
		}
	case t.low == "at" && calledAt(ts, j+1) > 0 && workContext(ts) && subject == "user":
		// "I'm now at a startup called Zest"
		if val, _, ok := np(ts, calledAt(ts, j+1)); ok && !neg {
			f := mk("works_at", val)
			f.Change = true
			return []Fact{f}
		}
	case t.low == "at" && j+1 < len(ts) && ts[j+1].capital && ts[j+1].tag == "NNP" && workContext(ts) && subject == "user":
		// "I switched jobs, I'm at Netflix now"
		if val, _, ok := np(ts, j+1); ok && !neg {
			f := mk("works_at", val)
			f.Change = true
			return []Fact{f}
		}
	case (t.low == "self-employed" || t.low == "freelance") && subject == "user" && !neg:
		// "I'm self-employed now", "I'm freelance these days".
		f := mk("job_title", map[string]string{"self-employed": "self-employed", "freelance": "freelancer"}[t.low])
		f.Change = true
		return []Fact{f}
	case t.low == "into" && subject == "user" && !neg && j+1 < len(ts):
		// "I'm really into pottery these days": what the user likes.
		if val, end, ok := np(ts, j+1); ok && !likedNothing(ts, j+1, end) {
			if val, _, ok := gerundValue(ts, j+1, val, end); ok {
				return []Fact{mk("likes", strings.TrimSuffix(val, " -"))}
			}
		}
	case t.low == "retired" && (j+1 == len(ts) || ts[j+1].tag == "." || ts[j+1].tag == "," || ts[j+1].low == "now" || ts[j+1].low == "and"):
		// "I'm retired now", "my parents are retired"
		if !neg {
			f := mk("job_title", "retired")
			f.Change = true
			return []Fact{f}
		}
	case t.low == "settled" && j+1 < len(ts) && ts[j+1].low == "in" && j+2 < len(ts):
		// "We're settled in Porto now", "in a village near York"
		if val, _, placed, ok := homePlace(ts, j+2); ok && placed && !neg {
			f := mk("lives_in", val)
			f.Change = true
			return []Fact{f}
		}
	case t.low == "lactose" && j+1 < len(ts) && ts[j+1].low == "intolerant":
		return []Fact{mk("diet", "lactose intolerant")}
	case t.low == "allergic" && j+1 < len(ts) && ts[j+1].low == "to":
		if val, _, ok := np(ts, j+2); ok {
			f := mk("allergy", val)
			if neg {
				// "I'm no longer allergic to cats": that allergy ends
				// ("I'm not allergic to nuts" says none was).
				if !stopsRe.MatchString(tokText(ts)) {
					return nil
				}
				f.Ended, f.Change = true, true
			}
			return []Fact{f}
		}
	case t.low == "back" && j+1 < len(ts) && ts[j+1].low == "on" && j+2 < len(ts) && ts[j+2].capital:
		// "I'm back on Vim after a year of VS Code": the user uses it
		// again, in place of what took its place.
		fs := copula(ts, j+1, subject, word, neg)
		for i := range fs {
			fs[i].Change = true
			fs[i].Replace = fs[i].Multi && !fs[i].Ended
		}
		return fs
	case degreeIn(ts, j) > 0 && subject == "user":
		// "I'm doing a PhD in chemistry", "working on a master's in
		// nursing": what the user studies.
		if val, _, ok := np(ts, degreeIn(ts, j)); ok && !neg {
			return []Fact{mk("studies", strings.ToLower(val))}
		}
	case t.low == "back" && j+1 < len(ts) && ts[j+1].low == "to":
		// "I'm back to being vegetarian"
		k := j + 2
		if k < len(ts) && ts[k].low == "being" {
			k++
		}
		fs := copula(ts, k, subject, word, neg)
		for i := range fs {
			fs[i].Change = true
		}
		return fs
	case (t.low == "staying" || t.low == "visiting" || t.low == "spending" || (t.low == "at" && !(j+1 < len(ts) && ts[j+1].low == "home") || t.low == "back" || t.low == "home") && tempEN.MatchString(tokText(ts))) && stayIn(ts, j+1) > 0:
		// "I'm staying with my parents in Leeds", "visiting my sister in
		// Madrid", "at my mum's in York": where the user is for now.
		if val, _, ok := np(ts, stayIn(ts, j+1)); ok && !neg {
			return []Fact{mk("staying_in", val)}
		}
	case t.low == "in" && j+2 < len(ts) && (ts[j+1].low == "my" || ts[j+1].low == "his" || ts[j+1].low == "her" || ts[j+1].low == "their") && decadeAge(ts, j+2) != "":
		// "I'm in my thirties", "my dad is in his early seventies".
		if !neg {
			return []Fact{mk("age", decadeAge(ts, j+2))}
		}
	case (t.low == "fluent" || t.low == "conversational" || t.low == "proficient") && j+1 < len(ts) && ts[j+1].low == "in" && languageAt(ts, j+2) != "":
		// "I'm fluent in French"
		if !neg {
			return []Fact{mk("speaks", languageAt(ts, j+2))}
		}
	case (t.low == "a" || t.low == "an") && j+2 < len(ts) && ts[j+1].low == "native" && languages[ts[j+2].w] && j+3 < len(ts) && ts[j+3].low == "speaker":
		// "I'm a native Dutch speaker"
		if !neg {
			return []Fact{mk("speaks", ts[j+2].w)}
		}
	case t.low == "diagnosed" && j+1 < len(ts) && ts[j+1].low == "with" && subject == "user":
		// "I was diagnosed with type 2 diabetes": a condition the user has.
		if val, _, ok := np(ts, j+2); ok && !neg && !strings.Contains(val, "'") {
			return []Fact{mk("condition", "has "+lowerFirst(val))}
		}
	case t.low == "back" && backIn(ts, j) > 0:
		// "I'm back in London after two years in Sydney": home again, a
		// move back; "I'm back in Rome" alone is where the user is.
		k := backIn(ts, j)
		if val, _, ok := np(ts, k); ok && !neg {
			if prior, home := backHome(ts, k); home {
				f := mk("lives_in", val)
				f.Change, f.Prior, f.move = true, prior, true
				return []Fact{f}
			}
			return []Fact{mk("staying_in", val)}
		}
	case t.low == "in" && j+1 < len(ts) && ts[j+1].capital && ts[j+1].tag == "NNP":
		// "I'm in Tokyo": where the user is, not where they live;
		// "we've been in Denver since March" is where they live.
		if val, _, ok := np(ts, j+1); ok && !neg && lastingStay(ts, j) {
			f := mk("lives_in", val)
			f.move = true
			return []Fact{f}
		}
		if val, _, ok := np(ts, j+1); ok && !neg {
			return []Fact{mk("staying_in", val)}
		}
	case t.low == "on" && j+2 < len(ts) && ts[j+1].capital && (ts[j+2].low == "time" || j+3 < len(ts) && ts[j+3].low == "time"):
		// "I'm on Pacific time"
		if val, end, ok := np(ts, j+1); ok && !neg {
			if !strings.HasSuffix(strings.ToLower(val), "time") && end < len(ts) && ts[end].low == "time" {
				val += " time"
			}
			return []Fact{mk("timezone", val)}
		}
	case t.low == "on" && j+1 < len(ts) && ts[j+1].capital && ts[j+1].tag == "NNP" && !weekdayOrMonth[ts[j+1].low] && subject == "user":
		// "I'm on Android", "I've been on Linux for years": what the
		// user runs.
		if val, _, ok := np(ts, j+1); ok && !neg && productName(val) {
			return []Fact{mk("uses", val)}
		}
	case t.low == "on" && j+2 < len(ts) && (ts[j+1].low == "a" || ts[j+1].low == "an") && ts[j+2].capital && subject == "user" && kindSlot(ts[j+2].w) != "":
		// "I'm on a Mac now", "on an iPhone these days": a tool or a
		// device of a known kind.
		if val, _, ok := np(ts, j+2); ok && !neg && productName(val) {
			slot := kindSlot(val)
			if slot == "" {
				slot = kindSlot(ts[j+2].w)
			}
			return []Fact{mk(slot, val)}
		}
	case t.tag == "CD" && atoi(t.w) > 0 && atoi(t.w) < 120 && (j+1 == len(ts) || !strings.HasPrefix(ts[j+1].tag, "NN") || ts[j+1].low == "years"):
		// "My daughter is 7", "I'm 34"
		if !neg {
			return []Fact{mk("age", t.w)}
		}
	case (t.low == "based" || t.low == "located") && j+1 < len(ts) && ts[j+1].low == "in",
		t.low == "based" && j+3 < len(ts) && ts[j+1].low == "out" && ts[j+2].low == "of" && ts[j+3].capital:
		k := j + 2
		if ts[j+1].low == "out" {
			k = j + 3 // "based out of Austin"
		}
		if val, _, _, ok := homePlace(ts, k); ok {
			return []Fact{mk("lives_in", val)} // "based in a small town outside Austin"
		}
	case t.low == "from" && j+1 < len(ts) && ts[j+1].capital:
		if val, _, ok := np(ts, j+1); ok {
			return []Fact{mk("from", val)}
		}
	case t.low == "from" && j+1 < len(ts) && (ts[j+1].low == "a" || ts[j+1].low == "an" || ts[j+1].low == "the"):
		// "I'm from a small village near Krakow", "from the suburbs of
		// Chicago": a hometown described, as said.
		if val, _, placed, ok := describedHome(ts, j+1, 0); ok && placed && !neg {
			return []Fact{mk("from", val)}
		}
	case (t.low == "married" || t.low == "engaged") && j+1 < len(ts) && ts[j+1].low == "to" && j+2 < len(ts) && ts[j+2].capital:
		if val, _, ok := np(ts, j+2); ok {
			return []Fact{mk("partner", val)}
		}
	case (t.low == "a" || t.low == "an") && j+3 < len(ts) && ts[j+1].low == "member" && ts[j+2].low == "of":
		// "I'm a member of the Sierra Club", "became a member of …".
		if val, _, ok := np(ts, j+3); ok && !neg {
			f := mk("member_of", val)
			f.the = ts[j+3].low == "the"
			return []Fact{f}
		}
	case (t.low == "a" || t.low == "an") && fanOf(ts, j+1) > 0:
		// "I'm a huge fan of the Celtics": what the user is a fan of.
		k := fanOf(ts, j+1)
		val, _, ok := np(ts, k)
		if name, named := calledName(ts, k); named {
			val, ok = name, true // "a fan of a band called Muse": Muse
		}
		if ok {
			if neg { // "I'm not a fan of horror films"
				return []Fact{mk("dislikes", val)}
			}
			f := mk("fan_of", val)
			f.the = ts[k].low == "the"
			return []Fact{f}
		}
	case Plural(subject) && strings.HasSuffix(t.low, "s") && jobHeads[strings.TrimSuffix(t.low, "s")] ||
		Plural(subject) && strings.HasPrefix(t.tag, "JJ") && j+1 < len(ts) && jobHeads[strings.TrimSuffix(ts[j+1].low, "s")] && strings.HasSuffix(ts[j+1].low, "s"):
		// "My parents are (both) teachers", "… retired teachers": their
		// job, said in the plural.
		if val, _, ok := np(ts, j); ok && !neg {
			return []Fact{mk("job_title", strings.ToLower(val))}
		}
	case t.low == "a" || t.low == "an":
		val, end, ok := np(ts, j)
		if !ok {
			return nil
		}
		head := strings.ToLower(val[strings.LastIndexByte(val, ' ')+1:])
		if d := drinkerOf(val); d != "" && !neg {
			return []Fact{mk("drinks", d)} // "I'm a big coffee drinker"
		}
		if strings.HasPrefix(strings.ToLower(val), "stay-at-home ") && parentWords[head] {
			f := mk("job_title", strings.ToLower(val)) // "I'm a stay-at-home dad"
			f.Ended = neg
			return []Fact{f}
		}
		if !jobHeads[head] {
			if diets[head] && !neg {
				return []Fact{mk("diet", head)}
			}
			return nil
		}
		if studentHeads[head] {
			// "I'm a student at UCLA", "a PhD student at ETH": a school,
			// not an employer.
			if end+1 < len(ts) && ts[end].low == "at" && ts[end+1].capital && !neg {
				if school, _, ok := np(ts, end+1); ok {
					return []Fact{mk("studies_at", school)}
				}
			}
			return nil
		}
		f := mk("job_title", strings.ToLower(val))
		f.Ended = neg
		out := []Fact{f}
		if end+1 < len(ts) && (ts[end].low == "at" || ts[end].low == "for") && ts[end+1].capital && !neg {
			if org, _, ok := np(ts, end+1); ok {
				out = append(out, mk("works_at", org))
			}
		} else if end+1 < len(ts) && (ts[end].low == "at" || ts[end].low == "for") && !neg {
			if org, _, ok := genericWorkplace(ts, end+1); ok {
				out = append(out, mk("works_at", org)) // "a nurse at a children's hospital"
			}
		}
		return out
	case subject == "user" && t.capital && (j+1 == len(ts) || ts[j+1].tag == "." || ts[j+1].tag == ","):
		return []Fact{mk("name", t.w)}
	}
	return nil
}

// parentWords head a "stay-at-home" role.
var parentWords = map[string]bool{"dad": true, "mom": true, "mum": true, "parent": true, "father": true, "mother": true}

// drinkerOf is what "a (big) coffee drinker" drinks, "" when val is no
// such phrase.
func drinkerOf(val string) string {
	w := strings.Fields(strings.ToLower(val))
	if len(w) < 2 || (w[len(w)-1] != "drinker" && w[len(w)-1] != "drinkers") {
		return ""
	}
	w = w[:len(w)-1]
	for len(w) > 1 && (fanDegree[w[0]] || w[0] == "heavy" || w[0] == "daily" || w[0] == "serious") {
		w = w[1:]
	}
	if fanDegree[w[0]] || w[0] == "heavy" || w[0] == "social" || w[0] == "light" || w[0] == "occasional" {
		return ""
	}
	return strings.Join(w, " ")
}

// degreeWords are the degrees a user can be "doing … in" a subject.
var degreeWords = map[string]bool{"phd": true, "ph.d": true, "ph.d.": true, "doctorate": true, "master's": true, "masters": true,
	"master": true, "bachelor's": true, "bachelors": true, "degree": true, "mba": true, "msc": true, "ma": true, "bsc": true, "ba": true, "diploma": true}

// degreeIn is where the subject of "doing (a) PhD in X" starts when ts
// from j says that ("doing", "pursuing", "working on", "studying for",
// "halfway through" a degree in), else 0.
// calledAt is where the name starts in "a startup called Zest", "an
// agency named Brightly" at j, 0 when ts says no such thing there.
func calledAt(ts []tok, j int) int {
	if j >= len(ts) || ts[j].low != "a" && ts[j].low != "an" {
		return 0
	}
	for m := j + 1; m+1 < len(ts) && m < j+5; m++ {
		if (ts[m].low == "called" || ts[m].low == "named") && ts[m+1].capital {
			return m + 1
		}
		if !strings.HasPrefix(ts[m].tag, "NN") && !strings.HasPrefix(ts[m].tag, "JJ") {
			return 0
		}
	}
	return 0
}

// lastingStay reports being at the place after the copula at j for a
// lasting time: the perfect "have been in" with "since" or a span of
// months or years ("we've been in Denver since March", "… for two years"),
// not a bounded stay ("for two weeks").
func lastingStay(ts []tok, j int) bool {
	if j == 0 || ts[j-1].low != "been" {
		return false
	}
	sent := tokText(ts)
	if tempPeriod(sent) != "" {
		return false
	}
	for i := j + 2; i < len(ts); i++ {
		switch ts[i].low {
		case "since":
			return true
		case "for":
			for m := i + 1; m < len(ts) && m < i+4; m++ {
				if ts[m].low == "years" || ts[m].low == "months" || ts[m].low == "decade" || ts[m].low == "year" {
					return true
				}
			}
		case ".", ";", "but", "and":
			return false
		}
	}
	return false
}

// backIn is the index of the place after "back in" or "back home in" at
// j, 0 when there is none.
func backIn(ts []tok, j int) int {
	k := j + 1
	if k < len(ts) && ts[k].low == "home" {
		k++
	}
	if k+1 < len(ts) && ts[k].low == "in" && ts[k+1].capital && ts[k+1].tag == "NNP" && !dateWords([]string{ts[k+1].w}) {
		return k + 1
	}
	return 0
}

// backHome reports whether being back at the place read at k is a return
// home, not a visit: "back home in", "back in X for good", "back in X
// after two years in Sydney" (prior: Sydney) or "… after a decade
// abroad"; never with a bounded period ("back in Rome for the summer").
func backHome(ts []tok, k int) (prior string, home bool) {
	sent := tokText(ts)
	if p := tempPeriod(sent); p != "" && !purposeOnly(sent) {
		return "", false
	}
	home = ts[k-2].low == "home" || strings.Contains(strings.ToLower(sent), "for good")
	for i := k; i < len(ts); i++ {
		if ts[i].low != "after" {
			continue
		}
		span := false
		for m := i + 1; m < len(ts) && m < i+8; m++ {
			switch ts[m].low {
			case "year", "years", "months", "decade", "decades", "abroad", "away":
				span = true
			case "in":
				if span && m+1 < len(ts) && ts[m+1].capital {
					prior, _, _ = np(ts, m+1)
				}
			}
		}
		home = home || span
		break
	}
	return prior, home
}

func degreeIn(ts []tok, j int) int {
	switch {
	case j < len(ts) && (ts[j].low == "doing" || ts[j].low == "pursuing" || ts[j].low == "completing" || ts[j].low == "finishing"):
		j++
	case j+1 < len(ts) && (ts[j].low == "working" && ts[j+1].low == "on" || ts[j].low == "studying" && ts[j+1].low == "for"):
		j += 2
	default:
		return 0
	}
	for j < len(ts) && (ts[j].low == "a" || ts[j].low == "an" || ts[j].low == "my") {
		j++
	}
	k := j
	for k < len(ts) && k < j+3 && !degreeWords[ts[k].low] {
		k++
	}
	if k >= len(ts) || !degreeWords[ts[k].low] {
		return 0
	}
	// The tagger splits "master's" into "master" and "'s".
	if k+1 < len(ts) && ts[k+1].low == "'s" {
		k++
	}
	if k+2 < len(ts) && ts[k+1].low == "in" {
		return k + 2
	}
	return 0
}

// allergyNoun is X in "(a / an / bad) X allergy" at ts[j] ("I have a
// peanut allergy", "a severe shellfish allergy"), "" otherwise.
func allergyNoun(ts []tok, j int) string {
	for j < len(ts) && (ts[j].low == "a" || ts[j].low == "an" || ts[j].low == "severe" || ts[j].low == "bad" || ts[j].low == "mild" ||
		ts[j].low == "serious" || ts[j].low == "slight") {
		j++
	}
	var w []string
	for k := j; k < len(ts) && k < j+3; k++ {
		if l := ts[k].low; l == "allergy" || l == "allergies" {
			if len(w) == 0 {
				return ""
			}
			return strings.Join(w, " ")
		}
		if !strings.HasPrefix(ts[k].tag, "NN") && !strings.HasPrefix(ts[k].tag, "JJ") || fanDegree[ts[k].low] || vagueAllergy[ts[k].low] {
			return ""
		}
		w = append(w, ts[k].low)
	}
	return ""
}

// vagueAllergy are the words before "allergy" that name no allergen.
var vagueAllergy = map[string]bool{"big": true, "little": true, "small": true, "terrible": true, "awful": true, "strong": true,
	"food": true, "seasonal": true, "skin": true, "weird": true, "new": true, "known": true, "life-threatening": true}

// countAllergens are the allergens named in the plural ("allergic to
// peanuts") but said in the singular before "allergy".
var countAllergens = map[string]bool{"peanut": true, "nut": true, "tree nut": true, "egg": true, "almond": true, "cashew": true,
	"walnut": true, "strawberry": true, "bee sting": true, "wasp sting": true, "cat": true, "dog": true, "tomato": true}

// allergens is the allergen of "a peanut allergy" as "allergic to" names
// it: "peanuts", "shellfish".
func allergens(a string) string {
	if !countAllergens[a] {
		return a
	}
	if strings.HasSuffix(a, "y") && !strings.HasSuffix(a, "ey") {
		return a[:len(a)-1] + "ies"
	}
	if strings.HasSuffix(a, "o") {
		return a + "es"
	}
	return a + "s"
}

// studentHeads are the job-like heads that name a student: at a school,
// not an employer.
var studentHeads = map[string]bool{"student": true, "undergrad": true, "undergraduate": true, "postgrad": true,
	"freshman": true, "sophomore": true, "pupil": true}

// fanOf is where the object of "(huge, big, …) fan of X" starts when ts
// from j says that, else 0.
func fanOf(ts []tok, j int) int {
	for j < len(ts) && fanDegree[ts[j].low] {
		j++
	}
	if j+2 < len(ts) && (ts[j].low == "fan" || ts[j].low == "fans") && ts[j+1].low == "of" {
		return j + 2
	}
	return 0
}

var fanDegree = map[string]bool{"huge": true, "big": true, "massive": true, "great": true, "real": true, "longtime": true,
	"long-time": true, "lifelong": true, "die-hard": true, "diehard": true, "devoted": true, "total": true, "avid": true}

// namedPets reads several pets of a kind named together at ts[k]: "two
// cats, Luna and Milo", "three dogs named Rex, Bella and Max": a pet
// each.
func namedPets(ts []tok, k int, subject, word string, neg bool) []Fact {
	if k+2 >= len(ts) || !petCounts[ts[k].low] {
		return nil
	}
	kind, ok := pluralPet(ts[k+1].low)
	if !ok {
		return nil
	}
	m := k + 2
	if ts[m].low == "," || ts[m].low == "named" || ts[m].low == "called" {
		m++
	}
	var out []Fact
	for ; m < len(ts); m++ {
		switch t := ts[m]; {
		case t.capital:
			f := Fact{Triple: tripleOf(subject, "pet", kind+" named "+t.w), word: word}
			f.Ended = neg
			out = append(out, f)
		case t.low == "," || t.low == "and":
		case (t.low == "a" || t.low == "an") && len(out) >= 2:
			// "two cats, Luna and Milo, and a dog called Rex": the
			// next pet, by its own kind.
			out = append(out, petFact(ts, m, subject, word, neg)...)
			m = len(ts)
		default:
			m = len(ts)
		}
	}
	if len(out) < 2 {
		return nil // one name for several pets says too little
	}
	return out
}

// petCounts are the numbers of "two cats, Luna and Milo".
var petCounts = map[string]bool{"two": true, "three": true, "four": true, "five": true, "2": true, "3": true, "4": true, "5": true}

// schoolWords end the name of a school ("Lincoln Elementary", "Carver
// High School", "St Anne's Academy").
var schoolWords = map[string]bool{"school": true, "elementary": true, "high": true, "academy": true, "college": true,
	"university": true, "kindergarten": true, "preschool": true, "nursery": true, "montessori": true, "prep": true,
	"institute": true, "primary": true, "secondary": true, "middle": true, "gymnasium": true, "polytechnic": true}

// schoolName: val is a named school (a capitalised name ending in a
// school word).
func schoolName(val string) bool {
	w := strings.Fields(val)
	if len(w) < 2 || w[0][0] < 'A' || w[0][0] > 'Z' {
		return false
	}
	return schoolWords[strings.ToLower(w[len(w)-1])]
}

// productName: val reads as the name of a product or platform the user
// is "on" ("Android", "Arch Linux", "Zoom"): every word capitalised, no
// possessive, no group ("Team Alpha", "the Board") and no season or
// holiday ("Christmas break" has a lowercase noun).
func productName(val string) bool {
	if strings.Contains(val, "'") {
		return false
	}
	for _, w := range strings.Fields(val) {
		if w[0] < 'A' || w[0] > 'Z' {
			if w[0] < '0' || w[0] > '9' {
				return false
			}
		}
		switch strings.ToLower(w) {
		case "team", "board", "committee", "squad", "crew", "staff", "council", "christmas", "easter", "thanksgiving", "holiday":
			return false
		}
	}
	return true
}

// decades are the ages said as a decade of life.
var decades = map[string]bool{"teens": true, "twenties": true, "thirties": true, "forties": true, "fifties": true,
	"sixties": true, "seventies": true, "eighties": true, "nineties": true, "20s": true, "30s": true, "40s": true,
	"50s": true, "60s": true, "70s": true, "80s": true, "90s": true}

// decadeAge is the age of "(early / mid / late) thirties" at ts[j]
// ("late thirties"), "" when ts says no decade there.
func decadeAge(ts []tok, j int) string {
	pre := ""
	if j < len(ts) && (ts[j].low == "early" || ts[j].low == "mid" || ts[j].low == "late" || ts[j].low == "mid-") {
		pre = strings.TrimSuffix(ts[j].low, "-") + " "
		j++
	}
	if j < len(ts) && ts[j].low == "-" {
		j++
	}
	if j < len(ts) && decades[ts[j].low] {
		return pre + ts[j].low
	}
	return ""
}

// countedPets is "two cats" when ts[k:] says a number of pets of a kind
// and names none of them, "" otherwise.
func countedPets(ts []tok, k int) string {
	if k+1 >= len(ts) || !petCounts[ts[k].low] {
		return ""
	}
	if _, ok := pluralPet(ts[k+1].low); !ok {
		return ""
	}
	if k+2 < len(ts) && (ts[k+2].low == "named" || ts[k+2].low == "called" || ts[k+2].capital) {
		return ""
	}
	return ts[k].low + " " + ts[k+1].low
}

// scheduleWords are the slots a "changed my … to" sets as said.
var scheduleWords = map[string]bool{"days": true, "day": true, "time": true, "times": true, "schedule": true, "class": true,
	"classes": true, "meeting": true, "shift": true, "shifts": true, "appointment": true, "lesson": true, "lessons": true,
	"standup": true, "hours": true, "slot": true, "session": true, "sessions": true, "session's": true}

// slotMovedTo reads "<slot> to <value>" at ts[k], after "moved my" or
// "changed my": "gym days to Tuesdays and Fridays", "standup to 10am".
func slotMovedTo(ts []tok, k int, mk func(a, v string) Fact) (Fact, bool) {
	var name []string
	for ; k < len(ts) && (strings.HasPrefix(ts[k].tag, "NN") || strings.HasPrefix(ts[k].tag, "JJ")) && len(name) < 3; k++ {
		name = append(name, ts[k].low)
	}
	if len(name) == 0 || k >= len(ts) || ts[k].low != "to" {
		return Fact{}, false
	}
	val, _ := weekdayList(ts, k+1)
	if val == "" {
		val, _, _ = np(ts, k+1)
	}
	if val == "" {
		return Fact{}, false
	}
	f := mk(strings.Join(name, "_"), val)
	f.aword, f.Open, f.Change = strings.Join(name, " "), !InVocabulary(strings.Join(name, "_")), true
	return f, true
}

// titles are the words before a name that make it no partner's ("seeing
// Dr. Patel").
var titles = map[string]bool{"dr": true, "dr.": true, "doctor": true, "mr": true, "mr.": true, "mrs": true, "mrs.": true,
	"ms": true, "ms.": true, "prof": true, "prof.": true, "professor": true}

// relNamed reads a relative introduced with a name at ts[k]: "a (new)
// girlfriend named Mia", "a sister, Ana", "a boyfriend now, his name is
// Sam", and "someone new, her name is Mia" (a partner: said after
// "seeing"). A new one is said as a change.
func relNamed(ts []tok, k int, subject string) (Fact, bool) {
	if subject != "user" {
		return Fact{}, false
	}
	next := func(k int, words ...string) bool { return k < len(ts) && contains(words, ts[k].low) }
	isNew := false
	for next(k, "a", "an", "new") {
		isNew = isNew || ts[k].low == "new"
		k++
	}
	if k >= len(ts) {
		return Fact{}, false
	}
	w := ts[k].low
	rel := relations[w]
	if w == "someone" || w == "somebody" {
		rel, w = "partner", "partner"
	}
	if rel == "" || rel == "child" {
		return Fact{}, false
	}
	m := k + 1
	for next(m, "new", "now") {
		isNew = isNew || ts[m].low == "new"
		m++
	}
	name := ""
	switch {
	case next(m, "named", "called") && m+1 < len(ts) && ts[m+1].capital:
		name, _, _ = np(ts, m+1)
	case next(m, ",") && m+1 < len(ts) && ts[m+1].capital && ts[m+1].tag == "NNP":
		name, _, _ = np(ts, m+1)
	default:
		// "…, her name is Mia", "…, his name's Sam".
		for n := m; n+2 < len(ts) && n < m+6; n++ {
			if (ts[n].low == "her" || ts[n].low == "his" || ts[n].low == "their") && ts[n+1].low == "name" {
				p := n + 2
				if next(p, "is", "'s") {
					p++
				}
				if p < len(ts) && ts[p].capital {
					name, _, _ = np(ts, p)
				}
				break
			}
		}
	}
	if name == "" || titles[strings.ToLower(name)] {
		return Fact{}, false
	}
	f := Fact{Triple: tripleOf("user", relAttr(rel), name), word: w, aword: w, Change: isNew && rel == "partner"}
	return f, true
}

// pluralPet is the kind of pet a plural word names ("cats" → "cat",
// "puppies" → "puppy"); false for a singular or a word that is no pet.
func pluralPet(w string) (string, bool) {
	kind := strings.TrimSuffix(w, "s")
	if strings.HasSuffix(w, "ies") {
		kind = strings.TrimSuffix(w, "ies") + "y"
	}
	return kind, kind != w && pets[kind]
}

func petFact(ts []tok, j int, subject, word string, neg bool) []Fact {
	k := j
	if k < len(ts) && (ts[k].low == "him" || ts[k].low == "her" || ts[k].low == "them") {
		k++ // "we got him a rabbit": the pet is the family's
	}
	if k < len(ts) && (ts[k].low == "a" || ts[k].low == "an" || ts[k].low == "new") {
		k++
	}
	for k < len(ts) && (ts[k].low == "new" || ts[k].low == "second" || ts[k].low == "third" || ts[k].low == "another" || ts[k].low == "little") {
		k++ // "a second cat, Luna"
	}
	if k >= len(ts) {
		return nil
	}
	if fs := namedPets(ts, k, subject, word, neg); fs != nil {
		return fs
	}
	if n := countedPets(ts, k); n != "" {
		// "I have two cats": how many, no names.
		f := Fact{Triple: tripleOf(subject, "pet", n), word: word}
		f.Ended = neg
		return []Fact{f}
	}
	kind := ts[k].low
	if !pets[strings.TrimSuffix(kind, "s")] {
		// "a golden retriever named Max": a name after "named" is enough.
		for m := k; m < len(ts) && m < k+4; m++ {
			if (ts[m].low == "named" || ts[m].low == "called") && m+1 < len(ts) && ts[m+1].capital {
				kind = strings.ToLower(joinW(ts[k:m]))
				k = m - 1
				break
			}
		}
		if !strings.Contains(kind, " ") && !pets[kind] {
			return nil
		}
	}
	val := kind
	detail := ""
	// "a new puppy, a corgi called Biscuit": the breed in apposition, then
	// the name.
	if k+4 < len(ts) && ts[k+1].low == "," && (ts[k+2].low == "a" || ts[k+2].low == "an") {
		for m := k + 3; m+1 < len(ts) && m < k+6; m++ {
			if (ts[m].low == "named" || ts[m].low == "called") && ts[m+1].capital {
				detail = strings.ToLower(joinW(ts[k+3 : m]))
				k = m - 1
				break
			}
		}
	}
	end := k + 1
	if k+2 < len(ts) && (ts[k+1].low == "named" || ts[k+1].low == "called") && ts[k+2].capital {
		val = kind + " named " + ts[k+2].w
		end = k + 3
	} else if k+1 < len(ts) && ts[k+1].capital {
		val = kind + " named " + ts[k+1].w
		end = k + 2
	} else if k+2 < len(ts) && ts[k+1].low == "," && ts[k+2].capital && ts[k+2].tag == "NNP" && pets[strings.TrimSuffix(kind, "s")] {
		val = kind + " named " + ts[k+2].w // "a second cat, Luna"
		end = k + 3
	}
	f := Fact{Triple: tripleOf(subject, "pet", val), word: word}
	if detail != "" {
		f.detail = article(detail) + " " + detail
	}
	f.Ended = neg
	out := []Fact{f}
	if end+1 < len(ts) && ts[end].low == "and" && (ts[end+1].low == "a" || ts[end+1].low == "an") {
		// "a dog named Rex and a cat named Miso": both pets.
		out = append(out, petFact(ts, end+1, subject, word, neg)...)
	} else if end+1 < len(ts) && ts[end].low == "and" && countedPets(ts, end+1) != "" {
		// "a golden retriever called Biscuit and two cats": the others,
		// counted.
		g := Fact{Triple: tripleOf(subject, "pet", countedPets(ts, end+1)), word: word}
		g.Ended = neg
		out = append(out, g)
	}
	return out
}

func joinW(ts []tok) string {
	var w []string
	for _, t := range ts {
		if t.low != "a" && t.low != "an" {
			w = append(w, t.w)
		}
	}
	return strings.Join(w, " ")
}

// possessive reads "my …": a relative ("my sister Anna lives in Paris"),
// a named attribute ("my email is …", "my favorite color is blue", "my
// dentist is Dr. Okafor").
func possessive(ts []tok, j int, sent string) []Fact {
	if j >= len(ts) {
		return nil
	}
	for j+1 < len(ts) && relAdj[ts[j].low] && (relations[ts[j+1].low] != "" || pets[ts[j+1].low] || relAdj[ts[j+1].low]) {
		j++ // "our third baby", "my little sister", "my new puppy"
	}
	if pets[ts[j].low] && j+1 < len(ts) {
		return possessivePet(ts, j)
	}
	pair := false
	if e := parentsPair(ts, j); e > 0 {
		j, pair = e, true // "my mom and dad live in Spain": the user's parents
	} else if parentOf[ts[j].low] != "" && (parentsPair(ts, j-2) == j || j >= 3 && parentsPair(ts, j-3) == j) {
		return nil // (the second of "my mom and my dad", read with the first)
	}
	if rel, ok := relations[ts[j].low]; ok {
		word := ""
		if pair {
			rel, word = "parents", "parents"
		}
		fs, name := relative(ts, j, sent, rel)
		for i := range fs {
			if word != "" && fs[i].Subject == rel {
				fs[i].word = word
			}
		}
		if name != "" {
			// "My daughter Ava turned 10": the age is Ava's, not every
			// child's (a second child keeps their own).
			for i := range fs {
				if fs[i].Subject == rel && (fs[i].Attribute == "age" || manyOf[rel]) {
					fs[i].Subject = name
				}
			}
		}
		return fs
	}
	return attribute(ts, j, "user", "", sent)
}

// parentOf maps the words for a mother or a father that pair as the
// user's parents ("my mom and dad", "my mother and my father").
var parentOf = map[string]string{"mom": "mother", "mum": "mother", "mother": "mother", "mommy": "mother",
	"dad": "father", "father": "father", "daddy": "father"}

// parentsPair is the index of the last word of "mom and (my) dad" at ts[j]
// (after "my"), one parent then the other; 0 when none.
func parentsPair(ts []tok, j int) int {
	if j < 0 || j+2 >= len(ts) || ts[j+1].low != "and" {
		return 0
	}
	a, k := parentOf[ts[j].low], j+2
	if ts[k].low == "my" || ts[k].low == "our" {
		k++
	}
	if k >= len(ts) || a == "" || parentOf[ts[k].low] == "" || parentOf[ts[k].low] == a {
		return 0
	}
	return k
}

// manyOf are the relations a user may have several of: a named one's
// facts are keyed by the name ("Omar.lives_in"), so what a second friend
// does never supersedes what the first did ("My friend Lena lives in
// Berlin" after "My best friend Omar moved to Dubai").
var manyOf = map[string]bool{"friend": true, "colleague": true, "cousin": true, "neighbor": true, "roommate": true,
	"grandchild": true, "in_law": true, "sister": true, "brother": true, "aunt": true, "uncle": true, "niece": true,
	"nephew": true}

// LinksOne reports whether an unnamed relation's fact is about the one
// relative of that relation the user has named ("my sister moved to Rome"
// after "my sister Anna lives in Porto": Anna's home): siblings, aunts,
// uncles, nieces and nephews, of whom a user names few. A friend or a
// colleague named once is not the only one.
func LinksOne(rel string) bool {
	switch rel {
	case "sister", "brother", "aunt", "uncle", "niece", "nephew":
		return true
	}
	return false
}

// relative reads a sentence about the user's relative named by ts[j]
// (rel: the relation), and the relative's name when the sentence gives
// it in apposition ("my son Leo …").
func relative(ts []tok, j int, sent, rel string) (out []Fact, name string) {
	{ //nolint:gocritic // the block keeps the reading's history readable in blame
		word := ts[j].low
		k := j + 1
		if k+1 < len(ts) && ts[k].low == "," && ts[k+1].capital {
			k++ // "our third baby, Lina, was born"
		}
		if k < len(ts) && ts[k].capital && ts[k].tag != "VBZ" && !Plural(rel) {
			// The name: its capitalised words ("Ana", "Mary Jane"), not
			// the verb the tagger may read as a noun ("Ana visits").
			end := k
			for end < len(ts) && ts[end].capital && end < k+3 {
				end++
			}
			name = joinW(ts[k:end])
			out = append(out, Fact{Triple: tripleOf("user", relAttr(rel), name), word: word, aword: word, appos: true})
			k = end
			if k < len(ts) && ts[k].low == "," {
				k++
			}
		}
		if k+3 < len(ts) && ts[k].low == "'s" && ts[k+1].low == "name" && ts[k+2].low == "is" && ts[k+3].capital && !Plural(rel) && name == "" && rel != "partner" {
			// "My mom's name is Linda", "my sister's name is Anna": who
			// the relative is, as "my sister is Anna" says (was the
			// relative's own "name" attribute), so what is said of her
			// later is Anna's. (A partner's name stays the partner's
			// "name": the partner slot is the relationship, whose later
			// statement — engaged, married — dates it.)
			end := k + 3
			for end < len(ts) && ts[end].capital && end < k+6 {
				end++
			}
			name = joinW(ts[k+3 : end])
			return append(out, Fact{Triple: tripleOf("user", relAttr(rel), name), word: word, aword: word}), name
		}
		if k+1 < len(ts) && ts[k].low == "'s" && (ts[k+1].low == "a" || ts[k+1].low == "an" || ts[k+1].low == "from" || ts[k+1].low == "in" ||
			ts[k+1].low == "allergic" || ts[k+1].tag == "CD" || diets[ts[k+1].low]) {
			// "My mom's a teacher", "my son's 12": 's is "is".
			return append(out, copula(ts, k+1, rel, word, false)...), name
		}
		if k < len(ts) && (ts[k].low == "'s" || ts[k].low == "s") {
			return append(out, attribute(ts, k+1, rel, word, sent)...), name
		}
		if k < len(ts) && ts[k].low == "is" && k+1 < len(ts) {
			m := k + 1
			if ts[m].low == "named" || ts[m].low == "called" {
				m++
			}
			if m < len(ts) && ts[m].capital {
				if n, _, ok := np(ts, m); ok {
					return append(out, Fact{Triple: tripleOf("user", relAttr(rel), n), word: word, aword: word}), name
				}
			}
		}
		rest := clause(ts, k, rel, word)
		if len(rest) == 0 && len(out) > 0 && k < len(ts) && ts[k].tag != "." && ts[k].low != "is" && !objectAt(ts, j) {
			// "My sister Ana visits in June": the name is a fact, what
			// the sentence says of her a note beside it.
			out = append(out, Fact{Note: true})
		}
		return append(out, rest...), name
	}
}

// fieldWords are the last words of a line of work ("product
// management", "marketing", "nursing"): a job said by its field.
var fieldWords = map[string]bool{"management": true, "marketing": true, "nursing": true, "sales": true, "finance": true,
	"engineering": true, "design": true, "consulting": true, "accounting": true, "hr": true, "law": true, "medicine": true,
	"teaching": true, "research": true, "journalism": true, "it": false, "operations": true, "logistics": true,
	"retail": true, "hospitality": true, "healthcare": true, "education": true, "advertising": true, "banking": true,
	"insurance": true, "recruiting": true, "recruitment": true, "publishing": true, "construction": true, "tech": true,
	"software": true, "development": true, "analytics": true, "communications": true, "pr": true, "security": true,
	"support": true, "ux": true, "product": true, "administration": true, "real estate": true, "estate": true,
	"architecture": true, "pharmacy": true, "dentistry": true, "nutrition": true, "fitness": true, "policy": true}

// fieldOfWork reports whether v is a line of work: lowercase words
// ending in a field word.
func fieldOfWork(v string) bool {
	v = strings.TrimSpace(v)
	if v == "" || strings.ContainsAny(v[:1], "ABCDEFGHIJKLMNOPQRSTUVWXYZ") || len(strings.Fields(v)) > 3 {
		return false
	}
	return fieldWords[strings.ToLower(lastWord(v))]
}

// fieldAt is the line of work said at ts[k] ("marketing", "product
// management"), "" when none.
func fieldAt(ts []tok, k int) string {
	if k >= len(ts) || ts[k].capital && ts[k].low != "hr" && ts[k].low != "ux" && ts[k].low != "pr" {
		return ""
	}
	v, _, ok := np(ts, k)
	if !ok || !fieldOfWork(strings.ToLower(v)) || k < len(ts) && (ts[k].low == "the" || ts[k].low == "a" || ts[k].low == "an") {
		return ""
	}
	return strings.ToLower(v)
}

// jobEnded reports whether the sentence ends the user's job ("I'm no
// longer a developer", "I quit my job").
func jobEnded(ts []tok) bool {
	t := tokText(ts)
	return jobEndedRe.MatchString(t)
}

var jobEndedRe = rx.MustCompile(`(?i)\b(?:no longer an? |not an? \w+ any ?more|quit my job|left my job|career change|changed careers)`)

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// practiceCue is the screen's words for "do <practice>".
func practiceCue() string {
	ws := slices.Sorted(maps.Keys(practices))
	return `|\bdo(?:es)?\s+(?:` + strings.Join(ws, "|") + `)\b`
}

// practices are what one does as a pastime ("I do yoga").
var practices = map[string]bool{"yoga": true, "pilates": true, "crossfit": true, "padel": true, "karate": true, "judo": true,
	"taekwondo": true, "jiu-jitsu": true, "boxing": true, "kickboxing": true, "ballet": true, "parkour": true,
	"triathlons": true, "marathons": true, "meditation": true, "zumba": true, "spinning": true, "aerobics": true,
	"calisthenics": true, "weightlifting": true, "powerlifting": true, "gymnastics": true, "archery": true, "fencing": true,
	"bouldering": true, "climbing": true, "salsa": true, "tango": true, "ceramics": true, "pottery": true, "improv": true,
	"woodworking": true, "embroidery": true, "origami": true, "taichi": true, "qigong": true, "barre": true, "rowing": true,
	"swimming": true, "running": true, "cycling": true, "hiking": true, "surfing": true, "skiing": true, "snowboarding": true}

// hedgeLen is the length of a time hedge at ts[k] ("these days",
// "lately", "right now", "at the moment", "nowadays"); 0 when none.
func hedgeLen(ts []tok, k int) int {
	two := func(a, b string) bool { return k+1 < len(ts) && ts[k].low == a && ts[k+1].low == b }
	switch {
	case two("these", "days"), two("right", "now"), two("for", "now"), two("this", "year"):
		return 2
	case k+2 < len(ts) && ts[k].low == "at" && ts[k+1].low == "the" && ts[k+2].low == "moment":
		return 3
	case ts[k].low == "lately" || ts[k].low == "nowadays" || ts[k].low == "currently" || ts[k].low == "now":
		return 1
	}
	return 0
}

// objectAt reports whether the relative named at ts[j] ("my (little)
// sister …") is an object, not a subject: a preposition or a verb comes
// before "my" ("I live in Austin with my husband Mark and our two kids").
func objectAt(ts []tok, j int) bool {
	m := j - 1
	for m > 0 && m > j-4 && ts[m].low != "my" && ts[m].low != "our" {
		m--
	}
	if m < 1 || ts[m].low != "my" && ts[m].low != "our" {
		return false
	}
	p := ts[m-1]
	return p.tag == "IN" || p.tag == "TO" || strings.HasPrefix(p.tag, "VB")
}

// relAttr is the user's attribute for a relation: "sister" → sister,
// "wife" → partner.
func relAttr(rel string) string {
	if _, ok := vocab[rel]; ok {
		return rel
	}
	return "friend"
}

var attrAlias = map[string]string{
	"email": "email", "email address": "email", "e-mail": "email", "phone": "phone", "phone number": "phone",
	"number": "phone", "cell": "phone", "mobile": "phone", "birthday": "birthday", "birth date": "birthday",
	"time zone": "timezone", "timezone": "timezone", "name": "name", "job": "job_title", "job title": "job_title",
	"diet": "diet", "age": "age", "hometown": "from", "home town": "from", "employer": "works_at", "company": "works_at",
	"partner": "partner", "wife": "partner", "husband": "partner",
	// "My home is in Oslo": the home slot, not an open attribute.
	"home": "lives_in", "home city": "lives_in", "current city": "lives_in", "workplace": "works_at",
	"hobby": "activity", "hobbies": "activity",
	// "My laptop is a MacBook Pro", "my car is a Kia", "my phone is a Pixel 8".
	"laptop": "computer", "computer": "computer", "car": "car", "phone model": "phone_model", "bike": "bike", "bicycle": "bike",
}

// namedDeathRe: a name said to have died or run away, the sentence's
// subject ("Rex passed away last week", "Sadly, Miso died").
var namedDeathRe = rx.MustCompile(`^\s*(?:(?:sadly|unfortunately|so|well|yesterday|today),?\s+)*([A-Z][a-z]+)\s+(?:has\s+|just\s+|finally\s+)*(?:died|passed away|passed|ran away|went missing|was put down|had to be put down|was put to sleep|crossed the rainbow bridge)\b`)

// moveDoneRe: the user's move to a place said to have happened ("The
// move to Edinburgh went well", "our move to Porto is done"), not one
// still planned ("the move to Leeds is next month").
var moveDoneRe = rx.MustCompile(`^\W*(?:(?:so|well|anyway|finally),?\s+)?(?i:the|our|my)\s+(?:big\s+)?(?i:move|relocation)\s+to\s+(\p{Lu}\p{L}+(?:\s+\p{Lu}\p{L}+)?)\s+(?i:went|was|is done|is complete|is finished|is over|has happened|finally happened|happened)\b` +
	// "Just finished the move up to Seattle", "we've completed our move to Leeds".
	`|^\W*(?i:(?:so|well|anyway|finally|just|today|yesterday),?\s+)?(?i:(?:i|we)(?:'ve|’ve| have)?\s+)?(?i:just\s+|finally\s+)?(?i:finished|completed|wrapped up)\s+(?i:the\s+|our\s+|my\s+)?(?i:big\s+)?(?i:move|moving|relocation|relocating)\s+(?i:(?:up|down|over|back|out)\s+)?(?i:to)\s+(\p{Lu}\p{L}+(?:\s+\p{Lu}\p{L}+)?)`)

// namedGoneRe: a name the user parted with ("had to rehome Buddy", "we
// gave Rex away", "we had to put Max down", "we lost Luna last week").
var namedGoneRe = rx.MustCompile(`\b(?:rehome|rehomed|re-home|re-homed|rehoming|give away|gave away|put down|lost)\s+([A-Z][a-z]+)\b|\b(?:gave|give|put)\s+([A-Z][a-z]+)\s+(?:away|up for adoption|down|to sleep)\b`)

// reachMeRe: how to reach the user, said in passing ("You can reach me on
// 07700 900123 after five", "text me at 555-0100", "email me at x@y.io").
var reachMeRe = rx.MustCompile(`(?i)\b(?:reach|call|text|contact|ring|phone|message|whatsapp|email|e-mail|mail)\s+me\s+(?:on|at|via)\s+(.+)$` +
	// "Use sam@newdomain.io from now on", "please use 07700 900123 instead":
	// an address or number the user says to use from now on.
	`|(?i)^\W*(?:(?:please|pls|ok|okay|so|and)[,]?\s+)?use\s+(.+?)\s+(?:from now on|going forward|instead|now)\b`)

// reachMe reads the phone number or e-mail a sentence says to reach the
// user at.
func reachMe(sent string) (Fact, bool) {
	m := reachMeRe.FindStringSubmatch(sent)
	if m == nil {
		return Fact{}, false
	}
	v, use := m[1], m[1] == ""
	if use {
		v = m[2] // "use … from now on": the whole value, nothing else
	}
	if e := emailRe.FindString(v); e != "" && strings.HasPrefix(v, e) && (!use || e == strings.TrimSpace(v)) {
		return Fact{Triple: tripleOf("user", "email", e), Change: use}, true
	}
	if p := phoneRe.FindString(v); p != "" && strings.HasPrefix(v, p) && (!use || strings.TrimSpace(p) == strings.TrimSpace(v)) {
		return Fact{Triple: tripleOf("user", "phone", strings.TrimSpace(p)), Change: use}, true
	}
	return Fact{}, false
}

// phoneWords are the words before "number" that keep it a phone number
// ("my work number"; not "my locker number", "my seat number").
var phoneWords = map[string]bool{"phone": true, "mobile": true, "cell": true, "work": true, "home": true, "office": true,
	"contact": true, "new": true, "personal": true, "private": true, "business": true, "landline": true, "whatsapp": true}

// attribute reads "<attribute> is <value>" at ts[j].
func attribute(ts []tok, j int, subject, word, sent string) []Fact {
	// "My first day at Hooli is Monday": the employer the user now has.
	if j+3 < len(ts) && ts[j].low == "first" && (ts[j+1].low == "day" || ts[j+1].low == "week") && (ts[j+2].low == "at" || ts[j+2].low == "with") && ts[j+3].capital {
		if val, _, ok := np(ts, j+3); ok {
			return []Fact{{Triple: tripleOf(subject, "works_at", val), word: word, Change: true}}
		}
	}
	var words, orig []string
	k := j
	moved := 0
	for ; k < len(ts) && len(words) < 5; k++ {
		if ts[k].low == "is" || ts[k].low == "are" || contractedIs(ts, k, len(words)) {
			break
		}
		if n := hedgeLen(ts, k); n > 0 && len(words) > 0 && k+n < len(ts) && (ts[k+n].low == "is" || ts[k+n].low == "are") {
			// "my favorite band these days is Phoebe Bridgers": past the
			// hedge to the value.
			k += n - 1
			continue
		}
		// "my flight got moved to Thursday", "my appointment has been
		// pushed back to 4pm": the new value, said as a change.
		if n := movedTo(ts, k); n > 0 && len(words) > 0 {
			moved = n
			break
		}
		// "my flight to Rome is …": a place is part of the attribute.
		if len(words) > 0 && (ts[k].low == "to" || ts[k].low == "from") && k+1 < len(ts) && ts[k+1].capital {
			words = append(words, ts[k].low, ts[k+1].low)
			orig = append(orig, ts[k].w, ts[k+1].w)
			k++
			continue
		}
		if !(strings.HasPrefix(ts[k].tag, "NN") || strings.HasPrefix(ts[k].tag, "JJ") || ts[k].low == "favorite" || ts[k].low == "favourite") {
			return nil
		}
		words = append(words, ts[k].low)
		orig = append(orig, ts[k].w)
	}
	if len(words) == 0 || k >= len(ts) || (ts[k].low != "is" && ts[k].low != "are" && !contractedIs(ts, k, len(words)) && moved == 0) {
		return nil
	}
	if moved > 0 {
		k += moved - 1 // at "to": the value follows as after "is"
	}
	name := strings.Join(words, " ")
	name = strings.ReplaceAll(name, "favourite", "favorite")
	// "Our kids are Mia and Sam": people of one relation, by name.
	if len(words) == 1 && subject == "user" {
		if rel := relations[strings.TrimSuffix(words[0], "s")]; rel != "" || words[0] == "children" {
			if words[0] == "children" {
				rel = "child"
			}
			var out []Fact
			w := strings.TrimSuffix(words[0], "s")
			if w == "kid" || w == "children" {
				w = "child"
			}
			for m := k + 1; m < len(ts); m++ {
				switch {
				case ts[m].capital:
					out = append(out, Fact{Triple: tripleOf("user", relAttr(rel), ts[m].w), word: w, aword: w})
				case ts[m].low == "," || ts[m].low == "and":
				default:
					m = len(ts)
				}
			}
			if len(out) > 0 {
				return out
			}
		}
	}
	a, known := attrAlias[name]
	newly := false
	if first, rest, ok := strings.Cut(name, " "); !known && ok && currentAdj[first] {
		// "My new employer is Globex", "my current job is nurse": the
		// slot itself, "new" said as a change.
		if b, ok := attrAlias[rest]; ok {
			a, known, newly, name = b, true, first == "new", rest
			words, orig = words[1:], orig[1:]
		} else {
			// "my new address is …": the address, said as a change.
			newly, name = first == "new", rest
			words, orig = words[1:], orig[1:]
		}
	}
	if !known {
		a = favoriteKey(strings.ReplaceAll(name, " ", "_"))
	}
	kind := a
	if k := attrAlias[words[len(words)-1]]; (k == "email" || k == "phone") && (len(words) == 1 || phoneWords[words[len(words)-2]] || k == "email") {
		kind = k // "my work email": an email address ("my locker number" is no phone)
	}
	k, _ = skipAdv(ts, k+1)
	if k < len(ts) && ts[k].low == "now" {
		k++ // "my locker number is now 245": the new value
		newly = true
	}
	aw := ""
	if !known || a == "partner" || a == "boss" {
		aw = strings.Join(orig, " ")
	}
	mk := func(v string) []Fact {
		return []Fact{{Triple: tripleOf(subject, a, v), word: word, aword: aw, Open: !InVocabulary(a), Change: moved > 0 || newly}}
	}
	switch kind {
	case "email":
		if m := emailRe.FindString(sent); m != "" {
			return mk(m)
		}
		return nil
	case "phone":
		if m := phoneRe.FindString(sent); m != "" {
			return mk(strings.TrimSpace(m))
		}
		// "My phone is a Galaxy S22": the phone itself.
		if subject == "user" && a == "phone" {
			if d := device(ts, k, subject, word); len(d) > 0 && d[0].Attribute == "phone_model" {
				return d
			}
		}
		return nil
	}
	if k < len(ts) && (ts[k].low == "named" || ts[k].low == "called") {
		k++
	}
	// The value runs to the end of the clause: "on Friday", "Dr. Okafor",
	// "3 May".
	var vw []string
	for ; k < len(ts) && len(vw) < 8; k++ {
		t := ts[k]
		if a == "activity" && (t.low == "and" || t.w == ",") {
			vw = append(vw, ",") // "painting and running": a list of hobbies
			continue
		}
		if t.tag == "." || t.tag == "," || t.tag == ":" || t.low == "and" || t.low == "but" || t.low == "because" || t.low == "since" || t.low == "so" || t.low == "which" || t.low == "now" || t.tag == "WRB" {
			break
		}
		vw = append(vw, t.w)
	}
	for len(vw) > 0 && (strings.EqualFold(vw[0], "a") || strings.EqualFold(vw[0], "an") || strings.EqualFold(vw[0], "the")) {
		vw = vw[1:]
	}
	if len(vw) == 0 {
		return nil
	}
	v := strings.Join(vw, " ")
	v = strings.ReplaceAll(v, " 's", "'s")
	// "My home is in Oslo", "my workplace is at Hooli": the place itself.
	switch a {
	case "lives_in":
		v = strings.TrimPrefix(v, "in ")
	case "works_at":
		v = strings.TrimPrefix(v, "at ")
	}
	// An open attribute needs a concrete value: a name, a number, or a
	// favourite's pick ("my day is great" is no fact).
	if !known && !strings.HasPrefix(a, "favorite_") {
		concrete := false
		for _, t := range ts[k-len(vw) : k] {
			if t.capital || t.tag == "CD" {
				concrete = true
			}
		}
		if !concrete {
			return nil
		}
	}
	if i := strings.LastIndex(v, " in "); a == "lives_in" && i > 0 && i+4 < len(v) && v[i+4] >= 'A' && v[i+4] <= 'Z' {
		v = v[i+4:] // "my home is a flat in Leeds": Leeds
	}
	if f, ok := strings.CutPrefix(v, "in "); a == "job_title" && ok && fieldOfWork(f) {
		return mk(strings.ToLower(f)) // "My job is in marketing now": the line of work
	}
	// "My job is boring": a job is a noun, not how it feels.
	if a == "job_title" && len(vw) == 1 && !jobHeads[strings.ToLower(vw[0])] && !strings.HasPrefix(ts[k-1].tag, "NN") {
		return nil
	}
	if a == "activity" {
		// "My hobbies are painting and running": each one.
		var out []Fact
		for _, h := range strings.Split(v, ",") {
			if h = strings.ToLower(strings.TrimSpace(h)); h != "" && !strings.Contains(h, " ") || strings.HasSuffix(firstWord(h), "ing") {
				out = append(out, mk(h)...)
			}
		}
		return out
	}
	// "My job is nurse at St. Mary's Hospital": the job and the employer.
	if job, org, ok := strings.Cut(v, " at "); a == "job_title" && ok && job != "" && org != "" && org[0] >= 'A' && org[0] <= 'Z' {
		return append(mk(job), Fact{Triple: tripleOf(subject, "works_at", org), word: word})
	}
	return mk(v)
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// promoted reads "promoted to <job>" at ts[j] ("I got promoted to senior
// designer", "I've been promoted to team lead"): the user's job title.
func promoted(ts []tok, j int, mk func(a, v string) Fact) ([]Fact, bool) {
	if j+1 >= len(ts) || ts[j].low != "promoted" || ts[j+1].low != "to" {
		return nil, false
	}
	val, end, ok := np(ts, j+2)
	if !ok {
		return nil, false
	}
	f := mk("job_title", strings.ToLower(val))
	f.Change = true
	out := []Fact{f}
	if end+1 < len(ts) && (ts[end].low == "at" || ts[end].low == "with") {
		// "promoted to head nurse at St. Mary's": where, too.
		if org, _, ok := workplaceAt(ts, end+1); ok && (ts[end+1].capital || Generic(org)) {
			out = append(out, mk("works_at", org))
		}
	}
	return out, true
}

// givenUp reads what the user stopped at ts[j]: "eating gluten" or a
// food (avoids), "drinking coffee" or a drink (drinks, ended), "using
// Notion" (uses, ended).
func givenUp(ts []tok, j int, mk func(a, v string) Fact) (Fact, bool) {
	if j >= len(ts) {
		return Fact{}, false
	}
	verb := ts[j].low
	k := j
	if verb == "being" && k+1 < len(ts) && diets[ts[k+1].low] {
		// "I've stopped being vegetarian": the diet ends.
		f := mk("diet", ts[k+1].low)
		f.Ended, f.Change = true, true
		return f, true
	}
	if verb == "learning" || verb == "studying" || verb == "playing" {
		// "I stopped learning Spanish", "I quit playing the piano": an
		// instrument played or a subject studied ends.
		if w := instrumentAt(ts, k+1); w != "" {
			f := mk("plays", w)
			f.Ended, f.Change = true, true
			return f, true
		}
		if val, _, ok := np(ts, k+1); ok && verb != "playing" {
			if !ts[k+1].capital {
				val = strings.ToLower(val)
			}
			f := mk("studies", val)
			f.Ended, f.Change = true, true
			return f, true
		}
		return Fact{}, false
	}
	if len(verb) > 4 && strings.HasSuffix(verb, "ing") && !notPastime[verb] && verb != "eating" && verb != "drinking" && verb != "using" && verb != "being" &&
		(k+1 == len(ts) || ts[k+1].tag == "." || ts[k+1].tag == "," || ts[k+1].low == "because" || ts[k+1].low == "since" || ts[k+1].low == "after" || ts[k+1].low == "for" || ts[k+1].low == "last" || ts[k+1].low == "this") {
		// "I stopped running because of my knee": the pastime ends.
		f := mk("activity", verb)
		f.Ended, f.Change = true, true
		return f, true
	}
	if verb == "eating" || verb == "drinking" || verb == "using" {
		k++
	}
	val, _, ok := np(ts, k)
	if !ok && verb == "drinking" && (k == len(ts) || ts[k].tag == "." || ts[k].tag == ",") {
		val, ok = "alcohol", true // "I've quit drinking"
	}
	if !ok {
		return Fact{}, false
	}
	low := strings.ToLower(val)
	var f Fact
	switch {
	case verb == "drinking" || verb != "eating" && verb != "using" && drinkKind(low):
		f = mk("drinks", drinkValue(val))
		f.Ended = true
	case verb == "eating" || foods[low] || low == "meat" || low == "red meat" || low == "dairy" || low == "carbs" || low == "sweets":
		f = mk("avoids", low)
	case verb == "using":
		f = mk("uses", val)
		f.Ended = true
	default:
		return Fact{}, false
	}
	f.Change = true
	return f, true
}

// onlyNow: the rest of a sentence that ended a value names the one that
// took its place ("I don't drink coffee anymore, only green tea", "…; just
// water now").
var onlyNow = rx.MustCompile(`(?i)[,;:\-–—]\s*(?:(?:but|and|so)\s+)?(?:(?:it's|it is|now|these days|nowadays)\s+)?(?:only|just|mostly|strictly)\s+([A-Za-z][\w+#.\- ]{0,30}?)\s*(?:now|instead|these days|nowadays|for me)?\s*[.!]*$`)

// notDietRe: the user's sentence denies a diet ("I'm not vegan").
var notDietRe = rx.MustCompile(`(?i)^\W*(?:i'm|i am|im)\s+(?:not|no longer)\s+(?:a\s+)?(?:vegan|vegetarian|pescatarian|keto|paleo|gluten-free|plant-based)\b`)

// insteadOf reads the value that replaces an ended one in the same
// sentence, when it is of the ended value's kind (a drink for drinks, a
// named tool for uses).
func insteadOf(sent string, fs []Fact) []Fact {
	m := onlyNow.FindStringSubmatch(sent)
	if m == nil {
		return nil
	}
	v := strings.TrimSpace(firstWords(m[1])) // "just water with dinner"
	if v == "" {
		return nil
	}
	if lv := strings.ToLower(v); diets[lv] && notDietRe.MatchString(sent) {
		// "I'm not vegan, just vegetarian": the diet the user keeps.
		return []Fact{{Triple: tripleOf("user", "diet", lv), Change: true}}
	}
	for _, f := range fs {
		if !f.Ended || !f.Multi {
			continue
		}
		var nf Fact
		switch {
		case f.Attribute == "drinks" && drinkKind(strings.ToLower(v)):
			nf = Fact{Triple: tripleOf(f.Subject, "drinks", drinkValue(v)), word: f.word}
		case f.Attribute == "uses" && (kindSlot(v) == "uses" || v[0] >= 'A' && v[0] <= 'Z'):
			nf = Fact{Triple: tripleOf(f.Subject, "uses", v), word: f.word}
		default:
			continue
		}
		nf.Replace, nf.Change = true, true
		return []Fact{nf}
	}
	return nil
}

// contractedIs: "'s" as "is" after an attribute's words ("my birthday's
// March 3rd"), not a possessive (no "is" follows in the clause).
func contractedIs(ts []tok, k, words int) bool {
	if words == 0 || ts[k].low != "'s" {
		return false
	}
	for m := k + 1; m < len(ts) && ts[m].tag != "." && ts[m].tag != ","; m++ {
		if ts[m].low == "is" || ts[m].low == "are" {
			return false
		}
	}
	return k+1 < len(ts) && (ts[k+1].capital || ts[k+1].tag == "CD")
}

// dateWords: the words name a date (a month or a number).
func dateWords(d []string) bool {
	for _, w := range d {
		{
			if _, err := time.Parse("January", w); err == nil {
				return true
			}
			if _, err := time.Parse("Jan", w); err == nil {
				return true
			}
		}
	}
	return false
}

// placeAfterWith reads the place of "with <people> in <Place>" from ts[j]
// (after "with"): "" when the clause says none.
func placeAfterWith(ts []tok, j int) string {
	if h := homeIn(ts, j); h != "" {
		return h
	}
	for k := j; k+1 < len(ts) && k < j+8; k++ {
		switch {
		case ts[k].tag == "." || ts[k].low == "but" || ts[k].low == "because",
			ts[k].low == "and" && (ts[k+1].low == "i" || ts[k+1].low == "we"):
			return ""
		case ts[k].low == "in" && ts[k+1].capital && !dateWords([]string{ts[k+1].w}):
			if v, _, ok := np(ts, k+1); ok {
				return v
			}
			return ""
		case ts[k].low == "in":
			// "with my wife in a small village near Oxford"
			if v, _, placed, ok := describedHome(ts, k+1, 0); ok && placed {
				return v
			}
		}
	}
	return ""
}

// homeIn is the place of a home the user bought or moved into at ts[j]:
// "a house in Leith", "a flat in Bristol"; "" when the object is no home.
func homeIn(ts []tok, j int) string {
	home := false
	for k := j; k < len(ts) && k < j+8; k++ {
		if dwellings[ts[k].low] {
			home = true
		}
		if ts[k].low == "in" && home && k+1 < len(ts) && ts[k+1].capital && !dateWords([]string{ts[k+1].w}) {
			if v, _, ok := np(ts, k+1); ok {
				return v
			}
		}
		if ts[k].tag == "." || ts[k].low == "and" || ts[k].low == "but" {
			break
		}
	}
	return ""
}

// movedTo is the length of "got moved to", "was changed to", "has been
// pushed back to", "is now" at ts[k] up to and including "to"; 0 when none.
func movedTo(ts []tok, k int) int {
	m := k
	switch ts[m].low {
	case "got", "was", "has", "had", "have", "been":
	default:
		return 0
	}
	m++
	if m < len(ts) && ts[m].low == "been" {
		m++
	}
	if m >= len(ts) {
		return 0
	}
	switch ts[m].low {
	case "moved", "changed", "pushed", "rescheduled", "postponed", "bumped", "brought", "shifted":
	default:
		return 0
	}
	m++
	if m < len(ts) && (ts[m].low == "back" || ts[m].low == "forward" || ts[m].low == "up") {
		m++
	}
	if m < len(ts) && ts[m].low == "to" {
		return m - k + 1
	}
	return 0
}

// laidOff reads "laid off from X", "fired from X", "let go from X" at
// ts[j]: the employer ends.
func laidOff(ts []tok, j int, mk func(a, v string) Fact) (Fact, bool) {
	k := j
	switch {
	case k+1 < len(ts) && ts[k].low == "laid" && ts[k+1].low == "off":
		k += 2
	case k+1 < len(ts) && ts[k].low == "let" && ts[k+1].low == "go":
		k += 2
	case k < len(ts) && (ts[k].low == "fired" || ts[k].low == "sacked" || ts[k].low == "made" && k+1 < len(ts) && ts[k+1].low == "redundant"):
		k++
		if ts[k-1].low == "made" {
			k++
		}
	default:
		return Fact{}, false
	}
	if k < len(ts) && (ts[k].low == "from" || ts[k].low == "by" || ts[k].low == "at") {
		k++
	}
	if k >= len(ts) || !ts[k].capital {
		return Fact{}, false
	}
	val, _, ok := np(ts, k)
	if !ok {
		return Fact{}, false
	}
	f := mk("works_at", val)
	f.Ended, f.Change = true, true
	return f, true
}

// nameAt reports whether a name starts at ts[k], past a leading "the"
// ("at the University of Leeds", "for the Guardian"): an organisation
// named so, not a common noun ("at the bakery").
func nameAt(ts []tok, k int) bool {
	if k < len(ts) && ts[k].low == "the" {
		k++
	}
	return k < len(ts) && ts[k].capital
}

// hiredAt reads a hire at ts[j]: "(got / been / was) hired by Globex",
// "hired at Globex (as a …)", "accepted an offer from Globex",
// "accepted a job at Globex": the employer, said as a change.
func hiredAt(ts []tok, j int, mk func(a, v string) Fact) (Fact, bool) {
	k := j
	for k < len(ts) && k < j+3 && (ts[k].low == "got" || ts[k].low == "been" || ts[k].low == "was" || ts[k].low == "were" || ts[k].low == "just" || ts[k].low == "finally" || ts[k].low == "officially") {
		k++
	}
	if k >= len(ts) {
		return Fact{}, false
	}
	switch ts[k].low {
	case "hired":
		k++
	case "accepted", "took", "signed":
		m := k + 1
		for m < len(ts) && (ts[m].low == "a" || ts[m].low == "an" || ts[m].low == "the" || ts[m].low == "their" || ts[m].tag == "JJ") {
			m++
		}
		if m >= len(ts) || ts[m].low != "offer" && ts[m].low != "job" && ts[m].low != "position" && ts[m].low != "role" {
			return Fact{}, false
		}
		k = m + 1
	default:
		return Fact{}, false
	}
	if k+1 >= len(ts) || ts[k].low != "by" && ts[k].low != "at" && ts[k].low != "from" && ts[k].low != "with" || !ts[k+1].capital {
		return Fact{}, false
	}
	val, _, ok := np(ts, k+1)
	if !ok {
		return Fact{}, false
	}
	f := mk("works_at", val)
	f.Change = true
	return f, true
}

// stayIn is where the name after "in" starts in a stay said from ts[j]
// ("with my parents in Leeds", "at my mum's in York", "in Leeds"); 0
// when the words before "in" leave the clause or no name follows.
func stayIn(ts []tok, j int) int {
	for k := j; k < len(ts) && k < j+7; k++ {
		switch {
		case ts[k].low == "in" && k+1 < len(ts) && ts[k+1].capital && !dateWords([]string{ts[k+1].w}):
			return k + 1
		case ts[k].tag == "." || ts[k].low == "and" || ts[k].low == "but" || ts[k].low == "because" || ts[k].low == "so" || strings.HasPrefix(ts[k].tag, "VB") && k > j:
			return 0
		}
	}
	return 0
}

// newJobRe: a sentence that names a job at an organisation ("New job at
// Globex!", "a new position with Hooli").
var newJobRe = rx.MustCompile(`(?i)\b(?:job|position|role|gig|post)\b(?: as an? [\w ]+?)? (?:at|with) (?:the )?[A-Z]`)

// notOwnJob are the words before a job that make it another's, a wish or
// the past ("applied for a job at", "my sister's new job at", "my old job
// at").
var notOwnJob = map[string]bool{"applied": true, "apply": true, "applying": true, "interview": true, "interviewed": true,
	"interviewing": true, "looking": true, "want": true, "wants": true, "hope": true, "hoping": true, "considering": true,
	"offered": true, "might": true, "would": true, "could": true, "if": true, "he": true, "she": true,
	"they": true, "his": true, "her": true, "their": true, "you": true, "your": true, "lost": true, "quit": true,
	"left": true, "old": true, "former": true, "previous": true, "last": true, "dream": true, "not": true, "no": true,
	"never": true, "rejected": true, "turned": true, "declined": true, "first": true, "summer": true, "part-time": true,
	"second": true, "side": true}

// newJobAt reads the user's job at an organisation said as a noun: "New
// job at Globex!", "I got a new job as a nurse at St. Mary's", "I
// accepted a position at Hooli": the employer (and the job), a change.
func newJobAt(ts []tok) []Fact {
	for i, t := range ts {
		switch t.low {
		case "job", "position", "role", "gig", "post":
		default:
			continue
		}
		for _, b := range ts[:i] {
			if notOwnJob[b.low] || relations[b.low] != "" || b.tag == "." && b.low == "?" {
				return nil
			}
		}
		k := i + 1
		var job string
		if k+1 < len(ts) && ts[k].low == "as" {
			v, end, ok := np(ts, k+1)
			if !ok {
				return nil
			}
			job, k = strings.ToLower(v), end
		}
		if k+1 >= len(ts) || (ts[k].low != "at" && ts[k].low != "with") || !nameAt(ts, k+1) {
			continue
		}
		org, _, ok := np(ts, k+1)
		if !ok {
			return nil
		}
		out := []Fact{{Triple: tripleOf("user", "works_at", org), Change: true}}
		if job != "" {
			out = append(out, Fact{Triple: tripleOf("user", "job_title", job), Change: true})
		}
		return out
	}
	return acceptedOffer(ts)
}

// acceptedOffer reads an offer from an organisation the user took: "I got
// a job offer from Meta and took it", "accepted an offer from Globex". An
// offer alone ("got an offer from Meta, still deciding") says nothing of
// where the user works.
func acceptedOffer(ts []tok) []Fact {
	accepted := false
	for i, t := range ts {
		switch {
		case notOwnJob[t.low] && t.low != "first" || relations[t.low] != "":
			return nil
		case t.low == "accepted" || t.low == "accept" || t.low == "signed",
			(t.low == "took" || t.low == "take" || t.low == "taking") && i+1 < len(ts) && ts[i+1].low == "it":
			accepted = true
		}
	}
	if !accepted {
		return nil
	}
	for i := 0; i+2 < len(ts); i++ {
		if (ts[i].low == "offer" || ts[i].low == "offers") && ts[i+1].low == "from" && nameAt(ts, i+2) {
			if org, _, ok := np(ts, i+2); ok {
				return []Fact{{Triple: tripleOf("user", "works_at", org), Change: true}}
			}
		}
	}
	return nil
}

// calledName reads "a <common noun phrase> called/named <Name>" at
// ts[j] ("a fintech startup called Brightpay"): the name.
func calledName(ts []tok, j int) (string, bool) {
	if j >= len(ts) || ts[j].low != "a" && ts[j].low != "an" && ts[j].low != "the" {
		return "", false
	}
	for k := j + 1; k < len(ts) && k < j+5; k++ {
		switch {
		case (ts[k].low == "called" || ts[k].low == "named") && k+1 < len(ts) && ts[k+1].capital:
			v, _, ok := np(ts, k+1)
			return v, ok
		case ts[k].capital && !(k+1 < len(ts) && !ts[k+1].capital && strings.HasPrefix(ts[k+1].tag, "NN")),
			!ts[k].capital && !(strings.HasPrefix(ts[k].tag, "NN") || strings.HasPrefix(ts[k].tag, "JJ") || ts[k].tag == "VBG"):
			// (A capitalised word may qualify the noun: "a Berlin startup
			// called Kiteworks".)
			return "", false
		}
	}
	return "", false
}

// instruments are the musical instruments "learning the violin" and
// "took up the ukulele" name.
var instruments = map[string]bool{"violin": true, "viola": true, "cello": true, "piano": true, "guitar": true,
	"drums": true, "bass": true, "ukulele": true, "flute": true, "saxophone": true, "sax": true, "trumpet": true,
	"clarinet": true, "harp": true, "banjo": true, "oboe": true, "trombone": true, "accordion": true,
	"harmonica": true, "mandolin": true, "keyboard": true, "synth": true, "bagpipes": true, "tuba": true}

// instrumentAt is the instrument at ts[j] past "up", "to play", "how to
// play" and an article ("took up the violin", "learning to play the
// cello"), or "".
func instrumentAt(ts []tok, j int) string {
	for j < len(ts) {
		switch l := ts[j].low; {
		case l == "up" || l == "to" || l == "how" || l == "play" || l == "the" || l == "a" || l == "an":
			j++
			continue
		case instruments[l] && (j+1 == len(ts) || !strings.HasPrefix(ts[j+1].tag, "NN")):
			return l
		}
		return ""
	}
	return ""
}

// notPastime are the -ing words of "I started …" that name a change of
// life or work, not a pastime ("started transitioning", "started
// working at").
var notPastime = map[string]bool{"working": true, "using": true, "transitioning": true, "recovering": true,
	"healing": true, "feeling": true, "thinking": true, "trying": true, "looking": true, "getting": true,
	"seeing": true, "dating": true, "living": true, "planning": true, "preparing": true,
	"saving": true, "wondering": true, "smoking": true, "vaping": true, "drinking": true, "eating": true,
	"taking": true, "going": true}

// learners are who is taught, never what: "I teach people", "teach
// others" name no subject.
var learners = map[string]bool{"people": true, "others": true, "folks": true, "everyone": true, "everybody": true,
	"someone": true, "anyone": true, "them": true, "him": true, "her": true, "us": true, "me": true, "kids": true,
	"children": true, "students": true, "youth": true, "adults": true, "beginners": true}

// coordinated reads the other values a multi-valued fact's value is
// listed with: "I speak French and Spanish", "I play guitar, piano and
// drums" are three values, not the first alone. A value listed must be
// a noun phrase of the same case as the first (a name beside a name); a
// verb, a pronoun or a possessive ("and my wife speaks Dutch") ends the
// list.
// bareLike: the word at r, tagged as a verb, is a bare noun listed after a
// value the tagger read the same way ("allergic to penicillin/VB and
// latex/VB"): nothing follows it but the end of the list.
func bareLike(ts []tok, r, head int) bool {
	if !strings.HasPrefix(ts[r].tag, "VB") || ts[r].tag != ts[head].tag {
		return false
	}
	return r+1 == len(ts) || ts[r+1].tag == "." || ts[r+1].low == "," || ts[r+1].low == "and" || ts[r+1].low == "or"
}

func coordinated(ts []tok, fs []Fact) []Fact {
	var out []Fact
	for _, f := range fs {
		if !f.Multi || f.Ended || f.Note || f.Value == "" || f.Attribute == "pet" || f.Attribute == "child" {
			continue
		}
		words := strings.Fields(strings.ToLower(f.Value))
		p := -1
		for i := 0; i+len(words) <= len(ts); i++ {
			if ts[i].low == words[0] && strings.EqualFold(joinW(ts[i:i+len(words)]), f.Value) {
				p = i + len(words)
				break
			}
		}
		if p < 0 {
			continue
		}
		capital := ts[p-1].capital
		for q := p; q+1 < len(ts); {
			if ts[q].low != "and" && ts[q].low != "," {
				break
			}
			r := q + 1
			if ts[r].low == "and" {
				r++
			}
			for r < len(ts) && (ts[r].low == "a" || ts[r].low == "an" || ts[r].low == "the" || ts[r].low == "also") {
				r++
			}
			if r >= len(ts) || ts[r].capital != capital || !(strings.HasPrefix(ts[r].tag, "NN") || strings.HasPrefix(ts[r].tag, "JJ") || bareLike(ts, r, p-1)) ||
				stopNP[ts[r].low] || andVerbs[ts[r].low] {
				break
			}
			v, end, ok := np(ts, r)
			if !ok || end <= r || end < len(ts) && (strings.HasPrefix(ts[end].tag, "VB") || ts[end].tag == "MD") {
				break // ", the effects are so cool": a new clause's subject
			}
			g := f
			g.Value, g.detail, g.qual = v, "", ""
			out = append(out, g)
			q = end
		}
	}
	return out
}

// currentAdj are the words before an attribute that name its current
// value ("my new employer", "my current job").
var currentAdj = map[string]bool{"new": true, "current": true, "present": true, "latest": true}

// employerSwitchRe: "(I'm) not at Acme anymore, I'm at Globex now": one
// place the user is no longer at, then the one they are at. Neither
// half alone names an employer ("I'm at Starbucks now" is a place); said
// together they are a job change.
var employerSwitchRe = rx.MustCompile(`(?:^|\b)(?:(?:I'm|I am)\s+)?(?:[Nn]ot|[Nn]o longer)\s+(?:at|with)\s+((?:the\s+)?[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*){0,3})(?:\s+any\s?more)?\s*[,;.:-]+\s*(?:(?:and|but|so)\s+)?(?:I'm|I am)\s+(now\s+)?(?:at|with)\s+((?:the\s+)?[A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*){0,3})`)

// employerSwitch says such a switch as the sentences the job readings
// know: "I don't work at Acme anymore. I work at Globex".
func employerSwitch(msg string) string {
	if !strings.Contains(msg, " at ") && !strings.Contains(msg, " with ") {
		return msg
	}
	return employerSwitchRe.ReplaceAllString(msg, "I don't work at $1 anymore. I ${2}work at $3")
}

// splitBeenClauses makes a clause that leaves out the user as subject
// after a comma a sentence of its own: "I'm from Nairobi originally, been
// living in Manchester for ten years" → "… originally. I've been living
// in Manchester for ten years", so each says its own fact, and a date
// said in one dates only that one.
func splitBeenClauses(msg string) string {
	if !beenClauseRe.MatchString(msg) && !notDietClause.MatchString(msg) && !commaVerbRe.MatchString(msg) {
		return msg
	}
	sents := text.Sentences(msg)
	for i, s := range sents {
		if userSubjectRe.MatchString(s) && !hasHan(s) {
			// "I eat some fish now, so not strictly vegan anymore".
			s = notDietClause.ReplaceAllString(s, ". I'm not $1 anymore")
			// "I gave up coffee, switched to green tea" → "… coffee. I
			// switched to green tea".
			s = commaVerbRe.ReplaceAllString(s, ". I $1")
			sents[i] = s
		}
		if (userSubjectRe.MatchString(s) || bornRe.MatchString(s)) && !hasHan(s) {
			sents[i] = beenClauseRe.ReplaceAllStringFunc(s, func(c string) string {
				m := beenClauseRe.FindStringSubmatch(c)
				if m[1] == "been" {
					return ". I've been " + m[2] + m[3] // ", been living in" → ". I've been living in"
				}
				return ". I'm now " + m[1] + " " + m[2] + m[3] // ", now living in" → ". I'm now living in"
			})
		}
	}
	return strings.Join(sents, " ")
}
