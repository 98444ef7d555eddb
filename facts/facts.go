// Package facts turns what a user says into dated triples: (subject,
// attribute, value) with the date the value became true, and a clean
// third-person sentence built from the triple. English sentences are read
// with a part-of-speech tagger (github.com/jdkato/prose/v2, its model
// ships in the module) over the sentences that carry a fact cue; Chinese
// ones with patterns. Extraction is pure: no I/O, no store.
package facts

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/memproxy/memproxy/internal/rx"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/text"
)

// Fact is one statement read from a user message.
type Fact struct {
	memory.Triple
	// Text is the third-person sentence stored as the memory's text, in
	// the language it was said in ("The user lives in Lisbon.",
	// "用户住在上海。").
	Text string
	// Open: the attribute is outside the controlled vocabulary.
	Open bool
	// Change: the sentence carries a change cue (moved, now, switched, 现在).
	Change bool
	// Replace: the value replaces the slot's other values even when it
	// is multi-valued ("I switched to Rust", "instead").
	Replace bool
	// Prior is the value the sentence says it replaces ("from Berlin").
	Prior string
	// ValidFrom is when the value became true: the date a relative
	// expression in the sentence names, else the turn's time.
	ValidFrom time.Time
	// Dated: ValidFrom came from a date expression in the sentence.
	Dated bool
	// Note: no triple, a dated third-person statement of something that
	// happened ("The user passed the user's driving test on 9 Mar
	// 2026."): free text for reconcile, Triple empty.
	Note bool
	// Restates: a note that is its sentence whole in the third person
	// (a habit, a goal: "The user usually wakes up at 6am."), so it
	// stands for that sentence as a fact does.
	Restates bool
	// Expires is when a temporary state ends ("I'm in Tokyo this week":
	// the end of that week); zero for a lasting fact. A temporary fact
	// never supersedes a lasting one.
	Expires time.Time
	// word is how the sentence named the subject ("wife", "妹妹").
	word string
	// starts: the sentence says when the value starts ("on Monday I
	// start at Hooli", 下周一我开始在腾讯上班): a future date it names is
	// the date the value becomes true.
	starts bool
	// join: a bare join of a name ("I joined Stripe!"), an employer only
	// when the message speaks of work (employerTurn), else a membership.
	join bool
	// the: the user named the group with an article ("the Sierra
	// Club"), which its sentence keeps.
	the bool
	// appos: a relative's name said in apposition ("my girlfriend
	// Priya …"), which an ending in the same sentence ends.
	appos bool
	// aword is how the sentence named the attribute ("manager" for boss,
	// "gym days"), used in the stored sentence.
	aword string
	// detail is said about the value and kept in the sentence, not in
	// the value (", a beagle").
	detail string
	// Context is search-only text: the words for the kind of thing the
	// value is ("programming language", "child"), which a question uses
	// and the stored sentence need not.
	Context string
	// qual is what the value is for, kept in the sentence: "for their
	// backend services".
	qual string
	// AnyValue: an ended fact that names no value ("I quit my job", "we
	// broke up"): it ends the slot's live value, which reconcile reads
	// before the decision (EndValue).
	AnyValue bool
	// Alts are the other attributes a named ending may end ("I left
	// Acme": works_at, or studies_at, member_of): reconcile ends the one
	// that holds the value live, and nothing when none does.
	Alts []string
	// base is the sentence rendered from the triple, before a date was
	// added to it.
	base string
	// move: the value is where a move went ("moved to X"), a home only
	// if it is a place (destinations).
	move bool
	// Destination: a home read from a move's destination, which
	// reconcile keeps only if the user's memories do not know the value
	// as an organisation (KnownOrganisation).
	Destination bool
	// Succeeds: the value takes the place of Prior, in whichever slot
	// holds Prior live ("I left Acme for Globex", "… left Berlin for
	// Lisbon"): reconcile moves it from Attribute to that slot (of
	// Attribute and Alts), to the employer when the user's memories know
	// Prior or the value as an organisation, and drops it otherwise.
	Succeeds bool
}

// Key is the fact's slot.
func (f *Fact) Key() string { return f.Triple.Key() }

// Options are the extraction settings.
type Options struct {
	// At is when the message was said; relative dates resolve against it.
	At time.Time
	// Loc is the user's time zone (UTC when nil).
	Loc *time.Location
	// ChangeCues replace the built-in change cues when set.
	ChangeCues []string
	// Before is what was said just before the message (the exchange it
	// answers): "switched to it" names what it last mentioned.
	Before string
}

// DefaultChangeCues are the words that say a value changed.
var DefaultChangeCues = []string{"switched", "switch to", "now", "no longer", "moved", "changed", "instead", "anymore",
	"any more", "these days", "not anymore", "started", "quit", "joined",
	"换成", "改成", "不再", "现在", "已经", "搬到", "改用", "换了", "辞职", "离职", "跳槽", "加入"}

// HasChangeCue reports whether s carries one of the cues (English cues on
// word boundaries, Chinese ones as substrings).
func HasChangeCue(s string, cues []string) bool {
	if len(cues) == 0 {
		cues = DefaultChangeCues
	}
	low := strings.ToLower(s)
	for _, c := range cues {
		c = strings.ToLower(strings.TrimSpace(c))
		if c != "" && ContainsWord(low, c) {
			return true
		}
	}
	return false
}

// ContainsWord finds cue in s (lowercase); an ASCII cue must sit on word
// boundaries, a CJK one is a substring.
func ContainsWord(s, cue string) bool {
	if cue[0] >= 0x80 {
		return strings.Contains(s, cue)
	}
	for i := 0; ; {
		j := strings.Index(s[i:], cue)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(cue)
		if (j == 0 || !wordByte(s[j-1])) && (end == len(s) || !wordByte(s[end])) {
			return true
		}
		i = j + 1
	}
}

func wordByte(b byte) bool {
	return b == '_' || b == '\'' || (b >= '0' && b <= '9') || (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z')
}

// Extract returns the facts a user message states. Questions state
// nothing; each sentence is read on its own.
func Extract(msg string, o Options) []Fact {
	// Expressions are built from the message's words (a destination's
	// name): an invalid byte would fail their compilation.
	msg, o.Before = strings.ToValidUTF8(msg, "\uFFFD"), strings.ToValidUTF8(o.Before, "\uFFFD")
	msg = dropCode(msg)
	out := extractAll(msg, o)
	if c, ok := ExtractCorrection(msg); ok && !c.age && c.Old != "" {
		// "Actually my gym class is on Wednesdays, not Mondays": the
		// value said is the slot's new one, said as a change of the old.
		for i := range out {
			if f := &out[i]; !f.Note && !f.Ended && ContainsWord(strings.ToLower(f.Value), strings.ToLower(c.New)) {
				f.Change = true
				if f.Prior == "" {
					f.Prior = c.Old
				}
			}
		}
	}
	// A note of what the user does not know yet is a passing thought.
	out = slices.DeleteFunc(out, func(f Fact) bool { return f.Note && unsureRe.MatchString(f.Text) })
	for i := range out {
		validUTF8(&out[i])
	}
	return out
}

// dropCode removes the fenced code blocks of a message (``` or ~~~, to
// the closing fence or the end): a pasted program states nothing about
// the user ("I live in a loop = True" in a snippet was a home).
func dropCode(msg string) string {
	if !strings.Contains(msg, "```") && !strings.Contains(msg, "~~~") {
		return msg
	}
	var b strings.Builder
	in := ""
	for line := range strings.Lines(msg) {
		t := strings.TrimSpace(line)
		switch {
		case in == "" && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")):
			if !strings.Contains(t[3:], t[:3]) {
				in = t[:3] // (a fence closed on its own line is a block of one line)
			}
			b.WriteString("\n")
		case in != "" && strings.HasPrefix(t, in):
			in = ""
			b.WriteString("\n")
		case in == "":
			b.WriteString(line)
		}
	}
	return b.String()
}

// validUTF8 keeps a fact's strings valid UTF-8, whatever a rewrite cut:
// the stores refuse such text, so one bad byte failed its whole turn
// until the turn was parked.
func validUTF8(f *Fact) {
	for _, p := range []*string{&f.Text, &f.Subject, &f.Attribute, &f.Value, &f.Prior, &f.Triple.Prior, &f.word} {
		if !utf8.ValidString(*p) {
			*p = strings.ToValidUTF8(*p, "")
		}
	}
	for i, a := range f.Alts {
		f.Alts[i] = strings.ToValidUTF8(a, "")
	}
}

// maxSentenceBytes bounds a sentence as extraction reads it: longer runs
// of text without a sentence end (a pasted list, a log) are read in
// pieces cut at spaces, so the work on one sentence, which reads it
// again for each fact found in it, stays bounded.
const maxSentenceBytes = 1024

// bounded cuts the sentences longer than maxSentenceBytes into pieces at
// spaces (or anywhere, a character whole, when a piece holds none).
func bounded(sents []string) []string {
	long := false
	for _, s := range sents {
		long = long || len(s) > maxSentenceBytes
	}
	if !long {
		return sents
	}
	var out []string
	for _, s := range sents {
		for len(s) > maxSentenceBytes {
			cut := strings.LastIndexByte(s[:maxSentenceBytes], ' ')
			if cut <= 0 {
				cut = maxSentenceBytes
				for cut > 0 && !utf8.RuneStart(s[cut]) {
					cut--
				}
			}
			out = append(out, strings.TrimSpace(s[:cut]))
			s = strings.TrimSpace(s[cut:])
		}
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// contextBytes is how much of the message on each side of a sentence
// its facts read, and of what was said before it.
const contextBytes = 2048

// around returns s[lo:hi] with about margin bytes on each side, widened
// to the nearest spaces (so no word, and no character, is cut) unless
// none is within maxWiden bytes.
func around(s string, lo, hi, margin int) string {
	a, b := max(0, lo-margin), min(len(s), hi+margin)
	for w := 0; a > 0 && s[a-1] != ' ' && s[a-1] != '\n' && w < maxWiden; w++ {
		a--
	}
	for w := 0; b < len(s) && s[b] != ' ' && s[b] != '\n' && w < maxWiden; w++ {
		b++
	}
	return s[a:b]
}

// maxWiden bounds how far around looks for a space.
const maxWiden = 64

// tail returns the end of s, about n bytes of it, starting at a space.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return around(s, len(s), len(s), n)
}

// upperFirst and lowerFirst change the case of s's first letter (a rune,
// not a byte: "🌟 I took it" starts with four bytes of one emoji).
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}

func extractAll(msg string, o Options) []Fact {
	var out []Fact
	seen := map[string]bool{}
	before, reply, _ := strings.Cut(o.Before, "\nAssistant:")
	asked := before
	msg = splitBeenClauses(nameLater(employerSwitch(msg)))
	// What a sentence's facts read around it (how the message names a
	// destination, the user's earlier words a pronoun points back to)
	// is bounded, so a long message costs in proportion to its length:
	// a 32 KB message of moves had taken seconds to minutes, each move
	// reading the whole message. A message of up to twice contextBytes is
	// read whole.
	cursor := 0
	talksJobs := sync.OnceValue(func() bool { return jobTalkRe.MatchString(msg + " " + asked) })
	named := map[string]destination{}
	for _, sent := range clauses(bounded(text.Sentences(msg))) {
		said := sent
		at := cursor
		if i := strings.Index(msg[cursor:], said); i >= 0 {
			at = cursor + i
			cursor = at + len(said)
		}
		before = tail(before, 2*contextBytes)
		if hasHan(sent) {
			sent = resolveSwitchZH(sent, before, reply)
		} else {
			sent = labelled(resolveSwitch(sent, before, reply))
		}
		before += " " + said
		if text.IsQuestion(sent) {
			// "I'm in Tokyo this week, any ramen tips?": the statement
			// before the question still states.
			if sent = statedPart(sent); sent == "" {
				continue
			}
		}
		if hasHan(sent) {
			// 如果我搬到深圳，…: a condition states nothing.
			if sent = dropZHCondition(sent); sent == "" {
				continue
			}
			sent = resolveZHPronoun(sent)
		}
		var fs []Fact
		if hasHan(sent) {
			fs = extractZH(sent)
		} else {
			fs = destinations(extractEN(sent), sent, around(msg, at, at+len(said), contextBytes)+"\n"+tail(o.Before, contextBytes), named)
			if t := nowTail(sent); t != "" {
				fs = withTail(fs, extractAll(t, o))
			}
			fs = moveFor(fs, sent)
			if len(fs) == 0 {
				// "Emma is 7 and Noah is 4" after "My kids are Emma and
				// Noah": the ages of the children (or pets) named.
				fs = namedAges(sent, tail(o.Before, contextBytes)+"\n"+msg)
			}
		}
		// "I quit my job", 我们分手了: an ending cue ends its slot when
		// the sentence states nothing else about that slot.
	ends:
		for _, e := range slotEndings(sent) {
			for i, f := range fs {
				if f.join && e.Attribute == "works_at" && f.Subject == e.Subject {
					// "I left Acme and joined Globex": a join beside
					// leaving a named place is a new job.
					fs[i].join = false
					if e.Ended {
						fs = append(fs, e)
					} else if fs[i].Prior == "" {
						fs[i].Prior = e.Prior
					}
					continue ends
				}
				if !e.Ended && e.Prior != "" && f.Ended && strings.EqualFold(f.Value, e.Prior) {
					// "I quit Initech for Hooli": what replaced the
					// ended value, ahead of its ending.
					fs = slices.Insert(fs, i, e)
					continue ends
				}
				if !f.Note && f.Subject == e.Subject && f.Attribute == e.Attribute {
					if f.appos && !f.Multi {
						// "My girlfriend Priya and I broke up": the name
						// said is the value that ended.
						fs[i].Ended, fs[i].Change, fs[i].appos = true, true, false
						fs = slices.DeleteFunc(fs, func(f Fact) bool { return f.Note })
					}
					continue ends
				}
			}
			fs = append(fs, e)
		}
		if len(fs) == 0 && !hasHan(sent) {
			// "I quit Acme. Now I'm at Globex.": where the user is, in a
			// message about jobs, is the employer.
			if m := atOrgRe.FindStringSubmatch(sent); m != nil && !strings.EqualFold(m[1], "home") && talksJobs() {
				fs = []Fact{{Triple: tripleOf("user", "works_at", strings.TrimRight(m[1], ".'")), Change: true}}
			}
		}
		refs := text.ResolveDates(sent, o.At, o.Loc)
		if len(refs) == 0 {
			// "I got married in 2019", 我2019年结婚了: a date said
			// outright dates the statement the same way.
			refs = text.ExplicitDates(sent, o.At, o.Loc)
		}
		until, temp := temporary(sent, o.At, o.Loc)
		if len(fs) == 0 {
			nrefs := refs
			if len(nrefs) == 0 && !hasHan(sent) {
				// "I ran a marathon in June": a month said alone dates
				// what happened, and what the user is about to do ("I'm
				// joining Meta in May"); a goal keeps its words.
				if m := monthRefs(sent, o); len(m) > 0 && (!m[0].Date.After(o.At) || comingRe.MatchString(sent)) {
					nrefs = m
				}
			}
			n := datedStatement(sent, nrefs)
			if n != "" {
				refs = nrefs
			}
			if hasHan(sent) {
				n = datedStatementZH(sent, refs)
			}
			if n == "" && temp {
				n = presentStatement(sent)
			}
			if n == "" {
				// A trip the user is about to make is a dated note that
				// stays true as a record: no expiry.
				n = plan(sent, o.At, o.Loc)
			}
			restates := false
			if n == "" {
				// "I usually wake up at 6am", "I'm training for a half
				// marathon": how the user lives, as said.
				n = habit(sent)
				restates = n != ""
			}
			if n != "" {
				f := Fact{Note: true, Restates: restates, Text: n, ValidFrom: o.At, Change: HasChangeCue(sent, o.ChangeCues), Context: lifeEventWords(sent)}
				if len(refs) > 0 {
					f.ValidFrom, f.Dated = refs[0].Date, true
				}
				if temp {
					f.Expires = until
					if p := tempPeriod(sent); !hasHan(sent) && strings.HasPrefix(strings.ToLower(p), "until ") {
						// "… on vacation until Monday" → "… until Monday 16 Mar 2026"
						if d := untilDay(p, until); d != strings.ToLower(p) {
							f.Text = strings.Replace(f.Text, p, d, 1)
						}
					}
				}
				out = append(out, f)
			}
			continue
		}
		change := HasChangeCue(sent, o.ChangeCues)
		keyPersonal(fs)
		allRefs := refs
		for _, f := range fs {
			refs := allRefs
			change := change
			if from, to, ok := ownClause(sent, f); ok {
				// "My mom is a nurse and my dad retired last year": the
				// date and the change cue of the fact's own clause.
				refs = slices.DeleteFunc(slices.Clone(refs), func(r text.DateRef) bool { return r.Start < from || r.Start >= to })
				change = HasChangeCue(sent[from:to], o.ChangeCues)
			}
			if f.Note {
				// The rest of a sentence no triple holds, as said.
				if n := thirdPerson(sent); n != "" && !hasHan(sent) {
					nf := Fact{Note: true, Text: n, ValidFrom: o.At, Change: HasChangeCue(sent, o.ChangeCues), Context: lifeEventWords(sent)}
					if len(refs) > 0 {
						nf.ValidFrom, nf.Dated = refs[0].Date, true
						if d := datedStatement(sent, refs); d != "" {
							nf.Text = d
						}
					}
					out = append(out, nf)
				}
				continue
			}
			// "this Thursday at 5pm" is a value once its date is written
			// as the date it is.
			if g := f; !f.AnyValue {
				g.Value = resolveValueDates(g.Value, refs, hasHan(sent))
				if !valid(&g) {
					continue
				}
			}
			k := f.Key() + "\x00" + strings.ToLower(f.Value)
			if seen[k] {
				continue
			}
			seen[k] = true
			f.Change = f.Change || change
			// "I like tea now", "我现在喜欢茶": a multi-valued slot with a
			// change cue replaces its values, unless the sentence adds one.
			// Skills and pastimes accumulate ("I'm learning the violin
			// now" keeps the piano): only "only" replaces them.
			if f.Multi && !f.Ended && !addsValue(sent) && HasChangeCue(sent, replaceCues) && (!accumulates[f.Attribute] || HasChangeCue(sent, onlyCues)) {
				f.Replace = true
			}
			f.ValidFrom = o.At
			if len(refs) == 0 && !f.starts && !hasHan(sent) {
				// "I moved to Denver in January": the month said alone is
				// the last one, for what the sentence says happened.
				refs = monthRefs(sent, o)
			}
			if f.appos && !relationStartRe.MatchString(sent) {
				// "I went to Paris with my sister Ana last year": the date
				// is the trip's, not when Ana became a sister.
				refs = nil
			}
			if len(refs) > 0 && !refs[0].Date.After(o.At) && !thisYear(refs[0]) {
				f.ValidFrom, f.Dated = refs[0].Date, true
			}
			if f.starts && len(refs) == 0 {
				// "On Monday I start at Hooli", "Monday I start at
				// Hooli": a start said in the present names the coming day.
				if r, ok := comingDay(sent, o.At, o.Loc, weekdayRe); ok {
					refs = []text.DateRef{r}
				}
			}
			// "I'm moving to Lisbon next month for a new job at Revolut":
			// an employer or school said in a sentence about what is to
			// come starts on the date it names, as "I start at Hooli on
			// Monday" does; it was the employer at once.
			starts := f.starts || !f.Ended && !hasHan(sent) && (f.Attribute == "works_at" || f.Attribute == "studies_at") && comingRe.MatchString(sent)
			if starts && len(refs) == 0 && !hasHan(sent) {
				// "I start at Google in September", "I'll be working at
				// Google from September": a month said alone is its
				// coming first day.
				if m := text.MonthAlone(sent, o.At, o.Loc, false); len(m) > 0 && m[0].Date.After(o.At) {
					refs = m[:1]
				}
			}
			future := starts && len(refs) > 0 && refs[0].Date.After(o.At)
			if future {
				f.ValidFrom, f.Dated = refs[0].Date, true
			}
			if f.Attribute == "staying_in" && !temp && endsHome(fs, f.Subject) {
				// "I don't live in Leeds anymore, I'm in Bristol now":
				// where the user is, said as the old home ends, is the
				// new home.
				f.Attribute, f.Multi, f.Change = "lives_in", false, true
			}
			if f.Attribute == "staying_in" || temp && f.Attribute == "lives_in" && !(f.Destination && purposeOnly(sent)) {
				// A temporary state: where the user is this week is not
				// where they live.
				if f.Attribute == "lives_in" {
					f.Attribute, f.Multi = "staying_in", true
				}
				f.Expires = until
				if !temp {
					f.Expires = o.At.AddDate(0, 0, 7)
				}
			}
			// "My knee surgery is in two weeks": a date the value names
			// is written as the date it is, past or future.
			f.Value = cleanValue(f.Value, f.Attribute, sent, refs)
			if f.Attribute == "pet" && !f.Ended && acquiredRe.MatchString(sent) {
				f.Change = true // "We got a new puppy": a pet more, not the one had
			}
			if v, ok := strings.CutPrefix(f.Value, "doing "); ok && f.Attribute == "activity" && v != "" {
				f.Value = v // "I've started doing yoga": yoga
			}
			f.Value = resolveValueDates(f.Value, refs, hasHan(sent))
			f.Text = render(&f, hasHan(sent))
			if (f.Attribute == "likes" || f.Attribute == "dislikes") && !hasHan(sent) {
				f.Text = withSaidArticle(f.Text, f.Value, sent)
			}
			if f.AnyValue {
				f.Text = endingText(&f, hasHan(sent))
			}
			if f.Ended {
				f.base = f.Text
			}
			f.Context = kindWords(&f)
			switch {
			case f.Attribute == "staying_in" && temp && len(refs) > 0:
				f.Text = periodSuffix(f.Text, refs[0], hasHan(sent))
			case f.Attribute == "staying_in" && temp && !hasHan(sent) && strings.HasSuffix(f.Text, f.Value+"."):
				// "… in Leeds for the holidays.": the period, as said.
				if p := tempPeriod(sent); p != "" {
					f.Text = strings.TrimSuffix(f.Text, ".") + " " + untilDay(p, until) + "."
				}
			case future:
				f.Text = startSuffix(f.Text, refs[0], hasHan(sent))
			case f.Dated && experiences[f.Attribute] && !hasHan(sent):
				// Something done, not a state: "… has been to the UK
				// (on 10 Nov 2023)."
				f.Text = strings.TrimSuffix(f.Text, ".") + " (" + refs[0].In() + ")."
			case f.Dated:
				f.Text = dateSuffix(f.Text, refs[0], hasHan(sent))
			}
			out = append(out, f)
		}
	}
	for i := range out {
		if !out[i].Expires.IsZero() {
			// A temporary state is how things are now: a question
			// about today finds it by these words ("Should I take it
			// easy at the gym today?" for "a bad cold this week").
			out[i].Context = strings.TrimSpace(out[i].Context + " " + presentWords)
		}
	}
	for i := range out {
		if f := &out[i]; f.join && !employerTurn(asked+" "+msg, out) {
			// The date said stays: "… (since the week of 23 Feb 2026)."
			tail := strings.TrimPrefix(f.Text, strings.TrimSuffix(render(f, false), "."))
			f.Attribute, f.Multi, f.Change, f.join = "member_of", true, false, false
			f.Text = strings.TrimSuffix(render(f, false), ".") + tail
			f.Context = kindWords(f)
		}
	}
	return lastPerSlot(out)
}

// acquiredRe: a pet said as got, not had.
var acquiredRe = rx.MustCompile(`(?i)\b(?:got|get|getting|adopted|adopt|adopting|bought|buying|rescued|brought home|new|second|third|another|welcomed|picked up|took in)\b`)

// relationStartRe: a sentence that says when a relation began (a birth,
// an adoption, a wedding, a meeting), whose date a named relative's fact
// takes.
var relationStartRe = rx.MustCompile(`(?i)\b(?:born|arrived|adopted|adopt|married|marry|engaged|met|meet|welcomed|dating|hired|joined|started|got|had|new)\b`)

// namedAgeRe: "<Name> is <n>" (and more such, joined by "and" or a
// comma): ages said by name alone.
var (
	namedAgeRe     = rx.MustCompile(`^\W*(?:(?:[A-Z][a-z]+) is \d{1,2}(?: years old)?(?:,\s*|,? and |\s*$|[.!]\s*$))+$`)
	namedAgePartRe = rx.MustCompile(`([A-Z][a-z]+) is (\d{1,2})\b`)
)

// namedAges reads "Emma is 7 and Noah is 4" when each name is one the
// context names as the user's child or pet ("My kids are Emma and Noah",
// "my daughter Emma", "a dog named Rex"): the ages are theirs, keyed by
// name as "Ava turned 10" is. None when one name is not so named.
func namedAges(sent, context string) []Fact {
	if !namedAgeRe.MatchString(strings.TrimSpace(sent)) {
		return nil
	}
	var out []Fact
	for _, m := range namedAgePartRe.FindAllStringSubmatch(sent, -1) {
		name := m[1]
		if notAgeNames[strings.ToLower(name)] || !namedKin(context, name) {
			return nil
		}
		if n := atoi(m[2]); n <= 0 || n >= 120 {
			return nil
		}
		out = append(out, Fact{Triple: tripleOf(name, "age", m[2])})
	}
	return out
}

// kinWords are the words that name a child or a pet before its name.
const kinWords = `(?:kids?|children|child|sons?|daughters?|twins|boys|girls|baby|babies|grandsons?|granddaughters?|grandkids|dogs?|cats?|puppy|kitten|pets?|named|called)`

// namedKin reports whether context names name as one of the user's
// children or pets.
func namedKin(context, name string) bool {
	q := regexp.QuoteMeta(name)
	re, err := regexp.Compile(`(?i)\b(?:my|our)\s+(?:\w+\s+){0,2}?` + kinWords + `\b[^.!?\n]{0,40}\b` + q + `\b|\b(?:named|called)\s+` + q + `\b`)
	return err == nil && re.MatchString(context)
}

// subjectClauseRe starts a clause with a subject of its own ("…, and my
// dad retired last year", "… but I moved", ", my sister …") or a verb
// of its own after "and" ("… and started at Google last week").
var subjectClauseRe = rx.MustCompile(`(?i)(?:,?\s+(?:and|but|while|whereas|so|plus)\s+|,\s+)(?:my|our|i|we|i'm|i've|we're|we've|they|he|she)\b|,?\s+and\s+(?:then\s+|also\s+|now\s+|later\s+)?(?:[a-z]+ed|got|took|left|went|began|became|bought|sold|found|quit)\b`)

// ownClause is the byte range of the clause of sent that holds f's value,
// when sent joins clauses with subjects or verbs of their own; ok is
// false when there is one clause or the value is not found in exactly
// one of them.
func ownClause(sent string, f Fact) (from, to int, ok bool) {
	if f.Value == "" || hasHan(sent) {
		return 0, 0, false
	}
	cuts := subjectClauseRe.FindAllStringIndex(sent, -1)
	// A cut after a subject alone is no clause: "Alex and I got married",
	// "my mom and I moved".
	prev := 0
	cuts = slices.DeleteFunc(cuts, func(c []int) bool {
		if len(strings.Fields(sent[prev:c[0]])) < 3 {
			return true
		}
		prev = c[0]
		return false
	})
	if len(cuts) == 0 {
		return 0, 0, false
	}
	low := strings.ToLower(sent)
	at := -1
	for _, v := range []string{strings.ToLower(f.Value), lastWord(strings.ToLower(f.Value))} {
		if i := strings.Index(low, v); i >= 0 && strings.LastIndex(low, v) == i && len(v) > 2 {
			at = i
			break
		}
	}
	if at < 0 {
		return 0, 0, false
	}
	from, to = 0, len(sent)
	for _, c := range cuts {
		if c[0] <= at {
			from = c[0]
		} else {
			to = c[0]
			break
		}
	}
	return from, to, true
}

// clauses splits an English sentence at its semicolons: "Last Friday was
// my final day at Initech; on Monday I start at Hooli" states two things,
// each read on its own.
func clauses(sents []string) []string {
	var out []string
	for _, s := range sents {
		if hasHan(s) || !strings.Contains(s, "; ") {
			out = append(out, s)
			continue
		}
		for _, c := range strings.Split(s, "; ") {
			if c = strings.TrimSpace(c); c != "" {
				out = append(out, c)
			}
		}
	}
	return out
}

// nowClauseRe is where a sentence's second statement begins with a change
// cue and the user as its subject: "I stopped climbing, now I swim twice
// a week", "I stopped running, and these days I cycle to work".
var nowClauseRe = rx.MustCompile(`(?i)(?:(?:,|;|\s-|\s—)\s*(?:(?:and|but|so)\s+)?|\s(?:and|but|so)\s+)((?:now|nowadays|these days)\s*,?\s+(?:I|I'm|I've|we|we're|we've|my)\s)`)

// usedToObjectRe is the object of a first statement of what the user used
// to like or do ("I used to love jazz").
var usedToObjectRe = rx.MustCompile(`(?i)\bi\s+used\s+to\s+(?:really\s+)?(?:love|like|enjoy|adore|hate|dislike|loathe|detest|drink|eat|play|watch|listen\s+to)\s+([a-z][a-z' -]{0,40}?)\s*$`)

// endPronounRe is a second statement's object said as a pronoun.
var endPronounRe = rx.MustCompile(`(?i)\b(?:it|them)\s*[.!]*\s*$`)

// nowTail is the second statement of sent that nowClauseRe finds, from its
// cue ("now I swim twice a week"), or "". Its object said as "it" or
// "them" is the first statement's ("I used to love jazz but now I can't
// stand it" → "now I can't stand jazz").
func nowTail(sent string) string {
	loc := nowClauseRe.FindStringSubmatchIndex(sent)
	if loc == nil {
		return ""
	}
	tail := sent[loc[2]:]
	if m := usedToObjectRe.FindStringSubmatch(sent[:loc[0]]); m != nil {
		if p := endPronounRe.FindStringIndex(tail); p != nil {
			tail = tail[:p[0]] + m[1]
		}
	}
	return tail
}

// withTail adds to a sentence's facts those its second statement (nowTail)
// states when read on its own and the whole sentence did not: a fact of a
// slot the sentence gave none, a note when it gave none. The sentence is
// read whole first, so what its patterns read across the cue ("I used to
// work at Oracle, now I'm at Salesforce") stands; the tail was lost when
// the first statement's fact took the sentence ("I stopped climbing, now I
// swim twice a week").
func withTail(fs, tail []Fact) []Fact {
	for _, f := range tail {
		if !slices.ContainsFunc(fs, func(g Fact) bool {
			// A slot of many values takes the tail's other value ("I
			// stopped climbing, now I swim").
			return g.Note == f.Note && (f.Note || g.Key() == f.Key() && (!f.Multi || strings.EqualFold(g.Value, f.Value)))
		}) {
			fs = append(fs, f)
		}
	}
	return fs
}

// presentWords are the search-only words of a temporary state.
var presentWords = text.PresentWords()

// lastPerSlot keeps, of a message's values for one single-valued slot,
// the last ("I started eating fish again, so I guess I'm pescatarian").
func lastPerSlot(fs []Fact) []Fact {
	last := map[string]int{}
	for i, f := range fs {
		if !f.Note && !f.Multi && !f.Ended {
			last[f.Key()] = i
		}
	}
	out := fs[:0]
	for i, f := range fs {
		if !f.Note && !f.Multi && !f.Ended && last[f.Key()] != i {
			continue
		}
		out = append(out, f)
	}
	return out
}

// labelRe is a value given under a label: "New email: sam@x.io",
// "Phone: 555 0100", "new address: 12 Elm St".
var labelRe = rx.MustCompile(`^\s*(?:[Mm]y\s+|I(?:'ve| have)? got (?:a |an |my )|I have (?:a |an ))?((?:[Nn]ew|[Cc]urrent|[Uu]pdated)\s+)?([A-Za-z][A-Za-z ]{1,24}?)\s*:\s*(\S.*)$`)

// labelled writes a labelled value as the sentence it means ("New email:
// x" → "My new email is x"), for the labels that name a slot (an email,
// a phone, an address, a home, an employer, a job, a name).
func labelled(sent string) string {
	m := labelRe.FindStringSubmatch(sent)
	if m == nil {
		return sent
	}
	label := strings.ToLower(strings.TrimSpace(m[2]))
	last := label[strings.LastIndexByte(label, ' ')+1:]
	if _, ok := attrAlias[label]; !ok && last != "email" && last != "address" && last != "number" {
		return sent
	}
	isNew := ""
	if m[1] != "" {
		isNew = strings.ToLower(strings.TrimSpace(m[1])) + " "
	}
	return "My " + isNew + label + " is " + m[3]
}

// monthRefs is the month sent names alone ("in January"), resolved as
// the last one when the sentence says what happened, else the next one.
func monthRefs(sent string, o Options) []text.DateRef {
	refs := text.MonthAlone(sent, o.At, o.Loc, true)
	if len(refs) > 0 && !saysPast(sent) {
		refs = text.MonthAlone(sent, o.At, o.Loc, false)
	}
	return refs
}

// saysPast reports whether an English sentence says what happened: a
// verb tagged as past, or a perfect ("I've lived here since May"; not
// "I'm excited for June", whose participle follows "am").
func saysPast(sent string) bool { return pastTags(tagEN(sent)) }

// pastTags is saysPast over a tagged sentence.
func pastTags(ts []tok) bool {
	for i, t := range ts {
		if t.tag == "VBD" {
			return true
		}
		if t.tag == "VBN" {
			for k := max(0, i-2); k < i; k++ {
				if l := ts[k].low; l == "have" || l == "has" || l == "had" {
					return true
				}
			}
		}
	}
	return false
}

// prepositions begin no value said with an article ("works as a %v").
var prepositions = map[string]bool{"in": true, "at": true, "on": true, "for": true, "with": true, "from": true,
	"to": true, "of": true, "by": true, "about": true, "into": true, "as": true, "like": true}

// valid rejects a fact that lost its value or kept a first-person word.
func valid(f *Fact) bool {
	v := strings.TrimSpace(f.Value)
	if v == "" || f.Attribute == "" || f.Subject == "" {
		return false
	}
	if a := f.Attribute[strings.LastIndexByte(f.Attribute, '_')+1:]; strings.EqualFold(v, a) || strings.EqualFold(v, a+"s") {
		return false // "still life is my favorite": "The user's favorite life is life."
	}
	for _, w := range strings.Fields(strings.ToLower(v)) {
		switch strings.Trim(w, ".,!?;:'\"") {
		case "i", "me", "my", "mine", "myself", "we", "us", "our", "you", "your", "it", "everything", "something",
			"anything", "nothing", "stuff", "things", "thing", "this", "that", "them", "lot", "all", "what", "when",
			// An item of the conversation ("I prefer the second option"):
			// nothing outside it says which.
			"option", "options", "choice", "choices", "alternative", "alternatives", "suggestion", "suggestions", "former", "latter":
			return false
		}
	}
	if slices.Contains(strings.Fields(v), "one") {
		return false // "I like the blue one": which one was said before ("Formula One" stays)
	}
	if first, _, _ := strings.Cut(v, " "); prepositions[first] && strings.Contains(vocab[f.Attribute].en, "%a %v") {
		return false // "my job is in marketing": "The user works as an in marketing."
	}
	switch v {
	case "它", "它们", "这个", "那个", "这", "那", "他", "她":
		return false // a pronoun names nothing
	}
	if strings.ContainsAny(v, "我你") {
		return false
	}
	return len([]rune(v)) <= 80
}

func hasHan(s string) bool {
	for _, r := range s {
		if r >= 0x2E80 && text.CJKScript(r) {
			return true
		}
	}
	return false
}

// thisYear: "今年28岁", "this year": the year names no date a value
// became true.
func thisYear(r text.DateRef) bool {
	l := strings.ToLower(r.Text)
	return r.Text == "今年" || l == "this year"
}

// periodSuffix says when a temporary state holds, in the words the user
// used and as a date: "The user is in Tokyo this week (the week of 2 Mar
// 2026).", "用户这周在东京（2026年4月6日那周）。". The relative words stay
// right for as long as the memory lives: it expires with the period.
func periodSuffix(s string, d text.DateRef, zh bool) string {
	if zh {
		if strings.HasPrefix(s, "用户") && !strings.HasPrefix(s, "用户的") {
			s = "用户" + d.Text + strings.TrimPrefix(s, "用户")
		}
		return strings.TrimSuffix(s, "。") + "（" + d.FormatZH() + "）。"
	}
	return strings.TrimSuffix(s, ".") + " " + strings.ToLower(d.Text) + " (" + d.Format() + ")."
}

// endsWithWord reports whether s is one of words or ends with " "+one.
func endsWithWord(s string, words ...string) bool {
	for _, w := range words {
		if s == w || strings.HasSuffix(s, " "+w) {
			return true
		}
	}
	return false
}

// resolveValueDates writes each relative date expression of a triple's
// value as the date it resolved to ("in two weeks" → "on 18 May 2026",
// 下周五 → 2026年5月15日), so the stored value stays true after the week
// it was said in.
func resolveValueDates(v string, refs []text.DateRef, zh bool) string {
	for _, r := range refs {
		i := strings.Index(strings.ToLower(v), strings.ToLower(r.Text))
		if i < 0 {
			continue
		}
		rep := r.In()
		if zh || r.CJK() {
			rep = r.FormatZH()
		} else if pre := strings.ToLower(strings.TrimSpace(v[:i])); endsWithWord(pre, "on", "in", "until", "till", "by", "since", "from", "before", "after") {
			rep = r.Format() // "until tomorrow" → "until 11 Mar 2026", not "until on …"
		}
		if !zh && !r.CJK() && r.Precision == text.Day && weekdayRe.MatchString(r.Text) {
			// "next Monday" → "on Monday 9 Mar 2026": the day keeps its
			// name, which a correction names ("I meant Tuesday, not
			// Monday").
			rep = strings.Replace(rep, r.Format(), r.Date.Weekday().String()+" "+r.Format(), 1)
		}
		v = v[:i] + rep + v[i+len(r.Text):]
	}
	return v
}

// dateSuffix adds when the value became true to the sentence: "The user
// lives in Lisbon (since Feb 2026)."
func dateSuffix(s string, d text.DateRef, zh bool) string {
	if zh {
		return strings.TrimSuffix(s, "。") + "（自" + d.FormatZH() + "起）。"
	}
	return strings.TrimSuffix(s, ".") + " (since " + d.Format() + ")."
}

// comingDay resolves the bare weekday re finds in a sentence about what
// is to come ("on Monday I start at Hooli", "flying to Madrid on
// Friday"), which the text package leaves alone, to the next such day
// after at, in loc.
func comingDay(sent string, at time.Time, loc *time.Location, re *rx.Regexp) (text.DateRef, bool) {
	m := re.FindStringSubmatchIndex(sent)
	if m == nil {
		return text.DateRef{}, false
	}
	if loc == nil {
		loc = time.UTC
	}
	t := at.In(loc)
	day := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, loc)
	n := (int(dayNames[strings.ToLower(sent[m[2]:m[3]])]) - int(day.Weekday()) + 7) % 7
	if n == 0 {
		n = 7
	}
	return text.DateRef{Start: m[0], End: m[1], Text: sent[m[0]:m[1]], Date: day.AddDate(0, 0, n), Precision: text.Day}, true
}

// moveForRe is the employer or school a move was for: "… for a new job at
// Revolut", "… to work at Siemens", "… to study at MIT", "… to join
// Stripe".
var moveForRe = rx.MustCompile(`\b(?:for (?:a |my |the |our )?(?:new )?(?:job|role|position) (?:at|with)|to (?:work|start) (?:at|for)|to (study) at|to join) ((?:[A-Z][\w&'.-]*)(?:\s+[A-Z][\w&'.-]*){0,3})`)

// moveFor adds to a move the employer or school it was for ("I moved to
// Lisbon last month for a new job at Revolut": the home, and Revolut; the
// employer was lost to the move), when the sentence gave none; it is
// dated with the sentence, as the move is.
func moveFor(fs []Fact, sent string) []Fact {
	if !slices.ContainsFunc(fs, func(f Fact) bool { return f.Subject == "user" && f.Attribute == "lives_in" && !f.Ended }) ||
		slices.ContainsFunc(fs, func(f Fact) bool { return f.Attribute == "works_at" || f.Attribute == "studies_at" }) {
		return fs
	}
	m := moveForRe.FindStringSubmatch(sent)
	if m == nil {
		return fs
	}
	attr := "works_at"
	if m[1] != "" {
		attr = "studies_at"
	}
	return append(fs, Fact{Triple: tripleOf("user", attr, strings.TrimRight(m[2], ".'")), Change: true})
}

// withSaidArticle puts back in a fact's text the article the sentence
// said its value with ("I like the beach": "The user likes the beach.",
// was "likes beach"); the value, which keys the slot, stays without it.
func withSaidArticle(text, value, sent string) string {
	if value == "" || strings.Count(text, value) != 1 {
		return text
	}
	low := strings.ToLower(sent)
	for _, a := range []string{"the ", "a ", "an "} {
		if strings.Contains(low, " "+a+strings.ToLower(value)) {
			return strings.Replace(text, " "+value, " "+a+value, 1)
		}
	}
	return text
}

// comingRe: the sentence is about what the user is about to do ("I'm
// moving", "we're relocating", "I'll be joining", "going to start").
var comingRe = rx.MustCompile(`(?i)\b(?:(?:I'm|I am|we're|we are)\s+(?:moving|relocating|starting|joining|heading|taking)|(?:I'll|I will|we'll|we will)\s+(?:be\s+)?(?:moving|relocating|starting|joining|working)|(?:going|about)\s+to\s+(?:move|relocate|start|join))\b`)

// startSuffix adds when a value the user is about to take on starts:
// "The user works at Hooli (starting 9 Mar 2026).", "用户在腾讯工作（自2026年3月9日起）。".
func startSuffix(s string, d text.DateRef, zh bool) string {
	if zh {
		return dateSuffix(s, d, zh)
	}
	return strings.TrimSuffix(s, ".") + " (starting " + d.Format() + ")."
}

// replaceCues say a value took the place of the others ("now", "instead");
// "started" or "joined" alone add one.
var replaceCues = []string{"switched", "switch to", "instead", "now", "these days", "anymore", "any more", "no longer",
	"换成", "改成", "改用", "换了", "现在", "不再"}

// onlyCues replace the languages a user speaks: one learned "now" is one
// more ("I can speak some Japanese now").
var onlyCues = []string{"instead", "only", "switched", "anymore", "any more", "no longer"}

// addsValue reports a sentence that adds a value beside the others ("I
// also use Go", "我也用Go").
func addsValue(s string) bool {
	low := strings.ToLower(s)
	return ContainsWord(low, "also") || ContainsWord(low, "too") || ContainsWord(low, "as well") || strings.Contains(s, "也") || strings.Contains(s, "还")
}

// Opposite is the attribute that states the contrary of a, "" when none
// (likes ↔ dislikes).
// Retired reports a retirement ("I retired last year", "my dad is
// retired"): the job title retired, which ends the employer as well.
func Retired(t memory.Triple) bool {
	return t.Attribute == "job_title" && !t.Ended && strings.EqualFold(t.Value, "retired")
}

func Opposite(a string) string {
	switch a {
	case "likes":
		return "dislikes"
	case "dislikes":
		return "likes"
	}
	return ""
}

// endsHome reports a sentence that ends where the subject lives ("I
// don't live in Leeds anymore", "I moved out of …").
func endsHome(fs []Fact, subject string) bool {
	for _, f := range fs {
		if f.Attribute == "lives_in" && f.Ended && f.Subject == subject {
			return true
		}
	}
	return false
}

var (
	// atOrgRe: a sentence that only says where the user is ("Now I'm at
	// Globex.", "I'm at Hooli now").
	atOrgRe = rx.MustCompile(`^\W*(?i:(?:and|so|now|these days|today),?\s+)*(?i:i'm|i am|i’m)\s+(?i:now\s+|currently\s+|officially\s+)?at\s+([A-Z][\w&.'-]*(?:\s+[A-Z][\w&.'-]*){0,3})(?:\s+now)?\W*$`)
	// jobTalkRe: a message about jobs.
	jobTalkRe = rx.MustCompile(`(?i)\b(?:quit|job|jobs|company|employer|hired|startup|position|role|firm|offer|resigned|notice|laid off|new gig)\b`)
)

// zhConditionRe is a Chinese conditional clause, at the start of a clause
// (after its subject), up to its comma: 如果我搬到深圳，…; 我要是辞职了，…;
// 假如我住在上海的话 (not the 要是 of 主要是).
var zhConditionRe = rx.MustCompile(`(?:^|[，,；;。！？!?\s])(?:我们|我|你|他|她)?(?:如果|假如|要是|万一|假设|倘若|如若|若是|假使)[^，,。！？!?；;]*(?:[，,；;]|$)`)

// dropZHCondition removes the conditional clauses of a Chinese sentence
// (as "if" and "unless" clauses state nothing in English); "" when nothing
// else is left.
func dropZHCondition(s string) string {
	if !strings.ContainsAny(s, "如假要万倘若") {
		return s
	}
	out := strings.TrimSpace(zhConditionRe.ReplaceAllString(s, ""))
	if strings.Trim(out, "，,。！？!?；; ") == "" {
		return ""
	}
	return out
}

// accumulates are the multi-valued attributes a value said "now" joins
// rather than replaces (languages spoken, instruments played, subjects
// studied, pastimes): one learns a new one beside the others.
var accumulates = map[string]bool{"speaks": true, "plays": true, "studies": true, "activity": true}

// zhRelFirst is a relative the user names at the start of a sentence
// (我老公, 我的妹妹); zhPronounClause a later clause that starts with 他 or 她.
var (
	zhRelFirst      = rx.MustCompile(`^[^，,。]*?我(?:的)?` + zhRels)
	zhPronounClause = rx.MustCompile(`([，,；;])\s*(?:他|她)(是|在|当|做|住|今年|喜欢|也是)`)
)

// resolveZHPronoun reads 他/她 at the start of a later clause as the
// relative the sentence began with: 我老公叫陈伟，他是律师 → …，我老公是律师,
// so the clause says the relative's job.
func resolveZHPronoun(s string) string {
	m := zhRelFirst.FindStringSubmatch(s)
	if m == nil || !strings.ContainsAny(s, "他她") {
		return s
	}
	return zhPronounClause.ReplaceAllString(s, "${1}我"+m[1]+"${2}")
}

// Generic reports whether a fact's value describes rather than names
// ("a hospital", "an animal shelter", "a small village near Oxford",
// "the suburbs of Chicago"): it may be the named value of its slot said
// in other words, so it replaces that value only when said as a change.
func Generic(value string) bool {
	v := strings.ToLower(value)
	if rest, ok := strings.CutPrefix(v, "the "); ok {
		return placeHeads[firstWord(rest)] // "the suburbs", "the north of England"
	}
	return strings.HasPrefix(v, "a ") || strings.HasPrefix(v, "an ")
}
