package main

import (
	"fmt"
	"os/exec"
	"strings"

	"github.com/mcpscope/mcpscope/client"
)

// resolveTarget turns what the user named into a target:
//   - an http:// or https:// URL is a remote server;
//   - one word that a config file names (see config.go; --config FILE, or the usual
//     places) is that server;
//   - otherwise the words after "--" (or the first positional that starts a command)
//     are a server command to run;
//   - nothing at all means the bundled host (see defaultTarget), unless --config names
//     a file with exactly one server.
func resolveTarget(c *common, argv []string) (client.Target, error) {
	if len(argv) == 0 {
		if c.remote.config != "" {
			return onlyConfigured(c)
		}
		return defaultTarget()
	}
	if client.IsURL(argv[0]) {
		if len(argv) > 1 {
			return client.Target{}, usageErr("a URL target takes nothing after it, got %q", strings.Join(argv[1:], " "))
		}
		return client.Target{URL: argv[0]}, nil
	}
	if len(argv) > 1 || strings.ContainsAny(argv[0], "/\\") {
		if c.remote.config != "" {
			return client.Target{}, usageErr("--config names servers; give one NAME from it, not a command")
		}
		return client.Target{Argv: argv}, nil
	}
	name := argv[0]
	f, err := loadServers(c)
	if err != nil {
		return client.Target{}, err
	}
	e, ok, err := f.lookup(name)
	if err != nil {
		return client.Target{}, err
	}
	if ok {
		inputs, err := inputValues(c)
		if err != nil {
			return client.Target{}, err
		}
		return e.target(inputs)
	}
	cands := f.candidates(name)
	if c.remote.config != "" {
		return client.Target{}, usageErr("%s has no server named %q; it has: %s", c.remote.config, name, cands)
	}
	if _, err := exec.LookPath(name); err != nil && cands != "" {
		reason := fmt.Sprintf("cannot start %q: no such command, and no configured server has that name; configured servers: %s", name, cands)
		for _, b := range f.broken {
			reason += "\n(could not read " + b.Error() + ")"
		}
		return client.Target{}, &client.ServerError{Reason: reason}
	}
	return client.Target{Argv: argv}, nil
}

// onlyConfigured is the one server of --config FILE.
func onlyConfigured(c *common) (client.Target, error) {
	f, err := loadServers(c)
	if err != nil {
		return client.Target{}, err
	}
	if len(f.entries) != 1 {
		return client.Target{}, usageErr("%s names %d servers; give one NAME: %s", c.remote.config, len(f.entries), f.candidates(""))
	}
	inputs, err := inputValues(c)
	if err != nil {
		return client.Target{}, err
	}
	return f.entries[0].target(inputs)
}
