package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"

	"go.yaml.in/yaml/v3"
)

// FileError is a bad value in a config file.
type FileError struct {
	Path, Key, Value string
	Line             int
	Err              error // says what is accepted
}

func (e *FileError) Error() string {
	return fmt.Sprintf("invalid value %q for %s in config file %s (line %d): %v", e.Value, e.Key, e.Path, e.Line, e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

// ApplyFile sets the options with a Key from the YAML file at path. Every
// scalar value goes through the option's own parser, so a file takes the
// same spellings (sizes with KiB/MiB/GiB, durations with units) and gives
// the same errors as a flag; an unknown key is an error, so a typo cannot
// silently leave a default in place.
func ApplyFile(path string, opts []Option) error {
	raw, err := readFile(path)
	if err != nil {
		return err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		return fmt.Errorf("config file %s: %w", path, err)
	}
	if len(doc.Content) == 0 {
		return nil // an empty file
	}
	f := fileWalk{path: path, raw: raw, keys: map[string]Option{}, inner: map[string]bool{}}
	for _, o := range opts {
		if o.Key == "" {
			continue
		}
		f.keys[o.Key] = o
		parts := strings.Split(o.Key, ".")
		for i := 1; i < len(parts); i++ {
			f.inner[strings.Join(parts[:i], ".")] = true
		}
	}
	return f.mapping("", doc.Content[0])
}

// MaxFileBytes bounds a config file: real ones are a few KiB, and a path
// to a device (/dev/zero) or a runaway generated file must fail, not fill
// memory.
const MaxFileBytes = 1 << 20

func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading config: %w", err)
	}
	if len(raw) > MaxFileBytes {
		return nil, fmt.Errorf("config file %s is larger than %d bytes", path, MaxFileBytes)
	}
	return raw, nil
}

type fileWalk struct {
	path  string
	raw   []byte
	keys  map[string]Option
	inner map[string]bool // keys that hold a mapping of further keys
}

func (f fileWalk) mapping(prefix string, n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		where := "the file"
		if prefix != "" {
			where = prefix
		}
		return fmt.Errorf("config file %s (line %d): %s must be a mapping of keys", f.path, n.Line, where)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if v.Kind == yaml.AliasNode {
			v = v.Alias
		}
		key := k.Value
		if prefix != "" {
			key = prefix + "." + key
		}
		if o, ok := f.keys[key]; ok {
			if sec, ok := o.Value.(sectionValue); ok {
				if err := sec.decode(f.raw, key); err != nil {
					return fmt.Errorf("config file %s: %w", f.path, err)
				}
				continue
			}
			if err := f.set(o, v); err != nil {
				return &FileError{Path: f.path, Key: key, Value: redact(o.Value, describeNode(v)), Line: v.Line, Err: err}
			}
			continue
		}
		if f.inner[key] {
			if err := f.mapping(key, v); err != nil {
				return err
			}
			continue
		}
		return fmt.Errorf("config file %s (line %d): unknown key %q", f.path, k.Line, key)
	}
	return nil
}

func (f fileWalk) set(o Option, v *yaml.Node) error {
	switch {
	case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
		return nil // "key:" with nothing keeps the default
	case v.Kind == yaml.ScalarNode:
		return o.Value.Set(v.Value)
	case v.Kind == yaml.SequenceNode:
		l, ok := o.Value.(listSetter)
		if !ok {
			return errors.New("want a single value, not a list")
		}
		items := make([]string, 0, len(v.Content))
		for _, item := range v.Content {
			if item.Kind != yaml.ScalarNode {
				return errors.New("want a list of plain values")
			}
			items = append(items, item.Value)
		}
		return l.setList(items)
	case v.Kind == yaml.MappingNode:
		m, ok := o.Value.(interface{ setMap(map[string]string) error })
		if !ok {
			break
		}
		items := map[string]string{}
		for i := 0; i+1 < len(v.Content); i += 2 {
			k, val := v.Content[i], v.Content[i+1]
			if k.Kind != yaml.ScalarNode || val.Kind != yaml.ScalarNode {
				return errors.New("want a mapping of plain values")
			}
			items[k.Value] = val.Value
		}
		return m.setMap(items)
	}
	return errors.New("want a single value, not a mapping")
}

func describeNode(v *yaml.Node) string {
	if v.Kind == yaml.ScalarNode {
		return v.Value
	}
	out, _ := yaml.Marshal(v)
	return strings.TrimSpace(string(out))
}

// sectionValue is a structured part of a config file (a list of mappings,
// say) decoded by the YAML package into a Go value; it has no flag or
// variable, only a top-level Key.
type sectionValue struct{ p any }

func (sectionValue) Set(string) error { return nil }
func (sectionValue) String() string   { return "" }

// decode reads the section from the whole file, so the YAML package's
// errors carry the file's own line numbers; unknown fields are refused.
func (s sectionValue) decode(raw []byte, key string) error {
	if strings.Contains(key, ".") {
		return fmt.Errorf("section %q: only top-level keys can be sections", key)
	}
	// A struct with the section as its one field and an inline map taking
	// every other key, which the option table has checked.
	t := reflect.StructOf([]reflect.StructField{
		{Name: "Section", Type: reflect.TypeOf(s.p), Tag: reflect.StructTag(`yaml:"` + key + `"`)},
		{Name: "Rest", Type: reflect.TypeOf(map[string]yaml.Node{}), Tag: `yaml:",inline"`},
	})
	holder := reflect.New(t)
	holder.Elem().Field(0).Set(reflect.ValueOf(s.p))
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(holder.Interface()); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}
