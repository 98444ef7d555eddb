package facts

import "strings"

// attr is one attribute of the controlled vocabulary.
type attr struct {
	multi bool
	// profile: a standing constraint or identity, injected every time.
	profile bool
	en      string // "%S lives in %v." (%S subject phrase, %v value)
	ended   string // the sentence for an ended value
	zh      string
}

// Vocabulary is the controlled attribute list. Attributes outside it are
// open ("my dentist is Dr. Okafor" → dentist): single-valued, superseded
// only with a change cue and a close value.
var vocab = map[string]attr{
	"name":       {profile: true, en: "%S's name is %v.", zh: "%S叫%v。"},
	"lives_in":   {en: "%S lives in %v.", ended: "%S no longer lives in %v.", zh: "%S住在%v。"},
	"from":       {en: "%S is from %v.", zh: "%S来自%v。"},
	"works_at":   {en: "%S works at %v.", ended: "%S no longer works at %v.", zh: "%S在%v工作。"},
	"job_title":  {en: "%S works as %a %v.", ended: "%S no longer works as %a %v.", zh: "%S的职业是%v。"},
	"studies_at": {en: "%S studies at %v.", zh: "%S在%v上学。"},
	"diet":       {profile: true, en: "%S is %v.", zh: "%S%v。"},
	"partner":    {en: "%S's partner is %v.", zh: "%S的伴侣是%v。"},
	"email":      {en: "%S's email is %v.", zh: "%S的邮箱是%v。"},
	"phone":      {en: "%S's phone number is %v.", zh: "%S的电话是%v。"},
	"birthday":   {en: "%S's birthday is %v.", zh: "%S的生日是%v。"},
	"age":        {en: "%S is %v years old.", zh: "%S%v岁。"},
	"timezone":   {en: "%S's time zone is %v.", zh: "%S的时区是%v。"},
	"uses":       {multi: true, en: "%S uses %v.", ended: "%S no longer uses %v.", zh: "%S使用%v。"},
	"likes":      {multi: true, en: "%S likes %v.", zh: "%S喜欢%v。"},
	"dislikes":   {multi: true, en: "%S does not like %v.", zh: "%S不喜欢%v。"},
	"speaks":     {multi: true, en: "%S speaks %v.", zh: "%S会说%v。"},
	"member_of":  {multi: true, en: "%S is a member of %v.", ended: "%S is no longer a member of %v.", zh: "%S加入了%v。"},
	"avoids":     {multi: true, profile: true, en: "%S does not eat %v.", zh: "%S不吃%v。"},
	"plays":      {multi: true, en: "%S plays %v.", zh: "%S玩%v。"},
	"activity":   {multi: true, en: "%S took up %v.", zh: "%S开始%v。"},
	"allergy":    {multi: true, profile: true, en: "%S is allergic to %v.", zh: "%S对%v过敏。"},
	"pet":        {multi: true, en: "%S has a %v.", ended: "%S no longer has a %v.", zh: "%S养了%v。"},
	"sister":     {multi: true, en: "%S has a sister named %v.", zh: "%S有个姐妹叫%v。"},
	"brother":    {multi: true, en: "%S has a brother named %v.", zh: "%S有个兄弟叫%v。"},
	"child":      {multi: true, en: "%S has a child named %v.", zh: "%S的孩子叫%v。"},
	"friend":     {multi: true, en: "%S has a friend named %v.", zh: "%S有个朋友叫%v。"},
	"mother":     {en: "%S's mother is %v.", zh: "%S的母亲是%v。"},
	"father":     {en: "%S's father is %v.", zh: "%S的父亲是%v。"},
	"boss":       {en: "%S's boss is %v.", zh: "%S的老板是%v。"},
}

// IsProfile reports whether a fact of the attribute belongs to the
// profile tier (identity, diet, allergies: injected on every request).
func IsProfile(subject, attribute string) bool { return subject == "user" && vocab[attribute].profile }

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
	"sister": "sister", "brother": "brother", "mother": "mother", "mom": "mother", "mum": "mother",
	"father": "father", "dad": "father", "wife": "partner", "husband": "partner", "partner": "partner",
	"girlfriend": "partner", "boyfriend": "partner", "fiance": "partner", "fiancee": "partner",
	"son": "child", "daughter": "child", "friend": "friend", "boss": "boss", "colleague": "colleague",
	"cousin": "cousin", "roommate": "roommate", "manager": "boss",
	"妹妹": "sister", "姐姐": "sister", "哥哥": "brother", "弟弟": "brother", "妈妈": "mother", "母亲": "mother",
	"爸爸": "father", "父亲": "father", "老婆": "partner", "妻子": "partner", "老公": "partner", "丈夫": "partner",
	"儿子": "child", "女儿": "child", "朋友": "friend", "老板": "boss", "同事": "colleague", "女朋友": "partner", "男朋友": "partner",
}

// subjectEN is how a subject reads in an English sentence.
func subjectEN(subject, word string) string {
	if subject == "user" {
		return "The user"
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
	if word == "" {
		word = subject
	}
	return "用户的" + word
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
	}
	if !ok || tmpl == "" {
		name := strings.ReplaceAll(f.Attribute, "_", " ")
		if zh {
			tmpl = "%S的" + name + "是%v。"
		} else {
			tmpl = "%S's " + name + " is %v."
		}
	}
	subj := subjectEN(f.Subject, f.word)
	if zh {
		subj = subjectZH(f.Subject, f.word)
	}
	if f.Ended && zh {
		tmpl = strings.Replace(tmpl, "%S", "%S不再", 1)
	}
	out := strings.Replace(tmpl, "%S", subj, 1)
	out = strings.Replace(out, "%a", article(f.Value), 1)
	out = strings.Replace(out, "%v", f.Value, 1)
	if strings.HasPrefix(out, "The user's 's") {
		out = strings.Replace(out, "The user's 's", "The user's", 1)
	}
	return out
}

func article(v string) string {
	if v != "" && strings.ContainsRune("aeiouAEIOU", rune(v[0])) {
		return "an"
	}
	return "a"
}
