package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
)

// Config files of other MCP clients, read so that a server they know can be named:
// mcpscope --inspect NAME. Two shapes exist:
//
//   - {"mcpServers": {NAME: {...}}}: Claude Desktop, Cursor, Claude Code's .mcp.json
//     (and ~/.claude.json, which also has "projects": {DIR: {"mcpServers": …}});
//   - {"servers": {NAME: {...}}, "inputs": [...]}: VS Code's mcp.json (JSON with
//     comments), or "mcp": {"servers": …} inside VS Code's settings.json.
//
// An entry is a command ("command", "args", "env", "envFile", "cwd") or a URL ("url",
// "headers"), with "type" stdio, http or sse. Strings may hold placeholders:
// ${env:NAME}, ${input:ID} (VS Code prompts; here --input ID=VALUE), ${workspaceFolder},
// ${userHome}, and Claude Code's ${NAME} and ${NAME:-default}.

// serverEntry is one server a config file names.
type serverEntry struct {
	Name    string            `json:"name"`
	File    string            `json:"file"`
	Line    int               `json:"line"`
	Client  string            `json:"client"` // which client's file
	Type    string            `json:"type"`   // stdio, http or sse
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"-"`
	EnvKeys []string          `json:"env,omitempty"` // names only: values may be secrets
	EnvFile string            `json:"envFile,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"-"`
	// HeaderKeys are the header names only: values may be secrets.
	HeaderKeys []string `json:"headers,omitempty"`
	Disabled   bool     `json:"disabled,omitempty"`
	// Problem says why the entry cannot be used as it is.
	Problem string `json:"problem,omitempty"`

	workspace string            // what ${workspaceFolder} means
	inputs    map[string]string // VS Code inputs: id -> description
}

// where names the entry's place for messages: "FILE:LINE".
func (e *serverEntry) where() string { return fmt.Sprintf("%s:%d", tildePath(e.File), e.Line) }

// summary is what the entry runs or reaches, as written (placeholders unexpanded).
func (e *serverEntry) summary() string {
	if e.URL != "" {
		return e.URL
	}
	return strings.Join(append([]string{e.Command}, e.Args...), " ")
}

// same reports whether two entries define the same server.
func (e *serverEntry) same(o *serverEntry) bool {
	return e.Type == o.Type && e.summary() == o.summary() && e.Cwd == o.Cwd
}

// configLocation is a place a config file may be.
type configLocation struct {
	Path      string
	Client    string
	Workspace string
}

// defaultLocations are the usual places on Linux and macOS, project files first.
func defaultLocations() []configLocation {
	home, _ := os.UserHomeDir()
	cwd, _ := os.Getwd()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	mac := filepath.Join(home, "Library", "Application Support")
	var locs []configLocation
	add := func(path, client, ws string) {
		if path == "" || strings.HasPrefix(path, string(filepath.Separator)+".") {
			return
		}
		for _, l := range locs {
			if l.Path == path {
				return
			}
		}
		locs = append(locs, configLocation{path, client, ws})
	}
	if cwd != "" {
		add(filepath.Join(cwd, ".mcp.json"), "Claude Code (project)", cwd)
		add(filepath.Join(cwd, ".vscode", "mcp.json"), "VS Code (workspace)", cwd)
		add(filepath.Join(cwd, ".cursor", "mcp.json"), "Cursor (project)", cwd)
	}
	if home == "" {
		return locs
	}
	for _, base := range []string{xdg, mac} {
		add(filepath.Join(base, "Claude", "claude_desktop_config.json"), "Claude Desktop", home)
	}
	add(filepath.Join(home, ".cursor", "mcp.json"), "Cursor", home)
	for _, base := range []string{xdg, mac} {
		for _, app := range []string{"Code", "Code - Insiders"} {
			add(filepath.Join(base, app, "User", "mcp.json"), "VS Code (user)", home)
			add(filepath.Join(base, app, "User", "settings.json"), "VS Code (user settings)", home)
		}
	}
	add(filepath.Join(home, ".claude.json"), "Claude Code (user)", cwd)
	return locs
}

func tildePath(p string) string {
	if home, err := os.UserHomeDir(); err == nil && home != "" && strings.HasPrefix(p, home+string(filepath.Separator)) {
		return "~" + p[len(home):]
	}
	return p
}

// configError is a broken config file, with the place of the problem.
type configError struct {
	File string
	Line int // 0: unknown
	Col  int
	Msg  string
}

func (e *configError) Error() string {
	switch {
	case e.Line > 0 && e.Col > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// loadConfig reads one config file. A file with no server map is not an error here
// (settings.json may have no "mcp" section); it gives no entries.
func loadConfig(loc configLocation) ([]serverEntry, error) {
	data, err := os.ReadFile(loc.Path)
	if err != nil {
		return nil, err
	}
	clean := stripJSONC(data)
	if len(bytes.TrimSpace(clean)) == 0 {
		return nil, nil
	}
	if !json.Valid(clean) {
		var v any
		err := json.Unmarshal(clean, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := lineCol(data, int(se.Offset))
			return nil, &configError{File: loc.Path, Line: line, Col: col, Msg: "invalid JSON: " + se.Error()}
		}
		return nil, &configError{File: loc.Path, Msg: "invalid JSON"}
	}
	top, err := members(clean, 0)
	if err != nil {
		return nil, &configError{File: loc.Path, Line: 1, Msg: "the file is not a JSON object"}
	}
	var out []serverEntry
	inputs := map[string]string{}
	for _, m := range top {
		if m.key == "inputs" {
			var in []struct {
				ID          string `json:"id"`
				Description string `json:"description"`
			}
			if json.Unmarshal(m.value, &in) == nil {
				for _, i := range in {
					inputs[i.ID] = i.Description
				}
			}
		}
	}
	addMap := func(m member, client string, ws string) error {
		servers, err := members(m.value, m.offset)
		if err != nil {
			line, _ := lineCol(data, m.offset)
			return &configError{File: loc.Path, Line: line, Msg: fmt.Sprintf("%q must be an object of servers", m.key)}
		}
		for _, sm := range servers {
			e := parseEntry(data, loc.Path, sm, client, ws)
			e.inputs = inputs
			out = append(out, e)
		}
		return nil
	}
	for _, m := range top {
		var err error
		switch m.key {
		case "mcpServers":
			err = addMap(m, loc.Client, loc.Workspace)
		case "servers":
			err = addMap(m, loc.Client, loc.Workspace)
		case "mcp":
			inner, ierr := members(m.value, m.offset)
			if ierr == nil {
				for _, im := range inner {
					if im.key == "servers" {
						err = addMap(im, loc.Client, loc.Workspace)
					}
				}
			}
		case "projects":
			// ~/.claude.json: servers of the project in the working directory.
			cwd, _ := os.Getwd()
			projects, perr := members(m.value, m.offset)
			if perr == nil {
				for _, pm := range projects {
					if filepath.Clean(pm.key) != cwd {
						continue
					}
					inner, _ := members(pm.value, pm.offset)
					for _, im := range inner {
						if im.key == "mcpServers" {
							err = addMap(im, "Claude Code (local)", cwd)
						}
					}
				}
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// member is one member of a JSON object, with the offset of its value.
type member struct {
	key    string
	value  json.RawMessage
	offset int
}

// members lists an object's members in order; base is the object's offset in its file.
func members(obj []byte, base int) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, errors.New("not an object")
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		off := base + int(dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		out = append(out, member{key: key, value: raw, offset: off})
	}
	return out, nil
}

func parseEntry(data []byte, file string, m member, clientName, ws string) serverEntry {
	line, _ := lineCol(data, m.offset)
	e := serverEntry{Name: m.key, File: file, Line: line, Client: clientName, workspace: ws}
	var raw struct {
		Type      string            `json:"type"`
		Transport string            `json:"transport"`
		Command   string            `json:"command"`
		Args      []string          `json:"args"`
		Env       map[string]string `json:"env"`
		EnvFile   string            `json:"envFile"`
		Cwd       string            `json:"cwd"`
		URL       string            `json:"url"`
		ServerURL string            `json:"serverUrl"`
		Headers   map[string]string `json:"headers"`
		Disabled  bool              `json:"disabled"`
	}
	if err := json.Unmarshal(m.value, &raw); err != nil {
		var te *json.UnmarshalTypeError
		msg := err.Error()
		if errors.As(err, &te) {
			l, _ := lineCol(data, m.offset+int(te.Offset))
			e.Line = l
			msg = fmt.Sprintf("%s must be %s, not a JSON %s", te.Field, jsonTypeName(te.Type.String()), te.Value)
		}
		e.Problem = fmt.Sprintf("%s:%d: server %q: %s", tildePath(file), e.Line, m.key, msg)
		return e
	}
	if raw.URL == "" {
		raw.URL = raw.ServerURL
	}
	if raw.Type == "" {
		raw.Type = raw.Transport
	}
	e.Command, e.Args, e.Env, e.EnvFile, e.Cwd = raw.Command, raw.Args, raw.Env, raw.EnvFile, raw.Cwd
	e.URL, e.Headers, e.Disabled = raw.URL, raw.Headers, raw.Disabled
	e.EnvKeys = sortedKeys(raw.Env)
	e.HeaderKeys = sortedKeys(raw.Headers)
	switch strings.ToLower(raw.Type) {
	case "":
		if e.URL != "" {
			e.Type = "http"
		} else {
			e.Type = "stdio"
		}
	case "stdio":
		e.Type = "stdio"
	case "http", "streamable-http", "streamablehttp", "streamable":
		e.Type = "http"
	case "sse":
		e.Type = "sse"
	default:
		e.Problem = fmt.Sprintf("%s:%d: server %q: unknown type %q (stdio, http or sse)", tildePath(file), e.Line, m.key, raw.Type)
		return e
	}
	switch {
	case e.Type == "stdio" && e.Command == "":
		e.Problem = fmt.Sprintf("%s:%d: server %q has no command", tildePath(file), e.Line, m.key)
	case e.Type != "stdio" && e.URL == "":
		e.Problem = fmt.Sprintf("%s:%d: server %q (type %s) has no url", tildePath(file), e.Line, m.key, e.Type)
	}
	return e
}

func jsonTypeName(goType string) string {
	switch {
	case strings.HasPrefix(goType, "[]"):
		return "an array of strings"
	case strings.HasPrefix(goType, "map["):
		return "an object of strings"
	case goType == "bool":
		return "true or false"
	}
	return "a string"
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// lineCol turns a byte offset into a 1-based line and column.
func lineCol(data []byte, off int) (int, int) {
	if off > len(data) {
		off = len(data)
	}
	if off < 0 {
		off = 0
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

// stripJSONC blanks out // and /* */ comments and trailing commas, keeping every other
// byte (and every newline) where it was, so offsets still point into the file.
func stripJSONC(data []byte) []byte {
	out := append([]byte(nil), data...)
	inString := false
	for i := 0; i < len(out); i++ {
		c := out[i]
		if inString {
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
			continue
		}
		switch {
		case c == '"':
			inString = true
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			stop := len(out)
			if end := bytes.Index(out[i+2:], []byte("*/")); end >= 0 {
				stop = i + 2 + end + 2
			}
			for j := i; j < stop; j++ {
				if out[j] != '\n' {
					out[j] = ' '
				}
			}
			i = stop - 1
		case c == ',':
			// A comma followed (past white space and comments, already blanked or
			// not) by } or ] is a trailing comma.
			j := i + 1
			for j < len(out) {
				if out[j] == ' ' || out[j] == '\t' || out[j] == '\r' || out[j] == '\n' {
					j++
					continue
				}
				if out[j] == '/' && j+1 < len(out) && out[j+1] == '/' {
					for j < len(out) && out[j] != '\n' {
						j++
					}
					continue
				}
				if out[j] == '/' && j+1 < len(out) && out[j+1] == '*' {
					k := strings.Index(string(out[j+2:]), "*/")
					if k < 0 {
						j = len(out)
					} else {
						j += k + 4
					}
					continue
				}
				break
			}
			if j < len(out) && (out[j] == '}' || out[j] == ']') {
				out[i] = ' '
			}
		}
	}
	return out
}

// found is what the config files in use yield.
type found struct {
	entries []serverEntry
	looked  []configLocation
	broken  []error // files that could not be read as configs
}

// loadServers reads --config FILE, or every usual place when it is not given.
func loadServers(c *common) (*found, error) {
	f := &found{}
	if c.remote.config != "" {
		path, err := filepath.Abs(c.remote.config)
		if err != nil {
			return nil, usageErr("--config %s: %v", c.remote.config, err)
		}
		ws := filepath.Dir(path)
		if filepath.Base(ws) == ".vscode" || filepath.Base(ws) == ".cursor" {
			ws = filepath.Dir(ws)
		}
		loc := configLocation{Path: path, Client: "--config", Workspace: ws}
		f.looked = []configLocation{loc}
		entries, err := loadConfig(loc)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, usageErr("--config %s: no such file", c.remote.config)
			}
			var ce *configError
			if errors.As(err, &ce) {
				return nil, usageErr("%v", err)
			}
			return nil, usageErr("--config %s: %v", c.remote.config, err)
		}
		if len(entries) == 0 {
			return nil, usageErr("--config %s: no servers in it (expected an \"mcpServers\" or \"servers\" object)", c.remote.config)
		}
		f.entries = entries
		return f, nil
	}
	for _, loc := range defaultLocations() {
		f.looked = append(f.looked, loc)
		entries, err := loadConfig(loc)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				f.broken = append(f.broken, err)
			}
			continue
		}
		f.entries = append(f.entries, entries...)
	}
	return f, nil
}

// lookup finds the entry named name. ok is false when no entry has that name.
func (f *found) lookup(name string) (*serverEntry, bool, error) {
	var matches []*serverEntry
	for i := range f.entries {
		if f.entries[i].Name == name {
			matches = append(matches, &f.entries[i])
		}
	}
	if len(matches) == 0 {
		for i := range f.entries {
			if strings.EqualFold(f.entries[i].Name, name) {
				matches = append(matches, &f.entries[i])
			}
		}
	}
	if len(matches) == 0 {
		return nil, false, nil
	}
	for _, m := range matches[1:] {
		if !m.same(matches[0]) {
			var b strings.Builder
			fmt.Fprintf(&b, "the name %q is configured %d ways:", name, len(matches))
			for _, m := range matches {
				fmt.Fprintf(&b, "\n  %-6s %s  (%s, %s)", m.Type, m.summary(), m.Client, m.where())
			}
			b.WriteString("\npick one with --config FILE")
			return nil, true, usageErr("%s", b.String())
		}
	}
	return matches[0], true, nil
}

// candidates lists the configured names, the ones like want first.
func (f *found) candidates(want string) string {
	var names []string
	seen := map[string]bool{}
	for _, e := range f.entries {
		if !seen[e.Name] {
			seen[e.Name] = true
			names = append(names, e.Name+" ("+e.Client+")")
		}
	}
	if len(names) == 0 {
		return ""
	}
	w := strings.ToLower(want)
	sort.SliceStable(names, func(i, j int) bool {
		return similar(strings.Fields(names[i])[0], w) && !similar(strings.Fields(names[j])[0], w)
	})
	if len(names) > 15 {
		names = append(names[:15], fmt.Sprintf("… (%d in all; see mcpscope servers)", len(names)))
	}
	return strings.Join(names, ", ")
}

var placeholderRE = regexp.MustCompile(`\$\{([^}]*)\}`)
var envNameRE = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)(:-(.*))?$`)

// expander resolves placeholders; what it cannot resolve it collects.
type expander struct {
	e       *serverEntry
	inputs  map[string]string
	missing []string
	secret  bool // the last expand used an env or input value
}

func (x *expander) expand(s string) string {
	x.secret = false
	return placeholderRE.ReplaceAllStringFunc(s, func(ph string) string {
		inner := ph[2 : len(ph)-1]
		kind, arg, hasColon := strings.Cut(inner, ":")
		switch {
		case hasColon && kind == "env":
			if v, ok := os.LookupEnv(arg); ok {
				x.secret = true
				return v
			}
			x.miss(ph + " (the environment variable is not set)")
		case hasColon && kind == "input":
			if v, ok := x.inputs[arg]; ok {
				x.secret = true
				return v
			}
			desc := ""
			if d := x.e.inputs[arg]; d != "" {
				desc = fmt.Sprintf(", which VS Code asks for as %q", d)
			}
			x.miss(fmt.Sprintf("%s (give it with --input %s=VALUE%s)", ph, arg, desc))
		case inner == "workspaceFolder":
			return x.e.workspace
		case inner == "workspaceFolderBasename":
			return filepath.Base(x.e.workspace)
		case inner == "userHome":
			home, _ := os.UserHomeDir()
			return home
		case inner == "pathSeparator" || inner == "/":
			return string(filepath.Separator)
		default:
			if m := envNameRE.FindStringSubmatch(inner); m != nil {
				if v, ok := os.LookupEnv(m[1]); ok && v != "" {
					x.secret = true
					return v
				}
				if m[2] != "" {
					return m[3]
				}
				x.miss(ph + " (the environment variable is not set)")
			} else {
				x.miss(ph + " (mcpscope does not know this placeholder)")
			}
		}
		return ph
	})
}

func (x *expander) miss(s string) {
	for _, m := range x.missing {
		if m == s {
			return
		}
	}
	x.missing = append(x.missing, s)
}

// target resolves the entry's placeholders and makes it a target.
func (e *serverEntry) target(inputs map[string]string) (client.Target, error) {
	if e.Problem != "" {
		return client.Target{}, usageErr("%s", e.Problem)
	}
	x := &expander{e: e, inputs: inputs}
	t := client.Target{Name: e.Name, Config: e.File}
	if e.Type == "stdio" {
		t.Argv = append(t.Argv, x.expand(e.Command))
		for _, a := range e.Args {
			t.Argv = append(t.Argv, x.expand(a))
		}
		if e.EnvFile != "" {
			path := x.expand(e.EnvFile)
			if !filepath.IsAbs(path) {
				path = filepath.Join(e.workspace, path)
			}
			kv, err := readEnvFile(path)
			if err != nil {
				return client.Target{}, usageErr("server %q (%s): envFile: %v", e.Name, e.where(), err)
			}
			t.Env = append(t.Env, kv...)
		}
		for _, k := range e.EnvKeys {
			t.Env = append(t.Env, k+"="+x.expand(e.Env[k]))
		}
		if e.Cwd != "" {
			t.Dir = x.expand(e.Cwd)
		}
	} else {
		t.URL = x.expand(e.URL)
		if e.Type == "sse" {
			t.Transport = "sse"
		}
		if len(e.Headers) > 0 {
			t.Header = http.Header{}
			for _, k := range e.HeaderKeys {
				v := x.expand(e.Headers[k])
				t.Header.Set(k, v)
				if x.secret || sensitiveName(k) {
					t.Secrets = append(t.Secrets, v)
					if _, tok, ok := strings.Cut(v, " "); ok {
						t.Secrets = append(t.Secrets, tok)
					}
				}
			}
		}
	}
	if len(x.missing) > 0 {
		return client.Target{}, usageErr("server %q (%s) needs:\n  %s", e.Name, e.where(), strings.Join(x.missing, "\n  "))
	}
	return t, nil
}

// sensitiveName: the one rule for credential header names (wire.SensitiveHeader).
func sensitiveName(name string) bool { return wire.SensitiveHeader(name) }

// inputValues reads --input ID=VALUE flags.
func inputValues(c *common) (map[string]string, error) {
	m := map[string]string{}
	for _, kv := range c.remote.inputs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, usageErr("--input %q: give ID=VALUE", kv)
		}
		m[k] = v
	}
	return m, nil
}
