package oauth

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/mcpscope/mcpscope/internal/redact"
	"github.com/mcpscope/mcpscope/internal/shquote"
)

// DefaultRedirectPort is the loopback port the redirect listener binds unless told
// otherwise (a fixed port, so that a client registered once keeps its redirect URI).
const DefaultRedirectPort = 33418

// DefaultMaxAttempts bounds the logins one session runs for a server that keeps
// answering 401 (or 403 insufficient_scope) after each.
const DefaultMaxAttempts = 3

// Grant names.
const (
	GrantAuthorizationCode = "authorization-code"
	GrantClientCredentials = "client-credentials"
	// GrantJWTBearer is the RFC 7523 JWT bearer grant with a workload's own token
	// (workload identity federation): Options.Assertion is sent as the assertion.
	GrantJWTBearer = "jwt-bearer"
)

// machineGrant reports whether the grant needs no person (no browser, no redirect).
func machineGrant(g string) bool {
	return g == GrantClientCredentials || g == GrantJWTBearer || g == GrantIDJAG
}

// Options configure a Manager.
type Options struct {
	// Pre-registered client (--client-id, --client-secret, or a config entry's oauth
	// block). Without a ClientID, a client ID metadata document URL is used where the
	// server supports it, else a registration kept for the issuer, else dynamic
	// registration.
	ClientID     string
	ClientSecret string
	// ClientMetadataURL is an https URL serving this client's metadata document
	// (--client-metadata-url), used as the client_id where the server advertises
	// client_id_metadata_document_supported.
	ClientMetadataURL string
	// PrivateKeyPEM signs a private_key_jwt client assertion (client credentials).
	PrivateKeyPEM []byte
	SigningAlg    string // RS256, ES256… ("" picks by the key)
	// Grant is GrantAuthorizationCode (default), GrantClientCredentials or
	// GrantJWTBearer.
	Grant string
	// Assertion is the workload's JWT for GrantJWTBearer (a secret: never shown).
	Assertion string
	// GrantIDJAG (exchange.go): the person's ID token from the enterprise identity
	// provider (a secret), the IdP's token endpoint where it is exchanged for an
	// ID-JAG, and the IdP's client for that request (the secret: never shown).
	IDToken                      string
	IDPTokenEndpoint             string
	IDPClientID, IDPClientSecret string
	// DPoP asks for DPoP-bound tokens (RFC 9449) even where the server does not say
	// it wants them (--dpop, a config entry's oauth.dpop); see dpop.go.
	DPoP bool
	// Scopes, when set, are asked for instead of the discovered ones.
	Scopes []string
	// RedirectPort is the loopback listener's port: -1 means DefaultRedirectPort, 0
	// any free port.
	RedirectPort int
	// Interactive lets a 401 start the browser flow (a terminal, or --login);
	// without it a session uses only stored tokens and grants that need no person.
	Interactive bool
	// Browser is the command that opens the authorization URL ($BROWSER); "" tries
	// xdg-open or open. The URL is always printed to Out as well.
	Browser string
	// Unattended: no one reads Out, so a login whose browser cannot start fails at
	// once instead of waiting for a redirect that will not come.
	Unattended bool
	// Out is where the authorization URL and prompts are printed.
	Out io.Writer
	// Paste, when set, is read for a pasted redirect URL or code (a terminal's stdin).
	Paste io.Reader
	// Store keeps tokens and registrations; nil keeps nothing.
	Store *Store
	// HTTPClient makes the OAuth requests (metadata, registration, token); nil: a
	// plain client. It never goes through the session's tap: token responses are
	// logged here, masked.
	HTTPClient *http.Client
	// Log receives the steps.
	Log *Log
	// MaxAttempts bounds the logins per session (DefaultMaxAttempts when 0).
	MaxAttempts int
	// Wait bounds the wait for the redirect (5 minutes when 0).
	Wait time.Duration
	// LoginHint, when set, says how to log in where a 401 or a step-up cannot be
	// answered here (the workbench's key), instead of the shell command.
	LoginHint string
	// Confirm, when set, is asked before a step-up (a 403 insufficient_scope) logs in
	// again for more scope; no (or an error) ends the request with that answer. Nil:
	// an interactive session steps up without asking, another one fails with the
	// command to run.
	Confirm func(ctx context.Context, question string) (bool, error)
}

// Interaction is a person taking part in one login started by LoginWith (the
// workbench's dialog): it is shown the authorization URL and may paste the
// redirected URL or the code.
type Interaction struct {
	// AuthURL is told the authorization URL before the browser is asked to open it.
	AuthURL func(string)
	// Paste yields the lines the person pastes (nil: only the loopback redirect).
	Paste <-chan string
	// Scopes are asked for on top of the discovered ones (a step-up).
	Scopes []string
}

// Manager logs one MCP server in and keeps its token fresh. It is safe for
// concurrent use.
type Manager struct {
	opts   Options
	server string
	client *http.Client

	mu           sync.Mutex
	loaded       bool
	entry        *Entry
	attempts     int
	triedRefresh bool
	// fromRefresh is the access token the last refresh of this process brought: it
	// is not refreshed again before it has expired (at most one refresh per token,
	// whatever lifetime and margin).
	fromRefresh string
	// refreshErr is why the last refresh failed (nil: none failed), said where a
	// login is then needed instead of "there is no stored token".
	refreshErr error
	secrets    []string // every secret seen, for a caller's redaction
	onSecret   func(string)
	// interaction is the person of the LoginWith running now (nil otherwise).
	interaction *Interaction
	pasteOnce   sync.Once
	pasted      chan string // lines of Options.Paste, read by one goroutine
	dpop        dpopState
}

// New returns a manager for the MCP endpoint server.
func New(server string, opts Options) *Manager {
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = DefaultMaxAttempts
	}
	if opts.Wait <= 0 {
		opts.Wait = 5 * time.Minute
	}
	if opts.Out == nil {
		opts.Out = io.Discard
	}
	if opts.Grant == "" {
		opts.Grant = GrantAuthorizationCode
	}
	m := &Manager{opts: opts, server: server}
	base := http.DefaultTransport
	if opts.HTTPClient != nil && opts.HTTPClient.Transport != nil {
		base = opts.HTTPClient.Transport
	}
	m.client = &http.Client{Transport: &dpopTransport{m: m, base: &logTransport{m: m, base: base}}, Timeout: 60 * time.Second}
	m.secret(opts.ClientSecret)
	m.secret(opts.Assertion)
	m.secret(opts.IDToken)
	m.secret(opts.IDPClientSecret)
	return m
}

// Log returns the manager's step log (nil when Options.Log was nil).
func (m *Manager) Log() *Log { return m.opts.Log }

// OnSecret calls f with every secret the manager learns (tokens, codes, verifiers,
// client secrets), and at once with those already known, so that a caller can
// redact them from what it shows or records.
func (m *Manager) OnSecret(f func(string)) {
	m.mu.Lock()
	m.onSecret = f
	known := append([]string(nil), m.secrets...)
	m.mu.Unlock()
	for _, s := range known {
		f(s)
	}
}

func (m *Manager) secret(v string) {
	if v == "" {
		return
	}
	m.secrets = append(m.secrets, v)
	if m.onSecret != nil {
		m.onSecret(v)
	}
}

func (m *Manager) step(kind, format string, a ...any) { m.opts.Log.add(kind, format, a...) }

// Error is a login that failed: Msg says what failed and what to do.
type Error struct {
	Msg string
	// NoLogin: the server asked for no credentials and publishes no OAuth metadata
	// (Discover reads it as "none needed", not as a broken setup).
	NoLogin bool
}

func (e *Error) Error() string { return e.Msg }

func errorf(format string, a ...any) error { return &Error{Msg: fmt.Sprintf(format, a...)} }

// NeedLoginError is a 401 that the session may not answer with a browser login (no
// terminal, nothing stored): the command to run is in the message.
type NeedLoginError struct {
	Server string
	Scope  string // a step-up's scope, when the server asked for more
	// Why, when set, says why the stored login cannot be used (it expired without a
	// refresh token, the refresh was refused…) and what to do; it replaces "there is
	// no stored token".
	Why string
	// Ask is what the login to run should ask for: the scopes already granted and
	// Scope's, so that following the advice does not drop what was granted (and the
	// next call bounce back for it).
	Ask string
	// Hint, when set, says how to log in instead of the shell command (the workbench:
	// "L logs in"; Options.LoginHint).
	Hint string
}

func (e *NeedLoginError) Error() string {
	if e.Hint != "" {
		if e.Scope != "" {
			return fmt.Sprintf("%s needs a token with more scope (%s); %s", e.Server, e.Scope, e.Hint)
		}
		if e.Why != "" {
			// Why the stored login cannot be used says more than "no usable token".
			return e.Why + "; or " + e.Hint
		}
		return fmt.Sprintf("%s needs an OAuth login and there is no usable stored token for it; %s", e.Server, e.Hint)
	}
	cmd := "mcpscope auth login " + shquote.Quote(e.Server)
	if e.Why != "" && e.Scope == "" {
		return e.Why + " (no terminal here to log in from; or pass --login to log in from here)"
	}
	if e.Scope != "" {
		ask := e.Ask
		if ask == "" {
			ask = e.Scope
		}
		return fmt.Sprintf("%s needs a token with more scope (%s) and no one is here to log in (no terminal); run: mcpscope auth login --scope %s %s (or pass --login to log in from here)",
			e.Server, e.Scope, shquote.Quote(ask), shquote.Quote(e.Server))
	}
	return fmt.Sprintf("%s needs an OAuth login and there is no stored token for it (and no terminal to log in from); run: %s (or pass --bearer TOKEN, or --login to log in from here)", e.Server, cmd)
}

// Token returns the access token to send, refreshing a stored one that is about to
// expire; "" when there is none yet (the request goes without, and its 401 starts
// Challenge).
func (m *Manager) Token(ctx context.Context) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.loaded {
		m.loaded = true
		if m.opts.Store != nil {
			if es := m.opts.Store.ForServer(m.server); len(es) > 0 {
				m.entry = es[0]
				m.secret(m.entry.AccessToken)
				m.secret(m.entry.RefreshToken)
				m.secret(m.entry.ClientSecret)
				m.step("store", "using the stored login for %s (issuer %s, scopes %s, %s)", m.server, m.entry.Issuer, scopeText(m.entry.Scopes), expiryText(m.entry.Expiry))
			}
		}
	}
	if m.entry == nil {
		return "", nil
	}
	if expiring(m.entry) && !(m.entry.AccessToken == m.fromRefresh && time.Now().Before(m.entry.Expiry)) {
		if err := m.refreshLocked(ctx, false); err != nil {
			m.refreshErr = err
			m.step("refresh", "%v", err)
		}
	}
	if m.entry == nil {
		return "", nil
	}
	return m.entry.AccessToken, nil
}

func expiring(e *Entry) bool {
	return !e.Expiry.IsZero() && time.Until(e.Expiry) < refreshMargin(e)
}

// refreshMargin is how long before its expiry a token is renewed: a tenth of its
// lifetime, at most a minute. A fixed minute renewed a token that lives a minute or
// less before every request (three token requests per call, the refresh token
// rotated each time); a tenth keeps the renewal rare whatever the lifetime while
// leaving a request time to arrive before the token ends. A lifetime that is not
// known (a login stored without its issue time) gets 5 s.
func refreshMargin(e *Entry) time.Duration {
	issued := e.Issued
	if issued.IsZero() {
		issued = e.Saved
	}
	if issued.IsZero() || !e.Expiry.After(issued) {
		return 5 * time.Second
	}
	return min(time.Minute, e.Expiry.Sub(issued)/10)
}

// refreshLocked renews the token under the store's lock, so that two processes do
// not both refresh (the second finds the first one's token). force refreshes even a
// token that has not expired (the server refused it).
func (m *Manager) refreshLocked(ctx context.Context, force bool) error {
	e := m.entry
	if m.opts.Store != nil {
		unlock, err := m.opts.Store.Lock()
		if err != nil {
			return err
		}
		defer unlock()
		if fresh := m.opts.Store.Load(e.Issuer, e.Resource); fresh != nil && fresh.AccessToken != e.AccessToken && (fresh.Expiry.IsZero() || time.Now().Before(fresh.Expiry)) {
			m.entry = fresh
			m.secret(fresh.AccessToken)
			m.secret(fresh.RefreshToken)
			m.step("refresh", "another mcpscope process refreshed the token; using it (%s)", expiryText(fresh.Expiry))
			return nil
		} else if fresh != nil {
			e = fresh
		}
	}
	if !force && !expiring(e) {
		return nil
	}
	ctx, err := m.dpopRefresh(ctx, e)
	if err != nil {
		return err
	}
	var tok *oauth2.Token
	switch {
	case e.RefreshToken != "":
		tok, err = m.refreshToken(ctx, e)
	case e.Grant == "client_credentials" && (e.ClientSecret != "" || len(m.opts.PrivateKeyPEM) > 0):
		tok, err = m.clientCredentialsToken(ctx, e.Issuer, e.TokenEndpoint, e.ClientID, e.ClientSecret, e.AuthMethod, e.Resource, e.Scopes)
	case e.Grant == jwtBearerGrant && m.opts.Assertion != "":
		tok, err = m.jwtBearerToken(ctx, e.TokenEndpoint, e.ClientID, e.Resource, e.Scopes)
	case e.Grant == idJAGEntry && m.opts.IDToken != "" && m.opts.IDPTokenEndpoint != "":
		m.step("refresh", "an ID-JAG login has no refresh token: exchanging the ID token again")
		tok, err = m.idJAGToken(ctx, e.Issuer, e.TokenEndpoint, e.ClientID, e.ClientSecret, e.AuthMethod, e.Resource, e.Scopes)
	case e.Grant == idJAGEntry:
		return m.idJAGCannotRenew(e)
	default:
		if time.Now().Before(e.Expiry) {
			return errorf("the stored token for %s %s and no refresh token came with it (the authorization server did not grant offline access); log in again before then: mcpscope auth login %s", m.server, expiryText(e.Expiry), shquote.Quote(m.server))
		}
		return errorf("the stored token for %s %s and no refresh token came with it (the authorization server did not grant offline access); log in again: mcpscope auth login %s", m.server, expiryText(e.Expiry), shquote.Quote(m.server))
	}
	if err != nil {
		return m.refreshFailed(e, err)
	}
	ne := *e
	ne.Issued = time.Now()
	ne.AccessToken = tok.AccessToken
	if tok.RefreshToken != "" {
		ne.RefreshToken = tok.RefreshToken
	}
	ne.Expiry = tok.Expiry
	if s, _ := tok.Extra("scope").(string); s != "" {
		ne.Scopes = strings.Fields(s)
	}
	m.secret(ne.AccessToken)
	m.secret(ne.RefreshToken)
	m.entry = &ne
	m.fromRefresh = ne.AccessToken
	m.refreshErr = nil
	m.step("refresh", "new access token %s, %s", mask(ne.AccessToken), expiryText(ne.Expiry))
	m.claimsStep(ne.AccessToken, ne.Issuer, ne.Resource)
	if m.opts.Store != nil {
		return m.opts.Store.Save(&ne)
	}
	return nil
}

// refreshToken sends the refresh_token grant itself, with the resource indicator:
// MCP requires resource in every token request (RFC 8707 §2.2), and an
// authorization server that does not fall back to the granted resource issues a
// token that is not for the MCP server without it. golang.org/x/oauth2's
// TokenSource cannot send it.
func (m *Manager) refreshToken(ctx context.Context, e *Entry) (*oauth2.Token, error) {
	m.step("refresh", "POST %s grant_type=refresh_token (the token %s, resource %s, client auth %s)", e.TokenEndpoint, expiryText(e.Expiry), orNone(e.Resource), orNone(e.AuthMethod))
	form := url.Values{"grant_type": {"refresh_token"}, "refresh_token": {e.RefreshToken}}
	if e.Resource != "" {
		form.Set("resource", e.Resource)
	}
	return m.postToken(ctx, e.TokenEndpoint, form, e.ClientID, e.ClientSecret, e.AuthMethod)
}

// refreshFailed says why a refresh failed, and what to do, by the error the token
// endpoint answered. invalid_client means the authorization server no longer knows
// the client: a registration kept for it is dropped, so that the next login
// registers again instead of reusing it forever.
func (m *Manager) refreshFailed(e *Entry, err error) error {
	login := "mcpscope auth login " + shquote.Quote(m.server)
	var re *oauth2.RetrieveError
	code := ""
	if errors.As(err, &re) {
		code = re.ErrorCode
	}
	switch code {
	case "invalid_grant":
		return errorf("the authorization server refused the refresh token for %s (%s: it expired, was revoked, or was used already); log in again: %s", m.server, tokenErr(err), login)
	case "invalid_client":
		return errorf("%s; log in again: %s", m.forgetClient(e.Issuer, e.ClientID, tokenErr(err)), login)
	}
	return errorf("refreshing the token at %s failed: %v", e.TokenEndpoint, tokenErr(err))
}

// forgetClient drops the registration kept for the issuer when it is the client
// the authorization server refused, and says so.
func (m *Manager) forgetClient(issuer, clientID, why string) string {
	msg := fmt.Sprintf("the authorization server %s no longer knows the client %s (%s: its registration was forgotten, deleted or expired)", issuer, clientID, why)
	if m.opts.Store == nil {
		return msg
	}
	if r := m.opts.Store.LoadRegistration(issuer); r != nil && r.ClientID == clientID {
		if _, err := m.opts.Store.DeleteRegistration(issuer); err != nil {
			return msg + fmt.Sprintf("; removing the registration kept in %s failed: %v", m.opts.Store.ClientsDir(), err)
		}
		m.step("registration", "removed the registration of %s kept for %s in %s", clientID, issuer, m.opts.Store.ClientsDir())
		return msg + "; mcpscope removed the registration it kept (in " + m.opts.Store.ClientsDir() + ") and the next login registers again"
	}
	return msg + "; check the client ID (--client-id, or the config entry's oauth block)"
}

func (m *Manager) ctx(ctx context.Context) context.Context {
	return context.WithValue(ctx, oauth2.HTTPClient, m.client)
}

// Challenge answers a 401 or 403: it reports whether the request is worth sending
// again with a new token. sent is the token the refused request carried ("" for
// none). A 403 without insufficient_scope is not for a login to fix.
func (m *Manager) Challenge(ctx context.Context, status int, header http.Header, sent string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.entry != nil && m.entry.AccessToken != sent {
		return true, nil // another request has logged in meanwhile
	}
	chs, perr := oauthex.ParseWWWAuthenticate(header.Values("WWW-Authenticate"))
	if perr != nil {
		m.step("discovery", "the WWW-Authenticate header does not parse (%v); going on without it", perr)
		chs = nil
	}
	errCode, scope := challengeParam(chs, "error"), challengeParam(chs, "scope")
	if status == http.StatusForbidden && errCode != "insufficient_scope" {
		return false, nil
	}
	m.step("challenge", "the server answered HTTP %d (token sent: %v; error %s, scope %s, resource_metadata %s)",
		status, sent != "", orNone(errCode), orNone(scope), orNone(challengeParam(chs, "resource_metadata")))
	m.attempts++
	if m.attempts > m.opts.MaxAttempts {
		return false, errorf("%s still answers HTTP %d after %d tries to log in (or refresh) in this session; stopping there (is the token meant for this server? `mcpscope auth login -v %s` shows each step)",
			m.server, status, m.opts.MaxAttempts, shquote.Quote(m.server))
	}
	if status == http.StatusUnauthorized && m.entry != nil && sent != "" && !m.triedRefresh && (m.entry.RefreshToken != "" || m.entry.Grant == "client_credentials" || m.entry.Grant == jwtBearerGrant || m.entry.Grant == idJAGEntry) {
		m.triedRefresh = true
		m.step("refresh", "the server refused the stored token (HTTP 401); refreshing it")
		if err := m.refreshLocked(ctx, true); err == nil {
			return true, nil
		} else {
			m.refreshErr = err
			m.step("refresh", "%v", err)
		}
	}
	confirm := m.opts.Confirm
	if confirm == nil && m.opts.Interactive && m.opts.Paste != nil && !m.opts.Unattended && m.interaction == nil {
		confirm = m.askLine // a terminal: ask there
	}
	machine := machineGrant(m.grant())
	if status == http.StatusForbidden && !machine && confirm != nil {
		q := fmt.Sprintf("%s asks for more scope (%s) than the token has (%s). Log in again to ask for it?", m.server, orNone(scope), scopeText(m.entryScopes()))
		m.step("step-up", "HTTP 403 insufficient_scope: the server wants %s; asking before logging in again", orNone(scope))
		ok, err := confirm(ctx, q)
		if err != nil {
			return false, err
		}
		if !ok {
			m.step("step-up", "declined: the token keeps its scopes")
			return false, errorf("%s needs more scope (%s) and the step-up was declined; the request was not sent again", m.server, orNone(scope))
		}
		if !m.opts.Interactive && m.interaction == nil {
			return false, &NeedLoginError{Server: m.server, Scope: scope, Ask: scopeUnion(m.entryScopes(), strings.Fields(scope)), Hint: m.opts.LoginHint}
		}
	}
	if !machine && !m.opts.Interactive {
		ne := &NeedLoginError{Server: m.server, Hint: m.opts.LoginHint}
		if status == http.StatusForbidden {
			ne.Scope, ne.Ask = scope, scopeUnion(m.entryScopes(), strings.Fields(scope))
		} else if m.refreshErr != nil {
			ne.Why = m.refreshErr.Error()
		} else if m.entry != nil && sent != "" {
			ne.Why = fmt.Sprintf("%s refused the stored token (HTTP %d) and there is no refresh token to renew it; log in again: mcpscope auth login %s", m.server, status, shquote.Quote(m.server))
		}
		return false, ne
	}
	prev := m.entry
	e, err := m.login(ctx, chs, status)
	if err != nil {
		if machine && status == http.StatusForbidden {
			return false, errorf("%v; %s", err, m.keptMachineLogin(prev))
		}
		return false, err
	}
	m.entry = e
	if status == http.StatusForbidden && e.scopesGranted {
		// The token response says what was granted: a scope the server asked for
		// and the authorization server left out was refused, and logging in again
		// (up to MaxAttempts, a browser each time) would only be refused again.
		var missing []string
		for _, x := range strings.Fields(scope) {
			if !slices.Contains(e.Scopes, x) {
				missing = append(missing, x)
			}
		}
		if len(missing) > 0 {
			msg := fmt.Sprintf("%s asks for %s, and the authorization server %s did not grant %s (it granted %s): it refuses that scope to this login, so mcpscope does not log in again for it (ask the server's administrator, or log in as someone allowed it)",
				m.server, scope, e.Issuer, strings.Join(missing, " "), scopeText(e.Scopes))
			if machine {
				msg += "; " + m.keptMachineLogin(e)
			}
			m.step("step-up", "%s", msg)
			return false, &Error{Msg: msg}
		}
	}
	return true, nil
}

// keptMachineLogin says why a machine login that could not step up is not turned
// into a browser login (--login) or handed to another client: that would replace
// the machine's identity with a person's without asking.
func (m *Manager) keptMachineLogin(e *Entry) string {
	who := "this client"
	grant := "machine"
	if e != nil {
		who = "client " + e.ClientID
		grant = map[string]string{"client_credentials": "client-credentials", jwtBearerGrant: "jwt-bearer", idJAGEntry: "id-jag"}[e.Grant]
	}
	return fmt.Sprintf("the %s login (%s) is kept: it is not replaced by a browser login (--login) or another client without being asked; to log in as a person instead, run mcpscope auth logout %s, then mcpscope auth login %s",
		grant, who, shquote.Quote(m.server), shquote.Quote(m.server))
}

// grant is the grant a new login uses: a stored machine login (client credentials,
// jwt-bearer) keeps its own grant and client, so that a step-up or a refused token
// never turns a machine identity into a person's (a browser login through another
// client) unless the user removes it first; otherwise the options'.
func (m *Manager) grant() string {
	if m.entry != nil {
		switch m.entry.Grant {
		case "client_credentials":
			return GrantClientCredentials
		case jwtBearerGrant:
			return GrantJWTBearer
		case idJAGEntry:
			return GrantIDJAG
		}
	}
	return m.opts.Grant
}

// scopeUnion is a's scopes then b's that a lacks.
func scopeUnion(a, b []string) string {
	out := slices.Clone(a)
	for _, x := range b {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return strings.Join(out, " ")
}

// askLine asks a yes/no question on Out and reads the answer from the pasted lines
// (the terminal's stdin).
func (m *Manager) askLine(ctx context.Context, q string) (bool, error) {
	fmt.Fprintf(m.opts.Out, "%s [y/N] ", q)
	select {
	case line, ok := <-m.pasteLines():
		if !ok {
			return false, nil
		}
		a := strings.ToLower(strings.TrimSpace(line))
		return a == "y" || a == "yes", nil
	case <-ctx.Done():
		return false, ctx.Err()
	}
}

func (m *Manager) entryScopes() []string {
	if m.entry == nil {
		return nil
	}
	return m.entry.Scopes
}

func challengeParam(chs []oauthex.Challenge, name string) string {
	for _, c := range chs {
		if c.Scheme == "bearer" && c.Params[name] != "" {
			return c.Params[name]
		}
	}
	for _, c := range chs {
		if c.Params[name] != "" {
			return c.Params[name]
		}
	}
	return ""
}

// Login runs the whole flow for the server (mcpscope auth login): it asks the
// server without a token the way a call does, to read its challenge, then
// discovers, registers, authorizes and stores the token. A stored login for the
// server is the starting point: its scopes are asked for again with the new ones
// (a login for more scope does not drop what was granted), and a stored machine
// login keeps its grant and client (grant).
func (m *Manager) Login(ctx context.Context) (*Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.loaded = true
	if m.entry == nil && m.opts.Store != nil {
		if es := m.opts.Store.ForServer(m.server); len(es) > 0 {
			m.entry = es[0]
			m.secret(m.entry.AccessToken)
			m.secret(m.entry.RefreshToken)
			m.secret(m.entry.ClientSecret)
			m.step("store", "a login for %s is stored (scopes %s, %s); asking for its scopes again", m.server, scopeText(m.entry.Scopes), m.entry.Grant)
		}
	}
	status, header, err := m.probe(ctx)
	if err != nil {
		return nil, err
	}
	var chs []oauthex.Challenge
	if status == http.StatusUnauthorized || status == http.StatusForbidden {
		chs, _ = oauthex.ParseWWWAuthenticate(header.Values("WWW-Authenticate"))
	} else {
		m.step("discovery", "the server answered HTTP %d without a token; looking for its metadata anyway", status)
	}
	e, err := m.login(ctx, chs, status)
	if err != nil {
		return nil, err
	}
	m.entry = e
	return e, nil
}

// probe asks the server, without a token, what a call asks first: initialize, then
// (when that passed) notifications/initialized and tools/list in its session. A
// server may let initialize through and guard only the requests after it (the
// conformance suite's auth/scope-step-up does): a bare initialize would never see
// the 401 and its scope. It returns the first 401 or 403, else the last status.
func (m *Manager) probe(ctx context.Context) (int, http.Header, error) {
	const version = "2025-11-25"
	session := ""
	bodies := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"mcpscope","version":"login"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`,
	}
	status, header := 0, http.Header{}
	for i, body := range bodies {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.server, strings.NewReader(body))
		if err != nil {
			return 0, nil, errorf("%q is not a URL: %v", m.server, err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if i > 0 {
			req.Header.Set("MCP-Protocol-Version", version)
		}
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := m.client.Do(req)
		if err != nil {
			if i > 0 {
				break // the initialize's answer is what there is
			}
			return 0, nil, errorf("cannot reach %s: %v", m.server, err)
		}
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		challenged := resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden
		if i == 0 || challenged {
			status, header = resp.StatusCode, resp.Header
		}
		if challenged || resp.StatusCode >= 300 {
			break // a challenge to answer, or a server that went no further
		}
		if i == 0 {
			session = resp.Header.Get("Mcp-Session-Id")
		}
	}
	return status, header, nil
}

// LoginWith runs the whole flow like Login, with a person other than Out and Paste
// (the workbench's dialog): the authorization URL goes to it, pasted lines come from
// it. The browser (Options.Browser) is still asked to open the URL.
func (m *Manager) LoginWith(ctx context.Context, in *Interaction) (*Entry, error) {
	m.mu.Lock()
	m.interaction = in
	m.triedRefresh = false // new tokens may be refreshed once more
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		m.interaction = nil
		m.mu.Unlock()
	}()
	return m.Login(ctx)
}

// Entry returns the login in use (nil when there is none yet).
func (m *Manager) Entry() *Entry {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.entry == nil {
		return nil
	}
	e := *m.entry
	return &e
}

// pasteLines returns the lines of Options.Paste, read by one goroutine for the
// manager's life, so that a pasted line and a step-up's answer never race for stdin.
func (m *Manager) pasteLines() <-chan string {
	if m.interaction != nil {
		return m.interaction.Paste
	}
	if m.opts.Paste == nil {
		return nil
	}
	m.pasteOnce.Do(func() {
		m.pasted = make(chan string)
		go func() {
			sc := bufio.NewScanner(m.opts.Paste)
			sc.Buffer(make([]byte, 0, 64<<10), 64<<10)
			for sc.Scan() {
				m.pasted <- strings.TrimSpace(sc.Text())
			}
			close(m.pasted)
		}()
	})
	return m.pasted
}

// discovered is what discovery found.
type discovered struct {
	resource string
	prm      *oauthex.ProtectedResourceMetadata // nil: none (2025-03-26 server)
	asm      *oauthex.AuthServerMeta
	fallback bool // the 2025-03-26 default endpoints
	// The documents as fetched, for the steps and the stored login (auth status).
	rmeta *ResourceMetadata
	imeta *IssuerMetadata
	// dpopAlgs is the authorization server's dpop_signing_alg_values_supported
	// (the SDK's AuthServerMeta drops it).
	dpopAlgs []string
}

func (m *Manager) login(ctx context.Context, chs []oauthex.Challenge, status int) (*Entry, error) {
	d, err := m.discover(ctx, chs, status)
	if err != nil {
		m.step("error", "%v", err)
		return nil, err
	}
	ctx, key, err := m.dpopLogin(ctx, d, chs)
	if err != nil {
		m.step("error", "%v", err)
		return nil, err
	}
	var e *Entry
	switch m.grant() {
	case GrantClientCredentials:
		e, err = m.clientCredentials(ctx, d, chs)
	case GrantJWTBearer:
		e, err = m.jwtBearer(ctx, d, chs)
	case GrantIDJAG:
		e, err = m.idJAG(ctx, d, chs)
	default:
		e, err = m.authorizationCode(ctx, d, chs)
	}
	if err != nil {
		m.step("error", "%v", err)
		return nil, err
	}
	m.dpopBind(e, key)
	if m.opts.Store != nil {
		if err := m.opts.Store.Save(e); err != nil {
			return nil, err
		}
		m.step("store", "saved the login for %s (issuer %s) in %s", m.server, e.Issuer, m.opts.Store.Dir)
	}
	return e, nil
}

// discover finds the protected resource metadata (from the challenge's
// resource_metadata, then the well-known paths with and without the endpoint's
// path) and the authorization server metadata (RFC 8414 and OpenID locations with
// path insertion, then path appending), falling back to the 2025-03-26 defaults.
func (m *Manager) discover(ctx context.Context, chs []oauthex.Challenge, status int) (*discovered, error) {
	su, err := url.Parse(m.server)
	if err != nil || su.Host == "" {
		return nil, errorf("%q is not an http:// or https:// URL", m.server)
	}
	su.Fragment = ""
	d := &discovered{resource: su.String()}
	var tries []string
	if rm := challengeParam(chs, "resource_metadata"); rm != "" {
		tries = append(tries, rm)
		m.step("discovery", "the challenge names the resource metadata: %s", rm)
	}
	wk := *su
	wk.RawQuery = ""
	if p := strings.Trim(su.Path, "/"); p != "" {
		wk.Path = "/.well-known/oauth-protected-resource/" + p
		tries = append(tries, wk.String())
	}
	wk.Path = "/.well-known/oauth-protected-resource"
	tries = append(tries, wk.String())
	for _, u := range tries {
		var prm oauthex.ProtectedResourceMetadata
		st, err := m.getJSON(ctx, u, &prm)
		if err != nil {
			return nil, errorf("the protected resource metadata at %s is unusable: %v", u, err)
		}
		if st != http.StatusOK {
			continue
		}
		if prm.Resource == "" || !resourceCovers(prm.Resource, d.resource) {
			return nil, errorf("the protected resource metadata at %s is for the resource %q, not %s; refusing to use it (a server must not hand out another resource's metadata)", u, prm.Resource, d.resource)
		}
		if len(prm.AuthorizationServers) == 0 {
			return nil, errorf("the protected resource metadata at %s names no authorization_servers", u)
		}
		d.rmeta = resourceMetadata(u, &prm)
		m.step("metadata", "%s", d.rmeta.text())
		d.prm = &prm
		d.resource = prm.Resource
		break
	}
	var issuer string
	if d.prm != nil {
		issuer = d.prm.AuthorizationServers[0]
	} else {
		o := *su
		o.Path, o.RawQuery, o.RawPath = "", "", ""
		issuer = o.String()
		m.step("discovery", "no protected resource metadata; treating the server's origin %s as the authorization server (2025-03-26)", issuer)
	}
	if err := checkSecureURL("the authorization server", issuer); err != nil {
		return nil, err
	}
	for _, u := range asMetadataURLs(issuer, d.prm == nil) {
		var meta struct {
			oauthex.AuthServerMeta
			DPoPAlgs []string `json:"dpop_signing_alg_values_supported"`
		}
		st, err := m.getJSON(ctx, u, &meta)
		if err != nil {
			return nil, errorf("the authorization server metadata at %s is unusable: %v", u, err)
		}
		asm := meta.AuthServerMeta
		d.dpopAlgs = meta.DPoPAlgs
		if st != http.StatusOK {
			continue
		}
		if d.prm == nil && sameOrigin(asm.Issuer, issuer) && asm.Issuer != issuer {
			// 2025-03-26: the MCP server is the authorization server and its origin's
			// metadata is the document to use, whatever path its issuer has.
			m.step("metadata", "the server's own metadata names the issuer %s on its origin; using it (2025-03-26)", asm.Issuer)
		} else if strings.TrimSuffix(asm.Issuer, "/") != strings.TrimSuffix(issuer, "/") {
			return nil, errorf("the authorization server metadata at %s names the issuer %q, not %s; refusing it (RFC 8414 §3.3: a mix-up or a forged document)", u, asm.Issuer, issuer)
		}
		// The document as fetched, before anything in it is refused: what is wrong
		// with a setup is seen here first.
		d.imeta = issuerMetadata(u, &asm, false)
		m.step("metadata", "%s", d.imeta.text())
		m.step("metadata", "%s", d.imeta.loginText())
		for _, n := range d.imeta.Notes {
			m.step("warning", "%s", n)
		}
		if !slices.Contains(asm.CodeChallengeMethodsSupported, "S256") && !machineGrant(m.opts.Grant) {
			if len(asm.CodeChallengeMethodsSupported) == 0 {
				return nil, errorf("the authorization server %s does not list code_challenge_methods_supported: it may not support PKCE, which MCP requires; refusing to log in there", issuer)
			}
			return nil, errorf("the authorization server %s does not support PKCE with S256 (it lists %s)", issuer, strings.Join(asm.CodeChallengeMethodsSupported, ", "))
		}
		for name, v := range map[string]string{"authorization_endpoint": asm.AuthorizationEndpoint, "token_endpoint": asm.TokenEndpoint, "registration_endpoint": asm.RegistrationEndpoint} {
			if err := checkSecureURL("the "+name, v); err != nil {
				return nil, err
			}
		}
		d.asm = &asm
		return d, nil
	}
	if d.prm == nil && status != http.StatusUnauthorized && status != http.StatusForbidden {
		return nil, &Error{Msg: fmt.Sprintf("%s answered HTTP %d without asking for credentials and publishes no OAuth metadata: it needs no login", m.server, status), NoLogin: true}
	}
	base := strings.TrimSuffix(issuer, "/")
	d.asm = &oauthex.AuthServerMeta{Issuer: issuer, AuthorizationEndpoint: base + "/authorize", TokenEndpoint: base + "/token", RegistrationEndpoint: base + "/register"}
	d.fallback = true
	d.imeta = issuerMetadata("", d.asm, true)
	m.step("metadata", "%s", d.imeta.text())
	return d, nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// asMetadataURLs lists where an issuer's metadata may be (MCP 2025-11-25
// "Authorization Server Metadata Discovery"); for a 2025-03-26 server (legacy) the
// path is dropped.
func asMetadataURLs(issuer string, legacy bool) []string {
	u, err := url.Parse(issuer)
	if err != nil {
		return nil
	}
	p := strings.Trim(u.Path, "/")
	u.RawQuery, u.Fragment, u.RawPath = "", "", ""
	at := func(path string) string { c := *u; c.Path = path; return c.String() }
	if p == "" || legacy {
		return []string{at("/.well-known/oauth-authorization-server"), at("/.well-known/openid-configuration")}
	}
	return []string{
		at("/.well-known/oauth-authorization-server/" + p),
		at("/.well-known/openid-configuration/" + p),
		at("/" + p + "/.well-known/openid-configuration"),
	}
}

// resourceCovers reports whether the metadata's resource is the server's URL or a
// prefix of it on the same origin.
func resourceCovers(resource, server string) bool {
	r, s := canonical(resource), canonical(server)
	if r == s {
		return true
	}
	ru, err1 := url.Parse(r)
	su, err2 := url.Parse(s)
	if err1 != nil || err2 != nil || ru.Scheme != su.Scheme || ru.Host != su.Host {
		return false
	}
	rp := strings.TrimSuffix(ru.Path, "/")
	return rp == "" || su.Path == rp || strings.HasPrefix(su.Path, rp+"/")
}

func sameOrigin(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	return err1 == nil && err2 == nil && strings.EqualFold(ua.Scheme, ub.Scheme) && strings.EqualFold(ua.Host, ub.Host)
}

// canonical lower-cases scheme and host, drops the fragment and one trailing slash.
func canonical(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	u.Scheme = strings.ToLower(u.Scheme)
	u.Host = strings.ToLower(u.Host)
	u.Fragment = ""
	u.Path = strings.TrimSuffix(u.Path, "/")
	u.RawPath = ""
	return u.String()
}

// checkSecureURL refuses a plain-HTTP URL that is not on this machine: tokens,
// codes and client secrets would cross the network unencrypted.
func checkSecureURL(what, raw string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return errorf("%s URL %q does not parse: %v", what, raw, err)
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return nil
	case "http":
		if isLoopback(u.Hostname()) {
			return nil
		}
		return errorf("%s %s uses plain HTTP and is not on this machine; refusing to send credentials there (it must use https)", what, raw)
	}
	return errorf("%s URL %q is neither https nor loopback http; refusing it", what, raw)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// getJSON fetches a metadata document: (200, nil) with v filled, (status, nil) for
// a 4xx (not there: try the next place), an error for anything else.
func (m *Manager) getJSON(ctx context.Context, u string, v any) (int, error) {
	if err := checkSecureURL("the metadata", u); err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	resp, err := m.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20+1))
	if err != nil {
		return 0, err
	}
	if resp.StatusCode >= 400 && resp.StatusCode < 500 {
		return resp.StatusCode, nil
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	if len(data) > 1<<20 {
		return 0, fmt.Errorf("larger than 1 MiB")
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "" && mt != "application/json" && !strings.HasSuffix(mt, "+json") {
		if json.Valid(data) {
			m.step("metadata", "%s is served as %q, not application/json; reading it as JSON anyway", u, mt)
		} else {
			return 0, fmt.Errorf("it is %q, not JSON (%s)", mt, abbreviate(string(data), 80))
		}
	}
	if err := json.Unmarshal(data, v); err != nil {
		return 0, fmt.Errorf("not valid JSON metadata: %v (%s)", err, abbreviate(string(data), 80))
	}
	return http.StatusOK, nil
}

func abbreviate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// scopes picks what to ask for: --scope; else the challenge's scope; else the
// resource's scopes_supported; else nothing. offline_access is added when the
// authorization server supports it (a refresh token is then stored); a step-up
// keeps the scopes granted before.
func (m *Manager) scopes(d *discovered, chs []oauthex.Challenge, refresh bool) []string {
	var s []string
	switch {
	case len(m.opts.Scopes) > 0:
		s = m.opts.Scopes
	case challengeParam(chs, "scope") != "":
		s = strings.Fields(challengeParam(chs, "scope"))
	case d.prm != nil && len(d.prm.ScopesSupported) > 0:
		s = d.prm.ScopesSupported
	}
	s = slices.Clone(s)
	if challengeParam(chs, "error") == "insufficient_scope" {
		// A step-up: what the server asks for now is asked for, whatever --scope said.
		for _, x := range strings.Fields(challengeParam(chs, "scope")) {
			if !slices.Contains(s, x) {
				s = append(s, x)
			}
		}
	}
	if m.interaction != nil {
		for _, x := range m.interaction.Scopes {
			if !slices.Contains(s, x) {
				s = append(s, x)
			}
		}
	}
	if m.entry != nil && sameResource(m.entry.Resource, d.resource) {
		for _, g := range m.entry.Scopes {
			if !slices.Contains(s, g) {
				s = append(s, g)
			}
		}
	}
	if refresh && d.asm != nil && slices.Contains(d.asm.ScopesSupported, "offline_access") && !slices.Contains(s, "offline_access") && len(s) > 0 {
		s = append(s, "offline_access")
	}
	return s
}

func authStyle(method string) oauth2.AuthStyle {
	switch method {
	case "client_secret_post", "none", "private_key_jwt":
		return oauth2.AuthStyleInParams
	case "client_secret_basic":
		return oauth2.AuthStyleInHeader
	}
	return oauth2.AuthStyleAutoDetect
}

// secretMethod picks how to send a client secret from what the server supports.
func secretMethod(supported []string) string {
	for _, m := range []string{"client_secret_basic", "client_secret_post"} {
		if slices.Contains(supported, m) {
			return m
		}
	}
	if len(supported) == 0 {
		return "client_secret_basic" // RFC 8414 default
	}
	return ""
}

// sameRedirect compares a registered redirect URI with this login's: a loopback
// http redirect matches whatever its port (RFC 8252 §7.3: the authorization server
// must allow any port for it), so that --redirect-port 0, a new port each login,
// reuses the client registered once instead of registering a new one every time.
func sameRedirect(registered, redirect string) bool {
	if registered == redirect {
		return true
	}
	a, err1 := url.Parse(registered)
	b, err2 := url.Parse(redirect)
	return err1 == nil && err2 == nil && a.Scheme == "http" && b.Scheme == "http" && isLoopback(a.Hostname()) &&
		a.Hostname() == b.Hostname() && a.Path == b.Path && a.RawQuery == b.RawQuery
}

type client struct {
	id, secret, method string
	how                string
	stored             bool          // the registration kept for the issuer
	reg                *Registration // the dynamic registration (kept, or made now); nil for other clients
	meta               *ClientMetadata
}

// register picks the client: pre-registered; a client ID metadata document where
// the server supports them; a registration kept for the issuer; dynamic
// registration.
func (m *Manager) register(ctx context.Context, d *discovered, redirect string) (*client, error) {
	asm := d.asm
	if m.opts.ClientID != "" {
		c := &client{id: m.opts.ClientID, secret: m.opts.ClientSecret, method: "none", how: "pre-registered client " + m.opts.ClientID}
		if c.secret != "" {
			c.method = secretMethod(asm.TokenEndpointAuthMethodsSupported)
			if c.method == "" {
				c.method = "client_secret_post"
			}
		}
		c.meta = &ClientMetadata{Source: "pre-registered", ClientID: clip(c.id), TokenEndpointAuthMethod: c.method, SecretIssued: c.secret != ""}
		return c, nil
	}
	if m.opts.ClientMetadataURL != "" && asm.ClientIDMetadataDocumentSupported {
		return &client{id: m.opts.ClientMetadataURL, method: "none", how: "client ID metadata document " + m.opts.ClientMetadataURL,
			meta: &ClientMetadata{Source: "client ID metadata document", ClientID: clip(m.opts.ClientMetadataURL), TokenEndpointAuthMethod: "none"}}, nil
	}
	if m.opts.Store != nil {
		if r := m.opts.Store.LoadRegistration(asm.Issuer); r != nil && (redirect == "" || slices.ContainsFunc(r.RedirectURIs, func(u string) bool { return sameRedirect(u, redirect) })) {
			m.secret(r.ClientSecret)
			m.secret(r.AccessToken)
			meta := r.Metadata
			if meta == nil {
				// Kept before mcpscope kept the registration's answer.
				meta = &ClientMetadata{ClientID: clip(r.ClientID), RedirectURIs: clipAll(r.RedirectURIs), TokenEndpointAuthMethod: clip(r.AuthMethod), SecretIssued: r.ClientSecret != ""}
			} else {
				meta = new(*meta)
			}
			meta.Source = "kept registration"
			return &client{id: r.ClientID, secret: r.ClientSecret, method: r.AuthMethod, stored: true, reg: r, meta: meta, how: "the client registered with " + asm.Issuer + " before (" + r.ClientID + ")"}, nil
		}
	}
	if asm.RegistrationEndpoint == "" {
		return nil, errorf("the authorization server %s offers no dynamic registration and no client is configured; pass --client-id (and --client-secret) of a client registered there%s",
			asm.Issuer, map[bool]string{true: ", or --client-metadata-url", false: ""}[asm.ClientIDMetadataDocumentSupported])
	}
	method := "none"
	if !slices.Contains(asm.TokenEndpointAuthMethodsSupported, "none") && len(asm.TokenEndpointAuthMethodsSupported) > 0 {
		method = secretMethod(asm.TokenEndpointAuthMethodsSupported)
	}
	grants := []string{"authorization_code", "refresh_token"}
	if m.opts.Grant == GrantClientCredentials {
		grants = []string{"client_credentials"}
	}
	meta := &oauthex.ClientRegistrationMetadata{ClientName: "mcpscope", GrantTypes: grants, ResponseTypes: []string{"code"},
		TokenEndpointAuthMethod: method, ApplicationType: "native", SoftwareID: "mcpscope"}
	if redirect != "" {
		meta.RedirectURIs = []string{redirect}
	}
	m.step("registration", "dynamic registration at %s (redirect %s, token_endpoint_auth_method %s)", asm.RegistrationEndpoint, redirect, method)
	// The SDK's response type drops RFC 7592's members: keep a copy of the body
	// (already bounded by logTransport) to read them.
	var raw []byte
	hc := *m.client
	hc.Transport = &bodyCopy{base: m.client.Transport, into: &raw}
	resp, err := oauthex.RegisterClient(ctx, asm.RegistrationEndpoint, meta, &hc)
	if err != nil {
		// The SDK quotes the response body in its errors: show a line of it, not a MiB.
		return nil, errorf("dynamic registration at %s failed: %s", asm.RegistrationEndpoint, abbreviate(err.Error(), 300))
	}
	m.secret(resp.ClientSecret)
	got := resp.TokenEndpointAuthMethod
	if got == "" {
		got = method
		if resp.ClientSecret != "" && got == "none" {
			got = "client_secret_basic"
		}
	}
	m.step("registration", "registered client %s (client_secret %s, token_endpoint_auth_method %s)", resp.ClientID, mask(resp.ClientSecret), got)
	cm := registeredClient(raw, redirect, method)
	if cm == nil {
		cm = &ClientMetadata{Source: "dynamic registration", ClientID: clip(resp.ClientID), TokenEndpointAuthMethod: got, SecretIssued: resp.ClientSecret != ""}
	}
	r := &Registration{Issuer: asm.Issuer, ClientID: resp.ClientID, ClientSecret: resp.ClientSecret, AuthMethod: got, RedirectURIs: meta.RedirectURIs, Metadata: cm}
	var mgmt struct {
		URI   string `json:"registration_client_uri"`
		Token string `json:"registration_access_token"`
	}
	if json.Unmarshal(raw, &mgmt) == nil && mgmt.URI != "" && mgmt.Token != "" {
		m.secret(mgmt.Token)
		// The token goes only where the authorization server said, and not in the
		// clear to another host.
		if err := checkSecureURL("registration_client_uri", mgmt.URI); err != nil {
			m.step("registration", "not keeping the client's configuration endpoint: %v", err)
		} else {
			r.ClientURI, r.AccessToken = mgmt.URI, mgmt.Token
		}
	}
	if m.opts.Store != nil {
		if err := m.opts.Store.SaveRegistration(r); err != nil {
			m.step("registration", "could not keep the registration: %v", err)
		}
	}
	return &client{id: resp.ClientID, secret: resp.ClientSecret, method: got, reg: r, meta: cm, how: "dynamic registration at " + asm.RegistrationEndpoint}, nil
}

// bodyCopy hands a copy of each response body it passes on to into.
type bodyCopy struct {
	base http.RoundTripper
	into *[]byte
}

func (b *bodyCopy) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := b.base.RoundTrip(req)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	*b.into = data
	resp.Body = io.NopCloser(bytes.NewReader(data))
	return resp, nil
}

func (m *Manager) authorizationCode(ctx context.Context, d *discovered, chs []oauthex.Challenge) (*Entry, error) {
	port := m.opts.RedirectPort
	if port < 0 {
		port = DefaultRedirectPort
	}
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return nil, errorf("cannot listen for the login's redirect on 127.0.0.1:%d (%v); pass --redirect-port with a free port, or 0 for any", port, err)
	}
	defer ln.Close()
	redirect := fmt.Sprintf("http://127.0.0.1:%d/callback", ln.Addr().(*net.TCPAddr).Port)
	c, err := m.register(ctx, d, redirect)
	if err != nil {
		return nil, err
	}
	m.step("registration", "client: %s", c.how)
	m.clientStep(c.meta)
	scopes := m.scopes(d, chs, true)
	m.step("authorize", "scopes asked for: %s", scopeText(scopes))
	verifier := oauth2.GenerateVerifier()
	state := rand.Text()
	m.secret(verifier)
	params := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(verifier), oauth2.SetAuthURLParam("resource", d.resource)}
	if slices.Contains(scopes, "offline_access") {
		// OIDC Core §11: offline_access is granted only with prompt=consent; an OIDC
		// authorization server (oidc-provider) drops it otherwise, and no refresh
		// token comes. The TS SDK sends it too.
		params = append(params, oauth2.SetAuthURLParam("prompt", "consent"))
	}
	config := func(c *client) *oauth2.Config {
		return &oauth2.Config{ClientID: c.id, ClientSecret: c.secret, RedirectURL: redirect, Scopes: scopes,
			Endpoint: oauth2.Endpoint{AuthURL: d.asm.AuthorizationEndpoint, TokenURL: d.asm.TokenEndpoint, AuthStyle: authStyle(c.method)}}
	}
	cfg := config(c)
	authURL := cfg.AuthCodeURL(state, params...)
	if c.stored {
		if why := m.forgotten(ctx, c.reg, authURL); why != "" {
			// The authorization server no longer knows the kept client (restarted,
			// reset, the client deleted or expired): the browser would show
			// invalid_client and no redirect would come. Register again now.
			m.step("registration", "%s", m.forgetClient(d.asm.Issuer, c.id, why))
			if c, err = m.register(ctx, d, redirect); err != nil {
				return nil, err
			}
			m.step("registration", "client: %s", c.how)
			m.clientStep(c.meta)
			cfg = config(c)
			authURL = cfg.AuthCodeURL(state, params...)
		} else if c.reg.ClientSecret != c.secret {
			// The client read handed out a new secret (RFC 7592 §2.1).
			c.secret = c.reg.ClientSecret
			cfg = config(c)
		}
	}
	// Until a token comes back through it, this client's login is unfinished: if
	// none ever does (the person gave up on invalid_client in the browser), the
	// next login checks the client first.
	m.markUnfinished(c.reg, true)
	m.step("authorize", "authorization URL: %s", authURL)
	res, err := m.receive(ctx, ln, authURL, state)
	if err != nil {
		return nil, err
	}
	m.secret(res.code)
	// The loopback listener has refused any redirect with another state (and kept
	// waiting); a pasted URL with another state is the person's mistake: say so.
	if res.pasted != "pasted" && res.state != state {
		return nil, errorf("the pasted redirect's state does not match the one this login sent (a stale or forged redirect): paste the URL this login's authorization redirected to")
	}
	// RFC 9207: compare iss before looking at anything else in the response.
	if res.iss != "" && res.iss != d.asm.Issuer {
		return nil, errorf("the redirect comes from the issuer %q, not %q; ignoring it (a mix-up attack or a misconfigured server)", res.iss, d.asm.Issuer)
	}
	if res.iss == "" && d.asm.AuthorizationResponseIssParameterSupported {
		return nil, errorf("the authorization server %s promises an iss in its redirect (authorization_response_iss_parameter_supported) and sent none; ignoring the redirect", d.asm.Issuer)
	}
	if res.errCode != "" {
		if res.errCode == "invalid_client" || res.errCode == "unauthorized_client" {
			return nil, errorf("the authorization server refused the login: %s; log in again: mcpscope auth login %s", m.forgetClient(d.asm.Issuer, c.id, res.errCode), shquote.Quote(m.server))
		}
		return nil, errorf("the authorization server refused the login: %s%s", res.errCode, map[bool]string{true: " (" + res.errDesc + ")", false: ""}[res.errDesc != ""])
	}
	if res.code == "" {
		return nil, errorf("the redirect carries no code")
	}
	m.step("redirect", "received the code %s (state matches%s)", mask(res.code), map[bool]string{true: ", iss " + res.iss, false: ""}[res.iss != ""])
	m.step("token", "POST %s grant_type=authorization_code (code %s, code_verifier %s, resource %s, client auth %s)", d.asm.TokenEndpoint, mask(res.code), mask(verifier), d.resource, c.method)
	tok, err := cfg.Exchange(m.ctx(ctx), res.code, oauth2.VerifierOption(verifier), oauth2.SetAuthURLParam("resource", d.resource))
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && re.ErrorCode == "invalid_client" {
			return nil, errorf("the token request to %s failed: %s; log in again: mcpscope auth login %s", d.asm.TokenEndpoint, m.forgetClient(d.asm.Issuer, c.id, tokenErr(err)), shquote.Quote(m.server))
		}
		return nil, errorf("the token request to %s failed: %v", d.asm.TokenEndpoint, tokenErr(err))
	}
	m.markUnfinished(c.reg, false)
	return m.entryFrom(d, c, tok, scopes, "authorization_code"), nil
}

// markUnfinished records on a kept registration whether a login through it is
// waiting for its token (see Registration.Unfinished).
func (m *Manager) markUnfinished(r *Registration, unfinished bool) {
	if r == nil || m.opts.Store == nil || r.Unfinished == unfinished {
		return
	}
	r.Unfinished = unfinished
	if err := m.opts.Store.SaveRegistration(r); err != nil {
		m.step("registration", "could not update the kept registration: %v", err)
	}
}

// forgotten says why the authorization server no longer knows a kept client, or
// "" when it still does or cannot be told.
//
// It is asked without an authorization request where it can be: an authorization
// request is a login attempt at the server (counted by its limits, logs and
// lockouts, as the conformance suite's auth/scope-retry-limit counts them), with
// a PKCE challenge, scopes and resource that no person asked for. So: RFC 7592's
// client read when the registration gave its configuration endpoint; otherwise
// the authorization URL is requested (authorizeRefuses) only when the last login
// through the client never came back with a token, the one way a forgotten client
// shows itself to a person (invalid_client in the browser, no redirect). A client
// whose last login finished is used as it is; should the server have forgotten it
// since, the person is told by the browser, and the next login checks it.
func (m *Manager) forgotten(ctx context.Context, r *Registration, authURL string) string {
	if r == nil {
		return ""
	}
	if r.ClientURI != "" && r.AccessToken != "" {
		status, body, err := m.readClient(ctx, r)
		switch {
		case err != nil:
			m.step("registration", "reading the client %s at %s failed (%v)", r.ClientID, r.ClientURI, err)
		case status == http.StatusUnauthorized || status == http.StatusNotFound:
			// RFC 7592 §2.1: 401 for a client that does not exist (or a registration
			// access token no longer valid: the client cannot be managed either, and
			// a new registration costs nothing); 404 where a server says it so.
			return fmt.Sprintf("reading it at its registration_client_uri answered HTTP %d", status)
		case status < 300:
			// RFC 7592 §2.1: a new client secret or registration access token in the
			// answer replaces the kept one at once.
			var now struct {
				Secret string `json:"client_secret"`
				Token  string `json:"registration_access_token"`
			}
			if json.Unmarshal(body, &now) == nil && ((now.Secret != "" && now.Secret != r.ClientSecret) || (now.Token != "" && now.Token != r.AccessToken)) {
				m.secret(now.Secret)
				m.secret(now.Token)
				r.ClientSecret = cmp.Or(now.Secret, r.ClientSecret)
				r.AccessToken = cmp.Or(now.Token, r.AccessToken)
				if m.opts.Store != nil {
					if err := m.opts.Store.SaveRegistration(r); err != nil {
						m.step("registration", "could not update the kept registration: %v", err)
					}
				}
			}
			m.step("registration", "the authorization server still knows the client %s (read at its registration_client_uri)", r.ClientID)
			return ""
		case status == http.StatusForbidden:
			// Known, but not to be read by this client.
			return ""
		default:
			m.step("registration", "reading the client %s at %s answered HTTP %d; not telling whether it is known", r.ClientID, r.ClientURI, status)
		}
	}
	if r.Unfinished {
		m.step("registration", "the last login through the client %s did not finish; checking that %s still knows it", r.ClientID, r.Issuer)
		if m.authorizeRefuses(ctx, authURL) {
			return "its authorization endpoint refuses the request"
		}
	}
	return ""
}

// readClient is RFC 7592's client read request (§2.1): a GET of the client's
// configuration endpoint with its registration access token. It returns the status
// and the body (bounded by logTransport).
func (m *Manager) readClient(ctx context.Context, r *Registration) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.ClientURI, nil)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("Authorization", "Bearer "+r.AccessToken)
	c := *m.client
	// Never to another place with the token (net/http drops Authorization on a
	// cross-host redirect, but a same-host one may downgrade the scheme).
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, body, err
}

// authorizeRefuses asks the authorization endpoint for the authorization URL
// without following its redirect, as the browser will: a 4xx is a request it will
// not serve (an unknown client, chiefly), where a usable one redirects to a login
// page or back. It is itself an authorization request: forgotten says when it is
// sent.
func (m *Manager) authorizeRefuses(ctx context.Context, authURL string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return false
	}
	req.Header.Set("Accept", "text/html")
	c := *m.client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Do(req)
	if err != nil {
		return false
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return resp.StatusCode >= 400 && resp.StatusCode < 500
}

func (m *Manager) entryFrom(d *discovered, c *client, tok *oauth2.Token, asked []string, grant string) *Entry {
	m.secret(tok.AccessToken)
	m.secret(tok.RefreshToken)
	scopes := asked
	granted := false
	if s, _ := tok.Extra("scope").(string); s != "" {
		scopes, granted = strings.Fields(s), true
	}
	e := &Entry{scopesGranted: granted, Server: m.server, Issuer: d.asm.Issuer, Resource: d.resource, ClientID: c.id, ClientSecret: c.secret,
		TokenEndpoint: d.asm.TokenEndpoint, AuthMethod: c.method, Grant: grant, Scopes: scopes, TokenType: tok.TokenType,
		AccessToken: tok.AccessToken, RefreshToken: tok.RefreshToken, Expiry: tok.Expiry, Issued: time.Now(),
		ResourceMeta: d.rmeta, IssuerMeta: d.imeta, Client: c.meta}
	m.step("token", "access token %s (%s), refresh token %s, scopes %s, %s", mask(tok.AccessToken), orNone(tok.TokenType), mask(tok.RefreshToken), scopeText(scopes), expiryText(tok.Expiry))
	m.claimsStep(tok.AccessToken, d.asm.Issuer, d.resource)
	return e
}

// tokenErr says what a failed token request returned, without its body's secrets.
func tokenErr(err error) string {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		s := fmt.Sprintf("HTTP %d", re.Response.StatusCode)
		if re.ErrorCode != "" {
			s += " " + re.ErrorCode
		}
		if re.ErrorDescription != "" {
			s += " (" + abbreviate(re.ErrorDescription, 160) + ")"
		}
		return s
	}
	msg := err.Error()
	if strings.Contains(msg, "missing access_token") {
		return "the response has no access_token"
	}
	return abbreviate(msg, 200)
}

func (m *Manager) clientCredentials(ctx context.Context, d *discovered, chs []oauthex.Challenge) (*Entry, error) {
	c := &client{id: m.opts.ClientID, secret: m.opts.ClientSecret}
	if c.id == "" && m.entry != nil && m.entry.Grant == "client_credentials" {
		// A step-up (or a refused token) of a stored client-credentials login: the
		// same client again, never another one.
		c.id, c.secret = m.entry.ClientID, m.entry.ClientSecret
	}
	switch {
	case c.id == "":
		return nil, errorf("--oauth-grant client-credentials needs --client-id and --client-secret (or --client-key)")
	case len(m.opts.PrivateKeyPEM) > 0:
		c.method, c.how = "private_key_jwt", "client "+c.id+" with a private key JWT"
	case c.secret != "":
		c.method = secretMethod(d.asm.TokenEndpointAuthMethodsSupported)
		if c.method == "" {
			c.method = "client_secret_post"
		}
		c.how = "client " + c.id + " with its secret (" + c.method + ")"
	default:
		return nil, errorf("--oauth-grant client-credentials needs --client-secret or --client-key for client %s", c.id)
	}
	m.step("registration", "client credentials: %s", c.how)
	c.meta = &ClientMetadata{Source: "pre-registered", ClientID: clip(c.id), GrantTypes: []string{"client_credentials"}, TokenEndpointAuthMethod: c.method, SecretIssued: c.secret != ""}
	m.clientStep(c.meta)
	scopes := m.scopes(d, chs, false)
	tok, err := m.clientCredentialsToken(ctx, d.asm.Issuer, d.asm.TokenEndpoint, c.id, c.secret, c.method, d.resource, scopes)
	if err != nil {
		return nil, errorf("the client credentials token request to %s failed: %v", d.asm.TokenEndpoint, tokenErr(err))
	}
	return m.entryFrom(d, c, tok, scopes, "client_credentials"), nil
}

func (m *Manager) clientCredentialsToken(ctx context.Context, issuer, tokenURL, id, secret, method, resource string, scopes []string) (*oauth2.Token, error) {
	cfg := &clientcredentials.Config{ClientID: id, ClientSecret: secret, TokenURL: tokenURL, Scopes: scopes,
		AuthStyle: authStyle(method), EndpointParams: url.Values{}}
	if resource != "" {
		cfg.EndpointParams.Set("resource", resource)
	}
	if method == "private_key_jwt" {
		aud := issuer
		assertion, err := signAssertion(m.opts.PrivateKeyPEM, m.opts.SigningAlg, id, aud)
		if err != nil {
			return nil, err
		}
		m.secret(assertion)
		cfg.ClientSecret = ""
		cfg.EndpointParams.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer")
		cfg.EndpointParams.Set("client_assertion", assertion)
	}
	m.step("token", "POST %s grant_type=client_credentials (client %s, auth %s, resource %s, scopes %s)", tokenURL, id, method, orNone(resource), scopeText(scopes))
	return cfg.Token(m.ctx(ctx))
}

func scopeText(s []string) string {
	if len(s) == 0 {
		return "(none)"
	}
	return strings.Join(s, " ")
}

func expiryText(t time.Time) string {
	if t.IsZero() {
		return "no expiry given"
	}
	d := time.Until(t).Round(time.Second)
	if d < 0 {
		return fmt.Sprintf("expired %s ago (%s)", -d, t.UTC().Format(time.RFC3339))
	}
	return fmt.Sprintf("expires in %s (%s)", d, t.UTC().Format(time.RFC3339))
}

// maxResponse bounds what is read of any response to an OAuth request.
const maxResponse = 1 << 20

// logTransport logs each OAuth HTTP exchange as a step, secrets masked, and caps
// what is read of each response.
type logTransport struct {
	m    *Manager
	base http.RoundTripper
}

func (t *logTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	u := redact.URL(req.URL.String(), nil)
	if err != nil {
		t.m.step("http", "%s %s: %v", req.Method, u, err)
		return nil, err
	}
	note := fmt.Sprintf("%s %s → HTTP %d", req.Method, u, resp.StatusCode)
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		note += " (" + ct + ")"
	}
	if resp.Body != nil && !strings.Contains(resp.Header.Get("Content-Type"), "text/event-stream") {
		// Every answer of an authorization server (metadata, registration, token,
		// revocation) is small: read at most maxResponse of it here, once, so that no
		// reader after this one (ours, the SDK's, golang.org/x/oauth2's) can be fed a
		// huge body or quote one in an error.
		data, rerr := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
		resp.Body.Close()
		if rerr == nil && len(data) > maxResponse {
			t.m.step("http", "%s: the response is larger than 1 MiB; not read further", note)
			return nil, fmt.Errorf("the response from %s is larger than 1 MiB; mcpscope reads no more of it", u)
		}
		resp.Body = io.NopCloser(bytes.NewReader(data))
		if rerr == nil && req.Method == http.MethodPost && strings.Contains(resp.Header.Get("Content-Type"), "json") {
			note += ": " + maskJSON(data)
		}
	} else if resp.Body != nil {
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.LimitReader(resp.Body, maxResponse), resp.Body}
	}
	t.m.step("http", "%s", note)
	return resp, nil
}

// publicMembers are members whose names look secret but whose values are not.
var publicMembers = map[string]bool{"token_type": true, "token_endpoint_auth_method": true, "client_id": true, "issued_token_type": true}

// maskJSON shows a token or registration response's members with secret values
// masked.
func maskJSON(data []byte) string {
	var obj map[string]any
	if json.Unmarshal(data, &obj) != nil {
		return abbreviate(string(data), 120)
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		v := obj[k]
		if s, ok := v.(string); ok && !publicMembers[k] && (redact.SecretName(k) || k == "code") {
			fmt.Fprintf(&b, "%s %s", k, mask(s))
			continue
		}
		j, _ := json.Marshal(v)
		fmt.Fprintf(&b, "%s %s", k, abbreviate(string(j), 80))
	}
	return b.String()
}

// jwtBearerGrant is the grant_type of RFC 7523 §2.1.
const jwtBearerGrant = "urn:ietf:params:oauth:grant-type:jwt-bearer"

// jwtBearer logs in with the workload's JWT (RFC 7523, workload identity
// federation): one token request; a refusal (invalid_grant, invalid_scope,
// unauthorized_client) is the error, neither retried nor answered with another grant.
func (m *Manager) jwtBearer(ctx context.Context, d *discovered, chs []oauthex.Challenge) (*Entry, error) {
	if m.opts.Assertion == "" {
		return nil, errorf("--oauth-grant jwt-bearer needs the workload's JWT (--assertion-file FILE or --assertion-env VAR)")
	}
	c := &client{id: m.opts.ClientID, method: "none", how: "the workload's JWT (RFC 7523 jwt-bearer)"}
	m.step("registration", "client: %s%s", c.how, map[bool]string{true: ", client_id " + c.id, false: ""}[c.id != ""])
	scopes := m.scopes(d, chs, false)
	tok, err := m.jwtBearerToken(ctx, d.asm.TokenEndpoint, c.id, d.resource, scopes)
	if err != nil {
		return nil, errorf("the jwt-bearer token request to %s failed: %v", d.asm.TokenEndpoint, tokenErr(err))
	}
	return m.entryFrom(d, c, tok, scopes, jwtBearerGrant), nil
}

func (m *Manager) jwtBearerToken(ctx context.Context, tokenURL, clientID, resource string, scopes []string) (*oauth2.Token, error) {
	form := url.Values{"grant_type": {jwtBearerGrant}, "assertion": {m.opts.Assertion}}
	if clientID != "" {
		form.Set("client_id", clientID)
	}
	if resource != "" {
		form.Set("resource", resource)
	}
	if len(scopes) > 0 {
		form.Set("scope", strings.Join(scopes, " "))
	}
	m.step("token", "POST %s grant_type=%s (assertion %s, client %s, resource %s, scopes %s)", tokenURL, jwtBearerGrant, mask(m.opts.Assertion), orNone(clientID), orNone(resource), scopeText(scopes))
	return m.postToken(ctx, tokenURL, form, "", "", "")
}

// postToken sends a token request (form, plus the client's authentication by
// method: client_secret_basic in the header, client_secret_post in the form, else
// client_id in the form when given) and reads the response. A refusal is an
// *oauth2.RetrieveError, as golang.org/x/oauth2's are (tokenErr says it).
func (m *Manager) postToken(ctx context.Context, tokenURL string, form url.Values, clientID, secret, method string) (*oauth2.Token, error) {
	basic := secret != "" && (method == "client_secret_basic" || method == "")
	switch {
	case basic:
	case secret != "" && method == "client_secret_post":
		form.Set("client_id", clientID)
		form.Set("client_secret", secret)
	case clientID != "":
		form.Set("client_id", clientID)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, tokenURL, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/json")
	if basic {
		// RFC 6749 §2.3.1: both form-encoded before Basic.
		req.SetBasicAuth(url.QueryEscape(clientID), url.QueryEscape(secret))
	}
	resp, err := m.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	var body struct {
		AccessToken  string `json:"access_token"`
		TokenType    string `json:"token_type"`
		RefreshToken string `json:"refresh_token"`
		ExpiresIn    int64  `json:"expires_in"`
		Scope        string `json:"scope"`
		Error        string `json:"error"`
		Description  string `json:"error_description"`
	}
	jerr := json.Unmarshal(data, &body)
	if resp.StatusCode != http.StatusOK || body.Error != "" {
		return nil, &oauth2.RetrieveError{Response: resp, ErrorCode: body.Error, ErrorDescription: body.Description}
	}
	if jerr != nil {
		return nil, fmt.Errorf("the token response is not JSON (%s)", abbreviate(string(data), 80))
	}
	if body.AccessToken == "" {
		return nil, errors.New("missing access_token")
	}
	tok := &oauth2.Token{AccessToken: body.AccessToken, TokenType: body.TokenType, RefreshToken: body.RefreshToken}
	if body.ExpiresIn > 0 {
		tok.Expiry = time.Now().Add(time.Duration(body.ExpiresIn) * time.Second)
	}
	if body.Scope != "" {
		tok = tok.WithExtra(map[string]any{"scope": body.Scope})
	}
	return tok, nil
}

// Revoke asks the authorization server that issued e to revoke its refresh token
// and its access token (RFC 7009) at the revocation_endpoint its metadata
// advertises, authenticating as the client did at the token endpoint. It returns
// what was done, for the user; a server that advertises no endpoint is said so
// (the tokens then stay valid until they expire). The caller deletes the stored
// login whatever this returns.
func (m *Manager) Revoke(ctx context.Context, e *Entry) (string, error) {
	m.secret(e.AccessToken)
	m.secret(e.RefreshToken)
	m.secret(e.ClientSecret)
	var asm *oauthex.AuthServerMeta
	for _, u := range asMetadataURLs(e.Issuer, false) {
		var meta oauthex.AuthServerMeta
		st, err := m.getJSON(ctx, u, &meta)
		if err != nil {
			return "", errorf("the authorization server metadata at %s is unusable (%v); the tokens were not revoked there", u, err)
		}
		if st == http.StatusOK {
			asm = &meta
			break
		}
	}
	if asm == nil || asm.RevocationEndpoint == "" {
		return fmt.Sprintf("the authorization server %s advertises no revocation endpoint: its tokens stay valid until they expire", e.Issuer), nil
	}
	if err := checkSecureURL("the revocation_endpoint", asm.RevocationEndpoint); err != nil {
		return "", err
	}
	var done []string
	for _, t := range []struct{ hint, token, name string }{{"refresh_token", e.RefreshToken, "the refresh token"}, {"access_token", e.AccessToken, "the access token"}} {
		if t.token == "" {
			continue
		}
		form := url.Values{"token": {t.token}, "token_type_hint": {t.hint}}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, asm.RevocationEndpoint, nil)
		if err != nil {
			return "", err
		}
		switch e.AuthMethod {
		case "client_secret_basic":
			req.SetBasicAuth(url.QueryEscape(e.ClientID), url.QueryEscape(e.ClientSecret))
		default:
			form.Set("client_id", e.ClientID)
			if e.ClientSecret != "" && e.AuthMethod != "none" {
				form.Set("client_secret", e.ClientSecret)
			}
		}
		req.Body = io.NopCloser(strings.NewReader(form.Encode()))
		req.ContentLength = int64(len(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		m.step("revoke", "POST %s token %s (token_type_hint %s)", asm.RevocationEndpoint, mask(t.token), t.hint)
		resp, err := m.client.Do(req)
		if err != nil {
			return "", errorf("revoking %s at %s failed: %v", t.name, asm.RevocationEndpoint, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return "", errorf("revoking %s at %s failed: HTTP %d", t.name, asm.RevocationEndpoint, resp.StatusCode)
		}
		done = append(done, t.name)
	}
	return fmt.Sprintf("revoked %s at %s", strings.Join(done, " and "), asm.RevocationEndpoint), nil
}
