// Package toolfile reads mcpscope tool files and runs their tools.
//
// A tool file is a JSON object {"tools":[…]}. Each entry has the fields of an MCP tool
// (name, title, description, inputSchema, outputSchema, annotations) plus:
//
//   - "run": an argv array, run without a shell, in the tool file's directory (a
//     relative program path with a slash is resolved there too);
//   - "timeoutMs": per call, default 30000; the process group is killed after it;
//   - "maxOutputBytes": cap on stdout (and, separately, stderr), default 16 MiB; a tool
//     that writes more is killed.
//
// A call's arguments reach the command as JSON on stdin, and in MCPSCOPE_ARGS when they
// are under 100 KiB; MCPSCOPE_TOOL holds the tool's name; otherwise the command sees the
// host's environment. Arguments that do not match the inputSchema are refused before
// the command runs. Exit status 0: stdout is the result, as given when it is a JSON
// object with a "content" array, else as one text block. Any other outcome is a result
// with isError: true that says what happened (exit status and stderr, timeout, cap).
//
// Unknown fields are ignored, so the Amber runtime's tools.json (name, description,
// inputSchema only) loads as it is; its entries have no "run" and answer every call
// with an error result that says so.
package toolfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/internal/readfile"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Defaults for a tool's limits.
const (
	DefaultTimeout   = 30 * time.Second
	DefaultMaxOutput = 16 << 20 // bytes of stdout (and, separately, of stderr)
)

// File is a loaded and validated tool file.
type File struct {
	Path  string
	Tools []*Tool
}

// Tool is one validated entry of a tool file.
type Tool struct {
	Name         string
	Title        string
	Description  string
	InputSchema  json.RawMessage // a JSON object; {"type":"object"} when the entry has none
	OutputSchema json.RawMessage // nil when the entry has none
	Annotations  *mcp.ToolAnnotations
	Run          []string      // nil: the tool can be listed but not called
	Timeout      time.Duration // per call
	MaxOutput    int64         // cap on stdout and on stderr, each
	Dir          string        // working directory: the tool file's directory

	file  string
	input *jsonschema.Schema
}

// MCPTool returns the tool as it is listed to clients.
func (t *Tool) MCPTool() *mcp.Tool {
	mt := &mcp.Tool{
		Name:        t.Name,
		Title:       t.Title,
		Description: t.Description,
		InputSchema: t.InputSchema,
		Annotations: t.Annotations,
	}
	if t.OutputSchema != nil {
		mt.OutputSchema = t.OutputSchema
	}
	return mt
}

// Load reads and validates the tool file at path (readfile: a regular file of at most
// readfile.MaxConfig).
func Load(path string) (*File, error) {
	data, err := readfile.Read(path, readfile.MaxConfig)
	if err != nil {
		return nil, fmt.Errorf("reading tool file: %w", err)
	}
	return Parse(path, data)
}

// Parse validates data as the tool file named path. Relative commands in "run" are
// resolved against path's directory.
func Parse(path string, data []byte) (*File, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, fmt.Errorf(`%s: not a JSON object {"tools":[…]}: %v`, path, err)
	}
	rawTools, ok := top["tools"]
	if !ok {
		return nil, fmt.Errorf(`%s: no "tools" array; a tool file is {"tools":[{"name":…,"run":[…]}]}`, path)
	}
	var entries []json.RawMessage
	if err := json.Unmarshal(rawTools, &entries); err != nil || entries == nil {
		return nil, fmt.Errorf(`%s: "tools" must be an array, got %s`, path, jsonKind(rawTools))
	}
	if len(entries) == 0 {
		return nil, fmt.Errorf(`%s: the "tools" array is empty; add at least one tool`, path)
	}
	dir := filepath.Dir(path)
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	f := &File{Path: path}
	seen := make(map[string]int)
	for i, raw := range entries {
		t, err := parseEntry(path, dir, i, raw)
		if err != nil {
			return nil, err
		}
		if j, dup := seen[t.Name]; dup {
			return nil, fmt.Errorf("%s: tools[%d]: name %q is already used by tools[%d]; tool names must be unique", path, i, t.Name, j)
		}
		seen[t.Name] = i
		f.Tools = append(f.Tools, t)
	}
	return f, nil
}

func parseEntry(path, dir string, i int, raw json.RawMessage) (*Tool, error) {
	where := fmt.Sprintf("%s: tools[%d]", path, i)
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return nil, fmt.Errorf("%s: an entry must be a JSON object, got %s", where, jsonKind(raw))
	}
	t := &Tool{Timeout: DefaultTimeout, MaxOutput: DefaultMaxOutput, Dir: dir, file: path}

	if err := decodeString(fields, "name", &t.Name); err != nil {
		return nil, fmt.Errorf("%s: %v", where, err)
	}
	if strings.TrimSpace(t.Name) == "" {
		return nil, fmt.Errorf(`%s: "name" is missing or empty; every tool needs a name`, where)
	}
	where = fmt.Sprintf("%s (%q)", where, t.Name)
	for key, dst := range map[string]*string{"title": &t.Title, "description": &t.Description} {
		if err := decodeString(fields, key, dst); err != nil {
			return nil, fmt.Errorf("%s: %v", where, err)
		}
	}

	t.InputSchema = json.RawMessage(`{"type":"object"}`)
	if s, ok := fields["inputSchema"]; ok {
		if !isObject(s) {
			return nil, fmt.Errorf(`%s: "inputSchema" must be a JSON object, got %s`, where, jsonKind(s))
		}
		var probe struct {
			Type any `json:"type"`
		}
		_ = json.Unmarshal(s, &probe)
		if probe.Type != "object" {
			return nil, fmt.Errorf(`%s: "inputSchema" must have "type": "object" at its root (MCP requires it), got %v`, where, describe(probe.Type))
		}
		t.InputSchema = compact(s)
	}
	sch, err := compileSchema(t.Name, t.InputSchema)
	if err != nil {
		return nil, fmt.Errorf(`%s: "inputSchema" is not a valid JSON Schema: %v`, where, err)
	}
	t.input = sch

	if s, ok := fields["outputSchema"]; ok && !isNull(s) {
		if !isObject(s) {
			return nil, fmt.Errorf(`%s: "outputSchema" must be a JSON object, got %s`, where, jsonKind(s))
		}
		if _, err := compileSchema(t.Name+"-output", s); err != nil {
			return nil, fmt.Errorf(`%s: "outputSchema" is not a valid JSON Schema: %v`, where, err)
		}
		t.OutputSchema = compact(s)
	}

	if a, ok := fields["annotations"]; ok && !isNull(a) {
		if !isObject(a) {
			return nil, fmt.Errorf(`%s: "annotations" must be a JSON object, got %s`, where, jsonKind(a))
		}
		t.Annotations = new(mcp.ToolAnnotations)
		if err := json.Unmarshal(a, t.Annotations); err != nil {
			return nil, fmt.Errorf(`%s: "annotations": %v`, where, err)
		}
	}

	if r, ok := fields["run"]; ok && !isNull(r) {
		var argv []string
		if err := json.Unmarshal(r, &argv); err != nil || argv == nil {
			return nil, fmt.Errorf(`%s: "run" must be an array of strings (argv, run without a shell), got %s`, where, jsonKind(r))
		}
		if len(argv) == 0 || argv[0] == "" {
			return nil, fmt.Errorf(`%s: "run" must name a program as its first element`, where)
		}
		t.Run = argv
	}

	if v, ok := fields["timeoutMs"]; ok && !isNull(v) {
		var ms int64
		if err := json.Unmarshal(v, &ms); err != nil || ms <= 0 {
			return nil, fmt.Errorf(`%s: "timeoutMs" must be a positive integer, got %s`, where, v)
		}
		t.Timeout = time.Duration(ms) * time.Millisecond
	}
	if v, ok := fields["maxOutputBytes"]; ok && !isNull(v) {
		var n int64
		if err := json.Unmarshal(v, &n); err != nil || n <= 0 {
			return nil, fmt.Errorf(`%s: "maxOutputBytes" must be a positive integer, got %s`, where, v)
		}
		t.MaxOutput = n
	}
	return t, nil
}

// compileSchema compiles a schema held in memory. Remote references are refused: the
// compiler has no HTTP loader, and file references resolve only through the default
// file loader.
func compileSchema(name string, raw json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	loc := "mem:///mcpscope/tools/" + pathEscape(name) + ".json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(loc)
	if err != nil {
		var ce *jsonschema.SchemaValidationError
		if errors.As(err, &ce) && ce.Err != nil {
			return nil, ce.Err
		}
		return nil, err
	}
	return s, nil
}

func pathEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x80 && (r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			b.WriteRune(r)
		} else {
			fmt.Fprintf(&b, "%%%02X", r)
		}
	}
	return b.String()
}

func decodeString(fields map[string]json.RawMessage, key string, dst *string) error {
	v, ok := fields[key]
	if !ok || isNull(v) {
		return nil
	}
	if err := json.Unmarshal(v, dst); err != nil {
		return fmt.Errorf("%q must be a string, got %s", key, jsonKind(v))
	}
	return nil
}

func compact(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}

func isObject(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '{'
}

func isNull(raw json.RawMessage) bool { return string(bytes.TrimSpace(raw)) == "null" }

// jsonKind names the JSON type of raw for error messages.
func jsonKind(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		var arr []any
		if json.Unmarshal(raw, &arr) == nil {
			for _, e := range arr {
				if _, ok := e.(string); !ok {
					return fmt.Sprintf("an array holding %s", describe(e))
				}
			}
		}
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	default:
		return "a number"
	}
}

func describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "nothing"
	case string:
		return fmt.Sprintf("%q", v)
	case float64:
		return fmt.Sprintf("the number %v", v)
	case bool:
		return fmt.Sprintf("the boolean %v", v)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprint(v)
}
