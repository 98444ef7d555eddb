package facts

import (
	"regexp"
	"strings"

	"github.com/memproxy/memproxy/internal/rx"
)

// A move's destination ("I moved to X") is a home only when X is a place.
// Without a gazetteer (and prose's named-entity labels follow the frame,
// not the name: every "moved to X" is GPE to it, Globex and Google
// included), the evidence is in the words around X: the name itself (a
// company suffix), the sentence ("to the city of X", "X, Oregon", "as a
// designer"), the rest of the message and the exchange before it (X named
// as an employer, or as a place, elsewhere; the words of a home or of a
// job around the move), and, in reconcile, the organisations the user's
// memories already name (KnownOrganisation). A move with no evidence
// either way stays a home ("I moved to Prague last month."); one whose
// only evidence is about work is unsure and sets nothing.

type destination int

const (
	destUnknown destination = iota
	destPlace
	destCompany     // an employer: the move is a job change
	destInstitution // a school, a hospital: no home, no employer
)

// companySuffix are the last words of a company's name.
var companySuffix = map[string]bool{
	"inc": true, "inc.": true, "ltd": true, "ltd.": true, "llc": true, "corp": true, "corp.": true, "corporation": true,
	"co.": true, "gmbh": true, "ag": true, "plc": true, "limited": true, "company": true, "group": true,
	"holdings": true, "technologies": true, "labs": true, "systems": true, "software": true, "solutions": true,
	"studios": true, "games": true, "media": true, "consulting": true, "partners": true, "capital": true,
	"ventures": true, "bank": true, "pharma": true, "pharmaceuticals": true, "analytics": true, "networks": true,
	"robotics": true, "industries": true, "enterprises": true, "insurance": true, "airlines": true, "motors": true,
	"bv": true, "s.a.": true, "sa": true, "llp": true, "agency": true, "associates": true, "foundation": true,
}

// placeNouns are the words of "the city of X".
var placeNouns = map[string]bool{"city": true, "town": true, "village": true, "country": true, "state": true, "province": true,
	"island": true, "isle": true, "capital": true, "region": true, "county": true}

// institutionSuffix are the last words of a school's or a hospital's
// name: no home and, said as a move, no employer either.
var institutionSuffix = map[string]bool{
	"university": true, "college": true, "school": true, "academy": true, "institute": true, "hospital": true,
	"clinic": true, "lab": true,
}

var (
	// placeFrameRe: the sentence says the destination is a place.
	placeOfRe = rx.MustCompile(`(?i)\bto the (?:city|town|village|country|state|province|island|isle|suburbs|outskirts|capital|region|county|coast) of\b`)
	// moveHomeRe: a move said with the words of a home move.
	moveHomeWordRe = rx.MustCompile(`(?i)\b(?:moved|moving|relocated|relocating)\s+(?:back|abroad|home|house|overseas|across the (?:country|world|pond)|cities|countries|flats?|apartments?)\b`)
	// motiveRe: why a move was made: a job or studies are reasons to
	// move to a place, never to an employer.
	motiveRe = rx.MustCompile(`(?i)\bfor (?:a |the |my |his |her |their |our )?(?:[a-z]+'s )?(?:new |better |great |dream )?(?:job|work|role|position|career|school|university|uni|college|studies|degree|master'?s|phd|residency|posting)\b`)
	// moveJobRe: a move said with the words of a job change.
	moveJobRe = rx.MustCompile(`(?i)\b(?:moved|moving|switched)\s+(?:jobs|companies|employers|teams)\b`)
	homeWords = rx.MustCompile(`(?i)\b(?:flat|apartment|house|neighbou?rhood|unpack(?:ing|ed)?|boxes|rent|landlord|weather|rain|rainy|winters?|summers?|beach|mountains?|sea|seaside|ocean|river|locals|city|country|streets|climate|snow|sunshine|time zone|timezone|eastern time|pacific time|new place|cost of living|accent|language)\b`)
	// regionRe: "Portland, Oregon"; clauseStartRe: ", the team …".
	regionRe      = rx.MustCompile(`^,\s*[A-Z][a-z]+`)
	clauseStartRe = rx.MustCompile(`^,\s*(?:The|But|And|So|Which|It|I|We|My|Our|They|He|She|Still|Now|Best|Great|New)\b`)
	asJobRe       = rx.MustCompile(`^(?:'s)?\s+as\s+(?:an?|the|their|its)\s`)
	// otherOrgRe: the text names an organisation ("at Initech", "joined
	// Hooli"), which its words about work may be about.
	otherOrgRe = rx.MustCompile(`\b(?:at|for|with|joined|joining)\s+(?:the\s+)?[A-Z]`)
	workWords  = rx.MustCompile(`(?i)\b(?:team|teammates|colleagues|co-?workers|boss|manager|salary|pay|raise|role|offer|onboarding|badge|laptop|office|company|employer|startup|engineers|engineering|job|position|hired|recruiter|stock options|equity|promotion)\b`)
)

// destinationOf reads what the destination name of a move in sent is,
// from the name, the sentence and the other text the user said (the
// message and the exchange before it).
func destinationOf(name, sent, other string, named map[string]destination) destination {
	low := strings.ToLower(strings.TrimSpace(name))
	if low == "" {
		return destUnknown
	}
	words := strings.Fields(low)
	last := words[len(words)-1]
	i := strings.Index(strings.ToLower(sent), low)
	after, before := "", sent
	if i >= 0 {
		after, before = sent[i+len(name):], sent[:i]
	}
	switch {
	case placeOfRe.MatchString(before):
		return destPlace
	case companySuffix[last]:
		return destCompany
	case institutionSuffix[last] || len(words) > 1 && words[0] == "university" || strings.Contains(low, " university"):
		return destInstitution
	case regionRe.MatchString(after) && !clauseStartRe.MatchString(after):
		// "moved to Portland, Oregon"
		return destPlace
	case asJobRe.MatchString(after):
		// "moved to Globex as a designer"
		return destCompany
	case moveJobRe.MatchString(before):
		return destCompany
	}
	all := sent + " " + other
	if d := namedAsOnce(named, name, all); d != destUnknown {
		return d
	}
	if moveHomeWordRe.MatchString(before) || motiveRe.MatchString(sent) {
		return destPlace
	}
	if homeWords.MatchString(motiveRe.ReplaceAllString(strings.ReplaceAll(all, name, " "), " ")) {
		return destPlace
	}
	if rest := strings.ReplaceAll(all, name, " "); workWords.MatchString(rest) && !otherOrgRe.MatchString(rest) {
		return destInstitution // unsure: about work, and nothing says it is a place
	}
	return destUnknown
}

// How a text names a name elsewhere, as an employer or as a place, by
// what comes just before it (the words up to the name: "an offer from
// ", "joined ", "the weather in ") or just after it ("'s office", " is a
// startup", " is a lovely city"). Each name's occurrences are found
// first and only their neighbourhoods read: the patterns are fixed, so
// compiled once, and a long message naming many places costs in
// proportion to its length.
var (
	orgBefore   = rx.MustCompile(`(?i)(?:\b(?:job|offer|interview|interviews|interviewed|interviewing|position|role|internship|contract|career|hired|employed|recruited|work|works|worked|working|joined|joining|join|applied|apply|applying|quit|resigned|onboarding|salary)\b(?:\s+\w+){0,2}\s+(?:at|with|from|by|for)|\bjoined)\s+$`)
	orgAfter    = rx.MustCompile(`(?i)^(?:(?:'s)?\s+(?:offered|hired|recruited|recruiter|team|teams|office|offices|headquarters|hq|ceo|founder|colleagues|stock|shares|salary|engineering|product|job|offer)\b|\s+(?:is|was)\s+(?:a|an)\s+(?:\w+\s+){0,2}(?:company|startup|firm|employer|agency|bank|studio|consultancy|corporation|business)\b)`)
	placeBefore = rx.MustCompile(`(?i)(?:\b(?:live|lives|living|lived|based|born|grew up|settled|flat|apartment|house|home|weather|rent|rents|streets|winters?|summers?|neighbou?rhood)\s+in|\b(?:city|town|village|country) of)\s+$`)
	placeAfter  = rx.MustCompile(`(?i)^\s+(?:is|was)\s+(?:a|an|such a)\s+(?:\w+\s+){0,2}(?:city|town|village|country|place|capital)\b`)
)

// maxNameSpans bounds the occurrences of a name namedAs reads around,
// and nameMargin how far on each side (any of its patterns fits well
// within).
const (
	maxNameSpans = 16
	nameMargin   = 200
)

// namedAs reads how text names the name elsewhere: as an employer ("an
// offer from Globex", "Globex's office", "Globex is a startup") or as a
// place ("the weather in Lisbon", "Lisbon is a lovely city").
func namedAs(name, text string) destination {
	var o, p bool
	occ := regexp.MustCompile(`(?i)`+regexp.QuoteMeta(name)).FindAllStringIndex(text, maxNameSpans)
	for _, m := range occ {
		lo, hi := m[0], m[1]
		// The name as a word of its own where the patterns ask: \b
		// after it when words lead to it, \b before it when words
		// follow.
		if wordBoundary(text, hi) {
			pre := around(text[:lo], lo, lo, nameMargin)
			o = o || orgBefore.MatchString(pre)
			p = p || placeBefore.MatchString(pre)
		}
		if wordBoundary(text, lo) {
			post := around(text[hi:], 0, 0, nameMargin)
			o = o || orgAfter.MatchString(post)
			p = p || placeAfter.MatchString(post)
		}
		if o && p {
			break
		}
	}
	switch {
	case o && !p:
		return destCompany
	case p && !o:
		return destPlace
	}
	return destUnknown
}

// namedAsOnce is namedAs, read once per name of a message (named, by
// lowercased name; nil: every time): a message that moves to the same
// place in sentence after sentence names it alike.
func namedAsOnce(named map[string]destination, name, text string) destination {
	if named == nil {
		return namedAs(name, text)
	}
	k := strings.ToLower(name)
	d, ok := named[k]
	if !ok {
		d = namedAs(name, text)
		named[k] = d
	}
	return d
}

// wordBoundary is regexp's \b at i in s: an ASCII word character on one
// side and none on the other.
func wordBoundary(s string, i int) bool {
	return (i > 0 && isWordByte(s[i-1])) != (i < len(s) && isWordByte(s[i]))
}

func isWordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

// destinations decides the move facts of a sentence: a place stays the
// home (Destination set, for reconcile's look at the organisations the
// user's memories know), a company is the new employer, anything else
// the sentence cannot tell sets nothing.
func destinations(fs []Fact, sent, other string, named map[string]destination) []Fact {
	out := fs[:0]
	for _, f := range fs {
		if !f.move {
			out = append(out, f)
			continue
		}
		switch destinationOf(f.Value, sent, other, named) {
		case destCompany:
			f.Attribute, f.Multi, f.Change, f.Prior = "works_at", false, true, ""
		case destInstitution:
			continue
		default:
			f.Destination = true
		}
		f.move = false
		out = append(out, f)
	}
	return out
}

// KnownOrganisation reports whether the user's memories name the value
// as an organisation: a value of an employer, school or group slot (any
// subject, any state), or a text that names it as an employer ("an
// interview at Globex"), unless the same texts name it as a place.
func KnownOrganisation(value string, slotValues []string, texts []string) bool {
	for _, v := range slotValues {
		if strings.EqualFold(strings.TrimSpace(v), strings.TrimSpace(value)) {
			return true
		}
	}
	return namedAs(value, strings.Join(texts, "\n")) == destCompany
}

// AsEmployer makes a move's destination that the user's memories know as
// an organisation the new employer ("I moved to Globex": works at Globex).
func (f *Fact) AsEmployer() {
	f.Change, f.Prior = true, ""
	f.SucceedAs("works_at")
}
