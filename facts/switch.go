package facts

import (
	"strings"

	"github.com/memproxy/memproxy/internal/rx"
)

// Switches said without naming the new value in the clause, or without
// a subject, are read as the plain switch they mean before extraction:
//
//   - "I gave VS Code a try and switched to it": the pronoun after a
//     switch verb is the most recent thing named before it, in the
//     sentence, the message or the exchange before (Options.Before);
//   - "Nope, back to vim.": a subject-less return is a switch back;
//   - "it's only herbal tea for me now", "these days it's Rust": the
//     current value of the slot its kind names (a drink, a programming
//     language, a device), without the old value named.
//
// The slot then does the rest: a switch replaces the slot's values
// (lifecycle.Decide), whatever the old one was.

// switchPronoun: a switch verb whose object is a pronoun.
// "moved to it" may be a flat and "went to it" a concert: those verbs
// count with "over" only.
var switchPronoun = rx.MustCompile(`(?i)\b((?:switched|switching|switch)(?:\s+(?:over|back|right))?\s+to|(?:moved|moving|changed|migrated|migrating)\s+over\s+to|(?:started|start|been|now|am|i'm)\s+using|stuck\s+with|sticking\s+with)\s+(it|that|this|them|that one|this one)\b`)

// wentBack: "I've gone back to my iPhone", "we went back to Slack",
// "Went back to the iPhone": a switch back said with the user's own verb
// (the subject may be left out at the start).
var wentBack = rx.MustCompile(`(?i)(?:^\W*(?:(?:so|well|anyway|finally|just|yeah|ok|okay),?\s+)?|\b(?:i|we)(?:'ve|'m|’ve|’m| have| am)?\s+)(?:just\s+|finally\s+)?(?:went|gone|got|switched|moved|come|came|going)\s+back\s+(?:to|on)\s+(?:my\s+|our\s+|the\s+|using\s+)?([A-Za-z][^,;.!?]*)`)

// backTo: "back to vim", "Nope, back to vim.", "and back to tea": a
// subject-less return to a value.
var backTo = rx.MustCompile(`(?i)^(?:(?:nope|no|ok|okay|well|so|and|anyway|yeah|yep|yes|now|but|ugh|alas)[,!.]?\s+)*back\s+(?:to|on)\s+([A-Za-z][^,;.!?]*)`)

// nameAgain: "Okay, Neovim again.", "Firefox again!": a subject-less
// return to a named value, said alone.
var nameAgain = rx.MustCompile(`(?i)^(?:(?:nope|no|ok|okay|well|so|and|anyway|yeah|yep|yes|now|but|ugh|alas|fine)[,!.]?\s+)*(?-i:([A-Z][\w+#.\-]*(?:\s+[A-Z0-9][\w+#.\-]*)?))\s+again\s*[.!]*\s*$`)

// tryingNow: "Trying Arc now and honestly loving it", "I'm trying Zed these
// days": a tool of a known kind taken up now, said without "switched".
var tryingNow = rx.MustCompile(`(?i)^(?:(?:so|and|well|anyway|ok|okay)[,]?\s+)?(?:i'm\s+|i am\s+)?(?:trying|testing|trying out|giving)\s+(?:out\s+)?(?-i:([A-Z][\w+#.\-]*(?:\s+[A-Z0-9][\w+#.\-]*)?))\s+(?:a (?:go|shot|try)\s+)?(?:now|these days|at the moment)\b`)

// nowItIs: "it's only herbal tea for me now", "these days it's Rust for
// everything", "now it's just water".
var nowItIs = rx.MustCompile(`(?i)(?:^|[,;]\s*|\b(?:and|but|so)\s+)((?:these days|nowadays|now|lately)[, ]+)?it(?:'s| is)\s+(?:only|just|all|mostly|strictly|purely)?\s*([A-Za-z][\w+#.\- ]*?)\s*(?:for me|for everything|for all|at work|,|[.!]?$|\s+(?:now|these days|nowadays|from now on)\b)`)

var wordRe = rx.MustCompile(`[A-Za-z][\w+#]*`)

// nameRe is a thing named with capitals ("VS Code", "Pixel 7", "Rust").
var nameRe = rx.MustCompile(`\b[A-Z][\w+#.\-]*(?:\s+(?:[A-Z][\w+#.\-]*|\d[\w.]*))*`)

// notNames are capitalised words that name nothing a switch could go to.
var notNames = map[string]bool{
	"i": true, "i'm": true, "i've": true, "i'd": true, "i'll": true, "my": true, "the": true, "a": true, "an": true,
	"we": true, "our": true, "nope": true, "yes": true, "yeah": true, "no": true, "ok": true, "okay": true, "so": true,
	"and": true, "but": true, "it": true, "that": true, "this": true, "then": true, "now": true, "today": true,
	"yesterday": true, "tomorrow": true, "monday": true, "tuesday": true, "wednesday": true, "thursday": true,
	"friday": true, "saturday": true, "sunday": true, "assistant": true, "thanks": true, "hi": true, "hey": true,
	"well": true, "also": true, "last": true, "next": true, "these": true, "those": true, "what": true, "how": true,
	"user": true, "january": true, "february": true, "march": true, "april": true, "june": true, "july": true,
	"august": true, "september": true, "october": true, "november": true, "december": true,
	"there": true, "here": true, "when": true, "after": true, "before": true, "fine": true, "sure": true,
	"nice": true, "great": true, "cool": true, "honestly": true, "anyway": true, "sorry": true, "please": true,
}

// resolveSwitch rewrites a sentence's switch in the plain form the
// extractor reads ("I switched to VS Code"); before is what the user said
// before it (the exchange before the message, earlier sentences), reply
// the assistant's reply in that exchange.
// tradedFor: "I ditched (dropped) Spotify for Apple Music", "swapped vim for
// Helix", "replaced my Kindle with a Kobo", "swapped my Brooks for a pair
// of Hokas": a switch that names both (a measure word is not the value).
var tradedFor = rx.MustCompile(`(?i)\b(?:ditched|swapped|traded|dumped|replaced|dropped|abandoned|gave up)\s+(?:my\s+|the\s+|our\s+)?([A-Za-z][\w+#.\- ]*?)\s+(?:for|with)\s+(?:a\s+|an\s+|the\s+)?(?:(?:new\s+)?(?:pair|set|couple|box|pack) of\s+)?([A-Za-z][\w+#.\- ]*?)\s*(?:[,;.!?]|$|\s+(?:now|last|this|a while|recently|because|since|and|at|in|on|from)\b)`)

// namedSwitches are the switches that name their value in their first
// group, in the order tried, and the plain form each is read as.
var namedSwitches = []struct {
	re   *rx.Regexp
	said string
}{
	{wentBack, "I switched back to "},
	{backTo, "I switched back to "},
	{tryingNow, "I switched to "},
	{nameAgain, "I switched back to "},
}

func resolveSwitch(sent, before, reply string) string {
	if m := switchPronoun.FindStringSubmatchIndex(sent); m != nil {
		// The user's own words first, then the reply they answer.
		name := antecedent(tail(before, antecedentBytes) + " " + sent[:m[4]])
		if name == "" {
			name = antecedent(reply)
		}
		if name != "" {
			// "moved over to it" is a switch, not a move home.
			sent = sent[:m[2]] + switchVerb(sent[m[2]:m[3]]) + " " + name + sent[m[5]:]
		}
	}
	if m := tradedFor.FindStringSubmatchIndex(sent); m != nil {
		from, to := sent[m[2]:m[3]], sent[m[4]:m[5]]
		if kindSlot(to) != "" || nameRe.FindString(to) == to {
			return sent[:m[0]] + "switched from " + from + " to " + to + sent[m[5]:]
		}
	}
	for _, n := range namedSwitches {
		if m := n.re.FindStringSubmatch(sent); m != nil {
			// Of a known kind only: "Back to Paris!" is a trip.
			if v := strings.TrimSpace(m[1]); kindSlot(firstWords(v)) != "" {
				return n.said + v + "."
			}
		}
	}
	if m := nowItIs.FindStringSubmatchIndex(sent); m != nil && (m[2] >= 0 || changeWordRe.MatchString(sent)) {
		v := strings.TrimSpace(sent[m[4]:m[5]])
		if kindSlot(v) != "" {
			// The clause says the switch; the rest of the sentence stays.
			return strings.TrimRight(sent[:m[0]], ",; ") + ", I switched to " + v + "."
		}
	}
	return sent
}

// switchVerb is a switch verb phrase in the form the extractor reads as
// a switch: "moved over to" → "switched to"; "started using" stays.
func switchVerb(vp string) string {
	low := strings.ToLower(vp)
	if strings.HasSuffix(low, " to") {
		return "switched to"
	}
	return vp
}

var changeWordRe = rx.MustCompile(`(?i)\b(now|these days|nowadays|anymore|any more|no longer|quit|switched|instead|from now on)\b`)

// antecedentBytes is how far back before a pronoun its antecedent is
// looked for.
const antecedentBytes = 512

// antecedent is the last thing named in s: a capitalised name, or a
// word of a known kind (a drink, a programming language, a device).
func antecedent(s string) string {
	best, at := "", -1
	for _, loc := range nameRe.FindAllStringIndex(s, -1) {
		w := strings.Fields(s[loc[0]:loc[1]])
		for len(w) > 0 && notNames[strings.ToLower(w[0])] {
			w = w[1:]
		}
		if len(w) > 0 && loc[0] > at {
			best, at = strings.Join(w, " "), loc[0]
		}
	}
	for _, tok := range wordRe.FindAllStringIndex(s, -1) {
		if w := s[tok[0]:tok[1]]; tok[0] > at && kindSlot(strings.ToLower(w)) != "" {
			best, at = w, tok[0]
		}
	}
	return best
}

// firstWords is v up to its first preposition ("vim for work" → "vim").
func firstWords(v string) string {
	w := strings.Fields(v)
	for i, x := range w {
		switch strings.ToLower(x) {
		case "for", "at", "in", "on", "with", "because", "since", "after", "now", "again":
			return strings.Join(w[:i], " ")
		}
	}
	return v
}

// kindSlot is the slot a value's kind puts it in: a drink is drinks, a
// programming language uses, a device its own slot; "" for none known.
func kindSlot(v string) string {
	low := strings.ToLower(strings.TrimSpace(v))
	switch {
	case drinkKind(low):
		return "drinks"
	case progLangs[low] || editors[low] || toolKinds[low] != "":
		return "uses"
	case deviceKind(v) != "":
		return deviceKind(v)
	}
	return ""
}

// drinks are what a "drinks" value is read as (its last word: "herbal
// tea", "oat milk latte").
var drinks = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`coffee coffees tea teas espresso espressos latte lattes cappuccino cappuccinos
	matcha water juice juices soda sodas cola beer beers wine wines milk kombucha decaf smoothie smoothies
	lemonade cider whisky whiskey vodka gin rum sake chai mocha americano macchiato`) {
		drinks[w] = true
	}
}

// ValueKind is the kind of thing a value is, as far as the vocabulary
// knows: "language" (Rust), "editor" (vim), "drink" (herbal tea), a device
// slot (car, phone_model, computer), or "" for a value of no known kind.
// A switch replaces only values of its own kind: "I switched to Rust"
// leaves "uses vim" alone.
func ValueKind(v string) string {
	low := strings.ToLower(strings.TrimSpace(v))
	switch {
	case progLangs[low]:
		return "language"
	case editors[low]:
		return "editor"
	case drinkKind(low):
		return "drink"
	case toolKinds[low] != "":
		return toolKinds[low]
	case hasHan(low):
		// "网易云音乐听歌": a Chinese value runs on into what it is for.
		for n, k := range toolKinds {
			if strings.HasPrefix(low, n) && hasHan(n) {
				return k
			}
		}
	}
	return deviceKind(v)
}

// toolKinds are the kinds of the everyday tools a "uses" value names, so a
// switch replaces a browser with a browser ("I switched to Chrome" closes
// Firefox, not Notion) and a return to one is a switch ("I went back to
// Firefox").
var toolKinds = map[string]string{}

func init() {
	for kind, names := range map[string]string{
		"browser":  "firefox|chrome|google chrome|safari|microsoft edge|brave|vivaldi|chromium|duckduckgo|arc|tor browser|arc browser",
		"os":       "windows|mac|macos|mac os|linux|ubuntu|fedora|debian|arch linux|chromeos|windows 10|windows 11",
		"notes":    "notion|obsidian|evernote|onenote|logseq|roam research|apple notes|google keep|joplin|simplenote|印象笔记|有道云笔记|语雀|石墨文档",
		"music":    "spotify|apple music|tidal|deezer|youtube music|pandora|soundcloud|amazon music|qq音乐|网易云音乐|酷狗音乐",
		"chat":     "slack|microsoft teams|discord|zoom|google meet|skype|mattermost|whatsapp|telegram|wechat|微信|企业微信|钉钉|飞书",
		"tasks":    "jira|linear|trello|asana|todoist|clickup|basecamp|github issues",
		"mail":     "gmail|outlook|proton mail|protonmail|fastmail|apple mail|thunderbird|superhuman",
		"cloud":    "dropbox|google drive|onedrive|icloud",
		"database": "postgres|postgresql|mysql|mariadb|sqlite|mongodb|redis|sql server|cassandra|dynamodb",
		"design":   "figma|photoshop|illustrator|canva|gimp|affinity designer",
		"vcs":      "git|github|gitlab|bitbucket|mercurial|svn",
		"shell":    "bash|zsh|powershell",
	} {
		for _, n := range strings.Split(names, "|") {
			toolKinds[n] = kind
		}
	}
}

// editors are tools a "uses" value is read as without a capital.
var editors = map[string]bool{
	"vim": true, "neovim": true, "nvim": true, "emacs": true, "nano": true, "vs code": true, "vscode": true,
	"sublime": true, "sublime text": true, "intellij": true, "pycharm": true, "goland": true, "xcode": true,
	"zed": true, "helix": true, "cursor": true, "notepad++": true, "atom": true, "webstorm": true,
}

func drinkKind(low string) bool {
	w := strings.Fields(low)
	return len(w) > 0 && len(w) <= 4 && drinks[w[len(w)-1]]
}

// drinkValue is a drink as a value: lowercase, singular ("coffees" →
// "coffee"), unless it is a name.
func drinkValue(v string) string {
	w := strings.Fields(v)
	last := strings.ToLower(w[len(w)-1])
	if strings.HasSuffix(last, "s") && drinks[strings.TrimSuffix(last, "s")] {
		w[len(w)-1] = strings.TrimSuffix(last, "s")
	}
	if v[0] >= 'a' && v[0] <= 'z' || len(w) == 1 {
		return strings.ToLower(strings.Join(w, " "))
	}
	return strings.Join(w, " ")
}

// zhSwitchPronoun: 改用它, 换成它了, 开始用那个.
var zhSwitchPronoun = rx.MustCompile(`(改用|换成了?|换用|转用|开始用|改成了?|用上了?)(它们|它|这个|那个)`)

// resolveSwitchZH is resolveSwitch for Chinese: "朋友推荐了Obsidian，我现在
// 改用它了" → "…我现在改用Obsidian了" (the last name said before the
// pronoun, in the sentence or the exchange before).
func resolveSwitchZH(sent, before, reply string) string {
	m := zhSwitchPronoun.FindStringSubmatchIndex(sent)
	if m == nil {
		return sent
	}
	name := antecedentZH(before + " " + sent[:m[4]])
	if name == "" {
		name = antecedentZH(reply)
	}
	if name == "" {
		return sent
	}
	return sent[:m[4]] + name + sent[m[5]:]
}

// antecedentZH is the last thing named in s: a name in Latin letters, a
// brand or a drink.
func antecedentZH(s string) string {
	best, at := antecedent(s), -1
	if best != "" {
		at = strings.LastIndex(s, best)
	}
	for _, re := range []*rx.Regexp{zhDrinkRe, zhBrandRe} {
		for _, loc := range re.FindAllStringIndex(s, -1) {
			if loc[0] > at {
				best, at = s[loc[0]:loc[1]], loc[0]
			}
		}
	}
	return best
}

var (
	zhDrinkRe = rx.MustCompile(zhDrinks)
	zhBrandRe = rx.MustCompile(zhBrands)
)
