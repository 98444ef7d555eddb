// Package locomo reads the LoCoMo long-conversation benchmark (Maharana et
// al., ACL 2024) and turns each sample into the chat turns memproxy imports.
//
// The reader is tolerant of the quirks the published file has (integer
// answers, malformed evidence ids, session dates without turns) because the
// evaluation must score the data as published, not a cleaned copy of it.
package locomo

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Category names, keyed by LoCoMo's category number. The numbers do not
// follow the paper's order; the mapping is the one of the official scorer.
var Categories = map[int]string{
	1: "multi-hop",
	2: "temporal",
	3: "open-domain",
	4: "single-hop",
	5: "adversarial",
}

// Sample is one conversation with its questions.
type Sample struct {
	ID       string
	SpeakerA string
	SpeakerB string
	// Sessions are ordered by number; only sessions that have turns count.
	Sessions []Session
	QA       []QA
}

// Session is one dated conversation session.
type Session struct {
	N       int
	DateRaw string
	// Date is DateRaw parsed (UTC); zero when it could not be parsed.
	Date  time.Time
	Turns []Dialog
}

// Dialog is one utterance of the conversation.
type Dialog struct {
	Speaker     string
	DiaID       string
	Text        string
	BlipCaption string
}

// QA is one question with its evidence.
type QA struct {
	Question string
	// Answer is the gold answer as text (integers in the file become
	// their decimal form); for adversarial items it is the adversarial
	// answer when no answer is given.
	Answer   string
	Category int
	// Evidence is the normalised evidence dia_ids (see NormalizeEvidence).
	Evidence []string
	// RawEvidence is the evidence list as published.
	RawEvidence []string
}

type rawSample struct {
	SampleID     string                     `json:"sample_id"`
	Conversation map[string]json.RawMessage `json:"conversation"`
	QA           []rawQA                    `json:"qa"`
}

type rawQA struct {
	Question          string          `json:"question"`
	Answer            json.RawMessage `json:"answer"`
	AdversarialAnswer json.RawMessage `json:"adversarial_answer"`
	Evidence          []string        `json:"evidence"`
	Category          int             `json:"category"`
}

type rawDialog struct {
	Speaker     string `json:"speaker"`
	DiaID       string `json:"dia_id"`
	Text        string `json:"text"`
	BlipCaption string `json:"blip_caption"`
}

// Load reads a LoCoMo-format JSON file.
func Load(path string) ([]Sample, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open locomo: %w", err)
	}
	defer f.Close()
	return Parse(f)
}

// Parse decodes a LoCoMo-format JSON list.
func Parse(r io.Reader) ([]Sample, error) {
	var raws []rawSample
	if err := json.NewDecoder(r).Decode(&raws); err != nil {
		return nil, fmt.Errorf("decode locomo: %w", err)
	}
	out := make([]Sample, 0, len(raws))
	for i, rs := range raws {
		s, err := convert(rs)
		if err != nil {
			return nil, fmt.Errorf("sample %d (%s): %w", i, rs.SampleID, err)
		}
		out = append(out, s)
	}
	return out, nil
}

var sessionKey = regexp.MustCompile(`^session_(\d+)$`)

func convert(rs rawSample) (Sample, error) {
	s := Sample{ID: rs.SampleID}
	if err := unmarshalString(rs.Conversation["speaker_a"], &s.SpeakerA); err != nil {
		return s, fmt.Errorf("speaker_a: %w", err)
	}
	if err := unmarshalString(rs.Conversation["speaker_b"], &s.SpeakerB); err != nil {
		return s, fmt.Errorf("speaker_b: %w", err)
	}
	// Sessions are counted by their turn lists: the file also has date
	// keys for sessions that hold no turns.
	for k, v := range rs.Conversation {
		m := sessionKey.FindStringSubmatch(k)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		var turns []rawDialog
		if err := json.Unmarshal(v, &turns); err != nil {
			return s, fmt.Errorf("%s: %w", k, err)
		}
		if len(turns) == 0 {
			continue
		}
		sess := Session{N: n}
		_ = unmarshalString(rs.Conversation[k+"_date_time"], &sess.DateRaw)
		if t, err := ParseDate(sess.DateRaw); err == nil {
			sess.Date = t
		}
		for _, t := range turns {
			sess.Turns = append(sess.Turns, Dialog(t))
		}
		s.Sessions = append(s.Sessions, sess)
	}
	sort.Slice(s.Sessions, func(i, j int) bool { return s.Sessions[i].N < s.Sessions[j].N })
	for _, q := range rs.QA {
		qa := QA{Question: q.Question, Category: q.Category, RawEvidence: q.Evidence}
		qa.Answer = scalarText(q.Answer)
		if qa.Answer == "" {
			qa.Answer = scalarText(q.AdversarialAnswer)
		}
		qa.Evidence = NormalizeEvidence(q.Evidence)
		s.QA = append(s.QA, qa)
	}
	return s, nil
}

func unmarshalString(raw json.RawMessage, dst *string) error {
	if raw == nil {
		return nil
	}
	return json.Unmarshal(raw, dst)
}

// scalarText renders a JSON string or number as text ("" for null/absent).
func scalarText(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return strings.TrimSpace(string(raw))
}

var diaID = regexp.MustCompile(`^D(\d+):(\d+)$`)

// NormalizeEvidence repairs the evidence ids as published: entries holding
// several ids ("D8:6; D9:17") are split on ';' and spaces, a stray colon
// after the D ("D:11:26") is removed, and fragments that name no turn at
// all (a bare "D") are dropped. Well-formed ids that match no turn are
// kept: they stay in the recall denominator.
func NormalizeEvidence(raw []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, e := range raw {
		for _, part := range strings.FieldsFunc(e, func(r rune) bool { return r == ';' || r == ' ' || r == ',' }) {
			id := strings.TrimSpace(part)
			if strings.HasPrefix(id, "D:") {
				id = "D" + id[2:]
			}
			if !diaID.MatchString(id) || seen[id] {
				continue
			}
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// ParseDate parses LoCoMo session dates such as "1:56 pm on 8 May, 2023".
func ParseDate(s string) (time.Time, error) {
	s = strings.Join(strings.Fields(s), " ")
	for _, layout := range []string{"3:04 pm on 2 January, 2006", "3:04 PM on 2 January, 2006", "3:04 pm on 2 Jan, 2006"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("parse session date %q", s)
}

// DiaIDs returns the set of dia_ids present in the conversation.
func (s *Sample) DiaIDs() map[string]bool {
	ids := map[string]bool{}
	for _, sess := range s.Sessions {
		for _, d := range sess.Turns {
			ids[d.DiaID] = true
		}
	}
	return ids
}

// LastDate is the date of the latest session (zero when none parsed).
func (s *Sample) LastDate() time.Time {
	var last time.Time
	for _, sess := range s.Sessions {
		if sess.Date.After(last) {
			last = sess.Date
		}
	}
	return last
}
