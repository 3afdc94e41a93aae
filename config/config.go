// Package config reads the files other MCP clients keep (Claude Desktop, Cursor, VS
// Code, Claude Code) and turns the servers they name into targets: discovery of the
// usual places, a tolerant parser (JSON with comments and trailing commas) that says
// which file and line said what, placeholders, and the messages for what is missing.
// It has no UI and never writes a file.
//
// Two shapes exist:
//
//   - {"mcpServers": {NAME: {...}}}: Claude Desktop, Cursor, Claude Code's .mcp.json
//     (and ~/.claude.json, which also has "projects": {DIR: {"mcpServers": …}});
//   - {"servers": {NAME: {...}}, "inputs": [...]}: VS Code's mcp.json (JSON with
//     comments), or "mcp": {"servers": …} inside VS Code's settings.json.
//
// An entry is a command ("command", "args", "env", "envFile", "cwd") or a URL ("url",
// "headers"), with "type" stdio, http or sse, and optionally its own request timeout
// ("timeout", "tool_timeout_secs" or "timeoutMs"). Strings may hold placeholders:
// ${env:NAME}, ${input:ID} (VS Code prompts; here --input ID=VALUE), ${workspaceFolder},
// ${userHome}, and Claude Code's ${NAME} and ${NAME:-default}.
package config

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/internal/redact"
)

// Entry is one server a config file names.
type Entry struct {
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
	// OAuth is the entry's "oauth" block: a client registered for the server.
	OAuth *OAuthClient `json:"oauth,omitempty"`
	// Timeout is the entry's own bound on each request (0: none given).
	Timeout time.Duration `json:"-"`
	// TimeoutText is Timeout as text, for listings.
	TimeoutText string `json:"timeout,omitempty"`
	// Problem says why the entry cannot be used as it is.
	Problem string `json:"problem,omitempty"`

	workspace string            // what ${workspaceFolder} means
	inputs    map[string]string // VS Code inputs: id -> description
}

// Where names the entry's place for messages: "FILE:LINE".
func (e *Entry) Where() string { return fmt.Sprintf("%s:%d", TildePath(e.File), e.Line) }

// Summary is what the entry runs or reaches, as written (placeholders unexpanded).
func (e *Entry) Summary() string {
	if e.URL != "" {
		return e.URL
	}
	return strings.Join(append([]string{e.Command}, e.Args...), " ")
}

// Shown is Summary for people: the values of secret-named flags and token-shaped
// words of the command line (--api-key sk-…), and a URL's user info and secret query
// values, are [redacted]. A config's command line often carries a key, and what shows
// a configured server (servers, check's report and its JUnit file, which a CI job
// keeps) must not. Summary stays the exact line, for comparing entries.
func (e *Entry) Shown() string {
	if e.URL != "" {
		return redact.URL(e.URL, nil)
	}
	argv := append([]string{e.Command}, e.Args...)
	return redact.NewSet(redact.ArgvSecrets(argv)...).String(strings.Join(argv, " "))
}

// Same reports whether two entries define the same server.
func (e *Entry) Same(o *Entry) bool {
	return e.Type == o.Type && e.Summary() == o.Summary() && e.Cwd == o.Cwd
}

// Location is a place a config file may be.
type Location struct {
	Path      string
	Client    string
	Workspace string
}

// DefaultLocations are the usual places on Linux and macOS, project files first.
func DefaultLocations() []Location {
	home, _ := os.UserHomeDir()
	cwd, _ := os.Getwd()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	mac := filepath.Join(home, "Library", "Application Support")
	var locs []Location
	add := func(path, client, ws string) {
		if path == "" || strings.HasPrefix(path, string(filepath.Separator)+".") {
			return
		}
		for _, l := range locs {
			if l.Path == path {
				return
			}
		}
		locs = append(locs, Location{path, client, ws})
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

// TildePath shortens a path under the home directory to ~/….
func TildePath(p string) string {
	if home, err := os.UserHomeDir(); err == nil && home != "" && strings.HasPrefix(p, home+string(filepath.Separator)) {
		return "~" + p[len(home):]
	}
	return p
}

// Error is a broken config file, with the place of the problem.
type Error struct {
	File string
	Line int // 0: unknown
	Col  int
	Msg  string
}

func (e *Error) Error() string {
	switch {
	case e.Line > 0 && e.Col > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// checkEvery is how many entries are parsed between two looks at the context.
const checkEvery = 256

// Load reads one config file. A file with no server map is not an error here
// (settings.json may have no "mcp" section); it gives no entries. Only a regular file
// of at most MaxConfigSize is read (a FIFO or a device is refused at once); parsing is
// linear in the file's size, and stops with ctx.Err() when ctx ends.
func Load(ctx context.Context, loc Location) ([]Entry, error) {
	data, err := readRegular(loc.Path, MaxConfigSize)
	if err != nil {
		return nil, err
	}
	return parse(ctx, data, loc)
}

func parse(ctx context.Context, data []byte, loc Location) ([]Entry, error) {
	clean := stripJSONC(data)
	if len(bytes.TrimSpace(clean)) == 0 {
		return nil, nil
	}
	lines := newLineIndex(data)
	if !json.Valid(clean) {
		var v any
		err := json.Unmarshal(clean, &v)
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := lines.lineCol(int(se.Offset))
			return nil, &Error{File: loc.Path, Line: line, Col: col, Msg: "invalid JSON: " + se.Error()}
		}
		return nil, &Error{File: loc.Path, Msg: "invalid JSON"}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	top, err := members(clean, 0)
	if err != nil {
		return nil, &Error{File: loc.Path, Line: 1, Msg: "the file is not a JSON object"}
	}
	var out []Entry
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
			line, _ := lines.lineCol(m.offset)
			return &Error{File: loc.Path, Line: line, Msg: fmt.Sprintf("%q must be an object of servers", m.key)}
		}
		for i, sm := range servers {
			if i%checkEvery == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			e := parseEntry(lines, loc.Path, sm, client, ws)
			e.inputs = inputs
			out = append(out, e)
		}
		return nil
	}
	for _, m := range top {
		var err error
		switch m.key {
		case "mcpServers", "servers":
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
				for i, pm := range projects {
					if i%checkEvery == 0 {
						if err := ctx.Err(); err != nil {
							return nil, err
						}
					}
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
	value  []byte
	offset int
}

// members lists an object's members in order; base is the object's offset in its
// file. The values are slices of obj (no copies), found by one pass of the decoder.
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
		start := int(dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		end := int(dec.InputOffset())
		// The value is the last len(raw) bytes before end (the decoder consumed the
		// colon and white space before it).
		vstart := end - len(raw)
		if vstart < start {
			vstart = start
		}
		out = append(out, member{key: key, value: obj[vstart:end:end], offset: base + vstart})
	}
	return out, nil
}

// OAuthClient is an entry's "oauth" block (Claude Code and VS Code spell it so): a
// client registered with the server's authorization server, and the redirect port
// registered for it. The secret may be a ${VAR} placeholder; it is never listed.
// mcpscope's own members for enterprise-managed authorization (--oauth-grant
// id-jag): the identity provider's token endpoint and client, and the person's ID
// token (a placeholder such as ${ID_TOKEN}: it is a secret, and expires); an entry
// with an idToken logs in so without the flag.
type OAuthClient struct {
	ClientID         string   `json:"clientId"`
	ClientSecret     string   `json:"clientSecret,omitempty"`
	Scopes           []string `json:"scopes,omitempty"`
	CallbackPort     int      `json:"callbackPort,omitempty"`
	IDPTokenEndpoint string   `json:"idpTokenEndpoint,omitempty"`
	IDPClientID      string   `json:"idpClientId,omitempty"`
	IDPClientSecret  string   `json:"idpClientSecret,omitempty"`
	IDToken          string   `json:"idToken,omitempty"`
	// DPoP asks for DPoP-bound tokens (RFC 9449) even where the server does not say
	// it wants them (mcpscope's own member; --dpop for one command).
	DPoP bool `json:"dpop,omitempty"`
}

// MarshalJSON lists the block without its secrets (whether each is given).
func (o OAuthClient) MarshalJSON() ([]byte, error) {
	m := map[string]any{"clientId": o.ClientID, "clientSecret": o.ClientSecret != "", "scopes": o.Scopes, "callbackPort": o.CallbackPort, "dpop": o.DPoP}
	if o.IDPTokenEndpoint != "" || o.IDToken != "" || o.IDPClientID != "" {
		m["idpTokenEndpoint"], m["idpClientId"] = o.IDPTokenEndpoint, o.IDPClientID
		m["idpClientSecret"], m["idToken"] = o.IDPClientSecret != "", o.IDToken != ""
	}
	return json.Marshal(m)
}

// entryFields is the JSON of one entry, as the clients spell it.
type entryFields struct {
	Type            string            `json:"type"`
	Transport       string            `json:"transport"`
	Command         string            `json:"command"`
	Args            []string          `json:"args"`
	Env             map[string]string `json:"env"`
	EnvFile         string            `json:"envFile"`
	Cwd             string            `json:"cwd"`
	URL             string            `json:"url"`
	ServerURL       string            `json:"serverUrl"`
	Headers         map[string]string `json:"headers"`
	Disabled        bool              `json:"disabled"`
	OAuth           *OAuthClient      `json:"oauth"`
	Timeout         json.RawMessage   `json:"timeout"`
	ToolTimeoutSecs json.RawMessage   `json:"tool_timeout_secs"`
	TimeoutMs       json.RawMessage   `json:"timeoutMs"`
}

// parseEntry reads one entry. A name that config.CheckName refuses is the entry's
// problem (it wins over any other): the name comes from a file mcpscope may read from
// the working directory without asking. The rest is still read, so that `servers`
// shows what the entry says.
func parseEntry(lines *lineIndex, file string, m member, clientName, ws string) Entry {
	e := parseFields(lines, file, m, clientName, ws)
	if err := CheckName(m.key); err != nil {
		line, _ := lines.lineCol(m.offset)
		e.Problem = fmt.Sprintf("%s:%d: %v", TildePath(file), line, err)
	}
	return e
}

func parseFields(lines *lineIndex, file string, m member, clientName, ws string) Entry {
	line, _ := lines.lineCol(m.offset)
	e := Entry{Name: m.key, File: file, Line: line, Client: clientName, workspace: ws}
	var raw entryFields
	if err := json.Unmarshal(m.value, &raw); err != nil {
		var te *json.UnmarshalTypeError
		msg := err.Error()
		if errors.As(err, &te) {
			l, _ := lines.lineCol(m.offset + int(te.Offset))
			e.Line = l
			msg = fmt.Sprintf("%s must be %s, not a JSON %s", te.Field, jsonTypeName(te.Type.String()), te.Value)
		}
		e.Problem = fmt.Sprintf("%s:%d: server %q: %s", TildePath(file), e.Line, m.key, msg)
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
	e.OAuth = raw.OAuth
	e.EnvKeys = sortedKeys(raw.Env)
	e.HeaderKeys = sortedKeys(raw.Headers)
	timeout, terr := entryTimeout(raw)
	if terr != "" {
		e.Problem = fmt.Sprintf("%s:%d: server %q: %s", TildePath(file), e.Line, m.key, terr)
		return e
	}
	e.Timeout = timeout
	if timeout > 0 {
		e.TimeoutText = timeout.String()
	}
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
		e.Problem = fmt.Sprintf("%s:%d: server %q: unknown type %q (stdio, http or sse)", TildePath(file), e.Line, m.key, raw.Type)
		return e
	}
	switch {
	case e.Type == "stdio" && e.Command == "":
		e.Problem = fmt.Sprintf("%s:%d: server %q has no command", TildePath(file), e.Line, m.key)
	case e.Type != "stdio" && e.URL == "":
		e.Problem = fmt.Sprintf("%s:%d: server %q (type %s) has no url", TildePath(file), e.Line, m.key, e.Type)
	}
	return e
}

// entryTimeout reads the entry's own request timeout, in the spelling its client uses:
//
//   - "timeoutMs": milliseconds;
//   - "tool_timeout_secs": seconds;
//   - "timeout": a duration string ("90s", "2m"), or a number: milliseconds when it is
//     1000 or more (Gemini CLI's convention, whose default is 600000), seconds below
//     (Cline's convention, 1 to 3600).
//
// The first one given in that order wins. A problem comes back as text.
func entryTimeout(raw entryFields) (time.Duration, string) {
	num := func(field string, v json.RawMessage) (float64, string) {
		f, err := strconv.ParseFloat(strings.TrimSpace(string(v)), 64)
		if err != nil || f < 0 || math.IsInf(f, 0) || f > 1e12 {
			return 0, fmt.Sprintf("%s must be a non-negative number, not %s", field, abbreviate(string(v), 40))
		}
		return f, ""
	}
	switch {
	case len(raw.TimeoutMs) > 0 && string(raw.TimeoutMs) != "null":
		f, msg := num("timeoutMs", raw.TimeoutMs)
		return time.Duration(f * float64(time.Millisecond)), msg
	case len(raw.ToolTimeoutSecs) > 0 && string(raw.ToolTimeoutSecs) != "null":
		f, msg := num("tool_timeout_secs", raw.ToolTimeoutSecs)
		return time.Duration(f * float64(time.Second)), msg
	case len(raw.Timeout) > 0 && string(raw.Timeout) != "null":
		var s string
		if json.Unmarshal(raw.Timeout, &s) == nil {
			d, err := time.ParseDuration(s)
			if err != nil || d < 0 {
				return 0, fmt.Sprintf("timeout %q is not a duration like 90s", abbreviate(s, 40))
			}
			return d, ""
		}
		f, msg := num("timeout", raw.Timeout)
		if f >= 1000 {
			return time.Duration(f * float64(time.Millisecond)), msg
		}
		return time.Duration(f * float64(time.Second)), msg
	}
	return 0, ""
}

func abbreviate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
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

// lineIndex turns byte offsets into lines in O(log lines), so that naming the line of
// every entry of a big file stays linear overall (counting newlines from the start for
// each entry made parsing quadratic).
type lineIndex struct {
	nl []int // offsets of the newlines
}

func newLineIndex(data []byte) *lineIndex {
	x := &lineIndex{nl: make([]int, 0, bytes.Count(data, []byte("\n")))}
	for i, c := range data {
		if c == '\n' {
			x.nl = append(x.nl, i)
		}
	}
	return x
}

// lineCol turns a byte offset into a 1-based line and column.
func (x *lineIndex) lineCol(off int) (int, int) {
	if off < 0 {
		off = 0
	}
	// The number of newlines before off.
	n := sort.SearchInts(x.nl, off)
	start := 0
	if n > 0 {
		start = x.nl[n-1] + 1
	}
	return n + 1, off - start + 1
}

// stripJSONC blanks out // and /* */ comments and trailing commas, keeping every other
// byte (and every newline) where it was, so offsets still point into the file. A UTF-8
// byte order mark at the start is blanked too: Windows editors write one, and VS Code
// reads such a file.
func stripJSONC(data []byte) []byte {
	out := append([]byte(nil), data...)
	if bytes.HasPrefix(out, []byte("\xef\xbb\xbf")) {
		copy(out, "   ")
	}
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
			// A comma followed (past white space and comments) by } or ] is a
			// trailing comma. The look-ahead stops at the first other byte.
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
					k := bytes.Index(out[j+2:], []byte("*/"))
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
