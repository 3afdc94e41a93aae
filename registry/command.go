package registry

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Launch is how to run one package or reach one remote of a server.json: a command
// (Argv, with Env added to its environment) or a URL (with Header).
type Launch struct {
	Kind string // npm, pypi, oci, nuget or remote
	Argv []string
	Env  []string // K=V, for the command only
	URL  string
	// Transport is "streamable" or "sse" for a URL (target.Target's words).
	Transport string
	Header    http.Header
	// Secrets are the values given for secret inputs: never printed or recorded.
	Secrets []string
}

// Need is one value the user must or may give to run a choice: an environment
// variable, a header, an argument or a URL variable.
type Need struct {
	// Key identifies it in Values: "env:NAME", "header:NAME", "arg:N" (the Nth
	// argument of the choice, from 0) or "var:NAME".
	Key   string
	Label string // what the user is asked for: the variable's or header's name
	Input
}

// Values are the user's answers, by Need.Key.
type Values map[string]string

// MissingError is a choice that cannot run without values the user has not given.
type MissingError struct {
	Server string
	Kind   string
	Needs  []Need
}

func (e *MissingError) Error() string {
	var env, parts []string
	for _, n := range e.Needs {
		what := n.Label
		if n.IsSecret {
			what += " (secret)"
		}
		kind, rest, _ := strings.Cut(n.Key, ":")
		parent, _, sub := strings.Cut(rest, "/")
		switch {
		case sub:
			// A {variable} of an input's fixed value (a header "Bearer {token}").
			parts = append(parts, fmt.Sprintf("the variable %s of %s %s (the entry builds it into that value; the workbench's :add asks for it)", what, kind, parent))
		case kind == "env":
			env = append(env, what)
		case kind == "header":
			parts = append(parts, "header "+what+": give it with -H '"+n.Label+": VALUE'")
		default:
			words := map[string]string{"arg": "argument", "var": "URL variable"}
			parts = append(parts, words[kind]+" "+what+": give it with --input '"+n.Label+"=VALUE'")
		}
	}
	if len(env) > 0 {
		parts = append([]string{"the environment variable" + plural(len(env)) + " " + strings.Join(env, ", ") + ": set " + them(len(env)) + " and run again"}, parts...)
	}
	return fmt.Sprintf("%s (%s) needs ", e.Server, e.Kind) + strings.Join(parts, "; ")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func them(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// Choose picks what to run of a server.json: the package or remote of kind (npm,
// pypi, oci, nuget, remote), or, when kind is "", the first package that maps to a
// command, else the first remote. It returns the package (nil for a remote) and the
// remote.
func Choose(s Server, kind string) (*Package, *Transport, error) {
	var kinds []string
	for i := range s.Packages {
		p := &s.Packages[i]
		kinds = append(kinds, p.RegistryType)
		if kind == p.RegistryType || kind == "" && runnable(p) == nil {
			return p, nil, nil
		}
	}
	if len(s.Remotes) > 0 {
		kinds = append(kinds, "remote")
		if kind == "" || kind == "remote" {
			return nil, &s.Remotes[0], nil
		}
	}
	if kind != "" {
		return nil, nil, fmt.Errorf("%s has no %s package; it has: %s", s.Name, kind, orNone(kinds))
	}
	if len(s.Packages) > 0 {
		return nil, nil, fmt.Errorf("%s cannot be run by mcpscope: %v", s.Name, runnable(&s.Packages[0]))
	}
	return nil, nil, fmt.Errorf("%s declares no package and no remote: nothing to run", s.Name)
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "nothing"
	}
	return strings.Join(list, ", ")
}

// runnable says why a package cannot be turned into a command line here (nil: it can).
func runnable(p *Package) error {
	switch p.RegistryType {
	case "npm", "pypi", "oci", "nuget":
	case "mcpb":
		return fmt.Errorf("an mcpb package is a bundle to download, check against its fileSha256 and unpack: mcpscope does not install bundles; run it yourself and give the command after --")
	default:
		return fmt.Errorf("a package of registry type %q: mcpscope knows npm, pypi, oci and nuget", p.RegistryType)
	}
	if p.Identifier == "" {
		return fmt.Errorf("a %s package without an identifier", p.RegistryType)
	}
	if t := p.Transport.Type; t != "" && t != "stdio" {
		return fmt.Errorf("the %s package serves %s at %s: start it yourself and connect to that URL", p.RegistryType, t, p.Transport.URL)
	}
	return nil
}

// Needs lists what the package or remote asks of the user, in the entry's order:
// its environment variables (package) or headers and URL variables (remote), and
// its arguments. Inputs with a fixed value ask nothing, except the variables of that
// value.
func Needs(p *Package, r *Transport) []Need {
	var out []Need
	one := func(key, label string, in Input) {
		if in.Value == "" {
			out = append(out, Need{Key: key, Label: label, Input: in})
			return
		}
		// A fixed value asks only for its {variables}.
		for _, name := range sortedKeys(in.Variables) {
			if sub := in.Variables[name]; sub.Value == "" {
				out = append(out, Need{Key: key + "/" + name, Label: name, Input: sub})
			}
		}
	}
	kv := func(prefix string, list []KeyValue) {
		for _, k := range list {
			one(prefix+k.Name, k.Name, k.Input)
		}
	}
	if r != nil {
		for _, name := range sortedKeys(r.Variables) {
			out = append(out, Need{Key: "var:" + name, Label: name, Input: r.Variables[name]})
		}
		kv("header:", r.Headers)
		return out
	}
	kv("env:", p.Environment)
	for i, a := range slices.Concat(p.RuntimeArguments, p.PackageArguments) {
		one(fmt.Sprintf("arg:%d", i), a.Label(), a.Input)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Resolve turns the package or remote into a Launch with the user's values. An input
// with a value of its own takes it ({NAME} in it replaced by its variables' values,
// as given or by default); one without takes the user's value, else its default; a
// required one with none is missing. What is missing is returned in a *MissingError,
// all of it at once.
func Resolve(s Server, p *Package, r *Transport, v Values) (Launch, error) {
	var missing []Need
	var secrets []string
	// value is the value of one input, or ok false when it has none.
	value := func(key, label string, in Input) (string, bool) {
		val, ok := v[key]
		if in.Value != "" {
			val, ok = expand(in.Value, in.Variables, key, v, &missing, &secrets), true
		} else if !ok || val == "" {
			val, ok = in.Default, in.Default != ""
		}
		if !ok && in.IsRequired {
			missing = append(missing, Need{Key: key, Label: label, Input: in})
		}
		if ok && in.IsSecret && val != "" {
			secrets = append(secrets, val)
		}
		return val, ok
	}
	var l Launch
	if r != nil {
		l.Kind = "remote"
		vars := map[string]string{}
		for _, name := range sortedKeys(r.Variables) {
			if val, ok := value("var:"+name, name, r.Variables[name]); ok {
				vars[name] = val
			}
		}
		l.URL = substitute(r.URL, vars)
		switch r.Type {
		case "sse":
			l.Transport = "sse"
		default:
			l.Transport = "streamable"
		}
		for _, h := range r.Headers {
			if val, ok := value("header:"+h.Name, h.Name, h.Input); ok {
				if l.Header == nil {
					l.Header = http.Header{}
				}
				l.Header.Add(h.Name, val)
			}
		}
	} else {
		if err := runnable(p); err != nil {
			return Launch{}, fmt.Errorf("%s: %v", s.Name, err)
		}
		l.Kind = p.RegistryType
		var envNames []string
		for _, e := range p.Environment {
			if val, ok := value("env:"+e.Name, e.Name, e.Input); ok {
				l.Env = append(l.Env, e.Name+"="+val)
				envNames = append(envNames, e.Name)
			}
		}
		args := func(list []Argument, offset int) []string {
			var out []string
			for i, a := range list {
				val, ok := value(fmt.Sprintf("arg:%d", offset+i), a.Label(), a.Input)
				switch {
				case !ok: // optional and not given: left out (a required one is missing)
				case a.Type == "named":
					out = append(out, a.Name, val)
				default:
					out = append(out, val)
				}
			}
			return out
		}
		runtime := args(p.RuntimeArguments, 0)
		pkg := args(p.PackageArguments, len(p.RuntimeArguments))
		l.Argv = command(p, runtime, pkg, envNames)
	}
	l.Secrets = secrets
	if len(missing) > 0 {
		return Launch{}, &MissingError{Server: s.Name, Kind: l.Kind, Needs: missing}
	}
	return l, nil
}

// command is a package's command line: npm → npx -y ID@VERSION, pypi → uvx
// ID==VERSION, oci → docker run -i --rm IMAGE (each environment variable passed by
// name with -e NAME, so its value stays off the command line), nuget → dnx
// ID@VERSION --yes. The runtime arguments come after the runtime's own, the package
// arguments after the package.
func command(p *Package, runtime, pkg, envNames []string) []string {
	id := p.Identifier
	switch p.RegistryType {
	case "npm":
		if p.Version != "" {
			id += "@" + p.Version
		}
		return slices.Concat([]string{"npx", "-y"}, runtime, []string{id}, pkg)
	case "pypi":
		if p.Version != "" {
			id += "==" + p.Version
		}
		return slices.Concat([]string{"uvx"}, runtime, []string{id}, pkg)
	case "oci":
		argv := []string{"docker", "run", "-i", "--rm"}
		for _, n := range envNames {
			argv = append(argv, "-e", n)
		}
		return slices.Concat(argv, runtime, []string{id}, pkg)
	default: // nuget
		if p.Version != "" {
			id += "@" + p.Version
		}
		argv := slices.Concat([]string{"dnx"}, runtime, []string{id, "--yes"})
		if len(pkg) > 0 {
			argv = append(append(argv, "--"), pkg...)
		}
		return argv
	}
}

// Compiled on first use, not at start: every command links this package (issue 23).
var braces = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{([A-Za-z0-9_.-]+)\}`) })

// substitute replaces {NAME} by vars[NAME]; an unknown {NAME} stays as it is (as the
// schema says).
func substitute(s string, vars map[string]string) string {
	return braces().ReplaceAllStringFunc(s, func(m string) string {
		if v, ok := vars[m[1:len(m)-1]]; ok {
			return v
		}
		return m
	})
}

// expand is an input's own value with its variables, each from the user (KEY/NAME)
// or its default; a required variable without either is missing.
func expand(val string, vars map[string]Input, key string, v Values, missing *[]Need, secrets *[]string) string {
	got := map[string]string{}
	for _, name := range sortedKeys(vars) {
		in := vars[name]
		vk := key + "/" + name
		x, ok := v[vk]
		if !ok || x == "" {
			x, ok = in.Default, in.Default != ""
		}
		if in.Value != "" {
			x, ok = in.Value, true
		}
		if !ok {
			if in.IsRequired {
				*missing = append(*missing, Need{Key: vk, Label: name, Input: in})
			}
			continue
		}
		if in.IsSecret {
			*secrets = append(*secrets, x)
		}
		got[name] = x
	}
	return substitute(val, got)
}
