package app

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpscope/mcpscope/config"
	"github.com/mcpscope/mcpscope/target"
	"github.com/mcpscope/mcpscope/workbench"
)

// Naming servers on the command line. One server: nothing (the bundled host),
// -- CMD ARGS…, a URL, a config name. Several: several config names (mcpscope github
// fetch), --server NAME=TARGET (repeatable), and --all (every server of the config
// files found, or of --config FILE). The order is: the positional names, then
// --server in the order given, then the rest of --all.

// Server is one server of the command line.
type Server struct {
	Spec workbench.Spec
	// Desc says what it is, for section headings: the TARGET as given, or the config
	// entry with its placeholders unexpanded (never a secret from the environment).
	Desc string
	// Err says why a configured server (of --all, or named among others) cannot be
	// used; it is reported as a failed server and not started (the workbench holds it
	// failed: unusable).
	Err error
}

// Naming is how the command line named its servers.
type Naming struct {
	// Sources are the config files (--config, or the usual places) and --input.
	Sources *config.Sources
	// Servers are the --server NAME=TARGET values, in order.
	Servers []string
	// All is --all.
	All bool
	// HeaderGiven reports whether the command line sends the HTTP header name (-H,
	// --bearer): a registry remote's header need not come from anywhere else.
	HeaderGiven func(name string) bool
}

// Multi reports whether the command line used a form that names several servers.
func (n *Naming) Multi() bool { return len(n.Servers) > 0 || n.All }

func usage(format string, a ...any) error {
	return &target.UsageError{Msg: fmt.Sprintf(format, a...)}
}

// BundledHost is mcpscope's own bundled host (mcpscope host) as a server named name:
// what mcpscope connects to when no server is named, run as a child over stdio like
// any other server, so the wire views show real traffic and a fresh machine needs
// nothing else installed.
func BundledHost(name string) (Server, error) {
	self, err := os.Executable()
	if err != nil {
		return Server{}, fmt.Errorf("cannot find mcpscope's own executable to run the bundled host: %w; name a server instead: mcpscope --inspect -- CMD", err)
	}
	return Server{Spec: workbench.Spec{Name: name, Target: target.Target{Argv: []string{self, "host"}}}, Desc: "the bundled host (mcpscope host)"}, nil
}

// FromConfig is a configured server, described by its entry (summary, client, file).
func FromConfig(srv config.Server) Server {
	desc, origin := srv.Name, ""
	if srv.Entry != nil {
		desc = fmt.Sprintf("%s (%s, %s)", srv.Entry.Shown(), srv.Entry.Client, srv.Entry.Where())
		origin = srv.Entry.Where()
	}
	return Server{Spec: workbench.Spec{Name: srv.Name, Target: srv.Target, Timeout: srv.Timeout, Source: workbench.SourceConfig, Origin: origin}, Desc: desc}
}

// CommandServer is a server started by a command line, named after its program.
func CommandServer(argv []string) Server {
	name := filepath.Base(argv[0])
	if workbench.ValidateName(name) != nil {
		name = "server"
	}
	return Server{Spec: workbench.Spec{Name: name, Target: target.Target{Argv: argv}}, Desc: strings.Join(argv, " ")}
}

// URLName names a server reached by URL after its host.
func URLName(u string) string {
	rest := u[strings.Index(u, "://")+3:]
	host, _, _ := strings.Cut(rest, "/")
	if at := strings.LastIndex(host, "@"); at >= 0 {
		host = host[at+1:]
	}
	if workbench.ValidateName(host) != nil || host == "" {
		return "server"
	}
	return host
}

// Dashed reports whether argv is what followed a "--" in args.
func Dashed(args, argv []string) bool {
	for i, a := range args {
		if a == "--" {
			return len(argv) == len(args)-i-1
		}
	}
	return false
}

// servers collects the servers of a command line in order, each name once.
type servers struct {
	out  []Server
	seen map[string]string // name -> how it was named
}

func (s *servers) add(n Server, how string) error {
	if prev, ok := s.seen[n.Spec.Name]; ok {
		return usage("two servers are named %q (%s and %s); give each --server its own NAME", n.Spec.Name, prev, how)
	}
	s.seen[n.Spec.Name] = how
	s.out = append(s.out, n)
	return nil
}

// Named turns the command line into the servers of the session, in order: the
// positionals, then --server, then the rest of --all; with none, the only server of
// --config FILE, or the bundled host. args are the command's arguments as given,
// argv what the flag parsing left.
func (n *Naming) Named(ctx context.Context, args, argv []string) ([]Server, error) {
	s := &servers{seen: map[string]string{}}
	for _, step := range []func(context.Context, *servers) error{
		func(ctx context.Context, s *servers) error { return n.positionals(ctx, s, args, argv) },
		n.serverFlags,
		n.all,
	} {
		if err := step(ctx, s); err != nil {
			return nil, err
		}
	}
	switch {
	case len(s.out) == 0:
		return n.none(ctx)
	case len(s.out) == 1 && s.out[0].Err != nil:
		return nil, s.out[0].Err // one server: its problem is the command's
	}
	return s.out, nil
}

// positionals are one server as before (a URL, a config name, -- CMD, a command), or
// several config names.
func (n *Naming) positionals(ctx context.Context, s *servers, args, argv []string) error {
	if len(argv) == 0 {
		return nil
	}
	if len(argv) == 1 && !Dashed(args, argv) {
		// host is the bundled host, as in --server NAME=host and check/lint's
		// positionals (Target); a program named host runs after -- only.
		if argv[0] == "host" {
			srv, err := BundledHost("host")
			if err != nil {
				return err
			}
			return s.add(srv, "the command line")
		}
		// registry:NAME, or a server.json file: what it declares, checked first.
		if ref, ok := strings.CutPrefix(argv[0], RegistryPrefix); ok {
			srv, err := n.FromRegistry(ctx, "", ref)
			if err != nil {
				return err
			}
			return s.add(srv, "the command line")
		}
		if IsServerJSON(argv[0]) {
			srv, err := n.FromServerJSON("", argv[0])
			if err != nil {
				return err
			}
			return s.add(srv, "the command line")
		}
	}
	if Dashed(args, argv) || target.IsURL(argv[0]) || len(argv) == 1 {
		return n.one(ctx, s, argv)
	}
	// Several words: config names when the first one is configured (or is no command
	// at all); otherwise a command line, as before.
	f, err := n.Sources.Found(ctx)
	if err != nil {
		return err
	}
	_, configured, err := f.Lookup(argv[0])
	if err != nil {
		return err
	}
	if !configured && looksLikeCommand(argv) {
		return n.one(ctx, s, argv)
	}
	for _, name := range argv {
		srv, err := n.configured(ctx, f, name)
		if err != nil {
			return err
		}
		if err := s.add(srv, "the command line"); err != nil {
			return err
		}
	}
	return nil
}

// looksLikeCommand says words that are not a configured name start a command: the
// first is on $PATH or a path, or a later one is a flag.
func looksLikeCommand(argv []string) bool {
	if _, err := exec.LookPath(argv[0]); err == nil || strings.ContainsAny(argv[0], "/\\") {
		return true
	}
	return slices.ContainsFunc(argv[1:], func(a string) bool { return strings.HasPrefix(a, "-") })
}

// one is one server named as before: a URL, a config name, or a command.
func (n *Naming) one(ctx context.Context, s *servers, argv []string) error {
	srv, err := n.Sources.Resolve(ctx, argv)
	if err != nil {
		return err
	}
	switch {
	case srv.Entry != nil:
		return s.add(FromConfig(srv), "the command line")
	case srv.Target.URL != "":
		return s.add(Server{Spec: workbench.Spec{Name: URLName(srv.Target.URL), Target: srv.Target}, Desc: srv.Target.URL}, "the command line")
	}
	return s.add(CommandServer(srv.Target.Argv), "the command line")
}

// serverFlags are --server NAME=TARGET, in order.
func (n *Naming) serverFlags(ctx context.Context, s *servers) error {
	for _, kv := range n.Servers {
		name, given, ok := strings.Cut(kv, "=")
		if !ok {
			return usage("--server %q: give NAME=TARGET (a URL, a config name, host, or a command line)", kv)
		}
		if err := workbench.ValidateName(name); err != nil {
			return usage("--server %s: %v", kv, err)
		}
		srv, err := n.Target(ctx, name, given)
		if err != nil {
			return err
		}
		if err := s.add(srv, "--server "+name+"="+abbrev(given, 40)); err != nil {
			return err
		}
	}
	return nil
}

// all is --all: every configured server not named already (a --server of the same
// name overrides the configured one) and not switched off by the client that owns
// its file.
func (n *Naming) all(ctx context.Context, s *servers) error {
	if !n.All {
		return nil
	}
	all, err := n.Sources.All(ctx)
	if err != nil {
		return err
	}
	for _, srv := range all {
		if _, ok := s.seen[srv.Name]; ok || srv.Entry != nil && srv.Entry.Disabled {
			continue
		}
		one := FromConfig(srv)
		// A bad name is already the entry's problem (config.CheckName, with its file
		// and line), so srv.Err says it.
		if srv.Err != nil {
			one.Err = srv.Err
		} else if err := workbench.ValidateName(srv.Name); err != nil {
			one.Err = usage("the configured server %q cannot be used here: %v", srv.Name, err)
		}
		if err := s.add(one, "--all"); err != nil {
			return err
		}
	}
	return nil
}

// none is the server of a command line that names none: the only one of --config
// FILE, else the bundled host.
func (n *Naming) none(ctx context.Context) ([]Server, error) {
	if n.Sources.File != "" {
		srv, err := n.Sources.Only(ctx)
		if err != nil {
			return nil, err
		}
		return []Server{FromConfig(srv)}, nil
	}
	h, err := BundledHost("host")
	if err != nil {
		return nil, err
	}
	return []Server{h}, nil
}

// configured is a configured name of the command line. An unknown name is the
// command's error; an entry that cannot be used as it is (a placeholder without a
// value) comes back with Err set, reported as a failed server like one of --all, so
// that naming it among others never costs the others.
func (n *Naming) configured(ctx context.Context, f *config.Found, name string) (Server, error) {
	e, ok, err := f.Lookup(name)
	if err != nil {
		return Server{}, err
	}
	if !ok {
		_, err := n.Sources.Named(ctx, name) // the message that lists the configured names
		return Server{}, err
	}
	srv, err := n.Sources.Named(ctx, name)
	if err != nil {
		if ctx.Err() != nil {
			return Server{}, ctx.Err()
		}
		one := FromConfig(config.Server{Name: name, Entry: e})
		one.Err = err
		return one, nil
	}
	return FromConfig(srv), nil
}

// Target reads the TARGET of --server NAME=TARGET (given): host, a URL, a config
// name, or a command line.
func (n *Naming) Target(ctx context.Context, name, given string) (Server, error) {
	return n.target(ctx, name, given)
}

// Given is a TARGET named alone on a command line (check, lint, diff and pin accept
// take positionals), named as --inspect and the workbench name it: a configured NAME
// by its name, host as host, a URL by its host, a registry entry or server.json by
// its server, a command line by its program. One name for one server across
// commands: a pin taken by --inspect gh is the one lint gh compares and pin accept gh
// replaces (all three had been "server" here, so pin accept NAME never cleared the
// drift --inspect NAME reported), and two servers of one run are told apart in a
// report and by lint's shadowing rules.
func (n *Naming) Given(ctx context.Context, given string) (Server, error) {
	return n.target(ctx, "", given)
}

// target is Target, and Given when name is "" (each branch names the server then,
// and errors do not speak of a --server that was not given).
func (n *Naming) target(ctx context.Context, name, given string) (Server, error) {
	given = strings.TrimSpace(given)
	how := "--server " + name + "=" + given + ": "
	if name == "" {
		how = strconv.Quote(given) + ": "
	}
	switch {
	case given == "":
		if name == "" {
			return Server{}, usage("an empty TARGET: give a URL, a config name, host, or a command line")
		}
		return Server{}, usage("--server %s=: give a TARGET (a URL, a config name, host, or a command line)", name)
	case given == "host":
		if name == "" {
			name = "host"
		}
		return BundledHost(name)
	case strings.HasPrefix(given, RegistryPrefix):
		return n.FromRegistry(ctx, name, strings.TrimPrefix(given, RegistryPrefix))
	case IsServerJSON(given):
		return n.FromServerJSON(name, given)
	case target.IsURL(given):
		if strings.ContainsAny(given, " \t") {
			return Server{}, usage("%sa URL takes nothing after it", how)
		}
		if name == "" {
			name = URLName(given)
		}
		return Server{Spec: workbench.Spec{Name: name, Target: target.Target{URL: given}}, Desc: given}, nil
	}
	words, err := ShellSplit(given)
	if err != nil {
		return Server{}, usage("%s%v", how, err)
	}
	if len(words) == 1 && !strings.ContainsAny(words[0], "/\\") {
		if srv, ok, err := n.configTarget(ctx, name, how, words[0]); ok || err != nil {
			return srv, err
		}
	}
	if why := notAProgram(words[0]); why != "" {
		if name == "" { // the message names the file: no "given": prefix
			return Server{}, usage("%s", why)
		}
		return Server{}, usage("%s%s", how, why)
	}
	if name == "" {
		srv := CommandServer(words)
		srv.Desc = given
		return srv, nil
	}
	return Server{Spec: workbench.Spec{Name: name, Target: target.Target{Argv: words}}, Desc: given}, nil
}

// notAProgram is config.NotAProgram for a program word that would be run: a path, or a
// bare word that is no command on $PATH (exec does not look in the current directory).
func notAProgram(word string) string {
	if !strings.ContainsAny(word, "/\\") {
		if _, err := exec.LookPath(word); err == nil {
			return ""
		}
	}
	return config.NotAProgram(word)
}

// configTarget is the one word of a TARGET as a config name (ok), or nothing when it
// is a command on $PATH; neither is a usage error that lists the configured names.
// name "" names the server after the word; how begins an error message.
func (n *Naming) configTarget(ctx context.Context, name, how, word string) (Server, bool, error) {
	f, err := n.Sources.Found(ctx)
	if err != nil {
		return Server{}, false, err
	}
	e, ok, err := f.Lookup(word)
	if err != nil {
		return Server{}, false, err
	}
	if ok {
		if name == "" {
			name = word
		}
		t, err := e.Target(n.Sources.Inputs)
		srv := FromConfig(config.Server{Name: name, Target: t, Timeout: e.Timeout, Entry: e})
		// An entry that cannot be used as it is (a placeholder without a value) is a
		// failed server of the session, as with --all; named alone, the command's
		// error (Named).
		srv.Err = err
		if name != word {
			// Named in this session under a name of its own: a session server. Under
			// its configured name (--server gh=gh) it is the configured one, which a
			// server added under that name overrides for the session.
			srv.Spec.Source = workbench.SourceSession
		}
		return srv, true, nil
	}
	if _, err := exec.LookPath(word); err != nil {
		msg := fmt.Sprintf("%sno configured server is named %q and no command is", how, word)
		if cands := f.Candidates(word); cands != "" {
			msg += "; configured servers: " + cands
		}
		return Server{}, false, usage("%s", msg)
	}
	return Server{}, false, nil
}

func abbrev(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Call picks the server of mcpscope call: SERVER/TOOL (or mcp__SERVER__TOOL) names
// it among the servers of the command line, or, when none is named, among the
// configured ones (host is the bundled host); a plain TOOL needs exactly one server.
// It returns the server and the tool's own name.
func (n *Naming) Call(ctx context.Context, args, argv []string, tool string) (Server, string, error) {
	explicit := len(argv) > 0 || n.Multi()
	var named []Server
	if explicit {
		var err error
		if named, err = n.Named(ctx, args, argv); err != nil {
			return Server{}, "", err
		}
	}
	var known []string
	for _, s := range named {
		known = append(known, s.Spec.Name)
	}
	if !n.qualified(ctx, tool, known, explicit) {
		return n.plainTool(ctx, args, argv, tool, named, known)
	}
	id, err := workbench.ParseToolID(tool, known)
	if err != nil {
		return Server{}, "", usage("%v", err)
	}
	if explicit {
		for _, s := range named {
			if s.Spec.Name == id.Server {
				return s, id.Tool, s.Err
			}
		}
		return Server{}, "", usage("no server named %q in this call; the servers named are: %s", id.Server, strings.Join(known, ", "))
	}
	if id.Server == "host" {
		h, err := BundledHost("host")
		return h, id.Tool, err
	}
	srv, err := n.Sources.Named(ctx, id.Server)
	if err != nil {
		return Server{}, "", err
	}
	return FromConfig(srv), id.Tool, nil
}

// qualified reports whether tool names its server: SERVER/TOOL, or mcp__SERVER__TOOL
// whose server part is a server of the session (or, with none named, a configured
// one or host): a tool may be named mcp__x__y itself.
func (n *Naming) qualified(ctx context.Context, tool string, known []string, explicit bool) bool {
	if strings.Contains(tool, "/") {
		return true
	}
	if !strings.HasPrefix(tool, "mcp__") {
		return false
	}
	names := known
	if !explicit {
		names = append(names, "host")
		if f, err := n.Sources.Found(ctx); err == nil {
			names = append(names, f.Names()...)
		}
	}
	id, err := workbench.ParseToolID(tool, names)
	return err == nil && slices.Contains(names, id.Server)
}

// plainTool is the server of a TOOL that names none: the one server named, or the
// command line's default (Named with nothing named).
func (n *Naming) plainTool(ctx context.Context, args, argv []string, tool string, named []Server, known []string) (Server, string, error) {
	if len(named) == 0 {
		h, err := n.Named(ctx, args, argv)
		if err != nil {
			return Server{}, "", err
		}
		return h[0], tool, nil
	}
	if len(named) > 1 {
		return Server{}, "", usage("%d servers are named (%s); say whose tool: mcpscope call SERVER/%s", len(named), strings.Join(known, ", "), tool)
	}
	return named[0], tool, named[0].Err
}
