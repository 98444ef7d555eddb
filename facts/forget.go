package facts

import (
	"slices"
	"strings"

	"github.com/memproxy/memproxy/internal/rx"
	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/text"
)

// Topic is what a forget request names, without the talk around it:
// "my address, I shouldn't have shared it" names "address"; "what I said
// about the therapist" names "therapist"; "我说的看心理医生的事吧" names
// "看心理医生"; "that I work at Initech" states works_at = Initech.
type Topic struct {
	// Phrases are the things named, one per item of a list ("my address
	// and my phone number"), with determiners and possessives dropped.
	Phrases []string
	// Terms are the phrases' content words (text.ContentWords).
	Terms []string
	// Facts are the facts the request states ("forget that I live in
	// Whitby").
	Facts []Fact
	// All: the request names everything the user said ("forget
	// everything you know about me", 忘掉关于我的一切).
	All bool
}

// forgetAllRe is a request to forget all of the user's memory.
var forgetAllRe = rx.MustCompile(`(?i)^\W*(?:(?:about\s+)?(?:everything|all|anything)(?:\s+(?:you\s+(?:know|have|remember|learned|stored|saved|kept)|i(?:'ve|\s+have)?\s+(?:ever\s+)?(?:told|said to|shared with)\s+you))?(?:\s+(?:about|on|of)\s+me)?|(?:all\s+)?(?:about\s+)?me|all\s+(?:of\s+)?my\s+(?:data|info|information|memories|details|history)|(?:my|the)\s+(?:whole\s+|entire\s+)?(?:memory|memories|history|profile|data))\W*$|^(?:关于我的)?(?:一切|所有(?:的)?(?:事情|信息|内容|记忆)?|全部(?:的)?(?:信息|内容|记忆)?)(?:都|全|全都)?(?:吧|了)?$|^(?:我的)?(?:所有|全部)(?:的)?(?:信息|记忆|资料|数据)(?:都|全|全都)?(?:吧|了)?$|^关于我的(?:所有|全部|一切)(?:事情|信息|内容|记忆)?(?:都|全|全都)?(?:吧|了)?$`)

// forgetLead is talk before the topic: "I said about", "what I told you
// about", "everything about", "about".
var forgetLead = rx.MustCompile(`(?i)^(?:(?:what|everything|anything|all|the (?:stuff|thing|things|bit|part)s?)\s+)?(?:(?:i|we)\s+(?:said|told you|mentioned|shared|wrote|was saying|were saying|talked|said to you|told you earlier|mentioned earlier)\s*)?(?:(?:about|regarding|concerning|on|of)\s+)?`)

// forgetDet are words before a topic noun that do not name it.
var forgetDet = map[string]bool{
	"my": true, "our": true, "the": true, "a": true, "an": true, "that": true, "this": true, "those": true,
	"these": true, "all": true, "old": true, "previous": true, "current": true, "about": true, "whole": true,
	"stuff": true, "thing": true, "things": true, "info": true, "details": true, "everything": true,
}

// reasonStart: a clause after the topic that gives a reason or talks to
// the assistant ("…, I shouldn't have shared it", "…, it's private").
var reasonStart = rx.MustCompile(`(?i)^(?:i|i'd|i'm|i've|i'll|it|it's|its|that|that's|this|you|please|thanks|thank|because|since|as|so|cause|'cause|we|we'd|no|ok|okay|actually|sorry|never)\b`)

// zhForgetLead and zhForgetTail are the Chinese talk around a topic:
// 我说的 … 的事吧.
var (
	zhForgetLead = []string{"我刚才说的", "我之前说的", "我以前说的", "我说过的", "我说的", "我提到的", "我提过的", "我告诉你的", "关于", "有关", "所有", "一切", "掉"}
	zhForgetTail = []string{"吧", "了", "的事情", "的事", "这件事", "那件事", "的那些", "的内容", "的信息", "的部分", "这些", "那些"}
)

// forgetEverythingRe: a forget whose cue is the whole request ("Forget
// everything.", "Please forget everything!", 全部忘掉).
var forgetEverythingRe = rx.MustCompile(`(?i)^\W*(?:please\s+|pls\s+|just\s+|ok\s+|okay\s+)?(?:forget|erase|delete|wipe|remove)\s+(?:absolutely\s+)?everything(?:\s+please)?\W*$|^(?:请)?(?:把|将)?(?:关于我的|我的)?(?:一切|所有|全部)(?:都|全|全都)?(?:忘掉|忘了|忘记|删掉|删除|清除|清空)(?:吧)?\W*$`)

// ForgetsEverything reports a forget request that names everything the
// user said, by its payload ("everything you know about me") or, when the
// cue took it all ("Forget everything."), by the message.
func ForgetsEverything(payload, msg string) bool {
	if strings.TrimSpace(payload) == "" {
		return forgetEverythingRe.MatchString(strings.TrimSpace(msg))
	}
	return ForgetTopic(payload).All
}

// ForgetTopic reads what a forget request's payload (the gate's explicit
// content) names.
func ForgetTopic(payload string) Topic {
	var t Topic
	p := strings.TrimSpace(payload)
	if forgetAllRe.MatchString(strings.TrimRight(p, "。！!.")) {
		t.All = true
		t.Phrases = []string{"everything"}
		return t
	}
	if strings.IndexFunc(p, text.IsCJK) >= 0 {
		if i := strings.IndexAny(p, "，。！？；,.!?;"); i > 0 {
			p = p[:i]
		}
		for changed := true; changed; {
			changed = false
			for _, l := range zhForgetLead {
				if strings.HasPrefix(p, l) && len(p) > len(l) {
					p, changed = strings.TrimPrefix(p, l), true
				}
			}
			for _, tl := range zhForgetTail {
				if strings.HasSuffix(p, tl) && len(p) > len(tl) {
					p, changed = strings.TrimSuffix(p, tl), true
				}
			}
		}
		for _, lead := range []string{"我的", "我"} {
			if q := strings.TrimPrefix(p, lead); q != p && q != "" {
				p = q
				break
			}
		}
		t.Phrases = []string{p}
	} else {
		p = strings.TrimSpace(forgetLead.ReplaceAllString(p, ""))
		for i, cl := range splitClauses(p) {
			if i > 0 && reasonStart.MatchString(cl) {
				break
			}
			for _, item := range listSep.Split(cl, -1) {
				if n := topicNoun(item); n != "" {
					t.Phrases = append(t.Phrases, n)
				}
			}
		}
	}
	for _, ph := range t.Phrases {
		t.Terms = append(t.Terms, text.ContentWords(ph)...)
	}
	t.Terms = slices.Compact(t.Terms)
	t.Facts = Extract(payload, Options{})
	return t
}

var (
	clauseSep = rx.MustCompile(`\s*[,;:.!?—–]+\s*|\s+-\s+`)
	listSep   = rx.MustCompile(`(?i)\s+(?:and|&)\s+`)
)

func splitClauses(s string) []string {
	var out []string
	for _, c := range clauseSep.Split(s, -1) {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// topicNoun is an item without the determiners before it ("my home
// address" → "home address").
func topicNoun(item string) string {
	w := strings.Fields(strings.ToLower(item))
	for len(w) > 0 && forgetDet[strings.Trim(w[0], "'\"")] {
		w = w[1:]
	}
	if len(w) == 2 && (w[0] == "i" || w[0] == "we") {
		w = w[1:] // "(where) I work": the slot's verb names it
	}
	return strings.Trim(strings.Join(w, " "), "'\"")
}

// attrWords are words the user may name an attribute by, beside its name
// ("where I live" is lives_in, "my number" the phone).
var attrWords = map[string][]string{
	"name":         {"name", "名字"},
	"address":      {"address", "home address", "地址", "住址", "家庭地址"},
	"home_address": {"address", "home address", "地址", "住址", "家庭地址"},
	"drinks":       {"drinks", "drink", "coffee", "喝的"},
	"lives_in":     {"where i live", "live", "city", "hometown", "home", "住址", "住在哪", "住哪", "住在哪里", "住哪里", "住在哪儿", "住哪儿"},
	"works_at":     {"job", "work", "employer", "company", "workplace", "where i work", "工作", "公司", "单位", "在哪里工作", "在哪工作", "在哪儿工作", "在哪里上班", "在哪上班", "在哪儿上班", "在什么公司工作"},
	"job_title":    {"job", "work", "occupation", "profession", "job title", "role", "工作", "职业"},
	"email":        {"email", "e-mail", "email address", "e-mail address", "mail", "邮箱", "电子邮件", "邮箱地址", "邮件地址", "电子邮箱"},
	"phone":        {"phone", "phone number", "number", "mobile", "mobile number", "cell", "cell number", "电话", "手机号", "电话号码"},
	"birthday":     {"birthday", "date of birth", "birth date", "生日"},
	"age":          {"age", "年龄"},
	"diet":         {"diet", "饮食"},
	"avoids":       {"diet", "饮食"},
	"allergy":      {"allergy", "allergies", "过敏"},
	"condition":    {"condition", "conditions", "health condition", "pregnancy", "怀孕"},
	"phone_model":  {"phone", "手机"},
	"computer":     {"computer", "laptop", "电脑"},
	"car":          {"car", "车"},
	"bike":         {"bike", "bicycle", "自行车"},
	"pet":          {"pet", "pets", "宠物"},
	"partner":      {"partner", "wife", "husband", "girlfriend", "boyfriend", "spouse"},
	"boss":         {"boss", "manager", "supervisor"},
	"child":        {"kids", "children", "child", "son", "daughter"},
	"children":     {"kids", "children", "child", "sons", "daughters"},
	"timezone":     {"time zone", "timezone", "时区"},
	"studies":      {"studies", "major", "degree"},
	"staying_in":   {"trip", "travel", "where i am"},
}

// NamesSlotReason starts the reason Names gives for a fact whose slot
// the topic names.
const NamesSlotReason = "names the slot "

// Names reports why the topic names a stored fact, "" when it does not:
// the phrase is the fact's attribute, one of the attribute's words or
// its head noun ("address" for home_address), the relative the fact is
// about ("my sister"), or the fact's value (an entity: "Biscuit"); or the
// request states the same fact.
func (t Topic) Names(tr *memory.Triple) string {
	if tr == nil {
		return ""
	}
	attr := strings.ReplaceAll(tr.Attribute, "_", " ")
	head := attr[strings.LastIndexByte(attr, ' ')+1:]
	value := text.ContentWords(tr.Value)
	for _, ph := range t.Phrases {
		switch {
		case ph == "":
		case ph == attr || (ph == head && len(strings.Fields(attr)) > 1 && !InVocabulary(tr.Attribute)):
			return NamesSlotReason + tr.Attribute
		case slices.Contains(attrWords[tr.Attribute], ph):
			return NamesSlotReason + tr.Attribute
		case relations[ph] != "" && (relations[ph] == tr.Subject || relations[ph] == tr.Attribute || ph == tr.Subject):
			return "names the person " + ph
		case ph == tr.Subject:
			return "names the subject " + ph
		}
		if pt := text.ContentWords(ph); len(pt) > 0 && len(value) > 0 && subset(pt, value) {
			return "names the value " + tr.Value
		}
		if headedBySlot(ph, tr.Attribute, value) {
			// "my penicillin allergy", 家庭住址: the slot's word heads
			// the phrase, and what comes before it is the value's.
			return NamesSlotReason + tr.Attribute
		}
	}
	for _, f := range t.Facts {
		if NormKey(f.Key()) == NormKey(tr.Subject+"."+tr.Attribute) && strings.EqualFold(f.Value, tr.Value) {
			return "states the fact " + tr.Attribute + " " + tr.Value
		}
	}
	return ""
}

// NamesSlot reports whether a phrase of the topic is an attribute's
// name or word (the topic is a slot: "my address", "my job"), so text
// that merely shares the word ("the IP address") is not what is meant.
func (t Topic) NamesSlot() bool {
	for _, ph := range t.Phrases {
		if InVocabulary(strings.ReplaceAll(ph, " ", "_")) {
			return true
		}
		for _, ws := range attrWords {
			if slices.Contains(ws, ph) {
				return true
			}
		}
		if _, ok := relations[ph]; ok {
			return true
		}
	}
	return false
}

// Covers reports whether a text is about the topic: it holds every
// content word of a short topic (three words or fewer), most (60%) of a
// longer one's.
func (t Topic) Covers(s string) bool {
	if len(t.Terms) == 0 {
		return false
	}
	have := map[string]bool{}
	for _, w := range text.ContentWords(s) {
		have[w] = true
	}
	n := 0
	for _, w := range t.Terms {
		if have[w] {
			n++
		}
	}
	// CJK terms are bigrams, some across word edges: most is enough.
	if len(t.Terms) <= 3 && !slices.ContainsFunc(t.Phrases, func(p string) bool { return strings.IndexFunc(p, text.IsCJK) >= 0 }) {
		return n == len(t.Terms)
	}
	return float64(n) >= 0.6*float64(len(t.Terms))
}

func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// headedBySlot reports whether phrase ph ends with a word of attribute a
// and its other content words are all the value's (value: its content
// words): "penicillin allergy" for allergy penicillin, "home address";
// a Chinese phrase that ends with the word (家庭住址 for 住址).
func headedBySlot(ph, a string, value []string) bool {
	words := append([]string{strings.ReplaceAll(a, "_", " ")}, attrWords[a]...)
	for _, w := range words {
		if w == "" || w == ph {
			continue
		}
		if strings.IndexFunc(w, text.IsCJK) >= 0 {
			if strings.HasSuffix(ph, w) {
				return true
			}
			continue
		}
		rest, ok := strings.CutSuffix(ph, " "+w)
		if !ok {
			continue
		}
		if rw := text.ContentWords(rest); len(rw) > 0 && subset(rw, value) {
			return true
		}
	}
	return false
}

// AttributesNamed are the vocabulary attributes a topic names by a word
// ("my job": works_at and job_title; "my number": phone).
func AttributesNamed(t Topic) []string {
	var out []string
	for _, ph := range t.Phrases {
		if _, ok := vocab[strings.ReplaceAll(ph, " ", "_")]; ok {
			out = append(out, strings.ReplaceAll(ph, " ", "_"))
		}
		for a, ws := range attrWords {
			if slices.Contains(ws, ph) {
				out = append(out, a)
			}
		}
		if r := relations[ph]; r != "" {
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// streetRe is a street address: a house number and a street's name with
// its kind ("14 Baker Street", "221B Baker St", "42 Wallaby Way").
var streetRe = rx.MustCompile(`\b\d{1,5}[A-Za-z]?\s+(?:[A-Z][\w'-]*\s+){1,3}(?:Street|St|Road|Rd|Avenue|Ave|Lane|Ln|Way|Drive|Dr|Boulevard|Blvd|Court|Ct|Place|Pl|Terrace|Close|Crescent|Square|Sq|Parkway|Highway|Hwy|Row|Grove|Gardens)\b`)

// ShapedValue is the first part of s shaped like a value of a slot the
// topic names, "" when none: an e-mail address for "my email", a phone
// number for "my number", a street address for "my address". A forget
// of the slot takes a text that says one, though no fact was read from
// it ("you can reach me on 555 0199 after five").
func ShapedValue(t Topic, s string) string {
	for _, a := range AttributesNamed(t) {
		re := shapeOf(a)
		if re == nil {
			continue
		}
		if v := re.FindString(s); v != "" && (a != "phone" || len(strings.Map(keepDigit, v)) >= 7) {
			return v
		}
	}
	return ""
}

// Shaped reports whether the topic names a slot whose values have a shape
// (ShapedValue), so a forget looks for texts that say one.
func (t Topic) Shaped() bool {
	return slices.ContainsFunc(AttributesNamed(t), func(a string) bool { return shapeOf(a) != nil })
}

func shapeOf(a string) *rx.Regexp {
	switch a {
	case "email":
		return emailRe
	case "phone":
		return phoneRe
	case "address", "home_address":
		return streetRe
	}
	return nil
}

func keepDigit(r rune) rune {
	if r >= '0' && r <= '9' {
		return r
	}
	return -1
}
