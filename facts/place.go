package facts

import "strings"

// placeHeads are the nouns a home said without its name ends in ("a small
// village", "an old farmhouse", "the suburbs"): places and dwellings.
var placeHeads = map[string]bool{"village": true, "town": true, "city": true, "hamlet": true, "suburb": true,
	"suburbs": true, "outskirts": true, "countryside": true, "neighborhood": true, "neighbourhood": true, "area": true,
	"district": true, "part": true, "island": true, "coast": true, "seaside": true, "farm": true, "farmhouse": true,
	"ranch": true, "cabin": true, "bungalow": true, "townhouse": true, "houseboat": true, "commune": true,
	"valley": true, "county": true, "estate": true, "apartment": true, "flat": true, "house": true, "cottage": true,
	"condo": true, "loft": true, "studio": true, "bedsit": true, "mountains": true, "hills": true,
	"centre": true, "center": true, "north": true, "south": true, "east": true, "west": true, "midwest": true,
	"burbs": true, "community": true, "complex": true, "building": true, "dorm": true, "dorms": true, "trailer": true,
	"caravan": true, "barn": true, "chalet": true, "villa": true, "mansion": true, "penthouse": true, "duplex": true,
	"homestead": true, "islands": true, "region": true, "province": true}

// homePreps are the words that place a described home ("near Oxford",
// "outside Lyon", "in Ohio", "of Chicago", "by the sea").
var homePreps = map[string]bool{"in": true, "near": true, "outside": true, "of": true, "by": true, "on": true,
	"off": true, "around": true, "beside": true, "above": true, "below": true, "within": true}

// areaWords are the lowercase words before a name that still say where
// in it: "east London", "rural Ohio", "downtown Chicago".
var areaWords = map[string]bool{"north": true, "south": true, "east": true, "west": true, "northern": true,
	"southern": true, "eastern": true, "western": true, "central": true, "downtown": true, "uptown": true,
	"rural": true, "upstate": true, "suburban": true, "greater": true, "inner": true, "outer": true,
	"northeast": true, "northwest": true, "southeast": true, "southwest": true, "coastal": true}

// namedAt reads a place name at ts[k], with an area word before it ("east
// London"): "" when ts[k] starts none.
func namedAt(ts []tok, k int) (string, int) {
	if k >= len(ts) {
		return "", k
	}
	if ts[k].capital && ts[k].low != "i" && !dateWords([]string{ts[k].w}) {
		v, end, ok := np(ts, k)
		if !ok {
			return "", k
		}
		return v, end
	}
	if areaWords[ts[k].low] && k+1 < len(ts) && ts[k+1].capital && !dateWords([]string{ts[k+1].w}) {
		v, end, ok := np(ts, k+1)
		if !ok {
			return "", k
		}
		return ts[k].low + " " + v, end
	}
	return "", k
}

// homePlace reads the home said at ts[k] (after "live in", "moved to",
// "settled in"):
//   - a dwelling in a named place is the place: "a small flat in
//     Lisbon", "a flat in east London";
//   - a place described rather than named keeps its article and what
//     places it: "a small village near Oxford", "a small town in Ohio",
//     "an apartment downtown", "the suburbs of Chicago"; such a value is
//     Generic;
//   - else the noun phrase, as np reads it ("Berlin", "east London").
//
// placed is false for a dwelling said alone ("a new apartment", "an
// apartment downtown"): it says what the home is, not where, so a move
// into one is no new home; ok is false when nothing is read.
func homePlace(ts []tok, k int) (val string, end int, placed, ok bool) {
	if v, e, placed, ok := describedHome(ts, k, 0); ok {
		return v, e, placed, true
	}
	if v, e := namedAt(ts, k); v != "" {
		return v, e, true, true // "Berlin", "rural Ohio"
	}
	if k+1 < len(ts) && (ts[k].low == "a" || ts[k].low == "an") && !ts[k+1].capital {
		if v, e, ok := np(ts, k); ok {
			return ts[k].low + " " + v, e, false, true // "a van": as said
		}
	}
	v, e, ok := np(ts, k)
	return v, e, false, ok
}

// describedHome reads a home said by its kind at ts[k]: an article, a
// noun phrase whose last noun is a place or a dwelling (placeHeads), and
// up to two phrases that place it ("near Oxford", "about an hour from
// Boston"). A dwelling in a name or in another described place is that
// place. placed is false for a dwelling said without where it is.
func describedHome(ts []tok, k, depth int) (string, int, bool, bool) {
	if k+1 >= len(ts) || depth > 1 {
		return "", k, false, false
	}
	art := ts[k].low
	switch {
	case art == "a" || art == "an":
	case art == "the" && !ts[k+1].capital:
	default:
		return "", k, false, false
	}
	v, end, ok := np(ts, k)
	if !ok || ts[k+1].capital {
		return "", k, false, false // "a Berlin flat" is read by np; "the Bay Area" is a name
	}
	words := strings.Fields(strings.ToLower(v))
	head := -1
	for i, w := range words {
		if placeHeads[w] || dwellings[w] && w != "home" && w != "place" && w != "room" {
			head = i
		}
	}
	if head < 0 && !(len(words) > 0 && dwellings[words[len(words)-1]]) {
		return "", k, false, false
	}
	dwelling := head < 0 || dwellings[words[head]] || dwellingHeads[words[head]]
	placed := !dwelling
	val := art + " " + v
	for tails := 0; tails < 2 && end < len(ts); tails++ {
		p := end
		var lead []string
		if ts[p].low == "just" || ts[p].low == "right" {
			lead, p = append(lead, ts[p].low), p+1 // "a village just outside Oxford"
		}
		if n := distance(ts, p); n > p {
			for _, t := range ts[p:n] {
				lead = append(lead, t.low) // "about an hour from", "20 minutes outside"
			}
			p = n
		}
		var prep string
		switch {
		case p+1 < len(ts) && ts[p].low == "close" && ts[p+1].low == "to":
			prep, p = "close to", p+2
		case p+2 < len(ts) && ts[p].low == "not" && ts[p+1].low == "far" && ts[p+2].low == "from":
			prep, p = "not far from", p+3
		case p+1 < len(ts) && len(lead) > 0 && ts[p].low == "from":
			prep, p = "from", p+1
		case p+1 < len(ts) && homePreps[ts[p].low] && !(ts[p].low == "of" && tails == 0 && head < 0):
			prep, p = ts[p].low, p+1
		default:
			return val, end, placed, true
		}
		if len(lead) > 0 {
			prep = strings.Join(lead, " ") + " " + prep
		}
		// What places it: a name, a described place, or "the <noun>".
		if name, e := namedAt(ts, p); name != "" {
			if dwelling && prep == "in" && tails == 0 {
				return name, e, true, true // "a small flat in Lisbon": Lisbon
			}
			val, end, placed = val+" "+prep+" "+name, e, true
			continue
		}
		if d, e, dp, ok := describedHome(ts, p, depth+1); ok {
			if dwelling && prep == "in" && tails == 0 && dp && !strings.HasPrefix(d, "the ") {
				return d, e, true, true // "a flat in a small town in Ohio"
			}
			val, end, placed = val+" "+prep+" "+d, e, placed || dp
			continue
		}
		if p+1 < len(ts) && ts[p].low == "the" && !ts[p+1].capital {
			if o, e, ok := np(ts, p); ok {
				val, end, placed = val+" "+prep+" the "+o, e, true // "a village near the coast"
				continue
			}
		}
		if p < len(ts) && (ts[p].low == "town" || ts[p].low == "downtown") {
			val, end = val+" "+prep+" "+ts[p].low, p+1 // "a flat in town"
			continue
		}
		return val, end, placed, true
	}
	return val, end, placed, true
}

// dwellingHeads are the homes of placeHeads: a dwelling, not a place.
var dwellingHeads = map[string]bool{"farmhouse": true, "cottage": true, "condo": true, "bungalow": true, "townhouse": true,
	"villa": true, "penthouse": true, "duplex": true, "cabin": true, "loft": true, "houseboat": true, "trailer": true,
	"caravan": true, "barn": true, "chalet": true, "mansion": true, "building": true, "complex": true, "dorm": true,
	"dorms": true, "homestead": true, "bedsit": true, "studio": true,
	// … and the parts of a town: "a new neighbourhood" says no new town.
	"neighborhood": true, "neighbourhood": true, "area": true, "part": true, "district": true, "estate": true}

// distance is the end of a distance said before "from" or a place word at
// ts[p] ("about an hour", "20 minutes", "a few miles north"); p when none.
func distance(ts []tok, p int) int {
	q := p
	if q < len(ts) && (ts[q].low == "about" || ts[q].low == "around" || ts[q].low == "roughly" || ts[q].low == "only") {
		q++
	}
	switch {
	case q+1 < len(ts) && (ts[q].low == "an" || ts[q].low == "a" || ts[q].tag == "CD") && distanceUnits[ts[q+1].low]:
		q += 2
	case q+2 < len(ts) && ts[q].low == "a" && (ts[q+1].low == "few" || ts[q+1].low == "couple") && distanceUnits[ts[q+2].low]:
		q += 3
	case q+3 < len(ts) && ts[q].low == "a" && ts[q+1].low == "couple" && ts[q+2].low == "of" && distanceUnits[ts[q+3].low]:
		q += 4
	default:
		return p
	}
	if q < len(ts) && (ts[q].low == "north" || ts[q].low == "south" || ts[q].low == "east" || ts[q].low == "west" ||
		ts[q].low == "away") {
		q++
	}
	return q
}

var distanceUnits = map[string]bool{"hour": true, "hours": true, "minute": true, "minutes": true, "mile": true,
	"miles": true, "km": true, "kilometres": true, "kilometers": true, "drive": true, "walk": true}
