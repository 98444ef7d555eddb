package policy

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

// Error is a policy problem a person can act on: the file, the key path,
// the line and what is allowed.
type Error struct {
	File string
	Key  string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(cmpOr(e.File, "policy"))
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Key != "" {
		b.WriteString(": " + e.Key)
	}
	b.WriteString(": " + e.Msg)
	return b.String()
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// LoadFile reads path over Default() and validates the result.
func LoadFile(path string) (*Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read policy: %w", err)
	}
	return Parse(path, data)
}

// Parse overlays the YAML document data (named file in errors) on Default()
// and validates it. Keys absent from the document keep their defaults.
func Parse(file string, data []byte) (*Policy, error) {
	p := Default()
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, &Error{File: file, Msg: strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	lines := map[string]int{}
	if len(doc.Content) > 0 {
		if err := decodeStrict(file, "", doc.Content[0], reflect.ValueOf(p).Elem(), lines); err != nil {
			return nil, err
		}
	}
	if err := p.Validate(); err != nil {
		var pe *Error
		if errors.As(err, &pe) {
			pe.File = file
			pe.Line = lines[pe.Key]
		}
		return nil, err
	}
	return p, nil
}

var durationType = reflect.TypeOf(Duration(0))

// decodeStrict walks node and the struct v together so an unknown key or a
// wrong type is reported with its full key path and line.
func decodeStrict(file, path string, node *yaml.Node, v reflect.Value, lines map[string]int) error {
	if path != "" {
		lines[path] = node.Line
	}
	if v.Kind() == reflect.Struct && v.Type() != durationType {
		if node.Kind != yaml.MappingNode {
			if node.Tag == "!!null" {
				return nil
			}
			return &Error{File: file, Key: path, Line: node.Line, Msg: "expected a mapping of keys"}
		}
		fields := map[string]reflect.Value{}
		var names []string
		for i := 0; i < v.NumField(); i++ {
			tag := strings.Split(v.Type().Field(i).Tag.Get("yaml"), ",")[0]
			fields[tag] = v.Field(i)
			names = append(names, tag)
		}
		for i := 0; i+1 < len(node.Content); i += 2 {
			k, val := node.Content[i], node.Content[i+1]
			key := join(path, k.Value)
			f, ok := fields[k.Value]
			if !ok {
				return &Error{File: file, Key: key, Line: k.Line, Msg: "unknown key (allowed: " + strings.Join(names, ", ") + ")"}
			}
			lines[key] = k.Line
			if err := decodeStrict(file, key, val, f, lines); err != nil {
				return err
			}
		}
		return nil
	}
	if v.Type() == durationType {
		if node.Kind != yaml.ScalarNode {
			return &Error{File: file, Key: path, Line: node.Line, Msg: "expected a duration such as 30s, 10m, 12h or 30d"}
		}
		d, err := ParseDuration(node.Value)
		if err != nil {
			return &Error{File: file, Key: path, Line: node.Line, Msg: err.Error() + "; use e.g. 30s, 10m, 12h, 30d"}
		}
		v.Set(reflect.ValueOf(d))
		return nil
	}
	if v.Kind() == reflect.Slice && node.Kind != yaml.SequenceNode {
		return &Error{File: file, Key: path, Line: node.Line, Msg: "expected a list"}
	}
	if v.Kind() != reflect.Slice && node.Kind != yaml.ScalarNode {
		return &Error{File: file, Key: path, Line: node.Line, Msg: "expected a single " + kindName(v.Kind())}
	}
	tmp := reflect.New(v.Type())
	if err := node.Decode(tmp.Interface()); err != nil {
		return &Error{File: file, Key: path, Line: node.Line, Msg: fmt.Sprintf("expected %s, got %q", kindName(v.Kind()), node.Value)}
	}
	v.Set(tmp.Elem())
	return nil
}

func kindName(k reflect.Kind) string {
	switch k {
	case reflect.Bool:
		return "a boolean (true/false)"
	case reflect.Int, reflect.Int64:
		return "an integer"
	case reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return "a list"
	}
	return k.String()
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
