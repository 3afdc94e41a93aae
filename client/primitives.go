package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"

	"github.com/mcpscope/mcpscope/internal/jsonscan"
)

// fields reads an object member by member, noting a member of the wrong JSON type as
// a problem instead of failing: the tolerant decoding of tool.go for every other
// object a server lists.
type fields struct {
	m        map[string]json.RawMessage
	problems []string
	prefix   string
}

func newFields(raw json.RawMessage, prefix string) (*fields, bool) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, false
	}
	return &fields{m: m, prefix: prefix}, true
}

func (f *fields) str(key string) string {
	v, ok := f.m[key]
	delete(f.m, key)
	if !ok || string(v) == "null" {
		return ""
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		f.problems = append(f.problems, fmt.Sprintf("%s%s is %s, not a string", f.prefix, key, jsonKind(v)))
		return string(v)
	}
	return s
}

func (f *fields) boolean(key string) bool {
	v, ok := f.m[key]
	delete(f.m, key)
	if !ok || string(v) == "null" {
		return false
	}
	var b bool
	if err := json.Unmarshal(v, &b); err != nil {
		f.problems = append(f.problems, fmt.Sprintf("%s%s is %s, not a boolean", f.prefix, key, jsonKind(v)))
	}
	return b
}

func (f *fields) int64p(key string) *int64 {
	v, ok := f.m[key]
	delete(f.m, key)
	if !ok || string(v) == "null" {
		return nil
	}
	var n int64
	if err := json.Unmarshal(v, &n); err != nil {
		f.problems = append(f.problems, fmt.Sprintf("%s%s is %s, not an integer", f.prefix, key, jsonKind(v)))
		return nil
	}
	return &n
}

func (f *fields) raw(key string) json.RawMessage {
	v := f.m[key]
	delete(f.m, key)
	return v
}

func (f *fields) rest() map[string]json.RawMessage {
	if len(f.m) == 0 {
		return nil
	}
	return f.m
}

// Resource is one entry of resources/list.
type Resource struct {
	URI         string
	Name        string
	Title       string
	Description string
	MIMEType    string
	Size        *int64
	Annotations json.RawMessage
	Icons       json.RawMessage
	Meta        json.RawMessage
	Extra       map[string]json.RawMessage
	Raw         json.RawMessage
	Problems    []string
}

// DisplayName is the title, else the name, else the URI.
func (r Resource) DisplayName() string {
	switch {
	case r.Title != "":
		return r.Title
	case r.Name != "":
		return r.Name
	}
	return r.URI
}

func decodeResource(raw json.RawMessage) (Resource, bool) {
	f, ok := newFields(raw, "")
	if !ok {
		return Resource{Raw: raw}, false
	}
	r := Resource{Raw: raw}
	r.URI = f.str("uri")
	r.Name = f.str("name")
	r.Title = f.str("title")
	r.Description = f.str("description")
	r.MIMEType = f.str("mimeType")
	r.Size = f.int64p("size")
	r.Annotations = f.raw("annotations")
	r.Icons = f.raw("icons")
	r.Meta = f.raw("_meta")
	r.Extra = f.rest()
	r.Problems = f.problems
	if r.URI == "" {
		r.Problems = append(r.Problems, "uri is missing")
	}
	return r, true
}

// ResourceTemplate is one entry of resources/templates/list.
type ResourceTemplate struct {
	URITemplate string
	Name        string
	Title       string
	Description string
	MIMEType    string
	Annotations json.RawMessage
	Icons       json.RawMessage
	Meta        json.RawMessage
	Extra       map[string]json.RawMessage
	Raw         json.RawMessage
	Problems    []string
}

// DisplayName is the title, else the name, else the URI template.
func (t ResourceTemplate) DisplayName() string {
	switch {
	case t.Title != "":
		return t.Title
	case t.Name != "":
		return t.Name
	}
	return t.URITemplate
}

// Variables lists the template's variables in order of appearance; an error says why
// the template does not parse (RFC 6570).
func (t ResourceTemplate) Variables() ([]string, error) {
	tpl, err := uritemplate.New(t.URITemplate)
	if err != nil {
		return nil, fmt.Errorf("the URI template %q does not parse: %v", t.URITemplate, err)
	}
	return tpl.Varnames(), nil
}

// Expand fills the template's variables; a variable missing from values is left
// empty, as RFC 6570 says.
func (t ResourceTemplate) Expand(values map[string]string) (string, error) {
	tpl, err := uritemplate.New(t.URITemplate)
	if err != nil {
		return "", fmt.Errorf("the URI template %q does not parse: %v", t.URITemplate, err)
	}
	vals := uritemplate.Values{}
	for k, v := range values {
		vals.Set(k, uritemplate.String(v))
	}
	return tpl.Expand(vals)
}

func decodeTemplate(raw json.RawMessage) (ResourceTemplate, bool) {
	f, ok := newFields(raw, "")
	if !ok {
		return ResourceTemplate{Raw: raw}, false
	}
	t := ResourceTemplate{Raw: raw}
	t.URITemplate = f.str("uriTemplate")
	t.Name = f.str("name")
	t.Title = f.str("title")
	t.Description = f.str("description")
	t.MIMEType = f.str("mimeType")
	t.Annotations = f.raw("annotations")
	t.Icons = f.raw("icons")
	t.Meta = f.raw("_meta")
	t.Extra = f.rest()
	t.Problems = f.problems
	if t.URITemplate == "" {
		t.Problems = append(t.Problems, "uriTemplate is missing")
	} else if _, err := t.Variables(); err != nil {
		t.Problems = append(t.Problems, err.Error())
	}
	return t, true
}

// Prompt is one entry of prompts/list.
type Prompt struct {
	Name        string
	Title       string
	Description string
	Arguments   []PromptArgument
	Icons       json.RawMessage
	Meta        json.RawMessage
	Extra       map[string]json.RawMessage
	Raw         json.RawMessage
	Problems    []string
}

// PromptArgument is one argument a prompt takes.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// DisplayName is the title, else the name.
func (p Prompt) DisplayName() string {
	if p.Title != "" {
		return p.Title
	}
	return p.Name
}

func decodePrompt(raw json.RawMessage) (Prompt, bool) {
	f, ok := newFields(raw, "")
	if !ok {
		return Prompt{Raw: raw}, false
	}
	p := Prompt{Raw: raw}
	p.Name = f.str("name")
	p.Title = f.str("title")
	p.Description = f.str("description")
	p.Icons = f.raw("icons")
	p.Meta = f.raw("_meta")
	if args := f.raw("arguments"); args != nil && string(args) != "null" {
		var items []json.RawMessage
		if err := json.Unmarshal(args, &items); err != nil {
			f.problems = append(f.problems, fmt.Sprintf("arguments is %s, not an array", jsonKind(args)))
		}
		for i, it := range items {
			af, ok := newFields(it, fmt.Sprintf("arguments[%d].", i))
			if !ok {
				f.problems = append(f.problems, fmt.Sprintf("arguments[%d] is not an object", i))
				continue
			}
			a := PromptArgument{Name: af.str("name"), Title: af.str("title"), Description: af.str("description"), Required: af.boolean("required")}
			f.problems = append(f.problems, af.problems...)
			p.Arguments = append(p.Arguments, a)
		}
	}
	p.Extra = f.rest()
	p.Problems = f.problems
	if p.Name == "" {
		p.Problems = append(p.Problems, "name is missing")
	}
	return p, true
}

// List is every page of one list method.
type List[T any] struct {
	Items    []T
	Pages    int
	Problems []string // what was wrong with the list itself, and with each item
}

// pageFunc fetches one page's raw result.
type pageFunc func(cursor string) (json.RawMessage, error)

// listPages follows nextCursor through every page, decoding member's items with
// decode. A page that is not an object fails the list; everything else is a problem.
func listPages[T any](method, member string, page pageFunc, decode func(json.RawMessage) (T, bool), itemProblems func(T) []string, name func(T) string) (*List[T], error) {
	list := &List[T]{}
	seen := map[string]bool{}
	index := 0 // of the item across pages
	cursor := ""
	for {
		list.Pages++
		result, err := page(cursor)
		if err != nil {
			return nil, err
		}
		var p map[string]json.RawMessage
		if err := json.Unmarshal(result, &p); err != nil || p == nil {
			return nil, fmt.Errorf("the %s result is not an object: %s", method, abbreviate(result, 80))
		}
		if rt := resultTypeOf(p); rt != "complete" {
			list.Problems = append(list.Problems, fmt.Sprintf("a %s result has resultType %q, which a list never has; its items are shown anyway", method, rt))
		}
		items, ok := p[member]
		if !ok {
			list.Problems = append(list.Problems, fmt.Sprintf("a %s result has no %s member", method, member))
		} else {
			var raws []json.RawMessage
			if err := json.Unmarshal(items, &raws); err != nil {
				list.Problems = append(list.Problems, fmt.Sprintf("%s is %s, not an array", member, jsonKind(items)))
			}
			for _, it := range raws {
				index++
				v, ok := decode(it)
				if !ok {
					list.Problems = append(list.Problems, fmt.Sprintf("%s[%d] is not an object: %s", member, index-1, abbreviate(it, 60)))
					continue
				}
				for _, pr := range itemProblems(v) {
					list.Problems = append(list.Problems, fmt.Sprintf("%s %q: %s", strings.TrimSuffix(member, "s"), name(v), pr))
				}
				list.Items = append(list.Items, v)
			}
		}
		nc, ok := p["nextCursor"]
		if !ok || string(nc) == "null" {
			return list, nil
		}
		var next string
		if err := json.Unmarshal(nc, &next); err != nil {
			list.Problems = append(list.Problems, fmt.Sprintf("nextCursor is %s, not a string; listing stopped there", jsonKind(nc)))
			return list, nil
		}
		switch {
		case next == "":
			list.Problems = append(list.Problems, "the server returned an empty nextCursor; listing stopped there")
			return list, nil
		case seen[next]:
			list.Problems = append(list.Problems, fmt.Sprintf("the server returned cursor %q twice; listing stopped to avoid a loop", next))
			return list, nil
		case list.Pages >= 10000:
			list.Problems = append(list.Problems, "more than 10000 pages; listing stopped")
			return list, nil
		}
		seen[next] = true
		cursor = next
	}
}

// resultTypeOf is a result's resultType: absent means complete.
func resultTypeOf(p map[string]json.RawMessage) string {
	v, ok := p["resultType"]
	if !ok || string(v) == "null" {
		return "complete"
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return string(v)
	}
	return s
}

// request sends method with params through the raw path and returns the result, or
// the JSON-RPC error as *RPCError.
func (s *Session) request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	var p json.RawMessage
	if params != nil {
		var err error
		if p, err = json.Marshal(params); err != nil {
			return nil, err
		}
	}
	raw, err := s.Raw(ctx, method, p)
	if err != nil {
		return nil, err
	}
	return parseResponse(raw)
}

func (s *Session) pager(ctx context.Context, method string) pageFunc {
	return func(cursor string) (json.RawMessage, error) {
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		return s.request(ctx, method, params)
	}
}

// Resources lists every page of resources/list, from the server itself.
func (s *Session) Resources(ctx context.Context) (*List[Resource], error) {
	return listPages("resources/list", "resources", s.pager(ctx, "resources/list"), decodeResource,
		func(r Resource) []string { return r.Problems }, func(r Resource) string { return r.URI })
}

// ResourceTemplates lists every page of resources/templates/list.
func (s *Session) ResourceTemplates(ctx context.Context) (*List[ResourceTemplate], error) {
	return listPages("resources/templates/list", "resourceTemplates", s.pager(ctx, "resources/templates/list"), decodeTemplate,
		func(t ResourceTemplate) []string { return t.Problems }, func(t ResourceTemplate) string { return t.URITemplate })
}

// Prompts lists every page of prompts/list.
func (s *Session) Prompts(ctx context.Context) (*List[Prompt], error) {
	return listPages("prompts/list", "prompts", s.pager(ctx, "prompts/list"), decodePrompt,
		func(p Prompt) []string { return p.Problems }, func(p Prompt) string { return p.Name })
}

// HasCapability reports whether the server declared a top-level capability
// (resources, prompts, completions, logging, tools, tasks).
func (s *Session) HasCapability(name string) bool {
	var caps map[string]json.RawMessage
	if json.Unmarshal(s.info.Capabilities, &caps) != nil {
		return false
	}
	v, ok := caps[name]
	return ok && string(v) != "null"
}

// Declared lists the optional capabilities this client declared to the server,
// sorted: elicitation, roots, sampling (each only when asked for). A server may offer
// some tools only to a client that declares one (server-everything's elicitation
// tools), so a surface is what a server shows a client with these.
func (s *Session) Declared() []string {
	var out []string
	if s.opts.Elicit != nil {
		out = append(out, "elicitation")
	}
	if s.opts.Roots != nil {
		out = append(out, "roots")
	}
	if s.opts.Sample != nil {
		out = append(out, "sampling")
	}
	return out
}

// Capability returns one member of the server's capabilities as sent.
func (s *Session) Capability(path ...string) (json.RawMessage, bool) {
	cur := s.info.Capabilities
	for _, p := range path {
		var m map[string]json.RawMessage
		if json.Unmarshal(cur, &m) != nil {
			return nil, false
		}
		v, ok := m[p]
		if !ok || string(v) == "null" {
			return nil, false
		}
		cur = v
	}
	return cur, true
}

// Extensions lists the extensions the server declared (capabilities.extensions).
func (s *Session) Extensions() []string {
	raw, ok := s.Capability("extensions")
	if !ok {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ReadResult is a resources/read result.
type ReadResult struct {
	Contents   []ResourceContents
	ResultType string
	Raw        json.RawMessage
	Problems   []string
}

// decodeReadResultFast decodes a well-formed result in one pass over the bytes (none
// when validated says the caller has checked them), as decodeCallResultFast does for
// tools/call; with shared, strings without escapes share result's memory (the caller
// promises it never changes: a captured frame), so a 50 MB text is held once. ok is
// false when anything is unusual, and the tolerant decoder takes over.
func decodeReadResultFast(result json.RawMessage, validated, shared bool) (*ReadResult, bool) {
	if !validated && jsonscan.Valid(result) != nil {
		return nil, false
	}
	result = bytes.TrimSpace(result)
	if len(result) == 0 || result[0] != '{' {
		return nil, false
	}
	str := jsonscan.String
	if shared {
		str = jsonscan.SharedStringTrusted
	}
	r := &ReadResult{Raw: result, ResultType: "complete"}
	ok, sawContents := true, false
	jsonscan.MembersTrusted(result, func(key, v []byte) bool {
		switch string(key) {
		case "contents":
			sawContents = true
			if v[0] != '[' {
				ok = false
				break
			}
			jsonscan.ElementsTrusted(v, func(e []byte) bool {
				var rc ResourceContents
				if rc, ok = fastReadContents(e, str); ok {
					r.Contents = append(r.Contents, rc)
				}
				return ok
			})
		case "resultType":
			if string(v) != "null" {
				r.ResultType, ok = str(v)
			}
		}
		// Other members (_meta, 2026-07-28's ttlMs and cacheScope, unknown ones) are not
		// kept, by the tolerant decoder either.
		return ok
	})
	if !ok || !sawContents {
		return nil, false
	}
	if r.ResultType == "" {
		r.ResultType = "complete"
	}
	return r, true
}

// fastReadContents reads one item of contents: text or blob (exactly one), with
// members of the right types.
func fastReadContents(e []byte, str func([]byte) (string, bool)) (ResourceContents, bool) {
	var rc ResourceContents
	if e[0] != '{' {
		return rc, false
	}
	ok := true
	get := func(v []byte) string {
		if v[0] != '"' {
			ok = false
			return ""
		}
		s, good := str(v)
		ok = ok && good
		return s
	}
	jsonscan.MembersTrusted(e, func(key, v []byte) bool {
		switch string(key) {
		case "uri":
			rc.URI = get(v)
		case "mimeType":
			rc.MIMEType = get(v)
		case "text":
			rc.Text, rc.HasText = get(v), true
		case "blob":
			rc.Blob, rc.HasBlob = get(v), true
		case "_meta":
			rc.Meta = v
		}
		return ok // other members are not kept, by the tolerant decoder either
	})
	return rc, ok && rc.HasText != rc.HasBlob
}

// Problem on a ResourceContents item is set when it is neither text nor blob.
func decodeReadResult(result json.RawMessage) (*ReadResult, error) {
	return decodeReadResultScanned(result, false, false)
}

// decodeReadResultScanned is decodeReadResult with decodeReadResultFast's validated
// and shared.
func decodeReadResultScanned(result json.RawMessage, validated, shared bool) (*ReadResult, error) {
	if r, ok := decodeReadResultFast(result, validated, shared); ok {
		return r, nil
	}
	f, ok := newFields(result, "")
	if !ok {
		return nil, fmt.Errorf("the resources/read result is not an object: %s", abbreviate(result, 80))
	}
	r := &ReadResult{Raw: result, ResultType: resultTypeOf(f.m)}
	contents, ok := f.m["contents"]
	if !ok {
		r.Problems = append(r.Problems, "the result has no contents member")
		return r, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(contents, &items); err != nil {
		r.Problems = append(r.Problems, fmt.Sprintf("contents is %s, not an array", jsonKind(contents)))
		return r, nil
	}
	for i, it := range items {
		cf, ok := newFields(it, fmt.Sprintf("contents[%d].", i))
		if !ok {
			r.Problems = append(r.Problems, fmt.Sprintf("contents[%d] is %s, not an object: %s", i, jsonKind(it), abbreviate(it, 60)))
			continue
		}
		rc := ResourceContents{URI: cf.str("uri"), MIMEType: cf.str("mimeType"), Raw: it, Meta: cf.m["_meta"]}
		_, hasText := cf.m["text"]
		_, hasBlob := cf.m["blob"]
		if hasText {
			rc.Text = cf.str("text")
			rc.HasText = true
		}
		if hasBlob {
			rc.Blob = cf.str("blob")
			rc.HasBlob = true
		}
		r.Problems = append(r.Problems, cf.problems...)
		switch {
		case !hasText && !hasBlob:
			keys := make([]string, 0, len(cf.m))
			for k := range cf.m {
				if k != "_meta" && k != "annotations" {
					keys = append(keys, k)
				}
			}
			sort.Strings(keys)
			rc.Problem = fmt.Sprintf("contents[%d] has neither text nor blob (members: %s); shown raw", i, strings.Join(keys, ", "))
			r.Problems = append(r.Problems, rc.Problem)
		case hasText && hasBlob:
			r.Problems = append(r.Problems, fmt.Sprintf("contents[%d] has both text and blob", i))
		}
		r.Contents = append(r.Contents, rc)
	}
	return r, nil
}

// Read reads a resource. It goes through the SDK so that a 2026-07-28 input_required
// answer is fulfilled (elicitation, sampling, roots) and retried, and decodes the
// final raw answer itself so that content of an unknown shape is shown, not lost.
func (s *Session) Read(ctx context.Context, uri string) (*ReadResult, error) {
	rctx, rt := s.startRequest(ctx, fmt.Sprintf("resources/read %q", uri))
	defer rt.stop()
	cctx, capture := rt.capture(rctx)
	params := &mcp.ReadResourceParams{URI: uri}
	if m := s.logMeta(); m != nil {
		params.Meta = m
	}
	_, err := s.session().ReadResource(cctx, params)
	raw, ok := capture.Last("resources/read")
	if !ok {
		if err == nil {
			// Served from the SDK's 2026-07-28 cache: ask the server itself.
			res, rerr := s.request(ctx, "resources/read", map[string]string{"uri": uri})
			if rerr != nil {
				return nil, rerr
			}
			return decodeReadResult(res)
		}
		return nil, s.requestError(ctx, rctx, err, capture)
	}
	// As for tools/call: one validating scan, and the captured frame (which never
	// changes) shared by the result's strings.
	result, validated, perr := parseResponseScan(raw)
	if perr != nil {
		return nil, perr
	}
	r, derr := decodeReadResultScanned(result, validated, true)
	if derr != nil {
		return nil, derr
	}
	if err != nil && r.ResultType == "input_required" {
		if errors.Is(err, ErrSamplingRejected) && rctx.Err() == nil {
			return nil, errSamplingRejectedRoundTrip
		}
		return nil, fmt.Errorf("the server still asks for input after the answers: %v", err)
	}
	return r, nil
}

// PromptMessage is one message of a prompts/get result.
type PromptMessage struct {
	Role    string
	Content []Content // one block, or several when the server sends an array
	Problem string
}

// PromptResult is a prompts/get result.
type PromptResult struct {
	Description string
	Messages    []PromptMessage
	ResultType  string
	Raw         json.RawMessage
	Problems    []string
}

func decodePromptResult(result json.RawMessage) (*PromptResult, error) {
	f, ok := newFields(result, "")
	if !ok {
		return nil, fmt.Errorf("the prompts/get result is not an object: %s", abbreviate(result, 80))
	}
	r := &PromptResult{Raw: result, ResultType: resultTypeOf(f.m)}
	r.Description = f.str("description")
	msgs, ok := f.m["messages"]
	if !ok {
		r.Problems = append(r.Problems, "the result has no messages member")
	}
	var items []json.RawMessage
	if ok {
		if err := json.Unmarshal(msgs, &items); err != nil {
			r.Problems = append(r.Problems, fmt.Sprintf("messages is %s, not an array", jsonKind(msgs)))
		}
	}
	for i, it := range items {
		mf, ok := newFields(it, fmt.Sprintf("messages[%d].", i))
		if !ok {
			r.Problems = append(r.Problems, fmt.Sprintf("messages[%d] is not an object", i))
			continue
		}
		m := PromptMessage{Role: mf.str("role")}
		switch m.Role {
		case "user", "assistant":
		default:
			mf.problems = append(mf.problems, fmt.Sprintf("messages[%d].role is %q, not user or assistant", i, m.Role))
		}
		c := mf.raw("content")
		switch jsonKind(c) {
		case "an object":
			m.Content = []Content{decodeContent(c)}
		case "an array":
			var blocks []json.RawMessage
			_ = json.Unmarshal(c, &blocks)
			for _, b := range blocks {
				m.Content = append(m.Content, decodeContent(b))
			}
		default:
			mf.problems = append(mf.problems, fmt.Sprintf("messages[%d].content is %s, not a content block", i, jsonKind(c)))
		}
		for _, b := range m.Content {
			if b.Problem != "" {
				mf.problems = append(mf.problems, fmt.Sprintf("messages[%d]: %s", i, b.Problem))
			}
		}
		r.Problems = append(r.Problems, mf.problems...)
		r.Messages = append(r.Messages, m)
	}
	return r, nil
}

// GetPrompt gets a prompt with its arguments, through the SDK (for input_required)
// and decoded from the raw answer.
func (s *Session) GetPrompt(ctx context.Context, name string, args map[string]string) (*PromptResult, error) {
	rctx, rt := s.startRequest(ctx, fmt.Sprintf("prompts/get %q", name))
	defer rt.stop()
	cctx, capture := rt.capture(rctx)
	params := &mcp.GetPromptParams{Name: name, Arguments: args}
	if m := s.logMeta(); m != nil {
		params.Meta = m
	}
	_, err := s.session().GetPrompt(cctx, params)
	raw, ok := capture.Last("prompts/get")
	if !ok {
		if err == nil {
			err = errors.New("no response was seen for prompts/get")
		}
		return nil, s.requestError(ctx, rctx, err, capture)
	}
	result, perr := parseResponse(raw)
	if perr != nil {
		return nil, perr
	}
	r, derr := decodePromptResult(result)
	if derr != nil {
		return nil, derr
	}
	if err != nil && r.ResultType == "input_required" {
		if errors.Is(err, ErrSamplingRejected) && rctx.Err() == nil {
			return nil, errSamplingRejectedRoundTrip
		}
		return nil, fmt.Errorf("the server still asks for input after the answers: %v", err)
	}
	return r, nil
}

// CompletionRef names what is completed: a prompt (by name) or a resource template
// (by URI template).
type CompletionRef struct {
	Type string `json:"type"` // ref/prompt or ref/resource
	Name string `json:"name,omitempty"`
	URI  string `json:"uri,omitempty"`
}

// Completion is a completion/complete result.
type Completion struct {
	Values   []string
	Total    *int64
	HasMore  bool
	Raw      json.RawMessage
	Problems []string
}

// Complete asks for completions of one argument; context holds the arguments already
// filled in (context.arguments, 2025-06-18 and later). Options.Timeout bounds it.
func (s *Session) Complete(ctx context.Context, ref CompletionRef, arg, value string, context map[string]string) (*Completion, error) {
	params := map[string]any{"ref": ref, "argument": map[string]string{"name": arg, "value": value}}
	if len(context) > 0 {
		params["context"] = map[string]any{"arguments": context}
	}
	result, err := s.request(ctx, "completion/complete", params)
	if err != nil {
		return nil, err
	}
	f, ok := newFields(result, "")
	if !ok {
		return nil, fmt.Errorf("the completion/complete result is not an object: %s", abbreviate(result, 80))
	}
	c := &Completion{Raw: result}
	comp, ok := newFields(f.m["completion"], "completion.")
	if !ok {
		c.Problems = append(c.Problems, "the result has no completion object")
		return c, nil
	}
	if v, ok := comp.m["values"]; ok {
		var vals []json.RawMessage
		if err := json.Unmarshal(v, &vals); err != nil {
			c.Problems = append(c.Problems, fmt.Sprintf("completion.values is %s, not an array", jsonKind(v)))
		}
		for i, x := range vals {
			var s string
			if json.Unmarshal(x, &s) != nil {
				c.Problems = append(c.Problems, fmt.Sprintf("completion.values[%d] is %s, not a string", i, jsonKind(x)))
				continue
			}
			c.Values = append(c.Values, s)
		}
		delete(comp.m, "values")
	} else {
		c.Problems = append(c.Problems, "completion.values is missing")
	}
	if len(c.Values) > 100 {
		c.Problems = append(c.Problems, fmt.Sprintf("the server sent %d values; the spec allows 100", len(c.Values)))
	}
	c.Total = comp.int64p("total")
	c.HasMore = comp.boolean("hasMore")
	c.Problems = append(c.Problems, comp.problems...)
	return c, nil
}

// Ping makes one round trip to the server and returns the method it sent: ping in the
// 2025 era; server/discover on 2026-07-28, which removed ping but requires every server
// to answer server/discover (it has no side effects and takes only _meta).
func (s *Session) Ping(ctx context.Context) (method string, err error) {
	method = "ping"
	if s.info.Era == EraModern {
		method = "server/discover"
	}
	_, err = s.request(ctx, method, nil)
	return method, err
}

// Subscribe asks for notifications/resources/updated for uri: resources/subscribe in
// the 2025 era, a subscriptions/listen stream on 2026-07-28. Updates go to
// Options.OnResourceUpdated.
func (s *Session) Subscribe(ctx context.Context, uri string) error {
	if raw, ok := s.Capability("resources", "subscribe"); !ok || string(raw) != "true" {
		return &UsageError{Msg: "the server does not offer resource subscriptions (capabilities.resources.subscribe)"}
	}
	rctx, rt := s.startRequest(ctx, "resources/subscribe")
	defer rt.stop()
	if err := s.session().Subscribe(rctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		return s.sdkError(ctx, rctx, err)
	}
	return nil
}

// Unsubscribe ends a Subscribe.
func (s *Session) Unsubscribe(ctx context.Context, uri string) error {
	rctx, rt := s.startRequest(ctx, "resources/unsubscribe")
	defer rt.stop()
	if err := s.session().Unsubscribe(rctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
		return s.sdkError(ctx, rctx, err)
	}
	return nil
}

// sdkError turns an error of a typed SDK call into ours: a JSON-RPC error becomes an
// *RPCError.
func (s *Session) sdkError(ctx, rctx context.Context, err error) error {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return &RPCError{Code: je.Code, Message: je.Message, Data: je.Data}
	}
	return s.requestError(ctx, rctx, err, nil)
}

// LogLevels are the logging levels, lowest first.
var LogLevels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// SetLogLevel asks for the server's log messages at level and above: logging/setLevel
// in the 2025 era, and from now on each request's _meta on 2026-07-28 sessions.
func (s *Session) SetLogLevel(ctx context.Context, level string) error {
	found := false
	for _, l := range LogLevels {
		found = found || l == level
	}
	if !found {
		return &UsageError{Msg: fmt.Sprintf("log level %q: use one of %s", level, strings.Join(LogLevels, ", "))}
	}
	s.logLevel.Store(level)
	if s.info.Era == EraModern {
		return nil
	}
	_, err := s.request(ctx, "logging/setLevel", map[string]string{"level": level})
	return err
}

// logMeta is the _meta that carries the log level on 2026-07-28 sessions.
func (s *Session) logMeta() mcp.Meta {
	lvl, _ := s.logLevel.Load().(string)
	if lvl == "" || s.info.Era != EraModern {
		return nil
	}
	return mcp.Meta{"io.modelcontextprotocol/logLevel": lvl}
}
