// Package redact scrubs secrets from text before memproxy writes it
// anywhere (policy ingest.redact): API keys and tokens (OpenAI and
// Anthropic sk-…, Stripe, GitHub, Slack, AWS, Google, JWTs, bearer and
// basic credentials, "password: …" assignments), PEM private keys and
// payment card numbers (13–19 digits passing the Luhn check) by default;
// e-mail addresses and phone numbers when the policy asks. It is applied
// on every path that writes user text: chat capture, the admin API's
// create and edit, and import.
package redact

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
)

// Placeholders. They are plain words so a redacted turn still reads
// naturally to the extractor and the consolidation model.
const (
	Email      = "[email]"
	Phone      = "[phone]"
	Secret     = "[secret]"
	PrivateKey = "[private key]"
	Card       = "[card]"
)

var (
	emailRe = regexp.MustCompile(`(?i)[a-z0-9._%+\-]+@[a-z0-9.\-]+\.[a-z]{2,}`)
	// Phone numbers: international (+cc …) or local groups of digits with
	// separators, at least 7 digits in total; Chinese mobiles (1[3-9]xxxxxxxxx).
	phoneRe = regexp.MustCompile(`(?:\+\d{1,3}[\s\-.]?)?(?:\(\d{1,4}\)[\s\-.]?)?\d{2,4}(?:[\s\-.]\d{2,4}){1,4}|\b1[3-9]\d{9}\b`)
	dateRe  = regexp.MustCompile(`^\d{4}[\-./]\d{1,2}[\-./]\d{1,2}$|^\d{1,2}[\-./]\d{1,2}[\-./]\d{4}$`)
	// A PEM private key block, or its beginning when the rest was cut.
	pemRe = regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?s:.*?)(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|\z)`)
	// Key and token shapes, each run only when the text holds its cue
	// (cues, below): most turns hold none, and the expressions cost a few
	// hundred microseconds a turn when run on every text.
	keyRes = []struct {
		cue cueBits
		re  *regexp.Regexp
	}{
		{cueBearer, regexp.MustCompile(`(?i)\bbearer\s+[a-z0-9._~+/\-]{8,}=*`)},
		{cueBasic, regexp.MustCompile(`(?i)\bbasic\s+[a-z0-9+/]{16,}=*`)},
		{cueSK, regexp.MustCompile(`\bsk-[A-Za-z0-9_\-]{8,}`)},
		{cueLiveTest, regexp.MustCompile(`\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}`)},
		{cueGitHub, regexp.MustCompile(`\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}`)},
		{cueSlack, regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9\-]{10,}`)},
		{cueAWS, regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`)},
		{cueGoogle, regexp.MustCompile(`\bAIza[0-9A-Za-z_\-]{35}\b`)},
		{cueJWT, regexp.MustCompile(`\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}`)},
		{cueAssigned, regexp.MustCompile(`(?i)\b(?:api[_\-\s]?key|secret|token|password|passwd)\s*(?:is\s*)?[:=]\s*\S{6,}`)},
	}
)

// urlCredRe: a URL with a user and password before its host.
var urlCredRe = regexp.MustCompile(`(\b[A-Za-z][A-Za-z0-9+.\-]*://[^\s/:@]+:)[^\s/@]+(@)`)

// Redactor scrubs secrets from text. The zero value redacts nothing.
type Redactor struct {
	Email, Phone, APIKey, Card bool
}

// New returns the redactor for a policy.
func New(p policy.Redact) Redactor {
	return Redactor{Email: p.Email, Phone: p.Phone, APIKey: p.APIKey, Card: p.Card}
}

// Enabled reports whether anything is redacted.
func (r Redactor) Enabled() bool { return r.Email || r.Phone || r.APIKey || r.Card }

// Text returns s with the enabled secret classes replaced. Keys go first
// so a token containing digits is not half-eaten by the card or phone
// pattern, cards before phones for the same reason.
func (r Redactor) Text(s string) string { return r.text(s, true) }

// text is Text; with gated false every expression runs whatever the
// cues say (what the cues must never change: the tests compare).
func (r Redactor) text(s string, gated bool) string {
	if s == "" {
		return s
	}
	if r.APIKey {
		if !gated || strings.Contains(s, "PRIVATE KEY-----") {
			s = pemRe.ReplaceAllString(s, PrivateKey)
		}
		c := cues(s)
		if !gated {
			c = ^cueBits(0)
		}
		for _, k := range keyRes {
			if c&k.cue != 0 {
				s = k.re.ReplaceAllString(s, Secret)
			}
		}
		if !gated || strings.Contains(s, "://") {
			// postgres://admin:S3cret@db…: the password of a URL's user.
			s = urlCredRe.ReplaceAllString(s, "${1}"+strings.ReplaceAll(Secret, "$", "$$")+"${2}")
		}
		if c&cueNamed != 0 {
			s = redactNamedSecrets(s)
			if !gated || strings.Contains(s, "_") {
				s = redactGroup(envSecretRe, s, func(v string) bool { return secretLike(v) || len(v) >= 12 && hasDigit(v) })
			}
		}
		if c&cuePassword != 0 {
			s = redactGroup(passwordRe, s, passwordLike)
		}
	}
	if r.Card && (!gated || countDigits(s) >= 13) {
		s = redactCards(s)
	}
	if r.Email {
		s = emailRe.ReplaceAllString(s, Email)
	}
	if r.Phone {
		s = phoneRe.ReplaceAllStringFunc(s, func(m string) string {
			if countDigits(m) < 7 || dateRe.MatchString(strings.TrimSpace(m)) {
				return m // dates, versions, amounts
			}
			return Phone
		})
	}
	return s
}

// cueBits says which expressions a text may match.
type cueBits uint16

const (
	cueBearer cueBits = 1 << iota
	cueBasic
	cueSK
	cueLiveTest
	cueGitHub
	cueSlack
	cueAWS
	cueGoogle
	cueJWT
	cueAssigned // keyRes' "api key: …", "token=…"
	cueNamed    // namedSecretRe and envSecretRe
	cuePassword // passwordRe
)

// wordCues are the words an expression's match must begin with at a
// word start (each expression has \b before them, or "_" as envSecretRe
// does: a start is any place not after an ASCII letter or digit),
// lowercased, with what they cue.
var wordCues = []struct {
	w   string
	cue cueBits
}{
	{"bearer", cueBearer}, {"basic", cueBasic}, {"sk-", cueSK},
	{"ghp_", cueGitHub}, {"gho_", cueGitHub}, {"ghu_", cueGitHub}, {"ghs_", cueGitHub}, {"ghr_", cueGitHub}, {"github_pat_", cueGitHub},
	{"xox", cueSlack}, {"akia", cueAWS}, {"asia", cueAWS}, {"aiza", cueGoogle}, {"eyj", cueJWT},
	{"api", cueAssigned | cueNamed}, {"secret", cueAssigned | cueNamed}, {"token", cueAssigned | cueNamed},
	{"passw", cueAssigned}, {"key", cueNamed}, {"access", cueNamed},
	{"pass", cuePassword | cueNamed}, {"pw", cuePassword}, {"pin", cuePassword}, {"ssn", cuePassword}, {"social", cuePassword},
}

// cues reads s once and returns the expressions it may match: a word cue
// at a word start (ASCII case folded), "_live_" or "_test_" anywhere, or
// the Chinese names of a password or key. A text without one cannot
// match the expression, so it is not run.
func cues(s string) cueBits {
	var c cueBits
	prev := byte(' ')
	ascii := true
	for i := 0; i < len(s); i++ {
		b := s[i]
		if !isAlnum(prev) && isAlnum(b) {
			c |= wordCueAt(s[i:])
		}
		if b >= 0x80 {
			ascii = false
			if strings.HasPrefix(s[i:], "\u212a") || strings.HasPrefix(s[i:], "\u017f") {
				// The Kelvin sign and the long s, which (?i) matches
				// as k and s: let every expression judge.
				return ^cueBits(0)
			}
		}
		if b == '_' && i+6 <= len(s) && (strings.EqualFold(s[i:i+6], "_live_") || strings.EqualFold(s[i:i+6], "_test_")) {
			c |= cueLiveTest
		}
		prev = b
	}
	if ascii {
		return c
	}
	if strings.Contains(s, "密") {
		c |= cueNamed | cuePassword // 密钥, 密码
	}
	if strings.Contains(s, "口令") {
		c |= cueNamed | cuePassword
	}
	if strings.Contains(s, "令牌") {
		c |= cueNamed
	}
	if strings.Contains(s, "码") {
		c |= cuePassword // PIN码, after any letter
	}
	return c
}

// cuesByFirst lists wordCues by their first letter.
var cuesByFirst = func() (t [26][]int) {
	for i, w := range wordCues {
		t[w.w[0]-'a'] = append(t[w.w[0]-'a'], i)
	}
	return t
}()

// wordCueAt returns the cues of the word cues s begins with.
func wordCueAt(s string) cueBits {
	l := s[0] | 0x20
	if l < 'a' || l > 'z' {
		return 0
	}
	var c cueBits
	for _, i := range cuesByFirst[l-'a'] {
		w := wordCues[i]
		if len(s) >= len(w.w) && strings.EqualFold(s[:len(w.w)], w.w) {
			c |= w.cue
		}
	}
	return c
}

func isAlnum(b byte) bool { return b >= '0' && b <= '9' || b|0x20 >= 'a' && b|0x20 <= 'z' }

// Turn returns the copy of t that may be written (the caller's turn is
// not modified): redacted, and its texts valid UTF-8. A client can send
// invalid bytes inside a JSON string and the proxy passes them on as
// sent; stored, they would fail the turn's ingest (extraction builds
// expressions from the user's words, the stores refuse invalid text), so
// each invalid byte becomes U+FFFD, as encoding/json decodes it.
func (r Redactor) Turn(t *memory.Turn) *memory.Turn {
	c := *t
	for _, f := range []*string{&c.User, &c.Assistant, &c.Context} {
		if !utf8.ValidString(*f) {
			*f = strings.ToValidUTF8(*f, "\uFFFD")
		}
		if r.Enabled() {
			*f = r.Text(*f)
		}
	}
	return &c
}

// Memory redacts m's text and search context in place.
func (r Redactor) Memory(m *memory.Memory) {
	if !r.Enabled() || m == nil {
		return
	}
	m.Text = r.Text(m.Text)
	m.Context = r.Text(m.Context)
}

// redactCards replaces every run of 13–19 digits (single spaces or dashes
// between them allowed, not next to a letter or digit) that passes the
// Luhn check. One linear scan.
func redactCards(s string) string {
	var b strings.Builder
	last := 0
	i := 0
	for i < len(s) {
		if !isDigit(s[i]) || (i > 0 && isWordByte(s[i-1])) {
			i++
			continue
		}
		// A candidate starts at i: digits, each gap a single ' ' or '-'.
		j, end, n := i, i, 0
		for j < len(s) {
			if isDigit(s[j]) {
				n++
				j++
				end = j
				continue
			}
			if (s[j] == ' ' || s[j] == '-') && j+1 < len(s) && isDigit(s[j+1]) && n < 19 {
				j++
				continue
			}
			break
		}
		if n >= 13 && n <= 19 && (end == len(s) || !isWordByte(s[end])) && luhn(s[i:end]) {
			b.WriteString(s[last:i])
			b.WriteString(Card)
			last = end
		}
		i = end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isWordByte(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

// luhn reports whether the digits of s (separators ignored) pass the
// Luhn check, as every payment card number does.
func luhn(s string) bool {
	sum, n := 0, 0
	for i := len(s) - 1; i >= 0; i-- {
		c := s[i]
		if c < '0' || c > '9' {
			continue
		}
		d := int(c - '0')
		if n%2 == 1 {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		n++
	}
	return n >= 13 && sum%10 == 0
}

func countDigits(s string) int {
	n := 0
	for _, c := range s {
		if c >= '0' && c <= '9' {
			n++
		}
	}
	return n
}

// namedSecretRe: a credential named in prose without ":" or "=" ("key
// AKIA… and secret wJalr…", "my password is Tr0ub4dor&3", "密钥是…").
var namedSecretRe = regexp.MustCompile(`(?i)\b(?:api[_\-\s]?key|access[_\-\s]?key|secret(?:[_\-\s]?(?:access[_\-\s]?)?key)?|key|token|password|passwd|passphrase)\s+(?:is\s+|was\s+)?([^\s,;'"]{12,})|(?:密钥|密码|口令|令牌)(?:是|为|：|:)\s*([^\s，。,;；'"]{8,})`)

// redactNamedSecrets replaces the value of a named credential when it
// looks like one: long, mixing letters with digits or symbols (a word
// such as "authentication" stays).
func redactNamedSecrets(s string) string {
	return replaceValues(namedSecretRe, s, false, func(v string) bool { return v != Secret && secretLike(v) })
}

func secretLike(v string) bool {
	var lower, upper, digit, other bool
	for _, c := range v {
		switch {
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= '0' && c <= '9':
			digit = true
		default:
			other = true
		}
	}
	kinds := 0
	for _, b := range []bool{lower, upper, digit, other} {
		if b {
			kinds++
		}
	}
	return kinds >= 3 || (kinds == 2 && digit && len(v) >= 16)
}

// envSecretRe: a credential assigned to a variable whose name says so
// ("export AWS_SECRET_ACCESS_KEY=wJalr…", "GITHUB_TOKEN: ghp…",
// "db_password = …"), whatever the value's own shape.
var envSecretRe = regexp.MustCompile(`(?i)\b[a-z0-9]+_(?:[a-z0-9]+_)*(?:secret|token|password|passwd|key)(?:_[a-z0-9]+)*\s*[:=]\s*["']?([^\s"',;]{8,})`)

// passwordRe: a password or PIN said in prose, short ones too ("the wifi
// password is hunter22", "my PIN is 4821", "pw: BlueFalcon#2291", "pass:
// S3cr3t!Pass", "我的密码是abc12345"): the name says it is a secret.
var passwordRe = regexp.MustCompile(`(?i)\b(?:password|passwd|passphrase|passcode|pass|pw|pwd|ssn|social security(?:\s+number)?|pin(?:\s+(?:code|number))?)(?:\s+(?:for|to|of|on)\s+(?:the\s+|my\s+|our\s+)?[\w\-.]+(?:\s+[\w\-.]+){0,2}?)?\s*(?:,?\s*(?:it's|it is|which is)|is|was|:|=|：)\s*["']?([^\s"',;，。]{4,})|(?:密码|口令|PIN码)(?:是|为|：|:)\s*([^\s，。,;；'"]{4,})`)

// passwordLike: a value that can be a password (a digit, a symbol or a
// capital inside it), not a word about one ("my password is expired").
func passwordLike(v string) bool {
	v = strings.TrimRight(v, ".!?")
	if len(v) < 4 || v == Secret {
		return false
	}
	for i, c := range v {
		if c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' && i > 0 || !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return true
		}
	}
	return false
}

func hasDigit(v string) bool { return strings.ContainsAny(v, "0123456789") }

// redactGroup replaces the value each match of re captures (its first
// non-empty group, trailing ".!?" left out) when ok says it is one.
func redactGroup(re *regexp.Regexp, s string, ok func(string) bool) string {
	return replaceValues(re, s, true, func(v string) bool { return v != "" && ok(v) })
}

// replaceValues replaces, in each match of re, the value its first
// non-empty group captures (with trim, trailing ".!?" left out) with
// Secret when ok says it is one. The groups are read where re matched, in s: a
// match read again on its own can differ (a \b at its start that held
// only after the text before it).
func replaceValues(re *regexp.Regexp, s string, trim bool, ok func(string) bool) string {
	var b strings.Builder
	last := 0
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		lo, hi := -1, -1
		for g := 2; g+1 < len(m); g += 2 {
			if m[g] >= 0 && m[g+1] > m[g] {
				lo, hi = m[g], m[g+1]
				break
			}
		}
		if lo < 0 {
			continue
		}
		if trim {
			hi = lo + len(strings.TrimRight(s[lo:hi], ".!?"))
		}
		if !ok(s[lo:hi]) {
			continue
		}
		b.WriteString(s[last:lo])
		b.WriteString(Secret)
		last = hi
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}
