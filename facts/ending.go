package facts

import (
	"cmp"
	"strings"

	"github.com/memproxy/memproxy/internal/rx"
)

// An ending cue says that a single slot of its subject stopped holding,
// without naming a new value: "I quit my job", "we broke up", "I sold my
// car", "our dog died", 我辞职了, 我们分手了. The fact it gives is ended
// (Ended) and names either the kind of value that ended (a pet's kind:
// "dog") or none (AnyValue); reconcile reads it as the slot's one live
// value of that kind before the decision, so the live fact closes with
// its history kept. Cues are per attribute of the vocabulary, in English
// and Chinese; a subject is the user ("I", "we", 我, 我们) or a relative
// ("my sister", 我妹妹), and an English cue names its subject's own
// possessive ("my sister quit her job" ends the sister's job, never the
// user's).

// ending is one attribute's cues.
type ending struct {
	attr string
	// en are patterns over the lowercased rest of the sentence after its
	// subject; {P} is the subject's possessive, {A} the auxiliaries and
	// adverbs that may stand before the verb. A first group, when
	// present, is the kind of value that ended.
	en []string
	// zh are patterns over the clause after its subject.
	zh []string
	// text and zhText are the sentences before the value is known.
	text, zhText string
	// res are en compiled for the user's subject, relRes for a
	// relative's.
	res, relRes, zhRes []*rx.Regexp
}

const enAux = `(?:(?:have|has|had|just|finally|recently|officially|actually|already|now|am|is|are|was|were|also|then|eventually|sadly|to|decided|got|went|and|ve|completely|both|basically|kind of|totally|unfortunately|last week|yesterday|today) +)*`

// petKinds are the animals a pet is.
const petKinds = `(dog|cat|puppy|kitten|rabbit|bunny|hamster|parrot|bird|budgie|guinea pig|turtle|tortoise|fish|goldfish|horse|ferret|snake|lizard|gecko|rat|mouse|chinchilla|pony)`

var endings = []*ending{
	{attr: "works_at", text: "%S left their job.", zhText: "%S辞职了。",
		en: []string{
			`^{A}(?:quit|left|resigned from|lost|walked away from|gave up) {P} (?:\w+ )?(?:job|position|role)\b`,
			`^{A}resigned\b`,
			`^{A}handed in {P} (?:notice|resignation)\b`,
			`^{A}(?:am|is|are|was|were) (?:now |currently )?(?:unemployed|out of work|between jobs|jobless|out of a job)\b`,
			`^{A}(?:got|been|was|were) (?:fired|sacked|laid off|let go)\b`,
		},
		zh: []string{`^[^，,]{0,8}?(?:辞职|离职|辞掉了?工作|丢了工作|失业|被裁|被辞退|被开除|被炒|裸辞)`, `^[^，,]{0,6}?没(?:有)?工作了`}},
	{attr: "partner", text: "%S is no longer in a relationship.", zhText: "%S恢复单身了。",
		en: []string{
			`^{A}(?:broke up|split up|separated|divorced|called it quits)\b`,
			`^{A}(?:am|is|are) (?:now |officially )?(?:single|divorced|separated)\b`,
			`^{A}(?:got|are getting|is getting|am getting) (?:a )?divorced?\b`,
			`^{A}(?:broke up|split up) with {P} (?:\w+)\b`,
			// "I'm not with Tom anymore", "Tom and I are no longer
			// together", "I'm not seeing Tom any more", "… and I are done".
			`^{A}no longer (?:together|with \w+|seeing \w+|dating \w+|in a relationship)\b`,
			`^{A}not (?:together|with \w+|seeing \w+|dating \w+|in a relationship)(?: \w+)? any ?more\b`,
			`^{A}done(?: for good| now)?[.!]*$`,
		},
		zh: []string{`^[^，,]{0,8}?(?:分手|离婚|离了婚|分开了|恢复单身|又单身|单身了)`}},
	{attr: "studies_at", text: "%S is no longer a student.", zhText: "%S不再上学了。",
		en: []string{
			`^{A}(?:dropped out|graduated|finished (?:school|college|university|uni|grad school))\b`,
		},
		zh: []string{`^[^，,]{0,6}?(?:退学了|辍学了|毕业了|休学了)`}},
	{attr: "car", text: "%S no longer has a car.", zhText: "%S不再有车了。",
		en: []string{
			`^{A}(?:sold|scrapped|totaled|totalled|wrecked|crashed|got rid of|gave away|traded in) {P} (?:\w+ )?(?:car|vehicle)\b`,
			`^{P} (?:\w+ )?car (?:was|got) (?:stolen|totaled|totalled|written off|scrapped|sold)\b`,
			// "I no longer have a car", "I don't own a car anymore".
			`^{A}(?:do not|does not|not) (?:have|own) (?:a|an|any|{P}) (?:\w+ )?(?:car|vehicle)\b`,
			`^{A}no longer (?:have|own|drive) (?:a|an|any|{P}) (?:\w+ )?(?:car|vehicle)\b`,
		},
		zh: []string{`^[^，,]{0,6}?(?:把(?:我的|我们的)?车卖了|卖了车|卖掉了车|车卖了|车卖掉了|把车卖掉了|车被偷了|把车报废了|车报废了)`}},
	{attr: "pet", text: "%S no longer has a pet.", zhText: "%S不再养宠物了。",
		en: []string{
			`^{P} (?:\w+ )?(?:old |sweet |beloved |little )?` + petKinds + ` (?:\w+ )?(?:died|passed away|passed|ran away|was put down|had to be put down|was put to sleep)\b`,
			`^{A}(?:had to )?(?:put|have) {P} (?:\w+ )?(?:old )?` + petKinds + ` (?:down|to sleep)\b`,
			`^{A}(?:lost|rehomed|rehome|gave away|give away|gave up|give up) {P} (?:\w+ )?(?:old )?` + petKinds + `\b`,
			// "We gave our cat away", "we had to give our dog up for adoption".
			`^{A}(?:gave|give) {P} (?:\w+ )?(?:old )?` + petKinds + ` (?:away|up)\b`,
		},
		zh: []string{`^[^，,]{0,8}?(?:的|家的?)?(狗|猫|狗狗|猫咪|兔子|仓鼠|鹦鹉|乌龟)[^，,]{0,6}?(?:死了|去世了|走了|没了|病死了|丢了|送人了|安乐死)`,
			`^[^，,]{0,6}?把(?:我的|我们的|家里的)?(狗|猫|狗狗|猫咪|兔子|仓鼠|鹦鹉|乌龟)(?:送人了|安乐死了)`}},
}

func init() {
	for _, e := range endings {
		for _, p := range e.en {
			p = strings.ReplaceAll(p, "{A}", enAux)
			e.res = append(e.res, rx.MustCompile(strings.ReplaceAll(p, "{P}", `(?:my|our)`)))
			e.relRes = append(e.relRes, rx.MustCompile(strings.ReplaceAll(p, "{P}", `(?:her|his|their)`)))
		}
		for _, p := range e.zh {
			e.zhRes = append(e.zhRes, rx.MustCompile(p))
		}
	}
}

// A named ending ends the value it names in whichever of its slots holds
// it live: "I left Acme" (the employer, a school or a club the user has),
// "I moved out of Berlin" (the home); reconcile drops it when no slot
// holds the value.
type namedEnding struct {
	attr  string
	alts  []string
	re    *rx.Regexp
	relRe *rx.Regexp
	zh    bool
}

// enName is a capitalised name of up to five words ("Acme", "New York",
// "Bank of America").
const enName = `((?:[A-Z][\w&'.-]*)(?: (?:of |de |la |& )?[A-Z][\w&'.-]*){0,4})`

// noMoreRe: "…, no more Nike" closing a sentence said of the user.
var noMoreRe = rx.MustCompile(`[,;]\s*(?:and\s+|so\s+)?no more ([A-Z][\w&'.-]*(?: [A-Z][\w&'.-]*){0,2})\s*[.!]*$`)

var namedEndings = []*namedEnding{
	{attr: "lives_in", re: rx.MustCompile(`^{A}(?:moved out of|moved away from|relocated away from|moved out from) ` + enName)},
	{attr: "works_at", alts: []string{"studies_at", "member_of"}, re: rx.MustCompile(`^{A}(?:left|quit|walked out of) ` + enName)},
	{attr: "studies_at", re: rx.MustCompile(`^{A}(?:dropped out of|graduated from) ` + enName)},
	// "I sold the Mazda", "we got rid of our old Civic": the car of that
	// name (a name no car has ends nothing).
	{attr: "car", re: rx.MustCompile(`^{A}(?:sold|scrapped|got rid of|traded in|gave away|totaled|totalled|wrecked) (?:the|{P}) (?:old )?` + enName)},
	// "I'm no longer at IBM", "I'm not at Acme any more": where the
	// user was, in whichever slot holds it ("with" is a partner's word).
	{attr: "works_at", alts: []string{"studies_at", "member_of"}, re: rx.MustCompile(`^{A}(?:no longer (?:at|part of|employed (?:at|by)|working (?:at|for)) ` + enName + `|not (?:at|part of|working (?:at|for)) ` + enName + ` any ?more)`)},
	{attr: "lives_in", zh: true, re: rx.MustCompile(`^[^，,]{0,6}?(?:搬离了?|搬出了?)([\p{Han}]{2,8}?)(?:了|$)`)},
	{attr: "works_at", alts: []string{"studies_at", "member_of"}, zh: true, re: rx.MustCompile(`^[^，,]{0,6}?(?:离开了|退出了)([\p{Han}A-Za-z0-9]{2,10}?)(?:了|$)`)},
	// 我已经不在阿里了: where the user was, in whichever slot holds it
	// (我不在北京住了 is the home's own ending; 不在 before a verb, 我不在
	// 学日语了, is "no longer doing").
	{attr: "works_at", alts: []string{"studies_at", "member_of"}, zh: true, re: rx.MustCompile(`^[^，,]{0,6}?不在([^住学做看玩用吃喝听写读练打弄搞想，,。！!？?了\s][^住，,。！!？?了\s]{1,9}?)(?:工作|上班|干)?了$`)},
}

func init() {
	for _, n := range namedEndings {
		if n.zh {
			continue
		}
		p := strings.ReplaceAll(n.re.String(), "{A}", enAux)
		n.re = rx.MustCompile(strings.ReplaceAll(p, "{P}", `(?:my|our)`))
		n.relRe = rx.MustCompile(strings.ReplaceAll(p, "{P}", `(?:her|his|their)`))
	}
}

var (
	// enEndSubject: the subject a sentence starts with, past a leading
	// interjection, time word or lead-in ("big news:").
	enEndLead    = rx.MustCompile(`^(?:(?:so|well|yeah|also|and|but|oh|sadly|finally|honestly|unfortunately|today|yesterday|anyway|update|btw|ok|okay|actually|last week|last month|last year|this week|this morning)[,:]? +|[a-z]+(?: [a-z]+){0,2}: +)*`)
	enEndUser    = rx.MustCompile(`^(?:i|we|[a-z]+ and i|(?:my|our) (?:girlfriend|boyfriend|partner|wife|husband|fiance|fiancee|fiancé|fiancée|spouse)(?: [a-z]+)? and i)\b *`)
	enEndRel     = rx.MustCompile(`^(?:my|our) (?:little |older |younger |big |baby |twin |eldest |youngest |oldest )?([a-z-]+)\b *`)
	zhEndSubject = rx.MustCompile(`^(?:最近|上周|上个月|昨天|前天|今天|去年|其实|终于|已经|刚刚|刚)?(我们|我)(?:的)?` + zhRels + `?`)
)

// slotEndings reads the ending cues of one sentence.
func slotEndings(sent string) []Fact {
	if hasHan(sent) {
		return slotEndingsZH(sent)
	}
	orig := strings.TrimLeft(contractions.Replace(strings.TrimSpace(sent)), `"'(`)
	if m := implicitRe.FindStringSubmatchIndex(orig); m != nil && !strings.EqualFold(orig[m[2]:m[3]], "living") {
		orig = withSubject(orig, m[2]) // "Sold the Mazda.": the user sold it
	}
	low := enEndLead.ReplaceAllString(asciiLower(orig), "")
	subject, word, rest, rel := "user", "", low, false
	switch {
	case enEndUser.MatchString(low):
		rest = enEndUser.ReplaceAllString(low, "")
	case enEndRel.MatchString(low):
		m := enEndRel.FindStringSubmatch(low)
		if r, ok := relations[m[1]]; ok && !strings.HasPrefix(low[len(m[0]):], "'") {
			subject, word, rest, rel = r, m[1], low[len(m[0]):], true
		} else if !strings.HasPrefix(low[len(m[0]):], "'") {
			rest = low // "my cat died": the user's
		} else {
			return nil
		}
	default:
		return nil
	}
	var out []Fact
	for _, e := range endings {
		res := e.res
		if rel {
			res = e.relRes
		}
		for _, re := range res {
			m := re.FindStringSubmatch(rest)
			if m == nil {
				continue
			}
			if e.attr == "partner" && Plural(subject) {
				break // "my parents divorced": each other, no partner of theirs ends (a dated note)
			}
			kind := ""
			if len(m) > 1 && m[1] != "" {
				kind = petKind(m[1])
			}
			out = append(out, endedFact(subject, e.attr, word, kind))
			break
		}
	}
	if m := noMoreRe.FindStringSubmatch(orig); m != nil && !rel {
		// "I went freelance in May, no more Nike": the name ends in
		// whichever slot holds it (a name none holds ends nothing).
		f := Fact{Triple: tripleOf("user", "works_at", strings.TrimRight(m[1], ".")), Alts: []string{"studies_at", "member_of"}}
		f.Ended, f.Change = true, true
		out = append(dropAttr(out, "works_at"), f)
	}
	if rest != low {
		// The same words with their capitals: the name a named ending
		// ends.
		cased := orig[len(orig)-len(rest):]
		for _, n := range namedEndings {
			re := n.re
			if rel {
				re = n.relRe
			}
			if n.zh || re == nil {
				continue
			}
			if m := re.FindStringSubmatch(cased); m != nil {
				name := cmp.Or(m[1:]...) // the alternative that matched
				f := Fact{Triple: tripleOf(subject, n.attr, strings.TrimRight(name, ".")), word: word, Alts: n.alts}
				f.Ended, f.Change = true, true
				out = dropAttr(out, n.attr)
				if s, ok := successor(f, cased[len(m[0]):], sent); ok {
					out = append(out, s) // before the ending, which it makes redundant
				}
				out = append(out, f) // the name says which value ended
				break
			}
		}
	}
	return out
}

func slotEndingsZH(sent string) []Fact {
	var out []Fact
	for _, c := range zhClauseRe.Split(sent, -1) {
		c = strings.TrimRight(strings.TrimSpace(c), "。！!~～…")
		m := zhEndSubject.FindStringSubmatchIndex(c)
		if m == nil {
			continue
		}
		subject, word := "user", ""
		if m[4] >= 0 {
			word = c[m[4]:m[5]]
			subject = relations[word]
		}
		rest := c[m[1]:]
		for _, e := range endings {
			for _, re := range e.zhRes {
				mm := re.FindStringSubmatch(rest)
				if mm == nil {
					continue
				}
				if e.attr == "pet" && word != "" {
					continue // 我妹妹的狗: the pet is the sister's, not a relation slot
				}
				kind := ""
				if len(mm) > 1 && mm[1] != "" {
					kind = zhPetKind(mm[1])
				}
				out = append(out, endedFact(subject, e.attr, word, kind))
				break
			}
		}
		for _, n := range namedEndings {
			if !n.zh {
				continue
			}
			if mm := n.re.FindStringSubmatch(rest); mm != nil {
				f := Fact{Triple: tripleOf(subject, n.attr, mm[1]), word: word, Alts: n.alts}
				f.Ended, f.Change = true, true
				out = append(dropAttr(out, n.attr), f)
				break
			}
		}
	}
	return out
}

// successorRe is what follows a named ending to say what replaced it:
// "(I left Acme) for Globex", "… to join Globex".
var successorRe = rx.MustCompile(`^,?\s+(?:(for)|(to join|to work (?:at|for)|and joined|and started at|and now work (?:at|for)))\s+(?:the\s+)?` + enName)

// successor is the new value a named ending's sentence names after it
// (tail follows the ended name): the employer after "to join", else, for
// "for X", the slot the name's own evidence says, or where the ended
// value is live (Succeeds, for reconcile).
func successor(ended Fact, tail, sent string) (Fact, bool) {
	m := successorRe.FindStringSubmatch(tail)
	if m == nil || ended.Attribute != "works_at" {
		return Fact{}, false
	}
	v := strings.TrimRight(m[3], ".")
	f := Fact{Triple: tripleOf(ended.Subject, "works_at", v), word: ended.word, Change: true, Prior: ended.Value}
	switch {
	case m[2] != "":
	default:
		switch destinationOf(v, sent, sent, nil) {
		case destCompany:
		case destPlace:
			f.Triple = tripleOf(ended.Subject, "lives_in", v)
		case destInstitution:
			f.Triple = tripleOf(ended.Subject, "studies_at", v)
		default:
			f.Succeeds, f.Alts = true, []string{"lives_in", "studies_at", "member_of"}
		}
	}
	return f, true
}

// SucceedAs puts a Succeeds fact in slot a (its value replaces what a
// holds) and renders its sentence again, keeping what followed the value
// (a date).
func (f *Fact) SucceedAs(a string) {
	tail := ""
	if b := strings.TrimSuffix(render(f, hasHan(f.Text)), "."); strings.HasPrefix(f.Text, b) {
		tail = f.Text[len(b):]
	}
	f.Attribute, f.Multi, f.Alts, f.Succeeds, f.Destination = a, IsMulti(a), nil, false, false
	f.Text = strings.TrimSuffix(render(f, false), ".") + tail
	if tail == "" {
		f.Text = render(f, false)
	}
	f.Context = kindWords(f)
}

// dropAttr leaves out the valueless endings of attribute a.
func dropAttr(fs []Fact, a string) []Fact {
	out := fs[:0]
	for _, f := range fs {
		if !(f.AnyValue && f.Attribute == a) {
			out = append(out, f)
		}
	}
	return out
}

func petKind(k string) string {
	switch k {
	case "puppy":
		return "dog"
	case "kitten":
		return "cat"
	case "bunny":
		return "rabbit"
	}
	return k
}

func zhPetKind(k string) string {
	switch k {
	case "狗狗":
		return "狗"
	case "猫咪":
		return "猫"
	}
	return k
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// endingText is the sentence of an ended slot whose value is not known
// yet ("The user left their job.").
func endingText(f *Fact, zh bool) string {
	for _, e := range endings {
		if e.attr != f.Attribute {
			continue
		}
		t := e.text
		subj := subjectEN(f.Subject, f.word)
		if zh {
			t, subj = e.zhText, subjectZH(f.Subject, f.word)
		} else if Plural(f.Subject) {
			t = pluralEN(t)
		} else if p := pronounOf(f.Subject, f.word); p != "their" {
			t = strings.Replace(t, " their ", " "+p+" ", 1) // "The user's mom left her job."
		}
		return strings.Replace(t, "%S", subj, 1)
	}
	return ""
}

// EndAs makes a named ending the ending of attribute a (one of its
// Alts) about v, the live value as stored.
func (f *Fact) EndAs(a, v string) {
	f.Attribute, f.Multi, f.Alts = a, IsMulti(a), nil
	f.EndValue(v)
}

// EndValue makes an ended fact that named no value (or only its kind)
// about v, the live value it ends, and renders its sentence again,
// keeping what the sentence said after it (its date).
func (f *Fact) EndValue(v string) {
	zh := hasHan(f.Text)
	base := strings.TrimRight(f.base, ".。")
	tail := ""
	if base != "" && strings.HasPrefix(f.Text, base) {
		tail = f.Text[len(base):]
	}
	f.Value, f.AnyValue = v, false
	t := render(f, zh)
	if tail != "" {
		t = strings.TrimRight(t, ".。") + tail
	}
	f.Text, f.base = t, ""
	f.Context = kindWords(f)
}

// endedFact is the fact an ending states: the subject's slot ends, whatever
// value it holds, or, with a kind (a pet's: "our dog died"), the value of
// that kind.
func endedFact(subject, attr, word, kind string) Fact {
	f := Fact{Triple: tripleOf(subject, attr, ""), word: word}
	f.Ended, f.Change, f.AnyValue = true, true, kind == ""
	f.Value = kind
	return f
}
