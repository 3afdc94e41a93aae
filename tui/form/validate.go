package form

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	jskind "github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

type validatorState struct {
	done   bool
	schema *jsonschema.Schema
	err    error
}

// noLoader refuses every external $ref: a form never fetches anything.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("not fetched: %s is outside the schema", url)
}

const schemaURL = "file:///mcpscope/schema.json"

// maxValidateCost bounds how many subschemas may apply to one value. A
// schema past it (allOf or anyOf of $refs nested to blow up exponentially)
// would stall the validator, so it is not run.
const maxValidateCost = 100000

// inPlaceCost estimates, for the costliest subschema, how many subschemas
// the validator visits for one instance value through allOf, anyOf, oneOf,
// not, if/then/else, dependentSchemas and $ref.
func inPlaceCost(b *builder, doc any) float64 {
	memo := map[*omap]float64{}
	busy := map[*omap]bool{}
	var cost func(v any, depth int) float64
	cost = func(v any, depth int) float64 {
		s, ok := v.(*omap)
		if !ok || depth > 200 {
			return 1
		}
		if c, ok := memo[s]; ok {
			return c
		}
		if busy[s] {
			return 1 // recursion: driven by the instance, not by the schema
		}
		busy[s] = true
		c := 1.0
		for _, k := range []string{"allOf", "anyOf", "oneOf"} {
			if subs, ok := s.at(k).([]any); ok {
				for _, sub := range subs {
					c += cost(sub, depth+1)
				}
			}
		}
		for _, k := range []string{"not", "if", "then", "else"} {
			if sub, ok := s.get(k); ok {
				c += cost(sub, depth+1)
			}
		}
		if ds, ok := s.at("dependentSchemas").(*omap); ok {
			for _, k := range ds.keys {
				c += cost(ds.vals[k], depth+1)
			}
		}
		if r, ok := refOf(s); ok {
			if t, err := b.lookup(r); err == nil {
				c += cost(t, depth+1)
			}
		}
		busy[s] = false
		memo[s] = c
		return c
	}
	worst := 0.0
	seen := 0
	var walk func(v any, depth int)
	walk = func(v any, depth int) {
		seen++
		if depth > 64 || seen > maxIndexed || worst > maxValidateCost {
			return
		}
		switch t := v.(type) {
		case *omap:
			worst = max(worst, cost(t, 0))
			for _, k := range t.keys {
				switch k {
				case "enum", "const", "default", "examples", "example":
					continue
				}
				walk(t.vals[k], depth+1)
			}
		case []any:
			for _, e := range t {
				walk(e, depth+1)
			}
		}
	}
	walk(doc, 0)
	return worst
}

// compiled returns the compiled schema, compiling it on first use.
func (f *Form) compiled() (*jsonschema.Schema, error) {
	if !f.val.done {
		f.val.done = true
		if c := inPlaceCost(f.b, f.doc); c > maxValidateCost {
			f.val.err = errors.New("it is too complex (nested allOf/anyOf/$ref would take too long)")
			return nil, f.val.err
		}
		f.val.schema, f.val.err = compileSchema(f.schema)
		if f.val.err != nil {
			// A $schema the validator does not know: try the default draft.
			if o, ok := f.doc.(*omap); ok && o.has("$schema") {
				c := o.clone()
				c.del("$schema")
				if s, err := compileSchema(encodeJSON(c, "")); err == nil {
					f.val.schema, f.val.err = s, nil
				}
			}
		}
	}
	return f.val.schema, f.val.err
}

func compileSchema(data []byte) (s *jsonschema.Schema, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("schema compiler failed: %v", r)
		}
	}()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(noLoader{})
	c.AssertFormat()
	if err := c.AddResource(schemaURL, doc); err != nil {
		return nil, err
	}
	return c.Compile(schemaURL)
}

var printer = message.NewPrinter(language.English)

// Validate checks the arguments against the whole schema with
// santhosh-tekuri/jsonschema/v6 (drafts 4 to 2020-12) and returns every
// problem mapped to its field, in form order. The errors are also kept so
// View shows each beside its field; from then on they are checked again
// after every edit, so a fixed field loses its error as the user types.
func (f *Form) Validate() []FieldError {
	f.validated = true
	var errs []FieldError
	var data []byte
	if f.raw {
		v, err := f.rawParse()
		if err != nil {
			errs = []FieldError{{Path: "", Message: err.Error()}}
			f.rawErrs = errs
			return errs
		}
		data = encodeJSON(v, "")
	} else {
		var errs0 []FieldError
		data = encodeJSON(f.rootValue(&errs0), "")
		errs = errs0
	}
	sch, err := f.compiled()
	if err != nil {
		errs = append(errs, FieldError{Path: "", Message: "the schema cannot be used for validation: " + firstLine(err.Error())})
	} else if inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data)); err == nil {
		if verr := validate(sch, inst); verr != nil {
			have := map[string]bool{}
			for _, e := range errs {
				have[e.Path] = true
			}
			for _, e := range f.mapErrors(verr) {
				if !have[e.Path] { // a field that does not parse is reported once
					errs = append(errs, e)
				}
			}
		}
	}
	errs = dedupe(errs)
	f.sortErrors(errs)
	if f.raw {
		f.rawErrs = errs
	}
	f.errs = map[string]string{}
	for _, e := range errs {
		if prev, ok := f.errs[e.Path]; ok {
			f.errs[e.Path] = prev + "; " + e.Message
		} else {
			f.errs[e.Path] = e.Message
		}
	}
	return errs
}

func validate(s *jsonschema.Schema, inst any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("validator failed: %v", r)
		}
	}()
	return s.Validate(inst)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func dedupe(errs []FieldError) []FieldError {
	seen := map[FieldError]bool{}
	out := errs[:0]
	for _, e := range errs {
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	return out
}

// sortErrors orders errors as their fields appear in the form.
func (f *Form) sortErrors(errs []FieldError) {
	order := map[string]int{}
	for i, r := range f.rows() {
		if _, ok := order[r.path]; !ok {
			order[r.path] = i
		}
	}
	pos := func(p string) int {
		for {
			if i, ok := order[p]; ok {
				return i
			}
			k := strings.LastIndexByte(p, '/')
			if k < 0 {
				return -1
			}
			p = p[:k]
		}
	}
	// insertion sort: stable and the lists are short
	for i := 1; i < len(errs); i++ {
		for j := i; j > 0 && pos(errs[j].Path) < pos(errs[j-1].Path); j-- {
			errs[j], errs[j-1] = errs[j-1], errs[j]
		}
	}
}

func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(ptrEscape(t))
	}
	return b.String()
}

// mapErrors flattens the validator's error tree into field errors. For
// oneOf/anyOf it follows the variant the form has chosen (or the only one
// that is not a plain type mismatch) so the user sees what to fix rather
// than every variant's complaint.
func (f *Form) mapErrors(err error) []FieldError {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return []FieldError{{Path: "", Message: firstLine(err.Error())}}
	}
	var out []FieldError
	var walk func(e *jsonschema.ValidationError, depth int)
	walk = func(e *jsonschema.ValidationError, depth int) {
		loc := pointer(e.InstanceLocation)
		if depth > 64 {
			out = append(out, FieldError{loc, e.ErrorKind.LocalizedString(printer)})
			return
		}
		switch k := e.ErrorKind.(type) {
		case *jskind.Required:
			for _, m := range k.Missing {
				out = append(out, FieldError{loc + "/" + ptrEscape(m), "required"})
			}
			return
		case *jskind.AnyOf, *jskind.OneOf:
			if len(e.Causes) == 0 {
				out = append(out, FieldError{loc, unionMessage(e)})
				return
			}
			if cs := f.pickCauses(e); cs != nil {
				for _, c := range cs {
					walk(c, depth+1)
				}
				return
			}
			out = append(out, FieldError{loc, unionMessage(e)})
			return
		}
		if len(e.Causes) == 0 {
			out = append(out, FieldError{loc, e.ErrorKind.LocalizedString(printer)})
			return
		}
		for _, c := range e.Causes {
			walk(c, depth+1)
		}
	}
	walk(ve, 0)
	return out
}

func unionMessage(e *jsonschema.ValidationError) string {
	if k, ok := e.ErrorKind.(*jskind.OneOf); ok && len(k.Subschemas) > 1 {
		return fmt.Sprintf("matches more than one variant (%d and %d); oneOf needs exactly one", k.Subschemas[0]+1, k.Subschemas[1]+1)
	}
	return "matches none of the allowed variants"
}

// pickCauses chooses which variant's errors to show: those of the variant
// the form has chosen, else those of the only variant that is not a plain
// type mismatch.
func (f *Form) pickCauses(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	kw := "anyOf"
	if _, ok := e.ErrorKind.(*jskind.OneOf); ok {
		kw = "oneOf"
	}
	if n := f.unionAt(e.InstanceLocation); n != nil && n.unionKw == kw {
		prefix := e.SchemaURL + "/" + kw + "/" + strconv.Itoa(n.vsel)
		var mine []*jsonschema.ValidationError
		for _, c := range e.Causes {
			if c.SchemaURL == prefix || strings.HasPrefix(c.SchemaURL, prefix+"/") {
				mine = append(mine, c)
			}
		}
		if len(mine) > 0 {
			return mine
		}
	}
	var fit []*jsonschema.ValidationError
	for _, c := range e.Causes {
		if !typeMismatch(c, e.InstanceLocation) {
			fit = append(fit, c)
		}
	}
	if len(fit) == 1 {
		return fit
	}
	return nil
}

// typeMismatch reports whether a variant failed only because the value has
// another type (the variant plainly does not apply).
func typeMismatch(c *jsonschema.ValidationError, loc []string) bool {
	for len(c.Causes) == 1 {
		if _, ok := c.ErrorKind.(*jskind.Type); ok {
			break
		}
		c = c.Causes[0]
	}
	switch c.ErrorKind.(type) {
	case *jskind.Type, *jskind.Const, *jskind.Enum:
		return len(c.InstanceLocation) == len(loc)
	}
	return false
}

// unionAt finds the oneOf/anyOf node whose value is at the location.
func (f *Form) unionAt(loc []string) *node {
	n := f.root
	for i := 0; ; {
		for n.k == kUnion {
			if i == len(loc) {
				return n
			}
			n = n.kid(n.vsel)
		}
		if i == len(loc) {
			return nil
		}
		tok := loc[i]
		i++
		switch n.k {
		case kObject:
			var next *node
			for _, c := range n.props {
				if c.key == tok {
					next = c
					break
				}
			}
			if next == nil {
				return nil
			}
			n = next
		case kArray:
			j, err := strconv.Atoi(tok)
			if err != nil || j < 0 || j >= len(n.items) {
				return nil
			}
			n = n.items[j]
		default:
			return nil
		}
	}
}
