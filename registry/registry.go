// Package registry reads the MCP Registry: its v0.1 REST API (a list of servers, a
// server's version), the server.json documents it serves, their published JSON schema
// (vendored: validation works offline), and how a server.json becomes something to
// run: a package's command line, or a remote's URL with the headers it declares.
//
// Everything a registry sends is untrusted. A response is capped (MaxResponse); its
// strings reach a terminal only through termsafe (the callers render); and a registry
// never decides where a credential goes: a remote's secret header is only ever the
// value the user gave for it (Resolve never reads one from the environment), and a
// package's environment variables go only to the process started for that package.
package registry

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Official is the official MCP Registry.
const Official = "https://registry.modelcontextprotocol.io"

// EnvRegistry names the setting for a sub-registry (any registry serving the same
// API): its base URL. --registry wins over it.
const EnvRegistry = "MCPSCOPE_REGISTRY"

// Server is a server.json: what a publisher declares about one version of a server
// (schema 2025-12-11). Unknown members are kept in the raw document, not here.
type Server struct {
	Schema      string      `json:"$schema,omitempty"`
	Name        string      `json:"name"`
	Title       string      `json:"title,omitempty"`
	Description string      `json:"description"`
	Version     string      `json:"version"`
	WebsiteURL  string      `json:"websiteUrl,omitempty"`
	Repository  *Repository `json:"repository,omitempty"`
	Packages    []Package   `json:"packages,omitempty"`
	Remotes     []Transport `json:"remotes,omitempty"`
}

// Repository is where the server's source lives.
type Repository struct {
	URL       string `json:"url"`
	Source    string `json:"source"`
	Subfolder string `json:"subfolder,omitempty"`
}

// Package is one way to install and run the server locally.
type Package struct {
	RegistryType     string     `json:"registryType"`
	RegistryBaseURL  string     `json:"registryBaseUrl,omitempty"`
	Identifier       string     `json:"identifier"`
	Version          string     `json:"version,omitempty"`
	FileSHA256       string     `json:"fileSha256,omitempty"`
	RuntimeHint      string     `json:"runtimeHint,omitempty"`
	Transport        Transport  `json:"transport"`
	RuntimeArguments []Argument `json:"runtimeArguments,omitempty"`
	PackageArguments []Argument `json:"packageArguments,omitempty"`
	Environment      []KeyValue `json:"environmentVariables,omitempty"`
}

// Transport is a package's transport, or a remote: stdio, streamable-http or sse.
type Transport struct {
	Type      string           `json:"type"`
	URL       string           `json:"url,omitempty"`
	Headers   []KeyValue       `json:"headers,omitempty"`
	Variables map[string]Input `json:"variables,omitempty"`
}

// Input is a value the user may have to give (server.json's Input).
type Input struct {
	Description string           `json:"description,omitempty"`
	IsRequired  bool             `json:"isRequired,omitempty"`
	Format      string           `json:"format,omitempty"`
	Value       string           `json:"value,omitempty"`
	IsSecret    bool             `json:"isSecret,omitempty"`
	Default     string           `json:"default,omitempty"`
	Placeholder string           `json:"placeholder,omitempty"`
	Choices     []string         `json:"choices,omitempty"`
	Variables   map[string]Input `json:"variables,omitempty"`
}

// KeyValue is an environment variable or a header.
type KeyValue struct {
	Input
	Name string `json:"name"`
}

// Argument is a positional or named command-line argument.
type Argument struct {
	Input
	Type       string `json:"type"`
	Name       string `json:"name,omitempty"`
	ValueHint  string `json:"valueHint,omitempty"`
	IsRepeated bool   `json:"isRepeated,omitempty"`
}

// Label is what an argument is called in a question and an error: its flag name or
// its value hint.
func (a Argument) Label() string {
	if a.Name != "" {
		return a.Name
	}
	if a.ValueHint != "" {
		return a.ValueHint
	}
	return "positional argument"
}

// Entry is a server as a registry lists it: the server.json and the registry's own
// metadata about it.
type Entry struct {
	Server Server
	// Status is active, deprecated or deleted ("" when the registry says nothing,
	// which is taken as active).
	Status                 string
	StatusMessage          string
	PublishedAt, UpdatedAt string
	IsLatest               bool
}

// Active reports whether the registry lists the entry as active (a registry that says
// nothing about status lists only what it serves).
func (e Entry) Active() bool { return e.Status == "" || e.Status == "active" }

// PackageTypes are the entry's package types, in its order, each once.
func (e Entry) PackageTypes() []string {
	var out []string
	for _, p := range e.Server.Packages {
		t := p.RegistryType
		if t == "" {
			t = "?"
		}
		if !contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// official is the metadata key of the official registry in a ServerResponse's _meta.
const official = "io.modelcontextprotocol.registry/official"

// serverResponse is the API's ServerResponse.
type serverResponse struct {
	Server json.RawMessage            `json:"server"`
	Meta   map[string]json.RawMessage `json:"_meta"`
}

type officialMeta struct {
	Status        string `json:"status"`
	StatusMessage string `json:"statusMessage"`
	PublishedAt   string `json:"publishedAt"`
	UpdatedAt     string `json:"updatedAt"`
	IsLatest      bool   `json:"isLatest"`
}

// entry reads one ServerResponse.
func (r serverResponse) entry() (Entry, error) {
	var e Entry
	if len(r.Server) == 0 {
		return e, fmt.Errorf("an entry has no server")
	}
	if err := json.Unmarshal(r.Server, &e.Server); err != nil {
		return e, fmt.Errorf("an entry's server is not a server.json: %v", err)
	}
	if raw, ok := r.Meta[official]; ok {
		var m officialMeta
		if err := json.Unmarshal(raw, &m); err == nil {
			e.Status, e.StatusMessage, e.PublishedAt, e.UpdatedAt, e.IsLatest = m.Status, m.StatusMessage, m.PublishedAt, m.UpdatedAt, m.IsLatest
		}
	}
	return e, nil
}

// ParseRef reads the NAME of registry:NAME: a server name, optionally @VERSION (the
// latest when absent) and #TYPE (which package or remote to run: npm, pypi, oci,
// nuget, remote; the first that can run when absent).
func ParseRef(ref string) (name, version, kind string, err error) {
	ref = strings.TrimSpace(ref)
	head, kind, _ := strings.Cut(ref, "#")
	name, version, _ = strings.Cut(head, "@")
	if name == "" || !strings.Contains(name, "/") {
		return "", "", "", fmt.Errorf("registry:%s: give the server's registry name, NAMESPACE/NAME[@VERSION][#TYPE] (mcpscope registry search finds it)", ref)
	}
	return name, version, kind, nil
}
