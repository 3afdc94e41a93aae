package oauth

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// Enterprise-managed authorization (the MCP extension
// io.modelcontextprotocol/enterprise-managed-authorization, SEP-990; Cross-App
// Access; draft-ietf-oauth-identity-assertion-authz-grant): the person signed in
// to the enterprise identity provider already, and their ID token is what
// mcpscope is given. Two token requests and no browser:
//
//  1. at the IdP's token endpoint, an RFC 8693 token exchange of the ID token for an
//     ID-JAG (Identity Assertion JWT Authorization Grant) whose audience is the MCP
//     server's authorization server and whose resource is the MCP server, as the
//     IdP's client (Options.IDPClientID, IDPClientSecret);
//  2. at the authorization server's token endpoint, the RFC 7523 jwt-bearer grant
//     with the ID-JAG as the assertion, as the client registered there
//     (Options.ClientID, ClientSecret).
//
// Each secret goes only where it is for: the ID token and the IdP client's secret
// to the IdP, the ID-JAG and the client's secret to the authorization server. No
// refresh token is expected: when the access token expires the exchange runs again
// from the ID token (while the IdP still honours it).

// GrantIDJAG logs in with an ID token from the enterprise IdP, exchanged for an
// ID-JAG that is then the jwt-bearer assertion (Options.IDToken,
// IDPTokenEndpoint).
const GrantIDJAG = "id-jag"

const (
	tokenExchangeGrant = "urn:ietf:params:oauth:grant-type:token-exchange"
	idJAGTokenType     = "urn:ietf:params:oauth:token-type:id-jag"
	idTokenTokenType   = "urn:ietf:params:oauth:token-type:id_token"
	// idJAGEntry is Entry.Grant of a login made so: the grant at the authorization
	// server is jwt-bearer, but its renewal is another exchange, not the workload
	// JWT of a jwt-bearer login.
	idJAGEntry = "id-jag"
)

// idJAG logs in by exchanging the ID token for an ID-JAG, then the ID-JAG for an
// access token. A refusal at either step is the error, named by step, neither
// retried nor answered with another grant.
func (m *Manager) idJAG(ctx context.Context, d *discovered, chs []oauthex.Challenge) (*Entry, error) {
	switch {
	case m.opts.IDToken == "":
		return nil, errorf("--oauth-grant id-jag needs the ID token from your identity provider (--id-token-file FILE or --id-token-env VAR)")
	case m.opts.IDPTokenEndpoint == "":
		return nil, errorf("--oauth-grant id-jag needs the identity provider's token endpoint (--idp-token-endpoint URL)")
	case m.opts.ClientID == "":
		return nil, errorf("--oauth-grant id-jag needs the client registered with %s (--client-id, --client-secret)", d.asm.Issuer)
	}
	if d.prm == nil {
		// The ID-JAG names the resource it is for; without protected resource
		// metadata the resource is only the URL the user typed.
		m.step("exchange", "the server publishes no protected resource metadata; the ID-JAG names %s as the resource", d.resource)
	}
	if len(d.asm.GrantTypesSupported) > 0 && !slices.Contains(d.asm.GrantTypesSupported, jwtBearerGrant) {
		m.step("exchange", "the authorization server %s does not list %s in grant_types_supported (%s); trying it anyway", d.asm.Issuer, jwtBearerGrant, strings.Join(d.asm.GrantTypesSupported, " "))
	}
	c := &client{id: m.opts.ClientID, secret: m.opts.ClientSecret, method: "none"}
	if c.secret != "" {
		c.method = secretMethod(d.asm.TokenEndpointAuthMethodsSupported)
		if c.method == "" {
			c.method = "client_secret_post"
		}
	}
	c.how = "client " + c.id + " with an ID-JAG from the identity provider (" + c.method + ")"
	m.step("registration", "client: %s", c.how)
	scopes := m.scopes(d, chs, false)
	tok, err := m.idJAGToken(ctx, d.asm.Issuer, d.asm.TokenEndpoint, c.id, c.secret, c.method, d.resource, scopes)
	if err != nil {
		return nil, err
	}
	return m.entryFrom(d, c, tok, scopes, idJAGEntry), nil
}

// idJAGCannotRenew says why an id-jag login's token cannot be renewed here: it has
// no refresh token (none is expected), and this process was not given the ID token
// and the IdP to exchange it again.
func (m *Manager) idJAGCannotRenew(e *Entry) error {
	return errorf("the stored token for %s %s; an id-jag login has no refresh token and is renewed by exchanging the ID token again: give --oauth-grant id-jag with --id-token-file FILE (or --id-token-env VAR) and --idp-token-endpoint URL, or run mcpscope auth login with them",
		m.server, expiryText(e.Expiry))
}

// idJAGToken runs both requests: the exchange at the IdP, then the jwt-bearer
// grant at the authorization server (issuer, tokenURL).
func (m *Manager) idJAGToken(ctx context.Context, issuer, tokenURL, clientID, secret, method, resource string, scopes []string) (*oauth2.Token, error) {
	jag, err := m.exchangeIDToken(ctx, issuer, resource, scopes)
	if err != nil {
		return nil, err
	}
	form := url.Values{"grant_type": {jwtBearerGrant}, "assertion": {jag}}
	if resource != "" {
		form.Set("resource", resource)
	}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	m.step("token", "POST %s grant_type=%s (assertion: the ID-JAG %s, client %s, auth %s, resource %s, scopes %s)",
		tokenURL, jwtBearerGrant, mask(jag), clientID, method, orNone(resource), scopeText(scopes))
	tok, err := m.postToken(ctx, tokenURL, form, clientID, secret, method)
	if err != nil {
		return nil, errorf("the authorization server %s refused the ID-JAG (jwt-bearer grant at %s): %s", issuer, tokenURL, tokenErr(err))
	}
	return tok, nil
}

// exchangeIDToken is the RFC 8693 request at the IdP: the ID token for an ID-JAG
// whose audience is the authorization server's issuer and whose resource is the MCP
// server. It returns the ID-JAG (a secret, masked wherever it is shown).
func (m *Manager) exchangeIDToken(ctx context.Context, audience, resource string, scopes []string) (string, error) {
	idp := m.opts.IDPTokenEndpoint
	if err := checkSecureURL("the identity provider's token endpoint", idp); err != nil {
		return "", err
	}
	form := url.Values{"grant_type": {tokenExchangeGrant}, "requested_token_type": {idJAGTokenType},
		"subject_token": {m.opts.IDToken}, "subject_token_type": {idTokenTokenType}, "audience": {audience}, "resource": {resource}}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	if m.opts.IDPClientID != "" {
		form.Set("client_id", m.opts.IDPClientID)
	}
	if m.opts.IDPClientSecret != "" {
		// client_secret_post, as the SDKs send it to an IdP (its metadata is not
		// read: the endpoint is given, not discovered).
		form.Set("client_secret", m.opts.IDPClientSecret)
	}
	m.step("exchange", "POST %s grant_type=%s (subject_token: the ID token %s, requested_token_type %s, audience %s, resource %s, scopes %s, IdP client %s, IdP client secret %s)",
		idp, tokenExchangeGrant, mask(m.opts.IDToken), idJAGTokenType, audience, orNone(resource), scopeText(scopes), orNone(m.opts.IDPClientID), mask(m.opts.IDPClientSecret))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, idp, strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	resp, err := m.client.Do(req)
	if err != nil {
		return "", errorf("the token exchange at the identity provider %s failed: %v", idp, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return "", errorf("the token exchange at the identity provider %s failed: %v", idp, err)
	}
	var body struct {
		AccessToken     string `json:"access_token"`
		IssuedTokenType string `json:"issued_token_type"`
		Error           string `json:"error"`
		Description     string `json:"error_description"`
	}
	jerr := json.Unmarshal(data, &body)
	if body.AccessToken != "" {
		m.secret(body.AccessToken)
	}
	if resp.StatusCode != http.StatusOK || body.Error != "" {
		why := ""
		if body.Error == "invalid_grant" {
			why = "; the ID token may have expired or be meant for another client: sign in to the identity provider again for a new one"
		}
		return "", errorf("the identity provider %s refused the token exchange: %s%s", idp, tokenErr(&oauth2.RetrieveError{Response: resp, ErrorCode: body.Error, ErrorDescription: body.Description}), why)
	}
	switch {
	case jerr != nil:
		return "", errorf("the identity provider %s answered the token exchange with something that is not JSON (%s)", idp, abbreviate(string(data), 80))
	case body.AccessToken == "":
		return "", errorf("the identity provider %s answered the token exchange without an ID-JAG (no access_token)", idp)
	case body.IssuedTokenType != idJAGTokenType:
		// RFC 8693 §2.2.1: issued_token_type is required; another type is not an
		// ID-JAG, and the authorization server would only refuse it.
		return "", errorf("the identity provider %s issued a token of type %q, not an ID-JAG (%s)", idp, body.IssuedTokenType, idJAGTokenType)
	}
	m.step("exchange", "the identity provider issued an ID-JAG %s", mask(body.AccessToken))
	return body.AccessToken, nil
}
