package facts

import (
	"cmp"
	"strings"
	"unicode"
)

// attr is one attribute of the controlled vocabulary.
type attr struct {
	multi bool
	// profile: a standing constraint or identity, injected every time.
	profile bool
	en      string // "%S lives in %v." (%S subject phrase, %v value)
	ended   string // the sentence for an ended value
	zh      string
	zhEnded string // the Chinese sentence for an ended value, when 不再 does not read
}

// Vocabulary is the controlled attribute list. Attributes outside it are
// open ("my dentist is Dr. Okafor" → dentist): single-valued, superseded
// only with a change cue and a close value.
var vocab = map[string]attr{
	"name":        {profile: true, en: "%S's name is %v.", zh: "%S叫%v。"},
	"lives_in":    {profile: true, en: "%S lives in %v.", ended: "%S no longer lives in %v.", zh: "%S住在%v。"},
	"staying_in":  {multi: true, en: "%S is in %v.", zh: "%S在%v。"},
	"from":        {en: "%S is from %v.", zh: "%S来自%v。"},
	"works_at":    {profile: true, en: "%S works at %v.", ended: "%S no longer works at %v.", zh: "%S在%v工作。"},
	"job_title":   {profile: true, en: "%S works as %a %v.", ended: "%S no longer works as %a %v.", zh: "%S的职业是%v。"},
	"studies_at":  {profile: true, en: "%S studies at %v.", ended: "%S no longer studies at %v.", zh: "%S在%v上学。"},
	"studies":     {profile: true, en: "%S studies %v.", ended: "%S no longer studies %v.", zh: "%S学%v。"},
	"diet":        {profile: true, en: "%S is %v.", ended: "%S is no longer %v.", zh: "%S%v。"},
	"email":       {en: "%S's email is %v.", zh: "%S的邮箱是%v。"},
	"phone":       {en: "%S's phone number is %v.", zh: "%S的电话是%v。"},
	"birthday":    {en: "%S's birthday is %v.", zh: "%S的生日是%v。"},
	"age":         {en: "%S is %v years old.", zh: "%S%v岁。"},
	"timezone":    {profile: true, en: "%S is on %v.", zh: "%S的时区是%v。"},
	"uses":        {multi: true, en: "%S uses %v.", ended: "%S no longer uses %v.", zh: "%S使用%v。"},
	"car":         {en: "%S drives %a %v.", ended: "%S no longer drives %a %v.", zh: "%S开%v。"},
	"bike":        {en: "%S rides %a %v.", ended: "%S no longer rides %a %v.", zh: "%S骑%v。"},
	"phone_model": {en: "%S's phone is %a %v.", ended: "%S no longer has %a %v phone.", zh: "%S用的手机是%v。"},
	"computer":    {en: "%S's computer is %a %v.", ended: "%S no longer uses %a %v.", zh: "%S用的电脑是%v。"},
	"drinks":      {multi: true, en: "%S drinks %v.", ended: "%S no longer drinks %v.", zh: "%S喝%v。"},
	"likes":       {multi: true, en: "%S likes %v.", zh: "%S喜欢%v。"},
	"dislikes":    {multi: true, en: "%S does not like %v.", ended: "%S no longer dislikes %v.", zh: "%S不喜欢%v。"},
	"fan_of":      {multi: true, en: "%S is a fan of %v.", ended: "%S is no longer a fan of %v.", zh: "%S是%v的粉丝。"},
	"speaks":      {multi: true, en: "%S speaks %v.", zh: "%S会说%v。"},
	"member_of":   {multi: true, en: "%S is a member of %v.", ended: "%S is no longer a member of %v.", zh: "%S加入了%v。"},
	"avoids":      {multi: true, profile: true, en: "%S does not eat %v.", ended: "%S eats %v again.", zh: "%S不吃%v。"},
	"plays":       {multi: true, en: "%S plays %v as a hobby.", ended: "%S no longer plays %v.", zh: "%S的爱好是%v。"},
	"activity":    {multi: true, en: "%S took up %v as a hobby.", ended: "%S no longer does %v.", zh: "%S的爱好是%v。"},
	"allergy":     {multi: true, profile: true, en: "%S is allergic to %v.", ended: "%S is no longer allergic to %v.", zh: "%S对%v过敏。", zhEnded: "%S不再对%v过敏。"},
	"condition":   {multi: true, profile: true, en: "%S is %v.", ended: "%S is no longer %v.", zh: "%S%v。"},
	"read":        {multi: true, en: "%S has read %v.", zh: "%S读过%v。"},
	"watched":     {multi: true, en: "%S has watched %v.", zh: "%S看过%v。"},
	"visited":     {multi: true, en: "%S has been to %v.", zh: "%S去过%v。"},
	// The language the user wants replies in ("From now on, answer me
	// in French"): a standing instruction with a slot, so the next one
	// replaces it.
	"reply_language": {profile: true, en: "%S wants replies in %v.", zh: "%S希望用%v回复。"},
	"pet":            {multi: true, en: "%S has a pet %v.", ended: "%S no longer has a pet %v.", zh: "%S养了宠物%v。"},
	// People: the attribute names the relation; %A is the word the user
	// used for it ("wife" for partner, "manager" for boss).
	"partner":     {en: "%S's %A is %v.", ended: "%S is no longer with %v.", zhEnded: "%S和%v分开了。", zh: "%S的%A是%v。"},
	"mother":      {en: "%S's %A is %v.", zh: "%S的%A是%v。"},
	"father":      {en: "%S's %A is %v.", zh: "%S的%A是%v。"},
	"boss":        {en: "%S's %A is %v.", zh: "%S的%A是%v。"},
	"sister":      {multi: true, en: "%S has a %A named %v.", zh: "%S的%A叫%v。"},
	"brother":     {multi: true, en: "%S has a %A named %v.", zh: "%S的%A叫%v。"},
	"child":       {multi: true, en: "%S has a %A named %v.", zh: "%S的%A叫%v。"},
	"children":    {en: "%S has %v.", zh: "%S有%v。"}, // how many, unnamed: "three kids"
	"grandchild":  {multi: true, en: "%S has a %A named %v.", zh: "%S的%A叫%v。"},
	"grandparent": {multi: true, en: "%S's %A is %v.", zh: "%S的%A是%v。"},
	"aunt":        {multi: true, en: "%S has an %A named %v.", zh: "%S的%A叫%v。"},
	"uncle":       {multi: true, en: "%S has an %A named %v.", zh: "%S的%A叫%v。"},
	"cousin":      {multi: true, en: "%S has a %A named %v.", zh: "%S的%A叫%v。"},
	"niece":       {multi: true, en: "%S has a %A named %v.", zh: "%S的%A叫%v。"},
	"nephew":      {multi: true, en: "%S has a %A named %v.", zh: "%S的%A叫%v。"},
	"in_law":      {multi: true, en: "%S's %A is %v.", zh: "%S的%A是%v。"},
	"friend":      {multi: true, en: "%S has a %A named %v.", zh: "%S的%A叫%v。"},
	"colleague":   {multi: true, en: "%S has a %A named %v.", zh: "%S的%A叫%v。"},
	"roommate":    {multi: true, en: "%S has a %A named %v.", zh: "%S的%A叫%v。"},
	"neighbor":    {multi: true, en: "%S has a %A named %v.", zh: "%S的%A叫%v。"},
}

// IsProfile reports whether a fact of the attribute belongs to the
// profile tier (identity, diet, allergies: injected on every request).
func IsProfile(subject, attribute string) bool { return subject == "user" && vocab[attribute].profile }

// IsPerson reports whether a fact of the attribute names a person by
// their relation to the subject ("sister", "friend", "boss": the value is
// the person's name), as the vocabulary renders its people with the
// relation's word (%A).
func IsPerson(attribute string) bool { return strings.Contains(vocab[attribute].en, "%A") }

// IsMulti reports whether an attribute holds several values at once.
func IsMulti(attribute string) bool { return vocab[attribute].multi }

// InVocabulary reports whether an attribute is a controlled one.
func InVocabulary(attribute string) bool {
	_, ok := vocab[attribute]
	return ok || strings.HasPrefix(attribute, "favorite_")
}

// LegacyKeys maps the slot keys of earlier versions to the vocabulary's,
// so facts stored before triples still meet their new values.
var LegacyKeys = map[string]string{
	"location": "lives_in", "employer": "works_at", "occupation": "job_title", "phone_number": "phone",
}

// NormKey is a key in the vocabulary's terms ("user.location" →
// "user.lives_in").
func NormKey(key string) string {
	s, a, ok := strings.Cut(key, ".")
	if !ok {
		return key
	}
	if n, ok := LegacyKeys[a]; ok {
		return s + "." + n
	}
	return key
}

// relations maps words for people to the subject (and attribute) they name.
var relations = map[string]string{
	"sister": "sister", "brother": "brother", "mother": "mother", "mom": "mother", "mum": "mother", "mommy": "mother",
	"father": "father", "dad": "father", "daddy": "father", "parents": "parents", "folks": "parents", "wife": "partner", "husband": "partner", "partner": "partner",
	"spouse": "partner", "girlfriend": "partner", "boyfriend": "partner", "fiance": "partner", "fiancee": "partner", "fiancé": "partner", "fiancée": "partner",
	"son": "child", "daughter": "child", "kid": "child", "child": "child", "baby": "child", "stepson": "child", "stepdaughter": "child",
	"grandson": "grandchild", "granddaughter": "grandchild", "grandchild": "grandchild",
	"grandmother": "grandparent", "grandma": "grandparent", "granny": "grandparent", "grandfather": "grandparent", "grandpa": "grandparent",
	"aunt": "aunt", "uncle": "uncle", "cousin": "cousin", "niece": "niece", "nephew": "nephew",
	"stepmother": "mother", "stepfather": "father", "stepsister": "sister", "stepbrother": "brother",
	"mother-in-law": "in_law", "father-in-law": "in_law", "sister-in-law": "in_law", "brother-in-law": "in_law",
	"friend": "friend", "boss": "boss", "manager": "boss", "supervisor": "boss", "colleague": "colleague", "coworker": "colleague",
	"co-worker": "colleague", "roommate": "roommate", "flatmate": "roommate", "housemate": "roommate", "neighbor": "neighbor", "neighbour": "neighbor",
	"妹妹": "sister", "姐姐": "sister", "哥哥": "brother", "弟弟": "brother", "妈妈": "mother", "母亲": "mother",
	"爸爸": "father", "父亲": "father", "父母": "parents", "爸妈": "parents", "老婆": "partner", "妻子": "partner", "老公": "partner", "丈夫": "partner", "爱人": "partner",
	"儿子": "child", "女儿": "child", "孩子": "child", "朋友": "friend", "老板": "boss", "领导": "boss", "经理": "boss", "同事": "colleague",
	"女朋友": "partner", "男朋友": "partner", "爷爷": "grandparent", "奶奶": "grandparent", "外公": "grandparent", "外婆": "grandparent",
	"姥姥": "grandparent", "姥爷": "grandparent", "孙子": "grandchild", "孙女": "grandchild", "叔叔": "uncle", "舅舅": "uncle", "伯伯": "uncle",
	"阿姨": "aunt", "姑姑": "aunt", "姨妈": "aunt", "表哥": "cousin", "表姐": "cousin", "表弟": "cousin", "表妹": "cousin",
	"堂哥": "cousin", "堂姐": "cousin", "堂弟": "cousin", "堂妹": "cousin", "室友": "roommate", "邻居": "neighbor",
}

// sharedRelations are the relations several of a user's people share
// ("son" and "daughter" are both "child"), and the words that name
// none of them in particular.
var (
	sharedRelations = map[string]bool{"child": true, "grandchild": true, "grandparent": true, "in_law": true}
	genericRelWords = map[string]bool{"kid": true, "child": true, "baby": true, "孩子": true}
	// sameRelWord folds the words of one person to one subject.
	sameRelWord = map[string]string{"grandma": "grandmother", "granny": "grandmother", "grandpa": "grandfather"}
)

// personalSubject is the subject of a relative's own age or birthday
// said with the relation word: the word itself when the relation is
// shared and the word names one of its people ("My son is 12 and my
// daughter is 9": son.age and daughter.age, not one child.age slot);
// else the relation.
func personalSubject(rel, word, attr string) string {
	if (attr == "age" || attr == "birthday") && sharedRelations[rel] && word != rel && !genericRelWords[word] && relations[word] == rel {
		return cmp.Or(sameRelWord[word], word)
	}
	return rel
}

// keyPersonal keys each relative's age or birthday in fs by its
// relation word where personalSubject says so.
func keyPersonal(fs []Fact) {
	for i := range fs {
		if f := &fs[i]; f.word != "" && f.Subject == relations[f.word] {
			f.Subject = personalSubject(f.Subject, f.word, f.Attribute)
		}
	}
}

// subjectEN is how a subject reads in an English sentence.
func subjectEN(subject, word string) string {
	if subject == "user" {
		return "The user"
	}
	if named(subject) {
		// A relative or a pet by name: "The user's daughter Ava", "Ava".
		if word == "" {
			return subject
		}
		return "The user's " + word + " " + subject
	}
	if word == "" {
		word = subject
	}
	return "The user's " + word
}

func subjectZH(subject, word string) string {
	if subject == "user" {
		return "用户"
	}
	if named(subject) {
		if word == "" {
			return subject
		}
		return "用户的" + word + subject
	}
	if word == "" {
		word = subject
	}
	return "用户的" + word
}

// named: a subject that is a name ("Ava", "小美"), not the user or a
// relation ("sister", "child", 妹妹).
func named(subject string) bool {
	if subject == "" || subject == "user" {
		return false
	}
	if _, ok := relations[subject]; ok {
		return false
	}
	for _, r := range relations {
		if r == subject {
			return false
		}
	}
	r := []rune(subject)[0]
	return unicode.IsUpper(r) || hasHan(subject) && !zhRelWord(subject)
}

// endedEN is an attribute's English sentence for a value that ended, when
// the vocabulary gives none: "%S is from %v." → "%S is no longer from
// %v.", "%S likes %v." → "%S no longer likes %v.".
func endedEN(tmpl string) string {
	for _, cop := range []string{" is ", " are "} {
		if i := strings.Index(tmpl, cop); i >= 0 {
			return tmpl[:i+len(cop)] + "no longer " + tmpl[i+len(cop):]
		}
	}
	if rest, ok := strings.CutPrefix(tmpl, "%S "); ok {
		return "%S no longer " + rest
	}
	return tmpl
}

// render builds the stored sentence from the triple.
func render(f *Fact, zh bool) string {
	a, ok := vocab[f.Attribute]
	tmpl := a.en
	if zh {
		tmpl = a.zh
	}
	if f.Ended && a.ended != "" && !zh {
		tmpl = a.ended
	} else if f.Ended && !zh && tmpl != "" {
		tmpl = endedEN(tmpl) // never the value stated as if it held
	}
	if !ok || tmpl == "" {
		name := strings.ReplaceAll(f.Attribute, "_", " ")
		if f.aword != "" {
			name = f.aword
		}
		switch {
		case zh && strings.HasPrefix(f.Attribute, "favorite_") && hasHan(name):
			tmpl = "%S最喜欢的" + name + "是%v。" // not 用户的favorite movie是…
		case zh:
			tmpl = "%S的" + name + "是%v。"
		case strings.HasSuffix(name, "s") && !strings.HasSuffix(name, "ss"):
			tmpl = "%S's " + name + " are %v."
		default:
			tmpl = "%S's " + name + " is %v."
		}
	}
	subj := subjectEN(f.Subject, f.word)
	if zh {
		subj = subjectZH(f.Subject, f.word)
	} else if Plural(f.Subject) {
		tmpl = pluralEN(tmpl) // "The user's parents live in Lyon."
		if strings.HasSuffix(f.Value, "s") && !strings.HasSuffix(f.Value, "ss") {
			tmpl = strings.Replace(tmpl, "%a %v", "%v", 1) // "… work as teachers."
		}
	}
	if f.Ended && zh && a.zhEnded != "" {
		tmpl = a.zhEnded
	} else if f.Ended && zh && strings.Contains(tmpl, "的") && strings.Contains(tmpl, "是%v") {
		tmpl = strings.Replace(tmpl, "是%v", "不再是%v", 1) // 用户的职业不再是老师。
	} else if f.Ended && zh {
		tmpl = strings.Replace(tmpl, "%S", "%S不再", 1)
		tmpl = strings.Replace(tmpl, "养了", "养", 1) // 用户不再养宠物狗
	}
	aw := f.aword
	if aw == "" {
		aw = strings.ReplaceAll(f.Attribute, "_", " ")
		if f.Attribute == "in_law" {
			aw = "in-law"
		}
	}
	out := strings.Replace(tmpl, "%S", subj, 1)
	out = strings.Replace(out, "%A", aw, 1)
	if f.Attribute == "pet" && !zh && petCounts[firstWord(f.Value)] {
		out = strings.Replace(out, "has a pet %v", "has %v", 1) // "The user has two cats."
	}
	if f.Attribute == "condition" && zh && f.Value == "怀孕" {
		out = strings.Replace(out, "%v。", "%v了。", 1) // 用户怀孕了。
	}
	if f.Attribute == "job_title" && zh && f.Value == "退休" {
		out = strings.Replace(out, "不再的职业是%v", "不再退休", 1)
		out = strings.Replace(out, "的职业是%v", "已退休", 1) // 用户已退休。
	}
	if f.Attribute == "job_title" && !zh && fieldOfWork(f.Value) {
		out = strings.Replace(out, "works as %a %v", "works in %v", 1) // "The user works in marketing."
		out = strings.Replace(out, "work as %a %v", "work in %v", 1)
	}
	if f.Attribute == "job_title" && !zh && (f.Value == "retired" || f.Value == "self-employed") {
		out = strings.Replace(out, "no longer works as %a %v", "is no longer %v", 1)
		out = strings.Replace(out, "works as %a %v", "is %v", 1) // "The user is retired.", "… is self-employed."
		out = strings.Replace(out, "no longer work as %a %v", "are no longer %v", 1)
		out = strings.Replace(out, "work as %a %v", "are %v", 1) // "The user's parents are retired."
	}
	if f.Attribute == "condition" && !zh && strings.HasPrefix(f.Value, "has ") {
		out = strings.Replace(out, "is no longer %v", "no longer %v", 1) // "The user no longer has asthma."
		out = strings.Replace(out, " is %v", " %v", 1)                   // "The user has asthma."
	}
	if f.Attribute == "diet" && !zh && strings.HasPrefix(f.Value, "eats ") {
		out = strings.Replace(out, " is %v", " %v", 1) // "The user eats meat."
	}
	if f.Attribute == "member_of" && !zh && f.Value != "" && unicode.IsLower([]rune(f.Value)[0]) {
		out = strings.Replace(out, "of %v", "of %a %v", 1) // "a member of a climbing gym", not "of climbing gym"
	} else if (f.Attribute == "member_of" || f.Attribute == "fan_of") && !zh && f.the {
		out = strings.Replace(out, "of %v", "of the %v", 1) // "a fan of the Boston Celtics"
	} else if f.Attribute == "member_of" && !zh && namedGroup(f.Value) {
		out = strings.Replace(out, "of %v", "of the %v", 1) // "a member of the Sierra Club"
	}
	if f.Attribute == "age" && !zh && decades[lastWord(f.Value)] {
		out = strings.Replace(out, " is %v years old", " is in "+agePronoun(f.Subject)+" %v", 1) // "The user is in their thirties."
	}
	if f.Attribute == "age" && strings.HasSuffix(f.Value, " months") {
		out = strings.Replace(out, "%v years old", "%v old", 1) // "3 months old"
	}
	out = strings.Replace(out, "%a", article(f.Value), 1)
	out = strings.Replace(out, "%v", f.Value, 1)
	if f.qual != "" && !zh {
		out = strings.TrimSuffix(out, ".") + " " + f.qual + "."
	}
	if f.detail != "" {
		if zh {
			out = strings.TrimSuffix(out, "。") + "，" + f.detail + "。"
		} else {
			out = strings.TrimSuffix(out, ".") + ", " + f.detail + "."
		}
	}
	if strings.HasPrefix(out, "The user's 's") {
		out = strings.Replace(out, "The user's 's", "The user's", 1)
	}
	return out
}

// Plural reports whether a subject names more than one person: the
// user's parents, one pair, keyed by the relation as a mother is.
func Plural(subject string) bool { return subject == "parents" }

// pluralEN is an English template said of a plural subject: its first
// verb agrees ("%S lives in %v." → "%S live in %v.", "%S is %v." → "%S
// are %v.", "%S's %A" → "%S' %A").
func pluralEN(tmpl string) string {
	if rest, ok := strings.CutPrefix(tmpl, "%S's "); ok {
		return "%S' " + rest
	}
	rest, ok := strings.CutPrefix(tmpl, "%S ")
	if !ok {
		return tmpl
	}
	lead := ""
	for _, adv := range []string{"no longer ", "still ", "now "} {
		if r, ok := strings.CutPrefix(rest, adv); ok {
			lead, rest = adv, r
			break
		}
	}
	verb, tail, _ := strings.Cut(rest, " ")
	switch {
	case verb == "is":
		verb = "are"
	case verb == "was":
		verb = "were"
	case verb == "has":
		verb = "have"
	case verb == "does":
		verb = "do"
	case strings.HasSuffix(verb, "ies") && len(verb) > 4:
		verb = verb[:len(verb)-3] + "y" // studies → study
	case strings.HasSuffix(verb, "ches") || strings.HasSuffix(verb, "shes") || strings.HasSuffix(verb, "sses") || strings.HasSuffix(verb, "xes"):
		verb = verb[:len(verb)-2]
	case strings.HasSuffix(verb, "s") && !strings.HasSuffix(verb, "ss"):
		verb = verb[:len(verb)-1]
	}
	if tail != "" {
		verb += " " + tail
	}
	return "%S " + lead + verb
}

// firstWord is v up to its first space.
func firstWord(v string) string {
	w, _, _ := strings.Cut(v, " ")
	return w
}

func article(v string) string {
	if v != "" && strings.ContainsRune("aeiouAEIOU", rune(v[0])) {
		return "an"
	}
	return "a"
}

// kindWords are the words for the kind of thing a fact's value is, for
// search only: "programming language 编程语言" for Rust, "child children
// kids 孩子" for a son named Oscar.
func kindWords(f *Fact) string {
	switch {
	case f.Attribute == "uses" && progLangs[strings.ToLower(f.Value)]:
		return "programming language languages 编程语言"
	case f.Attribute == "child" || f.Attribute == "grandchild":
		return "child children kid kids 孩子"
	case f.Attribute == "speaks":
		return "language languages 语言"
	case f.Attribute == "activity" || f.Attribute == "plays" ||
		(f.Attribute == "likes" || f.Attribute == "dislikes") && (strings.HasSuffix(firstWord(f.Value), "ing") || zhActivity(f.Value)):
		// "What are my hobbies?" asks for what the user does: a hobby
		// taken up, a game played, an activity liked ("likes hiking").
		return "hobby hobbies pastime 爱好"
	case f.Attribute == "partner" && f.Subject == "user":
		// "married to Elena" is asked for as "my wife", "my husband".
		return "partner spouse wife husband girlfriend boyfriend dating married marriage wedding engaged 老婆 老公 爱人 对象 结婚"
	case f.Attribute == "mother" && f.Subject == "user":
		return "mother mom mum 妈妈"
	case f.Attribute == "father" && f.Subject == "user":
		return "father dad 爸爸"
	case f.Attribute == "pet":
		kind, _, _ := strings.Cut(strings.ToLower(f.Value), " named ")
		kind, _, _ = strings.Cut(kind, "（") // 柯基（名叫馒头）
		switch w := lastWord(kind); {
		case dogBreeds[w] || w == "dog" || w == "puppy" || zhDogBreeds[w] || w == "狗":
			return "pet pets animal dog dogs 宠物 狗"
		case catBreeds[w] || w == "cat" || w == "kitten" || strings.HasSuffix(w, "猫") || w == "英短" || w == "美短" || w == "布偶":
			return "pet pets animal cat cats 宠物 猫"
		}
		return "pet pets animal 宠物"
	case f.Attribute == "drinks":
		return "drink drinks beverage 喝什么 饮料"
	case f.Attribute == "uses" && ValueKind(f.Value) == "editor":
		return "editor code editor IDE coding 编辑器 写代码 用什么"
	case f.Attribute == "uses" && ValueKind(f.Value) == "os":
		return "operating system computer laptop 用什么 系统"
	case f.Attribute == "uses":
		return "用什么 使用"
	case f.Attribute == "read":
		return "book books reading novel 读过 书"
	case f.Attribute == "watched":
		return "movie movies film films show watching 看过"
	case f.Attribute == "visited":
		return "travel travelled trip visited place places 去过"
	case f.Attribute == "from" && f.Subject == "user":
		// "Where did I grow up?", "What's my hometown?"
		return "hometown grew grow up raised born originally 家乡 老家"
	case f.Attribute == "fan_of":
		return "fan support supporter team 粉丝"
	case f.Attribute == "studies_at":
		return "study studying student school university college 学校 上学"
	case f.Attribute == "computer":
		return "computer laptop notebook desktop machine 电脑 笔记本"
	case f.Attribute == "phone_model":
		return "phone mobile smartphone cell 手机"
	case f.Attribute == "car":
		return "car vehicle drive 车"
	case f.Attribute == "bike":
		return "bike bicycle cycle ride 自行车"
	case f.Attribute == "reply_language":
		return "language answer reply respond 语言 回答"
	case f.Attribute == "condition" || f.Attribute == "allergy":
		return "health medical condition diet 健康"
	}
	return ""
}

// progLangs are the programming languages a "uses" value is read as.
var progLangs = map[string]bool{
	"python": true, "go": true, "golang": true, "rust": true, "java": true, "javascript": true, "typescript": true,
	"c": true, "c++": true, "c#": true, "ruby": true, "php": true, "swift": true, "kotlin": true, "scala": true,
	"haskell": true, "elixir": true, "erlang": true, "clojure": true, "perl": true, "r": true, "julia": true,
	"matlab": true, "lua": true, "dart": true, "ocaml": true, "f#": true, "zig": true, "nim": true, "fortran": true,
	"cobol": true, "groovy": true, "objective-c": true, "visual basic": true, "vb.net": true, "sql": true,
	"bash": true, "powershell": true, "assembly": true, "lisp": true, "scheme": true, "prolog": true, "crystal": true,
	"solidity": true, "delphi": true, "pascal": true, "ada": true,
}

// namedGroup: a name whose head is a group noun ("Sierra Club", "Hallé
// Choir") takes "the" in a sentence.
func namedGroup(v string) bool {
	w := strings.Fields(strings.ToLower(v))
	return len(w) > 1 && groupHeads[w[len(w)-1]] && !strings.HasPrefix(w[0], "the")
}

// lastWord is v after its last space.
func lastWord(v string) string { return v[strings.LastIndexByte(v, ' ')+1:] }

// agePronoun is the pronoun a decade of age takes for the subject: "their"
// (the user, a relative of either sex).
// pronounOf is the possessive pronoun of a subject, by its relation or
// the word the user named it by ("my daughter Ava": her).
func pronounOf(subject, word string) string {
	if p := agePronoun(subject); p != "their" {
		return p
	}
	switch word {
	case "son", "dad", "daddy", "husband", "boyfriend", "grandpa", "grandfather", "grandson", "stepson", "stepfather",
		"stepbrother", "father-in-law", "brother-in-law", "fiance", "fiancé":
		return "his"
	case "daughter", "mom", "mum", "mommy", "wife", "girlfriend", "grandma", "grandmother", "granny", "granddaughter",
		"stepdaughter", "stepmother", "stepsister", "mother-in-law", "sister-in-law", "fiancee", "fiancée":
		return "her"
	}
	return agePronoun(relations[word])
}

func agePronoun(subject string) string {
	switch subject {
	case "father", "brother", "uncle", "nephew":
		return "his"
	case "mother", "sister", "aunt", "niece":
		return "her"
	}
	return "their"
}

// zhActivity reports whether a Chinese value is something one does, a
// verb and its object (打羽毛球, 弹吉他, 下棋, 爬山, 钓鱼): liked, it is a
// hobby, as an English gerund is ("likes hiking").
func zhActivity(v string) bool {
	r := []rune(v)
	if len(r) < 2 {
		return false
	}
	return strings.ContainsRune("打玩踢弹下跑游滑爬练画拍钓骑唱跳看读写做烤织种养", r[0])
}
