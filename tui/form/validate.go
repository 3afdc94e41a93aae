package form

import (
	"github.com/mcpscope/mcpscope/fields"

	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/santhosh-tekuri/jsonschema/v6"
	jskind "github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/mcpscope/mcpscope/validate"
)

type validatorState struct {
	once   sync.Once // compiled on first use, by whichever goroutine checks first
	schema *validate.Schema
	err    error
	runs   atomic.Int64 // validations run (tests count them)
}

// Checks is how many times the validator has run on this form's arguments.
func (f *Form) Checks() int64 { return f.val.runs.Load() }

// compiled returns the compiled schema, compiling it on first use. It is safe to call
// from a command's goroutine.
func (f *Form) compiled() (*validate.Schema, error) {
	f.val.once.Do(func() {
		f.val.schema, f.val.err = validate.Compile(f.schema, validate.AssertFormats())
	})
	return f.val.schema, f.val.err
}

var printer = message.NewPrinter(language.English)

// snapshot is what a validation needs from the form, taken on the owner's goroutine:
// the value as JSON and the fields that do not parse.
type snapshot struct {
	raw  bool
	data []byte
	errs []FieldError // fields that do not parse (or the raw text)
	bad  bool         // the raw text is not JSON: nothing to validate
}

func (f *Form) snapshot() snapshot {
	if f.raw {
		v, err := f.rawParse()
		if err != nil {
			return snapshot{raw: true, errs: []FieldError{{Path: "", Message: err.Error()}}, bad: true}
		}
		return snapshot{raw: true, data: fields.Encode(v, "")}
	}
	var errs []FieldError
	data := fields.Encode(f.rootValue(&errs), "")
	return snapshot{data: data, errs: errs}
}

// check runs the validator on a snapshot; it touches nothing of the form but its
// compiled schema, so it runs in a command, off the UI goroutine.
func (f *Form) check(sn snapshot) (verr, schemaErr error) {
	if sn.bad {
		return nil, nil
	}
	sch, err := f.compiled()
	if err != nil {
		return nil, err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(sn.data))
	if err != nil {
		return nil, nil
	}
	err = sch.Validate(inst)
	if errors.Is(err, validate.ErrTooCostly) {
		return nil, err // the guard refused: the validator did not run
	}
	f.val.runs.Add(1)
	return err, nil
}

// Validate checks the arguments against the whole schema with
// santhosh-tekuri/jsonschema/v6 (drafts 4 to 2020-12, through package validate and
// its cost guard) and returns every problem mapped to its field, in form order. The
// errors are also kept so View shows each beside its field; from then on they are
// checked again after edits (by the command Update returns), so a fixed field loses
// its error as the user types.
//
// Validate runs the validator on the caller's goroutine; CheckCmd runs it in a
// command.
func (f *Form) Validate() []FieldError {
	f.validated = true
	sn := f.snapshot()
	verr, serr := f.check(sn)
	return f.apply(sn, verr, serr)
}

// apply turns a validation's outcome into field errors, stores them for View and
// returns them. It reads the form, so it runs on the owner's goroutine.
func (f *Form) apply(sn snapshot, verr, schemaErr error) []FieldError {
	errs := append([]FieldError(nil), sn.errs...)
	switch {
	case sn.bad:
		f.rawErrs = errs
		return errs
	case errors.Is(schemaErr, validate.ErrTooCostly):
		errs = append(errs, FieldError{Path: "", Message: notValidated})
	case schemaErr != nil:
		errs = append(errs, FieldError{Path: "", Message: "the schema cannot be used for validation: " + firstLine(schemaErr.Error())})
	case verr != nil:
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
	errs = dedupe(errs)
	f.sortErrors(errs)
	if sn.raw {
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

const notValidated = "arguments not validated: too costly (the schema would take too long to check)"

// NotValidated reports the error that says the arguments were not validated because
// the schema is too costly to check (not a fault of the arguments).
func NotValidated(e FieldError) bool { return e.Path == "" && e.Message == notValidated }

// Msg is a message of the form's own commands (a check that is due, or done). The
// owner passes it back to Handle on its goroutine.
type Msg interface{ form() *Form }

type checkDue struct {
	f   *Form
	gen int
}

type checkDone struct {
	f         *Form
	gen       int
	sn        snapshot
	verr, err error
	then      func([]FieldError) tea.Msg
}

func (m checkDue) form() *Form  { return m.f }
func (m checkDone) form() *Form { return m.f }

// Handle applies one of the form's own messages to the form that sent it, and returns
// the next command.
func Handle(msg Msg) tea.Cmd {
	f := msg.form()
	switch m := msg.(type) {
	case checkDue:
		if m.gen != f.gen {
			return nil // more edits came: their own check is due later
		}
		return f.checkCmd(nil)
	case checkDone:
		var errs []FieldError
		if m.gen == f.gen {
			errs = f.apply(m.sn, m.verr, m.err)
		} else {
			// The form changed since: the errors belong to the value checked, which
			// is what the caller asked about; the form's own check is due again.
			errs = f.mapErrorsOf(m)
		}
		if m.then != nil {
			out := m.then(errs)
			return func() tea.Msg { return out }
		}
	}
	return nil
}

// mapErrorsOf is apply without storing anything.
func (f *Form) mapErrorsOf(m checkDone) []FieldError {
	errs := append([]FieldError(nil), m.sn.errs...)
	if m.err != nil {
		return append(errs, FieldError{Path: "", Message: firstLine(m.err.Error())})
	}
	if m.verr != nil {
		errs = append(errs, f.mapErrors(m.verr)...)
	}
	return dedupe(errs)
}

// CheckCmd validates the arguments as they are now in a command, off the caller's
// goroutine. When it is done (its message passed to Handle), the errors show beside
// their fields, and then, if not nil, receives them and its message is delivered.
func (f *Form) CheckCmd(then func([]FieldError) tea.Msg) tea.Cmd {
	f.validated = true
	return f.checkCmd(then)
}

func (f *Form) checkCmd(then func([]FieldError) tea.Msg) tea.Cmd {
	sn, gen := f.snapshot(), f.gen
	return func() tea.Msg {
		verr, err := f.check(sn)
		return checkDone{f: f, gen: gen, sn: sn, verr: verr, err: err, then: then}
	}
}

// A check is done at once, on the caller's goroutine, when it is cheap by
// construction: a schema and a value of at most 64 KiB each, and at most
// quickBudget schema applications. Anything bigger goes to a command.
const (
	quickSize   = 64 << 10
	quickBudget = 20000
)

func (f *Form) quick() (sn snapshot, verr, serr error, ok bool) {
	if len(f.schema) > quickSize {
		return sn, nil, nil, false
	}
	sn = f.snapshot()
	if len(sn.data) > quickSize {
		return sn, nil, nil, false
	}
	if sn.bad {
		return sn, nil, nil, true
	}
	sch, err := f.compiled()
	if err != nil {
		return sn, nil, err, true
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(sn.data))
	if err != nil {
		return sn, nil, nil, true
	}
	if _, cheap := validate.Cost(sch.Compiled(), inst, quickBudget); !cheap {
		return sn, nil, nil, false
	}
	f.val.runs.Add(1)
	if err := sch.Validate(inst); err != nil {
		if errors.Is(err, validate.ErrTooCostly) {
			return sn, nil, err, true
		}
		return sn, err, nil, true
	}
	return sn, nil, nil, true
}

// QuickCheck validates the arguments at once when that is cheap (a small schema and
// value), storing the errors for View like Validate; ok is false when the check
// would be costly, and then nothing was done: use CheckCmd.
func (f *Form) QuickCheck() (errs []FieldError, ok bool) {
	sn, verr, serr, ok := f.quick()
	if !ok {
		return nil, false
	}
	f.validated = true
	f.gen++ // a check still running is stale
	return f.apply(sn, verr, serr), true
}

// debounce is how long the form waits after an edit before checking the value again:
// typing costs the field edited, the check runs once the user pauses.
var debounce = 150 * time.Millisecond

// due returns the command that checks the value again after edits, if one is needed.
func (f *Form) due() tea.Cmd {
	if !f.dirty {
		return nil
	}
	f.dirty = false
	msg := checkDue{f: f, gen: f.gen}
	if debounce <= 0 {
		return func() tea.Msg { return msg }
	}
	return tea.Tick(debounce, func(time.Time) tea.Msg { return msg })
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
		b.WriteString(fields.PtrEscape(t))
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
				out = append(out, FieldError{loc + "/" + fields.PtrEscape(m), "required"})
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
