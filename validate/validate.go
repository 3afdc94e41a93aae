// Package validate checks JSON values against JSON Schemas (drafts 4 to 2020-12) with
// santhosh-tekuri/jsonschema: tool arguments before a call, and structured content
// against a tool's output schema. Schemas are self-contained: a $ref to anything
// outside the schema is refused, never fetched.
package validate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Violation is one way a value fails its schema.
type Violation struct {
	Path    string // JSON pointer into the value ("" is the value itself)
	Message string
}

func (v Violation) String() string {
	p := v.Path
	if p == "" {
		p = "(root)"
	}
	return p + ": " + v.Message
}

// printer renders the library's messages in English.
var printer = message.NewPrinter(language.English)

type noRemote struct{}

func (noRemote) Load(url string) (any, error) {
	return nil, fmt.Errorf("mcpscope does not fetch $ref %q: schemas must be self-contained", url)
}

// Compile prepares a schema. MCP's default dialect is 2020-12 when $schema is absent.
func Compile(schema json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("the schema is not JSON: %w", err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noRemote{})
	const url = "mcpscope:///schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("the schema does not compile: %w", err)
	}
	return s, nil
}

// Check validates value against schema. An error means the schema itself is unusable;
// violations are the value's faults, deepest first in document order.
func Check(schema, value json.RawMessage) ([]Violation, error) {
	s, err := Compile(schema)
	if err != nil {
		return nil, err
	}
	return CheckCompiled(s, value)
}

// CheckCompiled validates value against a compiled schema.
func CheckCompiled(s *jsonschema.Schema, value json.RawMessage) ([]Violation, error) {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(value))
	if err != nil {
		return nil, fmt.Errorf("the value is not JSON: %w", err)
	}
	err = s.Validate(v)
	if err == nil {
		return nil, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil, err
	}
	var out []Violation
	seen := map[string]bool{}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			v := Violation{Path: pointer(e.InstanceLocation), Message: e.ErrorKind.LocalizedString(printer)}
			if key := v.String(); !seen[key] {
				seen[key] = true
				out = append(out, v)
			}
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

func pointer(tokens []string) string {
	if len(tokens) == 0 {
		return ""
	}
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		t = strings.ReplaceAll(t, "~", "~0")
		b.WriteString(strings.ReplaceAll(t, "/", "~1"))
	}
	return b.String()
}
