package redact

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/memproxy/memproxy/memory"
	"github.com/memproxy/memproxy/policy"
)

// TestDefaults: the default policy redacts keys, tokens, private keys and
// cards, and leaves e-mail addresses, phone numbers, dates and amounts.
func TestDefaults(t *testing.T) {
	r := New(policy.Default().Ingest.Redact)
	in := strings.Join([]string{
		"key sk-proj-abcdefghijklmnop1234 and sk-ant-api03-abcdefghijkl",
		"Authorization: Bearer abcdefghijklmnopqrstuvwxyz and Basic dXNlcjpwYXNzd29yZDEyMzQ=",
		"stripe sk_live_abcdefghijklmnop, github ghp_abcdefghijklmnopqrstuvwxyz0123",
		"jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
		"my password: hunter2hunter2",
		"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\n-----END OPENSSH PRIVATE KEY-----",
		"card 4111 1111 1111 1111 and 5500-0000-0000-0004 and 378282246310005",
		"mail jane.doe@example.com, call +1 415-555-0132",
		"order 1234567890123 (not a card: fails Luhn), meeting 2026-11-20, budget 1500",
	}, "\n")
	out := r.Text(in)
	for _, secret := range []string{"sk-proj-abc", "sk-ant-api03", "abcdefghijklmnopqrstuvwxyz and", "dXNlcjpw", "sk_live_", "ghp_",
		"eyJhbGciOiJIUzI1NiJ9", "hunter2", "b3BlbnNzaC1rZXk", "BEGIN OPENSSH", "4111 1111", "5500-0000", "378282246310005"} {
		if strings.Contains(out, secret) {
			t.Errorf("still holds %q:\n%s", secret, out)
		}
	}
	for _, keep := range []string{"jane.doe@example.com", "415-555-0132", "1234567890123", "2026-11-20", "1500", "[card]", "[private key]", "[secret]"} {
		if !strings.Contains(out, keep) {
			t.Errorf("lost %q:\n%s", keep, out)
		}
	}
}

func TestOptIn(t *testing.T) {
	r := Redactor{Email: true, Phone: true}
	out := r.Text("mail jane.doe@example.com or 手机13812345678, key sk-proj-abcdefghijklmnop1234, on 2026-11-20")
	for _, s := range []string{"jane.doe@", "13812345678"} {
		if strings.Contains(out, s) {
			t.Errorf("still holds %q: %s", s, out)
		}
	}
	if !strings.Contains(out, "sk-proj") || !strings.Contains(out, "2026-11-20") {
		t.Errorf("redacted what it was not asked to: %s", out)
	}
	if in := "sk-proj-abcdefghijklmnop1234"; (Redactor{}).Text(in) != in {
		t.Error("the zero Redactor changed text")
	}
}

func TestTurnAndMemory(t *testing.T) {
	r := New(policy.Default().Ingest.Redact)
	turn := &memory.Turn{User: "my key is sk-abcdefghijklmnop", Assistant: "card 4111111111111111?", Context: "Bearer abcdefghijklmnop"}
	rt := r.Turn(turn)
	if strings.Contains(rt.User+rt.Assistant+rt.Context, "abcdefghijklmnop") || strings.Contains(rt.Assistant, "4111") {
		t.Errorf("Turn: %+v", rt)
	}
	if turn.User != "my key is sk-abcdefghijklmnop" {
		t.Error("Turn changed the caller's turn")
	}
	m := &memory.Memory{Text: "The API key is sk-abcdefghijklmnop", Context: "card 4111111111111111"}
	r.Memory(m)
	if strings.Contains(m.Text+m.Context, "abcdefghijklmnop") || strings.Contains(m.Context, "4111") {
		t.Errorf("Memory: %+v", m)
	}
}

// BenchmarkText: redaction with the default policy runs on every turn.
func BenchmarkText(b *testing.B) {
	r := New(policy.Default().Ingest.Redact)
	in := "Yesterday I walked the dog along the river and then we met Anna for coffee at 10; she told me about her new job at Globex, starting on 3 March, and asked whether I still use Python for work."
	for b.Loop() {
		r.Text(in)
	}
}

func TestNamedSecrets(t *testing.T) {
	r := Redactor{APIKey: true}
	for in, gone := range map[string]string{
		"boto3 says access denied with key AKIAIOSFODNN7EXAMPLE and secret wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY": "wJalrXUtnFEMI",
		"my password is Tr0ub4dor&3xyz, keep it safe":                                                                "Tr0ub4dor",
		"数据库密码是Xk29dLq7zPw4，连不上":                                                                                     "Xk29dLq7zPw4",
		"the wifi password is hunter22":                                                                              "hunter22",
		"wifi pw: BlueFalcon#2291":                                                                                   "BlueFalcon",
		"my PIN is 4821.":                                                                                            "4821",
		"the pin code for the garage is 7734":                                                                        "7734",
		"export AWS_SECRET_ACCESS_KEY=wJalrXUtnFI/K7MDENG/bPxRfiCYEXAMPLEKEY":                                        "wJalrXUtnFI",
		"GITHUB_TOKEN: 8f3a9c1d2e4b5a6f7c8d9e0f":                                                                     "8f3a9c1d",
		"我的密码是abc12345678":                                                                                           "abc12345678",
		"银行卡密码：204816":                                                                                               "204816",
		"my ssn is 123-45-6789":                                                                                      "123-45-6789",
		"The form asks for my SSN, it's 123-45-6789, why?":                                                           "123-45-6789",
		"My password for the portal is Winter2024!":                                                                  "Winter2024",
		"Login is admin / pass: S3cr3t!Pass":                                                                         "S3cr3t",
		"My password for the staging server is hunter2xyz!, can you write the ssh command?":                          "hunter2xyz",
		"Connection fails: postgres://admin:S3cretPassw0rd@db.example.com:5432/prod":                                 "S3cretPassw0rd",
		"clone https://bob:ghTok3n99@git.example.com/repo.git":                                                       "ghTok3n99",
		"the PIN for my work laptop is 90210":                                                                        "90210",
	} {
		if out := r.Text(in); strings.Contains(out, gone) {
			t.Errorf("Text(%q) = %q, still holds %q", in, out, gone)
		}
	}
	for _, keep := range []string{"the secret ingredient is cinnamon", "token authentication failed", "my key insight was simple",
		"my password is expired", "I pinned it: great", "max_tokens=100000", "the spin is fine", "the password for the staging server is in the vault", "see https://example.com:8080/path@v2", "sleep_time_key = default_value_here"} {
		if out := r.Text(keep); out != keep {
			t.Errorf("Text(%q) = %q, want it unchanged", keep, out)
		}
	}
}

// TestCuesChangeNothing: the cues only skip expressions that cannot
// match. Texts built from the words the expressions look for (any case,
// at and inside words, next to separators, digits, URLs, Chinese) and
// plain prose are redacted alike with the cues and with every expression
// run.
func TestCuesChangeNothing(t *testing.T) {
	words := []string{
		"bearer", "Bearer", "BASIC", "basic", "sk-", "sk-proj-", "SK-", "rk_live_", "pk_TEST_", "_live_", "ghp_", "GHO_", "github_pat_",
		"xoxb-", "AKIA", "asia", "Asia", "AIza", "eyJ", "api", "API_KEY", "apikey", "api-key", "access", "accesskey", "secret", "Secret",
		"token", "TOKEN", "password", "passwd", "passphrase", "passcode", "pass", "pw", "pwd", "PIN", "pin", "spin", "pinned", "ssn",
		"social security", "key", "monkey", "keyboard", "AWS_SECRET_ACCESS_KEY", "db_password", "my_token", "is", "was", "it's", ":",
		"=", ": ", " = ", "：", "密码", "密钥", "口令", "令牌", "PIN码", "是", "为", "postgres://", "https://", "admin:", "@", "host.example.com",
		"\u212aey", "\u017fecret", "abcdefghijklmnop", "Xk29dLq7zPw4", "hunter22", "S3cr3t!Pass", "4111 1111 1111 1111", "4821", "123-45-6789",
		"wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "0123456789abcdef0123", ".", ",", "!", "'", "\"", "\n", "_", "-", "the", "my", "wifi",
		"for", "the staging server", "I", "walked", "the dog", "yesterday", "Anna", "coffee", "shopping", "typing", "passed", "passion",
	}
	r := New(policy.Default().Ingest.Redact)
	all := Redactor{Email: true, Phone: true, APIKey: true, Card: true}
	rng := rand.New(rand.NewPCG(17, 4))
	for i := range 12000 {
		var b strings.Builder
		for range 1 + rng.IntN(14) {
			b.WriteString(words[rng.IntN(len(words))])
			switch rng.IntN(4) {
			case 0:
				b.WriteByte(' ')
			case 1:
				// glued to the next word
			default:
				b.WriteString(" ")
			}
		}
		s := b.String()
		func() {
			defer func() {
				if e := recover(); e != nil {
					t.Fatalf("PANIC on %q: %v", s, e)
				}
			}()
			r.text(s, true)
		}()
		func() {
			defer func() {
				if e := recover(); e != nil {
					t.Fatalf("PANIC ungated on %q: %v", s, e)
				}
			}()
			r.text(s, false)
		}()
		for _, red := range []Redactor{r, all} {
			if got, want := red.text(s, true), red.text(s, false); got != want {
				t.Fatalf("text %d %q:\nwith cues    %q\nevery regexp %q", i, s, got, want)
			}
		}
	}
}

// FuzzText: whatever a turn holds, redaction returns (no panic), keeps
// valid UTF-8 valid, and the cues change nothing.
func FuzzText(f *testing.F) {
	for _, s := range []string{
		"my password: hunter2hunter2", "isſecret S3cr3t!Passbasic Xk29dLq7zPw4", "\u212aey is Abcdefgh1234!x",
		"export AWS_SECRET_ACCESS_KEY=wJalrXUtnFI/K7MDENG/bPxRfiCYEXAMPLEKEY", "数据库密码是Xk29dLq7zPw4，连不上",
		"card 4111 1111 1111 1111, call +1 415-555-0132, mail jane.doe@example.com", "postgres://admin:S3cret@db:5432/x",
	} {
		f.Add(s)
	}
	all := Redactor{Email: true, Phone: true, APIKey: true, Card: true}
	f.Fuzz(func(t *testing.T, s string) {
		got := all.text(s, true)
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("Text(%q) = %q: invalid UTF-8", s, got)
		}
		if want := all.text(s, false); got != want {
			t.Fatalf("Text(%q):\nwith cues    %q\nevery regexp %q", s, got, want)
		}
	})
}

// TestTurnValidUTF8: a turn's invalid bytes (a client may send them inside
// a JSON string; the proxy passes them on) become U+FFFD, with redaction
// on or off.
func TestTurnValidUTF8(t *testing.T) {
	in := &memory.Turn{User: "I moved to 0\x80 last week", Assistant: "ok\xff", Context: "\xc3"}
	for _, r := range []Redactor{{}, New(policy.Default().Ingest.Redact)} {
		out := r.Turn(in)
		for _, s := range []string{out.User, out.Assistant, out.Context} {
			if !utf8.ValidString(s) {
				t.Errorf("%+v: %q is not valid UTF-8", r, s)
			}
		}
		if out.User != "I moved to 0\uFFFD last week" {
			t.Errorf("%+v: user %q", r, out.User)
		}
	}
	if in.User != "I moved to 0\x80 last week" {
		t.Error("Turn changed the caller's turn")
	}
}
