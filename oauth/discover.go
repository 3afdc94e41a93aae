package oauth

import (
	"context"
	"errors"
	"net/http"
)

// Metadata is what a server publishes for an OAuth login, found as a login finds it.
type Metadata struct {
	// Resource is the protected resource metadata (RFC 9728); nil when the server
	// publishes none (a 2025-03-26 server, or one that needs no login).
	Resource *ResourceMetadata
	// Issuer is the authorization server metadata (RFC 8414) as fetched, or the
	// 2025-03-26 default endpoints (Defaults).
	Issuer   *IssuerMetadata
	Defaults bool
	// None: the server asked for no credentials and publishes no metadata.
	None bool
}

// Discover runs a login's discovery (the protected resource metadata, then the
// authorization server's) against the MCP endpoint server without logging in:
// mcpscope check reports what a host would find. status is the HTTP status the
// endpoint answered an unauthenticated request with (200: it asked for none). An
// error says what is wrong with the metadata found.
func Discover(ctx context.Context, server string, status int, client *http.Client) (*Metadata, error) {
	m := New(server, Options{HTTPClient: client})
	d, err := m.discover(ctx, nil, status)
	var e *Error
	if errors.As(err, &e) && e.NoLogin {
		return &Metadata{None: true}, nil
	}
	if err != nil {
		return nil, err
	}
	return &Metadata{Resource: d.rmeta, Issuer: d.imeta, Defaults: d.fallback}, nil
}

// Text is the protected resource metadata as a login's log shows it.
func (r *ResourceMetadata) Text() string { return r.text() }

// Text is the authorization server metadata as a login's log shows it.
func (i *IssuerMetadata) Text() string { return i.text() }
