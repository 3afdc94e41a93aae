// Package target says what a server is and how to reach it: a command run as a
// child speaking stdio, or an HTTP URL, with what a config entry adds (environment,
// directory, headers, secrets, an OAuth client). It is plain data with no I/O and no
// SDK, so that config (which reads other clients' files) and everything that only
// names servers can use it without pulling in the protocol; package client connects
// to one.
package target

import (
	"fmt"
	"net/http"
	"strings"
)

// Target is what to connect to: a command (Argv) or an HTTP URL.
type Target struct {
	Argv []string // a server command, run as a child speaking stdio
	Env  []string // K=V pairs for the command's environment (from a config entry); client.Options.Env comes after
	Dir  string   // the command's working directory (from a config entry); client.Options.Dir wins

	URL string // an http:// or https:// MCP endpoint
	// Transport for a URL: "" (detect), "streamable" or "sse". client.Options.Transport wins.
	Transport string
	// Header is sent with every HTTP request (from a config entry); client.Options.Header wins.
	Header http.Header
	// Secrets are values that must never appear in an event (tokens from a config).
	Secrets []string

	// OAuth is a config entry's "oauth" block: the client to log in with.
	OAuth *OAuthClient

	Name   string // the config entry's name, when the target came from a config file
	Config string // the config file it came from
}

// OAuthClient is a client registered with a server's authorization server.
type OAuthClient struct {
	ClientID, ClientSecret string
	Scopes                 []string
	RedirectPort           int // 0: the default
	// Enterprise-managed authorization (oauth.GrantIDJAG): the identity provider's
	// token endpoint and client, and the person's ID token (a secret).
	IDPTokenEndpoint, IDPClientID, IDPClientSecret, IDToken string
	DPoP                                                    bool // ask for DPoP-bound tokens (the entry's "dpop": true)
}

func (t Target) String() string {
	if t.URL != "" {
		return t.URL
	}
	return fmt.Sprint(t.Argv)
}

// IsURL reports whether a target word is an HTTP URL.
func IsURL(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
}

// UsageError is a mistake in what the user asked for (a target that cannot be
// used as described, a bad flag): the command line exits 2 on it. It lives here,
// not in client, so that config can say so without the SDK; client.UsageError is
// the same type.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }
