package main

import (
	"context"
	"flag"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/config"
	"github.com/mcpscope/mcpscope/target"
	"github.com/mcpscope/mcpscope/workbench"
)

// Naming servers on the command line. Today's forms name one server: nothing (the
// bundled host), -- CMD ARGS…, a URL, a config name. Several can be named with
// several config names (mcpscope github fetch), --server NAME=TARGET (repeatable), and
// --all (every server of the config files found, or of --config FILE). The order is:
// the positional names, then --server in the order given, then the rest of --all.

// naming holds the flags of named.go.
type naming struct {
	servers multiFlag // --server NAME=TARGET
	all     bool
	strict  bool
}

func (c *common) registerNaming(fs *flag.FlagSet) {
	fs.Var(&c.naming.servers, "server", "NAME=TARGET: a server of the session; TARGET is a URL, a config name, host (the bundled host) or a command line (repeatable)")
	fs.BoolVar(&c.naming.all, "all", false, "every server of the config files found (or of --config FILE)")
	fs.BoolVar(&c.naming.strict, "strict", false, "with several servers: exit 1 when any of them failed (default: only when all did)")
}

// namedServer is one server of the command line.
type namedServer struct {
	spec workbench.Spec
	// desc says what it is, for section headings: the TARGET as given, or the config
	// entry with its placeholders unexpanded (never a secret from the environment).
	desc string
	// err says why a configured server (of --all, or named among others) cannot be
	// used; it is reported as a failed server and not started (the workbench holds it
	// failed: unusable).
	err error
}

// multi reports whether the command line used a form that names several servers.
func (c *common) multi() bool { return len(c.naming.servers) > 0 || c.naming.all }

// bundledHost is the bundled host as a named server.
func bundledHost(name string) (namedServer, error) {
	t, err := defaultTarget()
	if err != nil {
		return namedServer{}, err
	}
	return namedServer{spec: workbench.Spec{Name: name, Target: t}, desc: "the bundled host (mcpscope host)"}, nil
}

func fromConfig(srv config.Server) namedServer {
	desc := srv.Name
	if srv.Entry != nil {
		desc = fmt.Sprintf("%s (%s, %s)", srv.Entry.Summary(), srv.Entry.Client, srv.Entry.Where())
	}
	origin := ""
	if srv.Entry != nil {
		origin = srv.Entry.Where()
	}
	return namedServer{spec: workbench.Spec{Name: srv.Name, Target: srv.Target, Timeout: srv.Timeout, Source: workbench.SourceConfig, Origin: origin}, desc: desc}
}

// dashed reports whether argv is what followed a "--" in args.
func dashed(args, argv []string) bool {
	for i, a := range args {
		if a == "--" {
			return len(argv) == len(args)-i-1
		}
	}
	return false
}

// namedServers turns the command line into the servers of the session, in order.
// args are the command's arguments as given, argv what the flag parsing left.
func (c *common) namedServers(ctx context.Context, args, argv []string) ([]namedServer, error) {
	src, err := c.sources()
	if err != nil {
		return nil, err
	}
	var out []namedServer
	seen := map[string]string{} // name -> how it was named
	add := func(n namedServer, how string) error {
		if prev, ok := seen[n.spec.Name]; ok {
			return usageErr("two servers are named %q (%s and %s); give each --server its own NAME", n.spec.Name, prev, how)
		}
		seen[n.spec.Name] = how
		out = append(out, n)
		return nil
	}

	// Positionals: one server as today, or several config names.
	switch {
	case len(argv) == 0:
	case dashed(args, argv) || client.IsURL(argv[0]) || len(argv) == 1:
		srv, err := c.resolveOne(ctx, src, argv)
		if err != nil {
			return nil, err
		}
		if err := add(srv, "the command line"); err != nil {
			return nil, err
		}
	default:
		// Several words: config names when the first one is configured (or is no
		// command at all); otherwise a command line, as before.
		f, err := src.Found(ctx)
		if err != nil {
			return nil, err
		}
		_, configured, err := f.Lookup(argv[0])
		if err != nil {
			return nil, err
		}
		_, lookErr := exec.LookPath(argv[0])
		flags := false
		for _, a := range argv[1:] {
			flags = flags || strings.HasPrefix(a, "-")
		}
		if !configured && (lookErr == nil || flags || strings.ContainsAny(argv[0], "/\\")) {
			srv, err := c.resolveOne(ctx, src, argv)
			if err != nil {
				return nil, err
			}
			if err := add(srv, "the command line"); err != nil {
				return nil, err
			}
			break
		}
		for _, name := range argv {
			n, err := configuredServer(ctx, src, f, name)
			if err != nil {
				return nil, err
			}
			if err := add(n, "the command line"); err != nil {
				return nil, err
			}
		}
	}

	// --server NAME=TARGET.
	for _, kv := range c.naming.servers {
		name, target, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, usageErr("--server %q: give NAME=TARGET (a URL, a config name, host, or a command line)", kv)
		}
		if err := workbench.ValidateName(name); err != nil {
			return nil, usageErr("--server %s: %v", kv, err)
		}
		srv, err := c.serverTarget(ctx, src, name, target)
		if err != nil {
			return nil, err
		}
		if err := add(srv, "--server "+name+"="+abbrev(target, 40)); err != nil {
			return nil, err
		}
	}

	// --all: every configured server not named already (a --server of the same name
	// overrides the configured one).
	if c.naming.all {
		all, err := src.All(ctx)
		if err != nil {
			return nil, err
		}
		for _, srv := range all {
			if _, ok := seen[srv.Name]; ok {
				continue
			}
			if srv.Entry != nil && srv.Entry.Disabled {
				continue // the client that owns the file has it switched off
			}
			n := fromConfig(srv)
			// A bad name is already the entry's problem (config.CheckName, with its
			// file and line), so srv.Err says it.
			if srv.Err != nil {
				n.err = srv.Err
			} else if err := workbench.ValidateName(srv.Name); err != nil {
				n.err = usageErr("the configured server %q cannot be used here: %v", srv.Name, err)
			}
			if err := add(n, "--all"); err != nil {
				return nil, err
			}
		}
	}

	if len(out) == 0 {
		if c.remote.config != "" {
			srv, err := src.Only(ctx)
			if err != nil {
				return nil, err
			}
			return []namedServer{fromConfig(srv)}, nil
		}
		h, err := bundledHost("host")
		if err != nil {
			return nil, err
		}
		return []namedServer{h}, nil
	}
	if len(out) == 1 && out[0].err != nil {
		return nil, out[0].err // one server: its problem is the command's
	}
	return out, nil
}

// configuredServer is a configured name of the command line. An unknown name is the
// command's error; an entry that cannot be used as it is (a placeholder without a
// value) comes back with err set, reported as a failed server like one of --all, so
// that naming it among others never costs the others.
func configuredServer(ctx context.Context, src *config.Sources, f *config.Found, name string) (namedServer, error) {
	e, ok, err := f.Lookup(name)
	if err != nil {
		return namedServer{}, err
	}
	if !ok {
		_, err := src.Named(ctx, name) // the message that lists the configured names
		return namedServer{}, err
	}
	srv, err := src.Named(ctx, name)
	if err != nil {
		if ctx.Err() != nil {
			return namedServer{}, ctx.Err()
		}
		n := fromConfig(config.Server{Name: name, Entry: e})
		n.err = err
		return n, nil
	}
	return fromConfig(srv), nil
}

// resolveOne is one server named as before: a URL, a config name, or a command.
func (c *common) resolveOne(ctx context.Context, src *config.Sources, argv []string) (namedServer, error) {
	srv, err := src.Resolve(ctx, argv)
	if err != nil {
		return namedServer{}, err
	}
	if srv.Entry != nil {
		return fromConfig(srv), nil
	}
	if srv.Target.URL != "" {
		return namedServer{spec: workbench.Spec{Name: urlName(srv.Target.URL), Target: srv.Target}, desc: srv.Target.URL}, nil
	}
	return commandServer(srv.Target.Argv), nil
}

func commandServer(argv []string) namedServer {
	name := filepath.Base(argv[0])
	if workbench.ValidateName(name) != nil {
		name = "server"
	}
	return namedServer{spec: workbench.Spec{Name: name, Target: target.Target{Argv: argv}}, desc: strings.Join(argv, " ")}
}

// urlName names a server reached by URL after its host.
func urlName(u string) string {
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

// serverTarget reads the TARGET of --server NAME=TARGET (given).
func (c *common) serverTarget(ctx context.Context, src *config.Sources, name, given string) (namedServer, error) {
	given = strings.TrimSpace(given)
	switch {
	case given == "":
		return namedServer{}, usageErr("--server %s=: give a TARGET (a URL, a config name, host, or a command line)", name)
	case given == "host":
		return bundledHost(name)
	case client.IsURL(given):
		if strings.ContainsAny(given, " \t") {
			return namedServer{}, usageErr("--server %s=%s: a URL takes nothing after it", name, given)
		}
		return namedServer{spec: workbench.Spec{Name: name, Target: target.Target{URL: given}}, desc: given}, nil
	}
	words, err := shellSplit(given)
	if err != nil {
		return namedServer{}, usageErr("--server %s=%s: %v", name, given, err)
	}
	if len(words) == 1 && !strings.ContainsAny(words[0], "/\\") {
		f, err := src.Found(ctx)
		if err != nil {
			return namedServer{}, err
		}
		e, ok, err := f.Lookup(words[0])
		if err != nil {
			return namedServer{}, err
		}
		if ok {
			t, err := e.Target(src.Inputs)
			n := fromConfig(config.Server{Name: name, Target: t, Timeout: e.Timeout, Entry: e})
			// An entry that cannot be used as it is (a placeholder without a value)
			// is a failed server of the session, as with --all; named alone, the
			// command's error (namedServers).
			n.err = err
			if name != words[0] {
				// Named in this session under a name of its own: a session server.
				// Under its configured name (--server gh=gh) it is the configured one,
				// which a server added under that name overrides for the session.
				n.spec.Source = workbench.SourceSession
			}
			return n, nil
		}
		if _, err := exec.LookPath(words[0]); err != nil {
			msg := fmt.Sprintf("--server %s=%s: no configured server is named %q and no command is", name, given, words[0])
			if cands := f.Candidates(words[0]); cands != "" {
				msg += "; configured servers: " + cands
			}
			return namedServer{}, usageErr("%s", msg)
		}
	}
	return namedServer{spec: workbench.Spec{Name: name, Target: target.Target{Argv: words}}, desc: given}, nil
}

func abbrev(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// shellSplit splits a command line into words as a POSIX shell would, without
// expanding anything: white space separates words; single quotes keep everything up
// to the next single quote; double quotes keep everything but \" \\ \$ \` escapes;
// a backslash outside quotes keeps the next character. (Hand-written: the one Go
// package for this, google/shlex, has not been maintained since 2019.)
func shellSplit(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case ch == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("a single quote is not closed")
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case ch == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("a double quote is not closed")
			}
			inWord = true
		case ch == '\\':
			if i+1 < len(s) {
				i++
				cur.WriteByte(s[i])
			}
			inWord = true
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("the command line is empty")
	}
	return words, nil
}

// callServer picks the server of mcpscope call: SERVER/TOOL (or mcp__SERVER__TOOL)
// names it among the servers of the command line, or, when none is named, among the
// configured ones (host is the bundled host); a plain TOOL needs exactly one server.
// It returns the server and the tool's own name.
func (c *common) callServer(ctx context.Context, args, argv []string, tool string) (namedServer, string, error) {
	explicit := len(argv) > 0 || c.multi()
	var servers []namedServer
	if explicit {
		var err error
		if servers, err = c.namedServers(ctx, args, argv); err != nil {
			return namedServer{}, "", err
		}
	}
	var known []string
	for _, s := range servers {
		known = append(known, s.spec.Name)
	}
	qualified := strings.Contains(tool, "/")
	if !qualified && strings.HasPrefix(tool, "mcp__") {
		// A tool may be named mcp__x__y itself: the form counts only when its server
		// part is a server of the session (or, with none named, a configured one).
		names := known
		if !explicit {
			names = append(names, "host")
			if src, err := c.sources(); err == nil {
				if f, err := src.Found(ctx); err == nil {
					names = append(names, f.Names()...)
				}
			}
		}
		if id, err := workbench.ParseToolID(tool, names); err == nil && contains(names, id.Server) {
			qualified = true
		}
	}
	if !qualified {
		if !explicit {
			h, err := c.namedServers(ctx, args, argv)
			if err != nil {
				return namedServer{}, "", err
			}
			return h[0], tool, nil
		}
		if len(servers) > 1 {
			return namedServer{}, "", usageErr("%d servers are named (%s); say whose tool: mcpscope call SERVER/%s", len(servers), strings.Join(known, ", "), tool)
		}
		return servers[0], tool, servers[0].err
	}
	id, err := workbench.ParseToolID(tool, known)
	if err != nil {
		return namedServer{}, "", usageErr("%v", err)
	}
	if explicit {
		for _, s := range servers {
			if s.spec.Name == id.Server {
				return s, id.Tool, s.err
			}
		}
		return namedServer{}, "", usageErr("no server named %q in this call; the servers named are: %s", id.Server, strings.Join(known, ", "))
	}
	if id.Server == "host" {
		h, err := bundledHost("host")
		return h, id.Tool, err
	}
	src, err := c.sources()
	if err != nil {
		return namedServer{}, "", err
	}
	srv, err := src.Named(ctx, id.Server)
	if err != nil {
		return namedServer{}, "", err
	}
	return fromConfig(srv), id.Tool, nil
}

func contains(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

// reparseNames lets flags follow several server names (mcpscope --inspect one two
// --config FILE): without "--", the first positional normally starts a server
// command and takes every word after it. When that word cannot start a command (no
// path, not on $PATH) or is a configured name, the words are names, and the flags
// among them are parsed. It returns the names, or argv unchanged.
func (c *common) reparseNames(ctx context.Context, fs *flag.FlagSet, args, argv []string) ([]string, error) {
	if len(argv) < 2 || dashed(args, argv) || client.IsURL(argv[0]) || strings.ContainsAny(argv[0], "/\\") {
		return argv, nil
	}
	if _, err := exec.LookPath(argv[0]); err == nil {
		src, err := c.sources()
		if err != nil {
			return nil, err
		}
		f, err := src.Found(ctx)
		if err != nil {
			return nil, err
		}
		if _, ok, _ := f.Lookup(argv[0]); !ok {
			return argv, nil // a command on $PATH, as before
		}
	}
	names, rest, err := parse(fs, argv, func([]string, string) bool { return false })
	if err != nil {
		return argv, nil // not mcpscope's flags: a command line after all
	}
	if len(rest) > 0 {
		return nil, usageErr("give server names or -- CMD ARGS..., not both (after %s)", strings.Join(names, " "))
	}
	return names, nil
}
