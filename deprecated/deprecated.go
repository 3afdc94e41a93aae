// Package deprecated names the features of MCP a server uses that the specification
// has deprecated, with the revision that deprecated them (issue 27): --inspect lists
// them among its problems, the workbench's Servers view in a server's detail, and lint
// as findings.
//
// What a server "uses" is what can be seen of it: the capabilities it declares, the
// transport it was reached over, and (in a live session) the requests it sent. Each
// notice names the revision that deprecated the feature, so a server on an earlier
// revision reads it as a warning about its next upgrade, not as an error of today.
package deprecated

import (
	"encoding/json"
	"slices"
)

// Notice is one deprecated feature a server uses.
type Notice struct {
	// Feature is what is deprecated, as a reader names it ("logging").
	Feature string `json:"feature"`
	// How says how the server uses it ("declares the logging capability").
	How string `json:"how"`
	// Since is the revision that deprecated it.
	Since string `json:"since"`
	// Ref is where the deprecation is written down (a SEP, a spec page).
	Ref string `json:"ref"`
}

// String is the notice as one line: "logging: the server declares the logging
// capability; deprecated by 2026-07-28 (SEP-2577)".
func (n Notice) String() string {
	return n.Feature + ": the server " + n.How + "; deprecated by " + n.Since + " (" + n.Ref + ")"
}

// The revisions and their references, once.
const (
	rev2026     = "2026-07-28"
	sep2577     = "SEP-2577"
	rev20250326 = "2025-03-26"
	refSSE      = "the Streamable HTTP transport replaced it"
)

// Use is what is known of how a server speaks.
type Use struct {
	// Capabilities is the server's capabilities object as it sent it.
	Capabilities json.RawMessage
	// Transport is client.Info's transport ("stdio", "streamable-http", "http+sse").
	Transport string
	// Requests are the methods of the requests the server sent the client (or asked
	// for inside a 2026-07-28 input_required result): roots/list,
	// sampling/createMessage, elicitation/create.
	Requests []string
	// IncludeContext holds the includeContext values its sampling requests asked for.
	IncludeContext []string
}

// TransportSSE is client.TransportSSE, repeated here so that this package needs
// nothing of the client.
const TransportSSE = "http+sse"

// Find lists the deprecated features u shows, in a fixed order.
func Find(u Use) []Notice {
	var out []Notice
	var caps map[string]json.RawMessage
	_ = json.Unmarshal(u.Capabilities, &caps) // a malformed object declares nothing
	if _, ok := caps["logging"]; ok {
		out = append(out, Notice{Feature: "logging", How: "declares the logging capability", Since: rev2026, Ref: sep2577})
	}
	if slices.Contains(u.Requests, "sampling/createMessage") {
		out = append(out, Notice{Feature: "sampling", How: "asks the client for sampling/createMessage", Since: rev2026, Ref: sep2577})
	}
	for _, ic := range []string{"thisServer", "allServers"} {
		if slices.Contains(u.IncludeContext, ic) {
			out = append(out, Notice{Feature: "sampling includeContext", How: `asks for includeContext "` + ic + `"`, Since: rev2026, Ref: sep2577})
		}
	}
	if slices.Contains(u.Requests, "roots/list") {
		out = append(out, Notice{Feature: "roots", How: "asks the client for roots/list", Since: rev2026, Ref: sep2577})
	}
	if u.Transport == TransportSSE {
		out = append(out, Notice{Feature: "HTTP+SSE", How: "speaks the HTTP+SSE transport of 2024-11-05", Since: rev20250326, Ref: refSSE})
	}
	return out
}
