package registry

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/mcpscope/mcpscope/validate"
)

// SchemaURL is the server.json schema mcpscope carries, and validates against
// offline: the published file
// https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json
// (version 2025-12-11, the current one of the registry's
// docs/reference/server-json/CHANGELOG.md, generated from the registry's
// docs/reference/api/openapi.yaml), vendored as server.schema.2025-12-11.json. The
// registry repository's snapshot that could be fetched while this was written predates
// that version, so the file was taken from verbatim copies of the published schema
// embedded in other public projects (its $comment and $id say where it is from); its
// members are the published ones, its bytes were not compared with the original.
const SchemaURL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json"

//go:embed server.schema.2025-12-11.json
var schemaJSON []byte

var compiled = sync.OnceValues(func() (*validate.Schema, error) {
	return validate.Compile(schemaJSON)
})

// MaxServerJSON caps a server.json file: the schema bounds most strings, and a real
// one is a few KiB.
const MaxServerJSON = 4 << 20

// SchemaError is a server.json that its schema refuses, in the schema's words.
type SchemaError struct {
	File       string
	Schema     string
	Violations []validate.Violation
}

func (e *SchemaError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s is not a valid server.json (schema %s):", e.File, e.Schema)
	for _, v := range e.Violations {
		b.WriteString("\n  " + v.String())
	}
	return b.String()
}

// Looks reports whether data looks like a server.json rather than another JSON
// document mcpscope reads (an --inspect report, a tool file, a client config): its
// $schema names a server.schema.json, or, without one, it has a name, a version and
// packages or remotes.
func Looks(data []byte) bool {
	var probe struct {
		Schema   string          `json:"$schema"`
		Name     string          `json:"name"`
		Version  string          `json:"version"`
		Packages json.RawMessage `json:"packages"`
		Remotes  json.RawMessage `json:"remotes"`
	}
	if json.Unmarshal(data, &probe) != nil {
		return false
	}
	if strings.HasSuffix(probe.Schema, "/server.schema.json") {
		return true
	}
	return probe.Schema == "" && probe.Name != "" && probe.Version != "" && (probe.Packages != nil || probe.Remotes != nil)
}

// Validate checks a server.json (read from file) against the schema its $schema
// names, which must be the one mcpscope carries (SchemaURL); without $schema it is
// checked against that one. It returns the server it declares.
func Validate(file string, data []byte) (Server, error) {
	var head struct {
		Schema string `json:"$schema"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return Server{}, fmt.Errorf("%s is not JSON: %v", file, err)
	}
	if head.Schema != "" && head.Schema != SchemaURL {
		return Server{}, fmt.Errorf("%s names the schema %s; mcpscope validates offline against %s only (the registry's current one): set \"$schema\" to it, after checking the file against its changelog", file, head.Schema, SchemaURL)
	}
	s, err := compiled()
	if err != nil {
		return Server{}, fmt.Errorf("the vendored server.json schema does not compile: %v", err)
	}
	vs, err := s.Check(data)
	if err != nil {
		return Server{}, fmt.Errorf("%s: %v", file, err)
	}
	if len(vs) > 0 {
		return Server{}, &SchemaError{File: file, Schema: SchemaURL, Violations: vs}
	}
	var srv Server
	if err := json.Unmarshal(data, &srv); err != nil {
		return Server{}, fmt.Errorf("%s: %v", file, err)
	}
	return srv, nil
}
