package config

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/internal/redact"
	"github.com/mcpscope/mcpscope/target"
)

func usageErr(format string, a ...any) error {
	return &target.UsageError{Msg: fmt.Sprintf(format, a...)}
}

// Found is what the config files in use yield.
type Found struct {
	Entries []Entry
	Looked  []Location
	Broken  []error // files that could not be read as configs
}

// Discover reads file (--config FILE), or every usual place when file is "". A file
// that cannot be read is an error with file, and a note in Broken otherwise.
func Discover(ctx context.Context, file string) (*Found, error) {
	f := &Found{}
	if file != "" {
		path, err := filepath.Abs(file)
		if err != nil {
			return nil, usageErr("--config %s: %v", file, err)
		}
		ws := filepath.Dir(path)
		if filepath.Base(ws) == ".vscode" || filepath.Base(ws) == ".cursor" {
			ws = filepath.Dir(ws)
		}
		loc := Location{Path: path, Client: "--config", Workspace: ws}
		f.Looked = []Location{loc}
		entries, err := Load(ctx, loc)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if IsNotExist(err) {
				return nil, usageErr("--config %s: no such file", file)
			}
			var ce *Error
			var fe *FileError
			if errors.As(err, &ce) || errors.As(err, &fe) {
				return nil, usageErr("--config: %v", err)
			}
			return nil, usageErr("--config %s: %v", file, err)
		}
		if len(entries) == 0 {
			return nil, usageErr("--config %s: no servers in it (expected an \"mcpServers\" or \"servers\" object)", file)
		}
		f.Entries = entries
		return f, nil
	}
	for _, loc := range DefaultLocations() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f.Looked = append(f.Looked, loc)
		entries, err := Load(ctx, loc)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if !IsNotExist(err) {
				f.Broken = append(f.Broken, err)
			}
			continue
		}
		f.Entries = append(f.Entries, entries...)
	}
	return f, nil
}

// Lookup finds the entry named name (exactly, else ignoring case). ok is false when no
// entry has that name; an error says the name is configured in different ways.
func (f *Found) Lookup(name string) (*Entry, bool, error) {
	var matches []*Entry
	for i := range f.Entries {
		if f.Entries[i].Name == name {
			matches = append(matches, &f.Entries[i])
		}
	}
	if len(matches) == 0 {
		for i := range f.Entries {
			if strings.EqualFold(f.Entries[i].Name, name) {
				matches = append(matches, &f.Entries[i])
			}
		}
	}
	if len(matches) == 0 {
		return nil, false, nil
	}
	for _, m := range matches[1:] {
		if !m.Same(matches[0]) {
			var b strings.Builder
			fmt.Fprintf(&b, "the name %q is configured %d ways:", name, len(matches))
			for _, m := range matches {
				fmt.Fprintf(&b, "\n  %-6s %s  (%s, %s)", m.Type, m.Shown(), m.Client, m.Where())
			}
			b.WriteString("\npick one with --config FILE")
			return nil, true, usageErr("%s", b.String())
		}
	}
	return matches[0], true, nil
}

// Names lists the configured names once each, in file order.
func (f *Found) Names() []string {
	var names []string
	seen := map[string]bool{}
	for _, e := range f.Entries {
		if !seen[e.Name] {
			seen[e.Name] = true
			names = append(names, e.Name)
		}
	}
	return names
}

// Candidates lists the configured names, the ones like want first.
func (f *Found) Candidates(want string) string {
	type cand struct{ name, label string }
	var cands []cand
	seen := map[string]bool{}
	for _, e := range f.Entries {
		if !seen[e.Name] {
			seen[e.Name] = true
			cands = append(cands, cand{e.Name, e.Name + " (" + e.Client + ")"})
		}
	}
	if len(cands) == 0 {
		return ""
	}
	w := strings.ToLower(want)
	sort.SliceStable(cands, func(i, j int) bool {
		return Similar(cands[i].name, w) && !Similar(cands[j].name, w)
	})
	names := make([]string, 0, 16)
	for i, c := range cands {
		if i == 15 {
			names = append(names, fmt.Sprintf("… (%d in all; see mcpscope servers)", len(cands)))
			break
		}
		names = append(names, c.label)
	}
	return strings.Join(names, ", ")
}

// Similar reports whether name and want (lower case) contain one another.
func Similar(name, want string) bool {
	n := strings.ToLower(name)
	return strings.Contains(n, want) || strings.Contains(want, n)
}

// Compiled on first use, not at start: every command links this package (issue 23).
var placeholderRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([^}]*)\}`) })
var envNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)(:-(.*))?$`) })

// expander resolves placeholders; what it cannot resolve it collects.
type expander struct {
	e       *Entry
	inputs  map[string]string
	missing []string
	secret  bool // the last expand used an env or input value
}

func (x *expander) expand(s string) string {
	x.secret = false
	return placeholderRE().ReplaceAllStringFunc(s, func(ph string) string {
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
			if m := envNameRE().FindStringSubmatch(inner); m != nil {
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

// Target resolves the entry's placeholders and makes it a target. inputs are the
// values of ${input:ID} (--input ID=VALUE).
func (e *Entry) Target(inputs map[string]string) (target.Target, error) {
	if e.Problem != "" {
		return target.Target{}, usageErr("%s", e.Problem)
	}
	x := &expander{e: e, inputs: inputs}
	t := target.Target{Name: e.Name, Config: e.File}
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
			kv, err := readEnv(path)
			if err != nil {
				return target.Target{}, usageErr("server %q (%s): envFile %v", e.Name, e.Where(), err)
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
		if e.OAuth != nil {
			t.OAuth = &target.OAuthClient{ClientID: x.expand(e.OAuth.ClientID), ClientSecret: x.expand(e.OAuth.ClientSecret),
				Scopes: e.OAuth.Scopes, RedirectPort: e.OAuth.CallbackPort, DPoP: e.OAuth.DPoP,
				IDPTokenEndpoint: x.expand(e.OAuth.IDPTokenEndpoint), IDPClientID: x.expand(e.OAuth.IDPClientID),
				IDPClientSecret: x.expand(e.OAuth.IDPClientSecret), IDToken: strings.TrimSpace(x.expand(e.OAuth.IDToken))}
			for _, s := range []string{t.OAuth.ClientSecret, t.OAuth.IDPClientSecret, t.OAuth.IDToken} {
				if s != "" {
					t.Secrets = append(t.Secrets, s)
				}
			}
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
		return target.Target{}, &MissingError{Server: e.Name, Where: e.Where(), Missing: x.missing}
	}
	return t, nil
}

// MissingError is an entry whose placeholders have no value (an environment variable
// not set, an --input not given). It is a usage error (a command that names this
// server alone cannot run); a session of several servers shows the server failed
// with Missing, which names each placeholder and what gives it a value.
type MissingError struct {
	Server, Where string
	Missing       []string // "${env:TOKEN} (the environment variable is not set)", …
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("server %q (%s) needs:\n  %s", e.Server, e.Where, strings.Join(e.Missing, "\n  "))
}

// Unwrap makes it a *target.UsageError (client.UsageError) for errors.As (exit code 2).
func (e *MissingError) Unwrap() error { return &target.UsageError{Msg: e.Error()} }

// sensitiveName: the one rule for credential header names (package redact's, which
// wire.SensitiveHeader is too).
func sensitiveName(name string) bool { return redact.CredentialHeader(name) }

// ParseInputs reads --input ID=VALUE flags.
func ParseInputs(kvs []string) (map[string]string, error) {
	m := map[string]string{}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, usageErr("--input %q: give ID=VALUE", kv)
		}
		m[k] = v
	}
	return m, nil
}

// ReadEnvFile reads K=V lines for --env-file; blank lines and # comments are skipped,
// "export " and matching quotes around the value are accepted. Only a regular file of
// at most MaxEnvFileSize is read.
func ReadEnvFile(path string) ([]string, error) {
	kv, err := readEnv(path)
	if err != nil {
		return nil, usageErr("--env-file %v", err)
	}
	return kv, nil
}

// readEnv is ReadEnvFile with messages that start with the path.
func readEnv(path string) ([]string, error) {
	data, err := readRegular(path, MaxEnvFileSize)
	if err != nil {
		var fe *FileError
		if errors.As(err, &fe) {
			return nil, err
		}
		var pe *os.PathError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s: %v", path, pe.Err)
		}
		return nil, err
	}
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), MaxEnvFileSize+1)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		k, v, ok := strings.Cut(line, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			return nil, fmt.Errorf("%s:%d: expected KEY=VALUE, got %q", path, n, abbreviate(line, 80))
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
			v = v[1 : len(v)-1]
		}
		out = append(out, k+"="+v)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return out, nil
}

// Server is a named target resolved from what the user gave: the config entry it came
// from (nil for a URL or a command) and the entry's own request timeout.
type Server struct {
	Name    string
	Target  target.Target
	Timeout time.Duration
	Entry   *Entry
	// Err, from All, says why a configured server cannot be used as it is (a missing
	// placeholder value, a broken entry); Target is then empty.
	Err error
}

// Sources resolves server names against the config files: File is --config (""
// for every usual place), Inputs the --input values. The files are read once.
type Sources struct {
	File   string
	Inputs map[string]string

	found *Found
}

// Found reads the config files on first use.
func (s *Sources) Found(ctx context.Context) (*Found, error) {
	if s.found != nil {
		return s.found, nil
	}
	f, err := Discover(ctx, s.File)
	if err != nil {
		return nil, err
	}
	s.found = f
	return f, nil
}

// Named resolves a configured name. An unknown name is a usage error that lists the
// configured ones.
func (s *Sources) Named(ctx context.Context, name string) (Server, error) {
	f, err := s.Found(ctx)
	if err != nil {
		return Server{}, err
	}
	e, ok, err := f.Lookup(name)
	if err != nil {
		return Server{}, err
	}
	if !ok {
		return Server{}, s.unknown(f, name)
	}
	return s.fromEntry(e)
}

func (s *Sources) unknown(f *Found, name string) error {
	var msg string
	switch cands := f.Candidates(name); {
	case s.File != "":
		msg = fmt.Sprintf("%s has no server named %q; it has: %s", s.File, name, cands)
	case cands != "":
		msg = fmt.Sprintf("no configured server is named %q; configured servers: %s", name, cands)
	default:
		var looked []string
		for _, l := range f.Looked {
			looked = append(looked, TildePath(l.Path))
		}
		msg = fmt.Sprintf("no configured server is named %q: no config file names any server (looked in %s)", name, strings.Join(looked, ", "))
	}
	for _, b := range f.Broken {
		msg += "\n(could not read " + b.Error() + ")"
	}
	return usageErr("%s", msg)
}

func (s *Sources) fromEntry(e *Entry) (Server, error) {
	t, err := e.Target(s.Inputs)
	if err != nil {
		return Server{}, err
	}
	return Server{Name: e.Name, Target: t, Timeout: e.Timeout, Entry: e}, nil
}

// All is every configured server, in file order (the first entry of a name wins). A
// server that cannot be used as it is comes with Err set, so that the others can be.
func (s *Sources) All(ctx context.Context) ([]Server, error) {
	f, err := s.Found(ctx)
	if err != nil {
		return nil, err
	}
	if len(f.Entries) == 0 {
		var looked []string
		for _, l := range f.Looked {
			looked = append(looked, TildePath(l.Path))
		}
		return nil, usageErr("--all: no servers configured (looked in %s)", strings.Join(looked, ", "))
	}
	var out []Server
	for _, name := range f.Names() {
		srv, err := s.Named(ctx, name)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			srv = Server{Name: name, Err: err}
			if e, ok, _ := f.Lookup(name); ok {
				srv.Entry = e
			}
		}
		out = append(out, srv)
	}
	return out, nil
}

// Only is the one server of --config FILE.
func (s *Sources) Only(ctx context.Context) (Server, error) {
	f, err := s.Found(ctx)
	if err != nil {
		return Server{}, err
	}
	if len(f.Entries) != 1 {
		return Server{}, usageErr("%s names %d servers; give one NAME (or --all): %s", s.File, len(f.Entries), f.Candidates(""))
	}
	return s.fromEntry(&f.Entries[0])
}

// Resolve turns what the user named on the command line into a server:
//   - an http:// or https:// URL is a remote server;
//   - one word that a config file names (File, or the usual places) is that server;
//   - otherwise the words (argv) are a server command to run. One word that is
//     neither a command on PATH nor configured is an error that lists the configured
//     names.
//
// argv must not be empty: what "nothing named" means is the caller's choice.
func (s *Sources) Resolve(ctx context.Context, argv []string) (Server, error) {
	if len(argv) == 0 {
		return Server{}, usageErr("no server named")
	}
	if target.IsURL(argv[0]) {
		if len(argv) > 1 {
			return Server{}, usageErr("a URL target takes nothing after it, got %q", strings.Join(argv[1:], " "))
		}
		return Server{Target: target.Target{URL: argv[0]}}, nil
	}
	if len(argv) > 1 || strings.ContainsAny(argv[0], "/\\") {
		if s.File != "" {
			return Server{}, usageErr("--config names servers; give one NAME from it, not a command")
		}
		if why := NotAProgram(argv[0]); why != "" && strings.ContainsAny(argv[0], "/\\") {
			return Server{}, usageErr("%s", why)
		}
		return Server{Target: target.Target{Argv: argv}}, nil
	}
	name := argv[0]
	f, err := s.Found(ctx)
	if err != nil {
		return Server{}, err
	}
	e, ok, err := f.Lookup(name)
	if err != nil {
		return Server{}, err
	}
	if ok {
		return s.fromEntry(e)
	}
	cands := f.Candidates(name)
	if s.File != "" {
		return Server{}, usageErr("%s has no server named %q; it has: %s", s.File, name, cands)
	}
	if _, err := exec.LookPath(name); err != nil {
		// A file of that name here is no command (exec looks it up in $PATH, not in
		// the current directory): one that cannot run says what it is.
		if why := NotAProgram(name); why != "" {
			return Server{}, usageErr("%s", why)
		}
	}
	if _, err := exec.LookPath(name); err != nil && cands != "" {
		reason := fmt.Sprintf("cannot start %q: no such command, and no configured server has that name; configured servers: %s", name, cands)
		for _, b := range f.Broken {
			reason += "\n(could not read " + b.Error() + ")"
		}
		return Server{}, errors.New(reason) // not a usage error: exit 1, as a server that cannot start
	}
	return Server{Target: target.Target{Argv: argv}}, nil
}
