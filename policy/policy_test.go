package policy

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

func TestDefaultIsValid(t *testing.T) {
	if err := Default().Validate(); err != nil {
		t.Fatalf("default policy invalid: %v", err)
	}
}

// The shipped policy.yaml must equal the built-in defaults and name every
// knob, so the file is the documentation.
func TestShippedPolicyMatchesDefaults(t *testing.T) {
	path := filepath.Join("..", "policy.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Parse(path, data)
	if err != nil {
		t.Fatalf("shipped policy: %v", err)
	}
	if !reflect.DeepEqual(p, Default()) {
		t.Errorf("policy.yaml differs from Default():\nfile:    %+v\ndefault: %+v", p, Default())
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	lines := map[string]int{}
	if err := decodeStrict(path, "", doc.Content[0], reflect.ValueOf(Default()).Elem(), lines); err != nil {
		t.Fatal(err)
	}
	for _, key := range leafKeys("", reflect.TypeOf(Policy{})) {
		if _, ok := lines[key]; !ok {
			t.Errorf("policy.yaml lacks key %s", key)
		}
	}
}

func leafKeys(prefix string, typ reflect.Type) []string {
	var out []string
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		key := join(prefix, strings.Split(f.Tag.Get("yaml"), ",")[0])
		if f.Type.Kind() == reflect.Struct && f.Type != durationType {
			out = append(out, leafKeys(key, f.Type)...)
			continue
		}
		out = append(out, key)
	}
	return out
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, doc string
		key       string
		line      int
		msg       string
	}{
		{"unknown top key", "servr:\n  max_body_bytes: 1\n", "servr", 1, "unknown key"},
		{"unknown nested key", "gate:\n  min_score: 0.3\n  minscore: 0.2\n", "gate.minscore", 3, "unknown key"},
		{"wrong type", "recall:\n  top_k: five\n", "recall.top_k", 2, "expected an integer"},
		{"wrong type bool", "identity:\n  trust_headers: maybe\n", "identity.trust_headers", 2, "boolean"},
		{"list expected", "gate:\n  greetings: hello\n", "gate.greetings", 2, "expected a list"},
		{"mapping expected", "decay: 3\n", "decay", 1, "expected a mapping"},
		{"bad duration", "decay:\n  interval: soon\n", "decay.interval", 2, "invalid duration"},
		{"out of range", "\n\nrecall:\n  weights:\n    similarity: -1\n", "recall.weights.similarity", 5, "out of range"},
		{"bad enum", "inject:\n  placement: top\n", "inject.placement", 2, "one of system, before_last_user"},
		{"bad url", "embedder:\n  base_url: ftp://x\n", "embedder.base_url", 2, "not an http(s) URL"},
		{"dependent", "consolidation:\n  model: gpt-4o-mini\n", "consolidation.base_url", 0, "required when"},
		{"syntax", "gate: [\n", "", 0, "did not find expected"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("p.yaml", []byte(c.doc))
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("want *Error, got %v", err)
			}
			if pe.Key != c.key || pe.Line != c.line || pe.File != "p.yaml" || !strings.Contains(pe.Msg, c.msg) {
				t.Fatalf("got %q (key %q line %d), want key %q line %d containing %q", err, pe.Key, pe.Line, c.key, c.line, c.msg)
			}
			if !strings.HasPrefix(err.Error(), "p.yaml") {
				t.Fatalf("error does not name the file: %v", err)
			}
		})
	}
}

func TestParseOverlaysDefaults(t *testing.T) {
	p, err := Parse("p.yaml", []byte("recall:\n  top_k: 8\ndecay:\n  half_life:\n    event: 7d\n"))
	if err != nil {
		t.Fatal(err)
	}
	if p.Recall.TopK != 8 || p.Decay.HalfLife.Event.D() != 7*24*time.Hour {
		t.Fatalf("overlay not applied: %+v %+v", p.Recall, p.Decay.HalfLife)
	}
	if p.Recall.Candidates != Default().Recall.Candidates || p.Decay.HalfLife.Semantic != Default().Decay.HalfLife.Semantic {
		t.Fatal("absent keys lost their defaults")
	}
	empty, err := Parse("p.yaml", nil)
	if err != nil || !reflect.DeepEqual(empty, Default()) {
		t.Fatalf("empty document should give defaults: %v", err)
	}
}

func TestDurationRoundTrip(t *testing.T) {
	for _, s := range []string{"30s", "10m0s", "30d", "1h30m0s"} {
		d, err := ParseDuration(s)
		if err != nil {
			t.Fatal(err)
		}
		if d.String() != s {
			t.Errorf("%s → %s", s, d)
		}
	}
	if _, err := ParseDuration("5 days"); err == nil {
		t.Fatal("want error")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("recall:\n  top_k: 8\n"))
	f.Add([]byte("gate: [\n"))
	f.Add([]byte("decay:\n  half_life:\n    event: 7d\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse("f.yaml", data)
		if err == nil {
			if verr := p.Validate(); verr != nil {
				t.Fatalf("Parse accepted an invalid policy: %v", verr)
			}
		}
	})
}
