package main

import (
	"context"
	"flag"
	"fmt"
	"os/exec"
	"strings"

	"github.com/mcpscope/mcpscope/app"
	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/config"
	"github.com/mcpscope/mcpscope/workbench"
)

// Naming servers on the command line: the flags are read here, the servers they name
// are resolved by app.Naming (one server: nothing for the bundled host, -- CMD ARGS…,
// a URL, a config name; several: config names, --server NAME=TARGET, --all).

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

// namedServer is one server of the command line (app.Server), as this package's
// commands read it.
type namedServer struct {
	spec workbench.Spec
	// desc says what it is, for section headings (app.Server.Desc).
	desc string
	// err says why a configured server cannot be used (app.Server.Err): reported as
	// a failed server and not started.
	err error
}

func fromApp(s app.Server) namedServer { return namedServer{spec: s.Spec, desc: s.Desc, err: s.Err} }

func fromConfig(srv config.Server) namedServer { return fromApp(app.FromConfig(srv)) }

func commandServer(argv []string) namedServer { return fromApp(app.CommandServer(argv)) }

// multi reports whether the command line used a form that names several servers.
func (c *common) multi() bool { return len(c.naming.servers) > 0 || c.naming.all }

// appNaming is the naming flags with src, the config files they are looked up in.
func (c *common) appNaming(src *config.Sources) *app.Naming {
	return &app.Naming{Sources: src, Servers: c.naming.servers, All: c.naming.all, HeaderGiven: c.remote.gives}
}

// namedServers turns the command line into the servers of the session, in order.
// args are the command's arguments as given, argv what the flag parsing left.
func (c *common) namedServers(ctx context.Context, args, argv []string) ([]namedServer, error) {
	src, err := c.sources()
	if err != nil {
		return nil, err
	}
	servers, err := c.appNaming(src).Named(ctx, args, argv)
	if err != nil {
		return nil, err
	}
	out := make([]namedServer, len(servers))
	for i, s := range servers {
		out[i] = fromApp(s)
	}
	return out, nil
}

// givenTarget reads a TARGET named alone on the command line, under the name every
// command gives it (app.Naming.Given).
func (c *common) givenTarget(ctx context.Context, src *config.Sources, given string) (namedServer, error) {
	s, err := c.appNaming(src).Given(ctx, given)
	return fromApp(s), err
}

// uniqueNames makes the servers' names unique in place, in order: a name taken
// before gets -2, -3... (check host host: two reports, two JUnit suites, told apart;
// lint's rules across servers compare two servers, not one with itself).
func uniqueNames[S any](servers []S, srv func(*S) *namedServer) {
	seen := map[string]bool{}
	for k := range servers {
		s := srv(&servers[k])
		if s == nil {
			continue
		}
		name := s.spec.Name
		for n := 2; seen[name]; n++ {
			name = fmt.Sprintf("%s-%d", s.spec.Name, n)
		}
		seen[name] = true
		s.spec.Name = name
	}
}

// serverTarget reads the TARGET of --server NAME=TARGET (given).
func (c *common) serverTarget(ctx context.Context, src *config.Sources, name, given string) (namedServer, error) {
	s, err := c.appNaming(src).Target(ctx, name, given)
	return fromApp(s), err
}

// callServer picks the server of mcpscope call (app.Naming.Call): SERVER/TOOL names
// it; a plain TOOL needs exactly one server. It returns the server and the tool's own
// name.
func (c *common) callServer(ctx context.Context, args, argv []string, tool string) (namedServer, string, error) {
	src, err := c.sources()
	if err != nil {
		return namedServer{}, "", err
	}
	s, name, err := c.appNaming(src).Call(ctx, args, argv, tool)
	return fromApp(s), name, err
}

// reparseNames lets flags follow several server names (mcpscope --inspect one two
// --config FILE): without "--", the first positional normally starts a server
// command and takes every word after it. When that word cannot start a command (no
// path, not on $PATH) or is a configured name, the words are names, and the flags
// among them are parsed. It returns the names, or argv unchanged.
func (c *common) reparseNames(ctx context.Context, fs *flag.FlagSet, args, argv []string) ([]string, error) {
	if len(argv) < 2 || app.Dashed(args, argv) || client.IsURL(argv[0]) || strings.ContainsAny(argv[0], "/\\") {
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
