package app

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/mcpscope/mcpscope/internal/readfile"
	"github.com/mcpscope/mcpscope/registry"
	"github.com/mcpscope/mcpscope/target"
	"github.com/mcpscope/mcpscope/workbench"
)

// RegistryPrefix starts a TARGET that names a server of the MCP Registry:
// registry:NAME[@VERSION][#TYPE].
const RegistryPrefix = "registry:"

// FromRegistry is the server registry:REF of the registry (MCPSCOPE_REGISTRY, else
// the official one), named name ("" names it after the last part of its registry
// name). See Launch for what it runs.
func (n *Naming) FromRegistry(ctx context.Context, name, ref string) (Server, error) {
	entryName, version, kind, err := registry.ParseRef(ref)
	if err != nil {
		return Server{}, usage("%v", err)
	}
	base, err := registry.BaseURL("")
	if err != nil {
		return Server{}, usage("%v", err)
	}
	c := &registry.Client{Base: base, UserAgent: "mcpscope"}
	e, err := c.Get(ctx, entryName, version)
	if err != nil {
		return Server{}, err
	}
	if e.Status == "deleted" {
		return Server{}, usage("%s is deleted from the registry %s: it is not run", entryName, base)
	}
	return n.launch(name, e.Server, kind, "registry:"+ref)
}

// FromServerJSON is the server a server.json file declares, checked against its
// schema before anything is started.
func (n *Naming) FromServerJSON(name, path string) (Server, error) {
	data, err := readfile.Read(path, registry.MaxServerJSON)
	if err != nil {
		return Server{}, usage("%v", err)
	}
	s, err := registry.Validate(path, data)
	if err != nil {
		return Server{}, usage("%v", err)
	}
	return n.launch(name, s, "", path)
}

// IsServerJSON reports whether path is a server.json file: a regular .json file that
// reads as one (registry.Looks).
func IsServerJSON(path string) bool {
	if !strings.HasSuffix(path, ".json") {
		return false
	}
	data, err := readfile.Read(path, registry.MaxServerJSON)
	return err == nil && registry.Looks(data)
}

// launch is the server that runs the package or remote of s chosen by kind, with the
// values the command line gives: a package's environment variables from the
// environment of the same names (they go to that package's process only); its
// arguments and a remote's URL variables from --input LABEL=VALUE; a remote's
// headers from -H (HeaderGiven: the value itself is sent as -H says, never
// taken from the entry or the environment). What is missing is refused with every
// name at once.
func (n *Naming) launch(name string, s registry.Server, kind, desc string) (Server, error) {
	p, r, err := registry.Choose(s, kind)
	if err != nil {
		return Server{}, usage("%v", err)
	}
	if r != nil && n.HeaderGiven != nil {
		// A header the user gives with -H is theirs to send (the client's header wins
		// over the target's): the entry need not be satisfied for it.
		c := *r
		c.Headers = nil
		for _, h := range r.Headers {
			if !n.HeaderGiven(h.Name) {
				c.Headers = append(c.Headers, h)
			}
		}
		r = &c
	}
	v := registry.Values{}
	for _, need := range registry.Needs(p, r) {
		if env, ok := strings.CutPrefix(need.Key, "env:"); ok {
			if val, ok := os.LookupEnv(env); ok {
				v[need.Key] = val
			}
			continue
		}
		// An argument or a URL variable: --input LABEL=VALUE, as for a config
		// file's ${input:ID}. Never a header: that is -H's.
		if n.Sources != nil && !strings.HasPrefix(need.Key, "header:") {
			if val, ok := n.Sources.Inputs[need.Label]; ok {
				v[need.Key] = val
			}
		}
	}
	l, err := registry.Resolve(s, p, r, v)
	if err != nil {
		return Server{}, usage("%v", err)
	}
	if name == "" {
		name = s.Name[strings.LastIndex(s.Name, "/")+1:]
		if workbench.ValidateName(name) != nil {
			name = "server"
		}
	}
	t := target.Target{Argv: l.Argv, Env: l.Env, URL: l.URL, Header: l.Header, Secrets: l.Secrets}
	if l.URL != "" {
		t.Transport = l.Transport
	}
	what := l.URL
	if what == "" {
		what = strings.Join(l.Argv, " ")
	}
	return Server{Spec: workbench.Spec{Name: name, Target: t}, Desc: fmt.Sprintf("%s %s (%s: %s)", s.Name, s.Version, desc, what)}, nil
}
