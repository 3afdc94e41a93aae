// Package validate checks JSON values against JSON Schemas (drafts 4 to 2020-12) with
// santhosh-tekuri/jsonschema: tool arguments before a call, and structured content
// against a tool's output schema. Schemas are self-contained: a $ref to anything
// outside the schema is refused, never fetched.
//
// One cost guard covers every validation: before the validator runs, the work it would
// do (schemas applied to values, through allOf, anyOf, $ref and the rest) is counted
// against a budget; past it, the value is not validated and the outcome is
// ErrTooCostly. A server's schema can make validation exponential (allOf of two $refs
// nested 30 deep); the guard keeps that from stalling anything.
package validate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// DefaultBudget is how many schema applications one validation may cost.
const DefaultBudget = 250000

// ErrTooCostly is the outcome for a schema whose check would cost more than the
// budget: the value was not validated.
var ErrTooCostly = errors.New("not validated: too costly (checking against this schema would take too long)")

// MaxSchemaObjects bounds the size of a schema that is compiled at all.
const MaxSchemaObjects = 25000

// objects counts the JSON objects in v, stopping past limit.
func objects(v any, limit int) int {
	n := 0
	var walk func(v any)
	walk = func(v any) {
		if n > limit {
			return
		}
		switch t := v.(type) {
		case map[string]any:
			n++
			for _, c := range t {
				walk(c)
			}
		case []any:
			for _, c := range t {
				walk(c)
			}
		}
	}
	walk(v)
	return n
}

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
	return nil, fmt.Errorf("mcpscope does not fetch $ref %q: it is outside the schema, and schemas must be self-contained", url)
}

// Option changes how a schema is compiled.
type Option func(*config)

type config struct{ formats bool }

// AssertFormats makes "format" an assertion (an argument form wants a bad date
// flagged), not only an annotation as 2020-12 has it by default.
func AssertFormats() Option { return func(c *config) { c.formats = true } }

// Schema is a compiled schema with its cost guard.
type Schema struct {
	s *jsonschema.Schema
	// Budget is how many schema applications a validation may cost (DefaultBudget
	// when 0).
	Budget int
}

// Compiled is the library's compiled schema (to map its errors in detail).
func (s *Schema) Compiled() *jsonschema.Schema { return s.s }

// Compile prepares a schema. MCP's default dialect is 2020-12 when $schema is absent;
// a $schema the validator does not know falls back to it.
func Compile(schema json.RawMessage, opts ...Option) (*Schema, error) {
	var cfg config
	for _, o := range opts {
		o(&cfg)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("the schema is not JSON: %w", err)
	}
	if n := objects(doc, MaxSchemaObjects+1); n > MaxSchemaObjects {
		// The library's compiler takes time quadratic in the subschemas: 10,000 cost
		// a third of a second, 100,000 would cost half a minute.
		return nil, fmt.Errorf("%w: more than %d subschemas", ErrTooCostly, MaxSchemaObjects)
	}
	s, err := compileDoc(doc, cfg)
	if err != nil {
		if m, ok := doc.(map[string]any); ok {
			if _, has := m["$schema"]; has {
				c := make(map[string]any, len(m))
				for k, v := range m {
					if k != "$schema" {
						c[k] = v
					}
				}
				if s2, err2 := compileDoc(c, cfg); err2 == nil {
					return &Schema{s: s2}, nil
				}
			}
		}
		return nil, fmt.Errorf("the schema does not compile: %w", err)
	}
	return &Schema{s: s}, nil
}

func compileDoc(doc any, cfg config) (s *jsonschema.Schema, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("schema compiler failed: %v", r)
		}
	}()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noRemote{})
	if cfg.formats {
		c.AssertFormat()
	}
	const url = "mcpscope:///schema.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// runs counts validations that ran (past the guard), for tests.
var runs atomic.Int64

// Runs reports how many validations have run the validator (tests use it to see
// that work happened off the UI's goroutine, or not at all).
func Runs() int64 { return runs.Load() }

// Validate checks a value decoded by jsonschema.UnmarshalJSON (or any JSON value of
// maps, slices, strings, json.Number or float64, bools and nil). It returns nil,
// a *jsonschema.ValidationError, ErrTooCostly, or another error when the validator
// itself fails.
func (s *Schema) Validate(inst any) (err error) {
	budget := s.Budget
	if budget <= 0 {
		budget = DefaultBudget
	}
	if _, ok := Cost(s.s, inst, budget); !ok {
		return ErrTooCostly
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("validator failed: %v", r)
		}
	}()
	runs.Add(1)
	return s.s.Validate(inst)
}

// Check validates value against schema. An error means the schema itself is unusable
// or too costly to check (ErrTooCostly); violations are the value's faults, in
// document order.
func Check(schema, value json.RawMessage) ([]Violation, error) {
	s, err := Compile(schema)
	if err != nil {
		return nil, err
	}
	return s.Check(value)
}

// Check validates a JSON value.
func (s *Schema) Check(value json.RawMessage) ([]Violation, error) {
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
			v := Violation{Path: Pointer(e.InstanceLocation), Message: e.ErrorKind.LocalizedString(printer)}
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

// Pointer is the JSON pointer of an instance location.
func Pointer(tokens []string) string {
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
