package oauth

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/mcpscope/mcpscope/internal/termsafe"
)

// What a server's author needs to see where a setup is wrong, without --trace: the
// metadata documents as fetched, the registered client as the registration answered,
// and the access token's claims. Each is a step of the log (so `auth login -v` and
// the workbench's Auth view show the same) and is kept in the stored login for `auth
// status`. Everything here came from an authorization server and is untrusted: each
// string is cut to a line of at most clipLen runes with its control characters made
// visible (termsafe), lists to clipItems members, so a summary is small and safe to
// print whatever the server sent; secrets (client secret, registration access token,
// the token and its signature) are never in one.

const (
	clipLen   = 200
	clipItems = 20
)

// clip makes one untrusted string short and safe for a terminal line.
func clip(s string) string { return termsafe.Line(abbreviate(s, clipLen)) }

func clipAll(l []string) []string {
	if l == nil {
		return nil
	}
	out := make([]string, 0, min(len(l), clipItems+1))
	for i, s := range l {
		if i == clipItems {
			out = append(out, fmt.Sprintf("… %d more", len(l)-clipItems))
			break
		}
		out = append(out, clip(s))
	}
	return out
}

func listText(l []string) string {
	if len(l) == 0 {
		return "(none)"
	}
	return strings.Join(l, " ")
}

// ResourceMetadata is the protected resource metadata (RFC 9728) as fetched.
type ResourceMetadata struct {
	URL                  string   `json:"url"` // where it was fetched
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	ScopesSupported      []string `json:"scopes_supported,omitempty"`
	BearerMethods        []string `json:"bearer_methods_supported,omitempty"`
}

func resourceMetadata(u string, p *oauthex.ProtectedResourceMetadata) *ResourceMetadata {
	return &ResourceMetadata{URL: clip(u), Resource: clip(p.Resource), AuthorizationServers: clipAll(p.AuthorizationServers),
		ScopesSupported: clipAll(p.ScopesSupported), BearerMethods: clipAll(p.BearerMethodsSupported)}
}

func (r *ResourceMetadata) text() string {
	s := fmt.Sprintf("protected resource metadata from %s: resource %s, authorization_servers %s, scopes_supported %s",
		r.URL, r.Resource, listText(r.AuthorizationServers), listText(r.ScopesSupported))
	if len(r.BearerMethods) > 0 {
		s += ", bearer_methods_supported " + listText(r.BearerMethods)
	}
	return s
}

// IssuerMetadata is the authorization server metadata (RFC 8414) as fetched, with
// the members that decide whether an MCP login can work there called out, and what
// is wrong with them in Notes.
type IssuerMetadata struct {
	URL                   string `json:"url,omitempty"` // where it was fetched ("" with Defaults)
	Issuer                string `json:"issuer"`
	AuthorizationEndpoint string `json:"authorization_endpoint,omitempty"`
	TokenEndpoint         string `json:"token_endpoint,omitempty"`
	RegistrationEndpoint  string `json:"registration_endpoint,omitempty"`
	RevocationEndpoint    string `json:"revocation_endpoint,omitempty"`
	// CodeChallengeMethods, TokenEndpointAuthMethods and IssParameter are always
	// present (an absent member is an empty list or false, as RFC 8414 reads it).
	CodeChallengeMethods      []string `json:"code_challenge_methods_supported"`
	TokenEndpointAuthMethods  []string `json:"token_endpoint_auth_methods_supported"`
	IssParameter              bool     `json:"authorization_response_iss_parameter_supported"`
	ScopesSupported           []string `json:"scopes_supported,omitempty"`
	GrantTypes                []string `json:"grant_types_supported,omitempty"`
	ClientIDMetadataDocuments bool     `json:"client_id_metadata_document_supported"`
	// Defaults: no metadata was found; these are the 2025-03-26 default endpoints.
	Defaults bool     `json:"defaults,omitempty"`
	Notes    []string `json:"notes,omitempty"`
}

func issuerMetadata(u string, a *oauthex.AuthServerMeta, defaults bool) *IssuerMetadata {
	im := &IssuerMetadata{URL: clip(u), Issuer: clip(a.Issuer), AuthorizationEndpoint: clip(a.AuthorizationEndpoint),
		TokenEndpoint: clip(a.TokenEndpoint), RegistrationEndpoint: clip(a.RegistrationEndpoint), RevocationEndpoint: clip(a.RevocationEndpoint),
		CodeChallengeMethods: clipAll(a.CodeChallengeMethodsSupported), TokenEndpointAuthMethods: clipAll(a.TokenEndpointAuthMethodsSupported),
		IssParameter: a.AuthorizationResponseIssParameterSupported, ScopesSupported: clipAll(a.ScopesSupported),
		GrantTypes: clipAll(a.GrantTypesSupported), ClientIDMetadataDocuments: a.ClientIDMetadataDocumentSupported, Defaults: defaults}
	if im.CodeChallengeMethods == nil {
		im.CodeChallengeMethods = []string{}
	}
	if im.TokenEndpointAuthMethods == nil {
		im.TokenEndpointAuthMethods = []string{}
	}
	if defaults {
		return im
	}
	switch {
	case len(a.CodeChallengeMethodsSupported) == 0:
		im.Notes = append(im.Notes, "code_challenge_methods_supported is absent: the authorization server does not say it supports PKCE, which MCP requires (with S256)")
	case !slices.Contains(a.CodeChallengeMethodsSupported, "S256"):
		im.Notes = append(im.Notes, "code_challenge_methods_supported does not list S256: MCP requires PKCE with S256, so an authorization code login cannot be made there")
	}
	if len(a.TokenEndpointAuthMethodsSupported) > 0 && !slices.Contains(a.TokenEndpointAuthMethodsSupported, "none") {
		im.Notes = append(im.Notes, "token_endpoint_auth_methods_supported does not list none: a public client (mcpscope, any native app) can use this server only with a secret from registration or configuration")
	}
	if len(a.GrantTypesSupported) > 0 && !slices.Contains(a.GrantTypesSupported, "refresh_token") {
		im.Notes = append(im.Notes, "grant_types_supported does not list refresh_token: tokens cannot be renewed without a new login")
	}
	return im
}

func (im *IssuerMetadata) text() string {
	if im.Defaults {
		return fmt.Sprintf("no authorization server metadata for %s; using the 2025-03-26 defaults: authorize %s, token %s, registration %s",
			im.Issuer, im.AuthorizationEndpoint, im.TokenEndpoint, im.RegistrationEndpoint)
	}
	return fmt.Sprintf("authorization server metadata from %s: issuer %s, authorization_endpoint %s, token_endpoint %s, registration_endpoint %s, revocation_endpoint %s, grant_types_supported %s, scopes_supported %s, client_id_metadata_document_supported %v",
		im.URL, im.Issuer, orNone(im.AuthorizationEndpoint), orNone(im.TokenEndpoint), orNone(im.RegistrationEndpoint), orNone(im.RevocationEndpoint),
		listText(im.GrantTypes), listText(im.ScopesSupported), im.ClientIDMetadataDocuments)
}

// loginText is the line of the members an MCP login depends on.
func (im *IssuerMetadata) loginText() string {
	iss := "true: the redirect must carry iss, and it is checked (RFC 9207)"
	if !im.IssParameter {
		iss = "false: a redirect's iss is checked only when present"
	}
	auth := listText(im.TokenEndpointAuthMethods)
	if len(im.TokenEndpointAuthMethods) == 0 {
		auth = "(absent: client_secret_basic by default, RFC 8414)"
	}
	return fmt.Sprintf("authorization server %s: code_challenge_methods_supported %s; token_endpoint_auth_methods_supported %s; authorization_response_iss_parameter_supported %s",
		im.Issuer, listText(im.CodeChallengeMethods), auth, iss)
}

// ClientMetadata is the client a login goes through: for a dynamic registration,
// what the registration answered (RFC 7591 §3.2.1; the authorization server may
// have changed what was asked for); for other clients, what mcpscope knows of it.
// Never a secret: only whether one was issued and when it expires.
type ClientMetadata struct {
	ClientID string `json:"client_id"`
	// Source: "dynamic registration", "kept registration", "pre-registered",
	// "client ID metadata document".
	Source                  string     `json:"source"`
	ClientName              string     `json:"client_name,omitempty"`
	RedirectURIs            []string   `json:"redirect_uris,omitempty"`
	GrantTypes              []string   `json:"grant_types,omitempty"`
	ResponseTypes           []string   `json:"response_types,omitempty"`
	TokenEndpointAuthMethod string     `json:"token_endpoint_auth_method,omitempty"`
	Scope                   string     `json:"scope,omitempty"`
	SecretIssued            bool       `json:"client_secret_issued,omitempty"`
	SecretExpires           *time.Time `json:"client_secret_expires_at,omitempty"` // nil: never, or not said
	Notes                   []string   `json:"notes,omitempty"`
}

// registeredClient reads a registration response's body (the SDK's type drops
// members, and a member of the wrong type must not hide the others).
func registeredClient(body []byte, redirect, asked string) *ClientMetadata {
	var obj map[string]any
	if json.Unmarshal(body, &obj) != nil {
		return nil
	}
	c := &ClientMetadata{Source: "dynamic registration", ClientID: clip(str(obj["client_id"])), ClientName: clip(str(obj["client_name"])),
		RedirectURIs: clipAll(strs(obj["redirect_uris"])), GrantTypes: clipAll(strs(obj["grant_types"])), ResponseTypes: clipAll(strs(obj["response_types"])),
		TokenEndpointAuthMethod: clip(str(obj["token_endpoint_auth_method"])), Scope: clip(str(obj["scope"])), SecretIssued: str(obj["client_secret"]) != ""}
	if t, ok := unixTime(obj["client_secret_expires_at"]); ok && !t.IsZero() {
		c.SecretExpires = &t
	}
	if redirect != "" && len(c.RedirectURIs) > 0 && !slices.ContainsFunc(c.RedirectURIs, func(u string) bool { return sameRedirect(u, redirect) }) {
		c.Notes = append(c.Notes, "redirect_uris does not hold the redirect asked for ("+redirect+"): the authorization server will refuse to send the code back to mcpscope")
	}
	if len(c.GrantTypes) > 0 && !slices.Contains(c.GrantTypes, "refresh_token") && slices.Contains(c.GrantTypes, "authorization_code") {
		c.Notes = append(c.Notes, "grant_types does not list refresh_token: no refresh token will be issued to this client")
	}
	if asked != "" && c.TokenEndpointAuthMethod != "" && c.TokenEndpointAuthMethod != asked {
		c.Notes = append(c.Notes, fmt.Sprintf("token_endpoint_auth_method is %s, not the %s asked for", c.TokenEndpointAuthMethod, asked))
	}
	return c
}

func (c *ClientMetadata) text() string {
	var b strings.Builder
	switch c.Source {
	case "dynamic registration":
		b.WriteString("client metadata as the registration answered: ")
	case "kept registration":
		b.WriteString("client metadata as registered before (kept): ")
	default:
		b.WriteString("client (" + c.Source + "): ")
	}
	fmt.Fprintf(&b, "client_id %s", c.ClientID)
	if c.ClientName != "" {
		fmt.Fprintf(&b, ", client_name %s", c.ClientName)
	}
	if c.RedirectURIs != nil {
		fmt.Fprintf(&b, ", redirect_uris %s", listText(c.RedirectURIs))
	}
	if c.GrantTypes != nil {
		fmt.Fprintf(&b, ", grant_types %s", listText(c.GrantTypes))
	}
	if c.ResponseTypes != nil {
		fmt.Fprintf(&b, ", response_types %s", listText(c.ResponseTypes))
	}
	if c.TokenEndpointAuthMethod != "" {
		fmt.Fprintf(&b, ", token_endpoint_auth_method %s", c.TokenEndpointAuthMethod)
	}
	if c.Scope != "" {
		fmt.Fprintf(&b, ", scope %s", c.Scope)
	}
	if c.SecretIssued {
		b.WriteString(", a client_secret (not shown)")
		if c.SecretExpires != nil {
			fmt.Fprintf(&b, " that %s", expiryText(*c.SecretExpires))
		}
	}
	return b.String()
}

// Claims is an access token's claims as it reads: a JWT's payload decoded (RFC
// 9068's members), its signature NOT verified (mcpscope holds no reason to trust
// them: they say what the authorization server wrote, for a person to compare with
// what the MCP server expects); an opaque token has none to show.
type Claims struct {
	Format            string     `json:"format"`             // "jwt" or "opaque"
	SignatureVerified bool       `json:"signature_verified"` // always false: said so, never implied
	Alg               string     `json:"alg,omitempty"`
	Typ               string     `json:"typ,omitempty"`
	Iss               string     `json:"iss,omitempty"`
	Sub               string     `json:"sub,omitempty"`
	Aud               []string   `json:"aud,omitempty"`
	ClientID          string     `json:"client_id,omitempty"`
	Scope             string     `json:"scope,omitempty"`
	Iat               *time.Time `json:"iat,omitempty"`
	Exp               *time.Time `json:"exp,omitempty"`
	Notes             []string   `json:"notes,omitempty"`
}

// DecodeClaims reads an access token's claims without verifying it; issuer and
// resource, when given, are what the claims should name (a mismatch is a note).
func DecodeClaims(token, issuer, resource string) *Claims {
	parts := strings.Split(token, ".")
	var hdr, payload map[string]any
	if len(parts) != 3 || len(token) > maxResponse || !part(parts[0], &hdr) || !part(parts[1], &payload) {
		return &Claims{Format: "opaque"}
	}
	c := &Claims{Format: "jwt", Alg: clip(str(hdr["alg"])), Typ: clip(str(hdr["typ"])), Iss: clip(str(payload["iss"])), Sub: clip(str(payload["sub"])),
		Aud: clipAll(strs(payload["aud"])), ClientID: clip(str(payload["client_id"])), Scope: clip(str(payload["scope"]))}
	if c.Scope == "" {
		c.Scope = clip(strings.Join(strs(payload["scp"]), " ")) // Microsoft Entra's array
	}
	if t, ok := unixTime(payload["iat"]); ok {
		c.Iat = &t
	}
	if t, ok := unixTime(payload["exp"]); ok {
		c.Exp = &t
	}
	if resource != "" && !slices.ContainsFunc(c.Aud, func(a string) bool { return sameResource(a, resource) }) {
		c.Notes = append(c.Notes, fmt.Sprintf("aud does not name this server (%s): a server that checks the audience (RFC 8707, as MCP requires) refuses the token", clip(resource)))
	}
	if issuer != "" && c.Iss != "" && strings.TrimSuffix(c.Iss, "/") != strings.TrimSuffix(issuer, "/") {
		c.Notes = append(c.Notes, fmt.Sprintf("iss is not the authorization server's issuer (%s)", clip(issuer)))
	}
	if c.Exp != nil && c.Exp.Before(time.Now()) {
		c.Notes = append(c.Notes, "the token has expired (exp)")
	}
	return c
}

// part decodes one base64url JSON object of a JWT.
func part(s string, v *map[string]any) bool {
	data, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	return err == nil && json.Unmarshal(data, v) == nil && *v != nil
}

// Text is the claims as one line for a person.
func (c *Claims) Text() string {
	if c.Format != "jwt" {
		return "opaque token (not a JWT): its claims are known only to the authorization server (introspection, RFC 7662)"
	}
	var b strings.Builder
	b.WriteString("JWT access token (signature not verified by mcpscope)")
	add := func(name, v string) {
		if v != "" {
			fmt.Fprintf(&b, ", %s %s", name, v)
		}
	}
	add("typ", c.Typ)
	add("alg", c.Alg)
	add("iss", c.Iss)
	add("sub", c.Sub)
	if c.Aud != nil {
		add("aud", listText(c.Aud))
	} else {
		add("aud", "(none)")
	}
	add("client_id", c.ClientID)
	add("scope", c.Scope)
	if c.Iat != nil {
		add("iat", c.Iat.UTC().Format(time.RFC3339))
	}
	if c.Exp != nil {
		add("exp", c.Exp.UTC().Format(time.RFC3339)+" ("+relative(*c.Exp)+")")
	}
	return b.String()
}

// Summary is the claims in a few words (audience and expiry), for a status line.
func (c *Claims) Summary() string {
	if c.Format != "jwt" {
		return "opaque token (not a JWT)"
	}
	s := "JWT (signature not verified) aud " + listText(c.Aud)
	if c.Exp != nil {
		s += ", " + expiryText(*c.Exp)
	}
	if len(c.Notes) > 0 {
		s += "; " + strings.Join(c.Notes, "; ")
	}
	return s
}

// relative says when t is from now: "in 10m0s", "3s ago".
func relative(t time.Time) string {
	d := time.Until(t).Round(time.Second)
	if d < 0 {
		return (-d).String() + " ago"
	}
	return "in " + d.String()
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// strs reads a member that is a string or an array of strings (aud is either).
func strs(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func unixTime(v any) (time.Time, bool) {
	f, ok := v.(float64)
	if !ok || math.IsNaN(f) || f < 0 || f > 1<<40 {
		return time.Time{}, false
	}
	if f == 0 {
		return time.Time{}, true
	}
	return time.Unix(int64(f), 0).UTC(), true
}

// claimsStep logs the claims of a token that just came.
func (m *Manager) claimsStep(token, issuer, resource string) {
	c := DecodeClaims(token, issuer, resource)
	m.step("claims", "%s", c.Text())
	for _, n := range c.Notes {
		m.step("warning", "%s", n)
	}
}

// clientStep logs the client a login goes through.
func (m *Manager) clientStep(c *ClientMetadata) {
	if c == nil {
		return
	}
	m.step("client", "%s", c.text())
	for _, n := range c.Notes {
		m.step("warning", "%s", n)
	}
}
