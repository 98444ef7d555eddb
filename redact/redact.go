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
	// Key and token shapes, each run only when the text holds one of its
	// cue strings (lowercased): most turns hold none, and the expressions
	// cost a few hundred microseconds a turn when run on every text.
	keyRes = []struct {
		cues []string
		re   *regexp.Regexp
	}{
		{[]string{"bearer"}, regexp.MustCompile(`(?i)\bbearer\s+[a-z0-9._~+/\-]{8,}=*`)},
		{[]string{"basic"}, regexp.MustCompile(`(?i)\bbasic\s+[a-z0-9+/]{16,}=*`)},
		{[]string{"sk-"}, regexp.MustCompile(`\bsk-[A-Za-z0-9_\-]{8,}`)},
		{[]string{"_live_", "_test_"}, regexp.MustCompile(`\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}`)},
		{[]string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"}, regexp.MustCompile(`\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}`)},
		{[]string{"xox"}, regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9\-]{10,}`)},
		{[]string{"akia", "asia"}, regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`)},
		{[]string{"aiza"}, regexp.MustCompile(`\bAIza[0-9A-Za-z_\-]{35}\b`)},
		{[]string{"eyj"}, regexp.MustCompile(`\beyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}`)},
		{[]string{"key", "secret", "token", "passw"}, regexp.MustCompile(`(?i)\b(?:api[_\-\s]?key|secret|token|password|passwd)\s*(?:is\s*)?[:=]\s*\S{6,}`)},
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
func (r Redactor) Text(s string) string {
	if s == "" {
		return s
	}
	if r.APIKey {
		if strings.Contains(s, "PRIVATE KEY-----") {
			s = pemRe.ReplaceAllString(s, PrivateKey)
		}
		low := strings.ToLower(s)
		for _, k := range keyRes {
			for _, c := range k.cues {
				if strings.Contains(low, c) {
					s = k.re.ReplaceAllString(s, Secret)
					break
				}
			}
		}
	}
	if r.APIKey && strings.Contains(s, "://") {
		// postgres://admin:S3cret@db…: the password of a URL's user.
		s = urlCredRe.ReplaceAllString(s, "${1}"+strings.ReplaceAll(Secret, "$", "$$")+"${2}")
	}
	if r.APIKey {
		low := strings.ToLower(s)
		if strings.Contains(low, "key") || strings.Contains(low, "secret") || strings.Contains(low, "token") || strings.Contains(low, "passw") || strings.Contains(s, "密") {
			s = redactNamedSecrets(s)
			if strings.Contains(s, "_") {
				s = redactGroup(envSecretRe, s, func(v string) bool { return secretLike(v) || len(v) >= 12 && hasDigit(v) })
			}
		}
		if strings.Contains(low, "pass") || strings.Contains(low, "pw") || strings.Contains(low, "pin") || strings.Contains(low, "ssn") || strings.Contains(low, "social security") || strings.Contains(s, "密码") || strings.Contains(s, "口令") {
			s = redactGroup(passwordRe, s, passwordLike)
		}
	}
	if r.Card && countDigits(s) >= 13 {
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

// Turn returns a redacted copy of t (the caller's turn is not modified).
func (r Redactor) Turn(t *memory.Turn) *memory.Turn {
	c := *t
	if !r.Enabled() {
		return &c
	}
	c.User = r.Text(t.User)
	c.Assistant = r.Text(t.Assistant)
	c.Context = r.Text(t.Context)
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
	return namedSecretRe.ReplaceAllStringFunc(s, func(m string) string {
		sub := namedSecretRe.FindStringSubmatch(m)
		v := sub[1]
		if v == "" {
			v = sub[2]
		}
		if v == Secret || !secretLike(v) {
			return m
		}
		return strings.Replace(m, v, Secret, 1)
	})
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
// non-empty group) when ok says it is one.
func redactGroup(re *regexp.Regexp, s string, ok func(string) bool) string {
	return re.ReplaceAllStringFunc(s, func(m string) string {
		sub := re.FindStringSubmatch(m)
		v := ""
		for _, g := range sub[1:] {
			if g != "" {
				v = g
				break
			}
		}
		v = strings.TrimRight(v, ".!?")
		if v == "" || !ok(v) {
			return m
		}
		return strings.Replace(m, v, Secret, 1)
	})
}
