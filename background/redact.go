package background

import (
	"regexp"
	"strings"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
)

// Redaction placeholders. They are plain words so a redacted turn still
// reads naturally to the extractor and the consolidation model.
const (
	redactedEmail = "[email]"
	redactedPhone = "[phone]"
	redactedKey   = "[secret]"
)

var (
	emailRe = regexp.MustCompile(`(?i)[a-z0-9._%+\-]+@[a-z0-9.\-]+\.[a-z]{2,}`)
	// Phone numbers: international (+cc …) or local groups of digits with
	// separators, at least 7 digits in total; Chinese mobiles (1[3-9]xxxxxxxxx).
	phoneRe = regexp.MustCompile(`(?:\+\d{1,3}[\s\-.]?)?(?:\(\d{1,4}\)[\s\-.]?)?\d{2,4}(?:[\s\-.]\d{2,4}){1,4}|\b1[3-9]\d{9}\b`)
	dateRe  = regexp.MustCompile(`^\d{4}[\-./]\d{1,2}[\-./]\d{1,2}$|^\d{1,2}[\-./]\d{1,2}[\-./]\d{4}$`)
	// API keys and tokens: OpenAI/Anthropic style sk-…, GitHub ghp_/gho_/
	// github_pat_, Slack xox?-, AWS AKIA…, Google AIza…, and bearer tokens.
	keyRes = []*regexp.Regexp{
		regexp.MustCompile(`(?i)\bbearer\s+[a-z0-9._~+/\-]{8,}=*`),
		regexp.MustCompile(`\bsk-[A-Za-z0-9_\-]{8,}`),
		regexp.MustCompile(`\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}`),
		regexp.MustCompile(`\bxox[abposr]-[A-Za-z0-9\-]{10,}`),
		regexp.MustCompile(`\bAKIA[0-9A-Z]{16}\b`),
		regexp.MustCompile(`\bAIza[0-9A-Za-z_\-]{35}\b`),
		regexp.MustCompile(`(?i)\b(?:api[_\-]?key|secret|token|password)\s*[:=]\s*\S{6,}`),
	}
)

// Redactor scrubs secrets from text per policy ingest.redact. The zero
// value redacts nothing.
type Redactor struct {
	Email, Phone, APIKey bool
}

// NewRedactor returns the redactor for a policy.
func NewRedactor(p policy.Redact) Redactor {
	return Redactor{Email: p.Email, Phone: p.Phone, APIKey: p.APIKey}
}

// Enabled reports whether anything is redacted.
func (r Redactor) Enabled() bool { return r.Email || r.Phone || r.APIKey }

// Text returns s with the enabled secret classes replaced. Keys go first so
// a token containing digits is not half-eaten by the phone pattern.
func (r Redactor) Text(s string) string {
	if s == "" {
		return s
	}
	if r.APIKey {
		for _, re := range keyRes {
			s = re.ReplaceAllString(s, redactedKey)
		}
	}
	if r.Email {
		s = emailRe.ReplaceAllString(s, redactedEmail)
	}
	if r.Phone {
		s = phoneRe.ReplaceAllStringFunc(s, func(m string) string {
			if countDigits(m) < 7 || dateRe.MatchString(strings.TrimSpace(m)) {
				return m // dates, versions, amounts
			}
			return redactedPhone
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

func countDigits(s string) int {
	n := 0
	for _, c := range s {
		if c >= '0' && c <= '9' {
			n++
		}
	}
	return n
}
