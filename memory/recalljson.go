package memory

import (
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// loggedDigits is the significant digits a recall-log record keeps of its
// scores and timings: enough to tell candidates apart in the request
// detail view (their order is kept exactly, in Rank).
const loggedDigits = 4

// AppendRecallJSON appends r as encoding/json marshals it (the same keys,
// omissions and string escaping, so json.Unmarshal reads it back), except
// that its floating-point numbers keep loggedDigits significant digits.
// The recall log writes one record a request, 25 candidates of five
// scores each: reflection and shortest-form floats made it some 45 µs and
// 6 KB a request; this is a few µs and a quarter smaller.
func AppendRecallJSON(b []byte, r *RecallRecord) []byte {
	b = append(b, '{')
	if r.API != "" {
		b = appendKey(b, "api", true)
		b = appendJSONString(b, r.API)
	}
	b = appendKey(b, "request_id", r.API == "")
	b = appendJSONString(b, r.RequestID)
	b = appendKey(b, "scope", false)
	b = append(b, '{')
	b = appendKey(b, "user", true)
	b = appendJSONString(b, r.Scope.User)
	b = appendKey(b, "namespace", false)
	b = appendJSONString(b, r.Scope.Namespace)
	b = append(b, '}')
	if r.Session != "" {
		b = appendKey(b, "session", false)
		b = appendJSONString(b, r.Session)
	}
	b = appendKey(b, "time", false)
	b = append(b, '"')
	b = r.Time.AppendFormat(b, time.RFC3339Nano)
	b = append(b, '"')
	for _, f := range [...]struct{ k, v string }{{"arm", r.Arm}, {"status", r.Status}, {"gate_reason", r.GateReason}} {
		b = appendKey(b, f.k, false)
		b = appendJSONString(b, f.v)
	}
	if len(r.Injected) > 0 {
		b = appendKey(b, "injected", false)
		b = appendJSONStrings(b, r.Injected)
	}
	if len(r.Candidates) > 0 {
		b = appendKey(b, "candidates", false)
		b = append(b, '[')
		for i := range r.Candidates {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendCandidateJSON(b, &r.Candidates[i])
		}
		b = append(b, ']')
	}
	b = appendKey(b, "injected_tokens", false)
	b = strconv.AppendInt(b, int64(r.InjectedTokens), 10)
	b = appendKey(b, "overhead_ms", false)
	b = appendLoggedFloat(b, r.OverheadMs)
	if r.Feedback != nil {
		b = appendKey(b, "feedback", false)
		b = appendLoggedFloat(b, *r.Feedback)
	}
	return append(b, '}')
}

func appendCandidateJSON(b []byte, c *RankedCandidate) []byte {
	b = append(b, `{"id":`...)
	b = appendJSONString(b, c.ID)
	b = appendKey(b, "tier", false)
	b = appendJSONString(b, string(c.Tier))
	for _, f := range [...]struct {
		k string
		v float64
	}{{"score", c.Score}, {"sim", c.Sim}, {"retention", c.Retention}, {"freq", c.Freq}, {"value", c.Value}} {
		b = appendKey(b, f.k, false)
		b = appendLoggedFloat(b, f.v)
	}
	b = appendKey(b, "rank", false)
	b = strconv.AppendInt(b, int64(c.Rank), 10)
	if len(c.Refs) > 0 {
		b = appendKey(b, "refs", false)
		b = appendJSONStrings(b, c.Refs)
	}
	b = appendKey(b, "injected", false)
	b = strconv.AppendBool(b, c.Injected)
	if c.Filtered != "" {
		b = appendKey(b, "filtered", false)
		b = appendJSONString(b, c.Filtered)
	}
	return append(b, '}')
}

// appendKey appends `"key":`, after a comma unless first.
func appendKey(b []byte, key string, first bool) []byte {
	if !first {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, key...)
	return append(b, '"', ':')
}

func appendJSONStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, s)
	}
	return append(b, ']')
}

// appendLoggedFloat appends f with loggedDigits significant digits (0
// for a value JSON cannot hold, where encoding/json would fail the
// whole record).
func appendLoggedFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, '0')
	}
	return strconv.AppendFloat(b, f, 'g', loggedDigits, 64)
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s quoted as encoding/json quotes a string:
// control characters, '"' and '\\' escaped, '<', '>' and '&' as \u00XX,
// invalid UTF-8 as U+FFFD, U+2028 and U+2029 escaped.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
