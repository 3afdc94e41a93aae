// Package oauthserver is a small OAuth 2.1 authorization server with an MCP
// resource server behind it, on 127.0.0.1, for tests of mcpscope's login: protected
// resource and authorization server metadata, dynamic registration, an authorize
// endpoint that redirects at once (no person), a token endpoint with refresh, and an
// MCP endpoint (the Go SDK's Streamable HTTP handler with one tool) that wants a
// bearer token. Knobs make it misbehave the ways real servers do.
package oauthserver

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Knobs change what the server does.
type Knobs struct {
	ExpiresIn         int    // seconds; 0: 3600
	RefreshExpiresIn  int    // seconds, for refreshed tokens; 0: 3600
	NoRefresh         bool   // issue no refresh token
	MetadataNotJSON   bool   // the AS metadata is HTML
	WrongIssuer       bool   // the AS metadata names another issuer
	PlainHTTPAS       string // the PRM names this (non-loopback, http) authorization server
	WrongIss          bool   // the redirect carries another iss
	NoAccessToken     bool   // the token response has no access_token
	RejectAll         bool   // the MCP endpoint 401s every token
	NoRedirect        bool   // /authorize answers 200 with the redirect URL in the body instead of redirecting
	IssParamAdvertise bool   // advertise authorization_response_iss_parameter_supported
	// StepUpScope, when set, is a scope the tool "admin" needs: a call with a token
	// without it gets 403 insufficient_scope naming it (a step-up). Tokens carry the
	// scopes asked for.
	StepUpScope string
	// ForgeFirst: before redirecting, /authorize itself sends the loopback listener a
	// redirect with a forged state and code (another local process or a web page
	// that got there first).
	ForgeFirst bool
	// HugeRegistration: the registration endpoint answers 201 with a 20 MiB body.
	HugeRegistration bool
	// StepUpOnly: the step-up challenge names only StepUpScope (as many servers do),
	// and every other tool call needs mcp:read (403 insufficient_scope naming it).
	StepUpOnly bool
	// NeverGrant is a scope the authorization server never grants: it is dropped from
	// every token (the token response's scope says what was granted).
	NeverGrant string
	// CCClientID and CCClientSecret are a pre-registered client allowed the
	// client_credentials grant (client_secret_post or client_secret_basic).
	CCClientID, CCClientSecret string
	// OpenInitialize lets initialize and notifications through without a token
	// and guards every other request (as the conformance auth/scope-step-up does);
	// its resource metadata lists another scope (mcp:profile) than the 401's.
	OpenInitialize bool
	// StrictClients: /authorize answers 400 invalid_client, without redirecting, for a
	// client_id it does not know (RFC 6749 §4.1.2.1), as a real authorization server
	// does for a client it forgot (see Forget); Refused is then called with it.
	StrictClients bool
	Refused       func(clientID string)
	// ChallengeMethods, when set, is the metadata's code_challenge_methods_supported
	// (["S256"] otherwise).
	ChallengeMethods []string
	// JWTSubject, when set, makes the access tokens JWTs (RFC 9068 claims: iss, sub
	// this, aud the resource asked for, client_id, scope, iat, exp; signed with a
	// key of the test's own, which nothing verifies) instead of opaque strings.
	JWTSubject string
	// Enterprise-managed authorization (cross-app access, SEP-990): with XAAClientID
	// set the server also plays the enterprise identity provider. Its token endpoint
	// /idp/token takes an RFC 8693 token exchange of Server.IDToken (the person's ID
	// token, issued to the IdP client IDPClientID) for an ID-JAG naming this
	// authorization server as audience and the MCP endpoint as resource; the
	// authorization server's /token takes that ID-JAG as an RFC 7523 jwt-bearer
	// assertion from the client XAAClientID (with XAAClientSecret), and nothing
	// else signed by nobody.
	XAAClientID, XAAClientSecret string
	IDPClientID                  string
	// DPoP: the server wants DPoP-bound tokens (RFC 9449): the authorization server
	// lists dpop_signing_alg_values_supported, the resource metadata says
	// dpop_bound_access_tokens_required, the 401 challenge is DPoP's; the token
	// endpoint refuses a request without a valid proof and binds the tokens it
	// issues (token_type DPoP) to the proof's key; the MCP endpoint takes only
	// "Authorization: DPoP" with a valid proof of that key (signature, typ, htm,
	// htu, iat, ath, a jti never seen before). What it refused is in DPoPProblems.
	DPoP bool
	// DPoPNonce: both the token endpoint and the MCP endpoint want a nonce of their
	// own in each proof (use_dpop_nonce with a DPoP-Nonce header otherwise).
	DPoPNonce bool
	// DPoPUnadvertised: with DPoP, the resource says nothing of it (no
	// dpop_bound_access_tokens_required, a Bearer challenge): only the user's
	// --dpop (or the config entry's) makes a client send proofs.
	DPoPUnadvertised bool
}

// Server is a running authorization and resource server.
type Server struct {
	URL    string // the MCP endpoint: http://127.0.0.1:PORT/mcp
	Issuer string
	Knobs  Knobs

	srv *http.Server
	ln  net.Listener

	mu         sync.Mutex
	codes      map[string]string // code → client
	access     map[string]time.Time
	scopes     map[string]string // access token → the scopes granted
	codeScope  map[string]string // code → the scopes asked for
	refScope   map[string]string // refresh token → scopes
	refresh    map[string]bool
	Refreshes  atomic.Int32 // refresh_token grants served
	Codes      atomic.Int32 // authorization_code grants served
	Registered atomic.Int32
	// Authorizations counts the requests to /authorize, served or refused (the
	// conformance suite's auth/scope-retry-limit counts them the same way).
	Authorizations atomic.Int32
	ClientCreds    atomic.Int32        // client_credentials grants served
	Secrets        []string            // every token, code and client secret handed out
	revoked        []string            // "hint token" for each token revoked at /revoke
	clients        map[string][]string // client_id → registered redirect URIs
	forged         int                 // the status the loopback listener answered the forged redirect (ForgeFirst)

	// IDToken is the person's ID token the IdP issued (XAAClientID), and
	// IDPTokenEndpoint the IdP's token endpoint, where it is exchanged.
	IDToken, IDPTokenEndpoint string
	jags                      map[string]jag // ID-JAG issued → what it says
	Exchanges                 atomic.Int32   // token exchanges served (an ID-JAG issued)
	JWTBearers                atomic.Int32   // jwt-bearer grants served with an ID-JAG
	exchangeForms             []url.Values   // the token exchange requests received
	dpop                      dpopState
}

// jag is what an ID-JAG issued by the test IdP says (its claims, kept here rather
// than verified from a signature: the test AS trusts only what its IdP issued).
type jag struct {
	audience, resource, clientID, subject string
	expiry                                time.Time
}

// ForgedStatus is the HTTP status the loopback listener answered the forged
// redirect with (ForgeFirst; 0 before it was sent).
func (s *Server) ForgedStatus() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.forged
}

// Start runs a server until the test ends.
func Start(t testing.TB, k Knobs) *Server {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{Knobs: k, ln: ln, codes: map[string]string{}, access: map[string]time.Time{}, refresh: map[string]bool{},
		scopes: map[string]string{}, codeScope: map[string]string{}, refScope: map[string]string{}, clients: map[string][]string{},
		jags: map[string]jag{}}
	base := "http://" + ln.Addr().String()
	s.URL, s.Issuer = base+"/mcp", base
	if k.XAAClientID != "" {
		s.IDPTokenEndpoint = base + "/idp/token"
		s.IDToken = fakeJWT(map[string]any{"alg": "ES256"}, map[string]any{"iss": base + "/idp", "sub": "demo-user", "aud": k.IDPClientID,
			"exp": time.Now().Add(time.Hour).Unix()})
		s.Secrets = append(s.Secrets, s.IDToken)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-protected-resource/", s.prm)
	mux.HandleFunc("/.well-known/oauth-authorization-server", s.asMeta)
	mux.HandleFunc("/register", s.register)
	mux.HandleFunc("/authorize", s.authorize)
	mux.HandleFunc("/token", s.token)
	mux.HandleFunc("/revoke", s.revoke)
	mux.HandleFunc("/idp/token", s.idpToken)
	ms := mcp.NewServer(&mcp.Implementation{Name: "oauth-test", Version: "1"}, nil)
	mcp.AddTool(ms, &mcp.Tool{Name: "whoami", Description: "says hello"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello, logged-in user"}}}, nil, nil
	})
	if k.StepUpScope != "" {
		mcp.AddTool(ms, &mcp.Tool{Name: "admin", Description: "needs " + k.StepUpScope}, func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "admin done with " + k.StepUpScope}}}, nil, nil
		})
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return ms }, nil)
	mux.Handle("/mcp", s.guard(h))
	// The legacy HTTP+SSE transport of 2024-11-05, behind the same login.
	mux.Handle("/sse", s.guard(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return ms }, nil)))
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go s.srv.Serve(ln)
	t.Cleanup(func() { s.srv.Close() })
	return s
}

func (s *Server) newSecret(prefix string) string {
	v := prefix + rand.Text()
	s.mu.Lock()
	s.Secrets = append(s.Secrets, v)
	s.mu.Unlock()
	return v
}

// AllSecrets returns every secret handed out so far.
func (s *Server) AllSecrets() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.Secrets...)
}

func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		if s.Knobs.DPoP {
			var ok bool
			if tok, ok = s.dpopGuard(w, r); !ok {
				return
			}
		}
		if s.Knobs.OpenInitialize && r.Method == http.MethodPost && tok == "" {
			body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte(`"initialize"`)) || bytes.Contains(body, []byte(`"notifications/`)) {
				next.ServeHTTP(w, r)
				return
			}
		}
		s.mu.Lock()
		exp, ok := s.access[tok]
		s.mu.Unlock()
		if !ok || time.Now().After(exp) || s.Knobs.RejectAll {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="invalid_token", resource_metadata="%s/.well-known/oauth-protected-resource%s", scope="mcp:read"`, s.Issuer, r.URL.Path))
			http.Error(w, `{"error":"invalid_token"}`, http.StatusUnauthorized)
			return
		}
		if s.Knobs.StepUpScope != "" && r.Method == http.MethodPost {
			body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
			r.Body = io.NopCloser(bytes.NewReader(body))
			s.mu.Lock()
			granted := strings.Fields(s.scopes[tok])
			s.mu.Unlock()
			need := ""
			isCall := bytes.Contains(body, []byte(`"tools/call"`))
			if isCall && bytes.Contains(body, []byte(`"admin"`)) && !slices.Contains(granted, s.Knobs.StepUpScope) {
				need = "mcp:read " + s.Knobs.StepUpScope
				if s.Knobs.StepUpOnly {
					need = s.Knobs.StepUpScope
				}
			} else if isCall && s.Knobs.StepUpOnly && !slices.Contains(granted, "mcp:read") {
				need = "mcp:read"
			}
			if need != "" {
				w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope="%s", resource_metadata="%s/.well-known/oauth-protected-resource%s"`, need, s.Issuer, r.URL.Path))
				http.Error(w, `{"error":"insufficient_scope"}`, http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (s *Server) prm(w http.ResponseWriter, r *http.Request) {
	as := s.Issuer
	if s.Knobs.PlainHTTPAS != "" {
		as = s.Knobs.PlainHTTPAS
	}
	resource := s.Issuer + strings.TrimPrefix(r.URL.Path, "/.well-known/oauth-protected-resource")
	supported := []string{"mcp:read"}
	if s.Knobs.OpenInitialize {
		supported = []string{"mcp:profile"} // not what the 401 names: a login that never saw it asks for this
	}
	meta := map[string]any{"resource": resource, "authorization_servers": []string{as}, "scopes_supported": supported}
	if s.Knobs.DPoP && !s.Knobs.DPoPUnadvertised {
		meta["dpop_bound_access_tokens_required"] = true
	}
	writeJSON(w, 200, meta)
}

func (s *Server) asMeta(w http.ResponseWriter, r *http.Request) {
	if s.Knobs.MetadataNotJSON {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html><body>Sign in</body></html>")
		return
	}
	methods := []string{"S256"}
	if s.Knobs.ChallengeMethods != nil {
		methods = s.Knobs.ChallengeMethods
	}
	iss := s.Issuer
	if s.Knobs.WrongIssuer {
		iss = "https://evil.example"
	}
	meta := map[string]any{"issuer": iss, "authorization_endpoint": s.Issuer + "/authorize", "token_endpoint": s.Issuer + "/token",
		"registration_endpoint": s.Issuer + "/register", "code_challenge_methods_supported": methods, "revocation_endpoint": s.Issuer + "/revoke",
		"scopes_supported": []string{"mcp:read", "offline_access"}, "token_endpoint_auth_methods_supported": []string{"client_secret_post"},
		"authorization_response_iss_parameter_supported": s.Knobs.IssParamAdvertise}
	if s.Knobs.XAAClientID != "" {
		meta["grant_types_supported"] = []string{"authorization_code", "refresh_token", "client_credentials", jwtBearer}
	}
	if s.Knobs.DPoP {
		meta["dpop_signing_alg_values_supported"] = []string{"ES256"}
	}
	writeJSON(w, 200, meta)
}

func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	if s.Knobs.HugeRegistration {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		w.Write([]byte(`{"junk":"`))
		chunk := bytes.Repeat([]byte("A"), 1<<20)
		for range 20 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
		w.Write([]byte(`"}`))
		return
	}
	var meta map[string]any
	json.NewDecoder(r.Body).Decode(&meta)
	s.Registered.Add(1)
	meta["client_id"] = "client-" + rand.Text()[:8]
	var uris []string
	if l, ok := meta["redirect_uris"].([]any); ok {
		for _, u := range l {
			if u, ok := u.(string); ok {
				uris = append(uris, u)
			}
		}
	}
	s.mu.Lock()
	s.clients[meta["client_id"].(string)] = uris
	s.mu.Unlock()
	meta["client_secret"] = s.newSecret("csec-")
	meta["token_endpoint_auth_method"] = "client_secret_post"
	writeJSON(w, 201, meta)
}

// Forget drops every registered client, as an in-memory authorization server does
// when it restarts.
func (s *Server) Forget() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clients = map[string][]string{}
}

func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	s.Authorizations.Add(1)
	q := r.URL.Query()
	if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" {
		http.Error(w, "PKCE S256 required", 400)
		return
	}
	s.mu.Lock()
	uris, known := s.clients[q.Get("client_id")]
	s.mu.Unlock()
	if !known && s.Knobs.StrictClients {
		http.Error(w, "invalid_client: unknown client", 400)
		if s.Knobs.Refused != nil {
			s.Knobs.Refused(q.Get("client_id"))
		}
		return
	}
	if known && !redirectAllowed(uris, q.Get("redirect_uri")) {
		http.Error(w, "redirect_uri not registered for this client", 400)
		return
	}
	code := s.newSecret("code-")
	s.mu.Lock()
	s.codes[code] = q.Get("client_id")
	s.codeScope[code] = q.Get("scope")
	s.mu.Unlock()
	state, iss := q.Get("state"), s.Issuer
	if s.Knobs.WrongIss {
		iss = "https://evil.example"
	}
	u, _ := url.Parse(q.Get("redirect_uri"))
	if s.Knobs.ForgeFirst {
		f := *u
		f.RawQuery = url.Values{"code": {"forged-code"}, "state": {"forged-state"}, "iss": {iss}}.Encode()
		if resp, err := http.Get(f.String()); err == nil {
			s.mu.Lock()
			s.forged = resp.StatusCode
			s.mu.Unlock()
			resp.Body.Close()
		}
	}
	v := url.Values{"code": {code}, "state": {state}, "iss": {iss}}
	u.RawQuery = v.Encode()
	if s.Knobs.NoRedirect {
		fmt.Fprint(w, u.String())
		return
	}
	http.Redirect(w, r, u.String(), http.StatusFound)
}

func (s *Server) token(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	jkt := ""
	if s.Knobs.DPoP {
		var ok bool
		if jkt, ok = s.dpopToken(w, r); !ok {
			return
		}
	}
	var granted string
	switch r.Form.Get("grant_type") {
	case "authorization_code":
		s.mu.Lock()
		_, ok := s.codes[r.Form.Get("code")]
		granted = s.codeScope[r.Form.Get("code")]
		delete(s.codes, r.Form.Get("code"))
		s.mu.Unlock()
		s.mu.Lock()
		s.Secrets = append(s.Secrets, r.Form.Get("code_verifier"))
		s.mu.Unlock()
		if !ok || r.Form.Get("code_verifier") == "" {
			writeJSON(w, 400, map[string]string{"error": "invalid_grant"})
			return
		}
		s.Codes.Add(1)
	case "refresh_token":
		s.mu.Lock()
		ok := s.refresh[r.Form.Get("refresh_token")]
		granted = s.refScope[r.Form.Get("refresh_token")]
		s.mu.Unlock()
		if !ok {
			writeJSON(w, 400, map[string]string{"error": "invalid_grant"})
			return
		}
		s.Refreshes.Add(1)
	case "client_credentials":
		id, sec, ok := r.BasicAuth()
		if !ok {
			id, sec = r.Form.Get("client_id"), r.Form.Get("client_secret")
		}
		if s.Knobs.CCClientID == "" || id != s.Knobs.CCClientID || sec != s.Knobs.CCClientSecret {
			writeJSON(w, 401, map[string]string{"error": "invalid_client"})
			return
		}
		granted = r.Form.Get("scope")
		if granted == "" {
			granted = "mcp:read"
		}
		s.ClientCreds.Add(1)
	case jwtBearer:
		var ok bool
		if granted, ok = s.jwtBearerGrant(w, r); !ok {
			return
		}
	default:
		writeJSON(w, 400, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	if s.Knobs.NeverGrant != "" {
		granted = strings.Join(slices.DeleteFunc(strings.Fields(granted), func(x string) bool { return x == s.Knobs.NeverGrant }), " ")
	}
	exp := s.Knobs.ExpiresIn
	if r.Form.Get("grant_type") == "refresh_token" {
		exp = s.Knobs.RefreshExpiresIn
	}
	if exp == 0 {
		exp = 3600
	}
	if s.Knobs.NoAccessToken {
		writeJSON(w, 200, map[string]any{"token_type": "Bearer", "expires_in": exp})
		return
	}
	if granted == "" {
		granted = "mcp:read offline_access"
	}
	at := s.newSecret("at-")
	if s.Knobs.JWTSubject != "" {
		at = s.jwt(r.Form.Get("resource"), r.Form.Get("client_id"), granted, exp)
	}
	resp := map[string]any{"access_token": at, "token_type": "Bearer", "expires_in": exp, "scope": granted}
	if jkt != "" {
		resp["token_type"] = "DPoP"
		s.bind(at, jkt)
	}
	s.mu.Lock()
	s.access[at] = time.Now().Add(time.Duration(exp) * time.Second)
	s.scopes[at] = granted
	s.mu.Unlock()
	if !s.Knobs.NoRefresh && r.Form.Get("grant_type") != "client_credentials" && r.Form.Get("grant_type") != jwtBearer {
		rt := s.newSecret("rt-")
		s.mu.Lock()
		s.refresh[rt] = true
		s.refScope[rt] = granted
		s.mu.Unlock()
		resp["refresh_token"] = rt
		if jkt != "" {
			s.bind(rt, jkt)
		}
	}
	writeJSON(w, 200, resp)
}

// jwt makes a JWT access token (RFC 9068's claims) and keeps it as a secret: its
// signature is random bytes, which is all a client that does not verify it sees.
func (s *Server) jwt(aud, clientID, scope string, exp int) string {
	enc := base64.RawURLEncoding
	now := time.Now()
	hdr, _ := json.Marshal(map[string]string{"alg": "RS256", "typ": "at+jwt", "kid": "test"})
	claims, _ := json.Marshal(map[string]any{"iss": s.Issuer, "sub": s.Knobs.JWTSubject, "aud": aud, "client_id": clientID,
		"scope": scope, "iat": now.Unix(), "exp": now.Add(time.Duration(exp) * time.Second).Unix(), "jti": rand.Text()})
	tok := enc.EncodeToString(hdr) + "." + enc.EncodeToString(claims) + "." + enc.EncodeToString([]byte(rand.Text()+rand.Text()))
	s.mu.Lock()
	s.Secrets = append(s.Secrets, tok)
	s.mu.Unlock()
	return tok
}

// redirectAllowed matches a redirect URI against the registered ones exactly, except
// that a loopback http redirect may use any port (RFC 8252 §7.3).
func redirectAllowed(registered []string, got string) bool {
	g, err := url.Parse(got)
	if err != nil {
		return false
	}
	for _, r := range registered {
		if r == got {
			return true
		}
		ru, err := url.Parse(r)
		if err == nil && ru.Scheme == "http" && g.Scheme == "http" && (ru.Hostname() == "127.0.0.1" || ru.Hostname() == "::1") &&
			ru.Hostname() == g.Hostname() && ru.Path == g.Path && ru.RawQuery == g.RawQuery {
			return true
		}
	}
	return false
}

// revoke is RFC 7009's revocation endpoint: the client authenticates as at the
// token endpoint; the token stops working; the answer is 200 whatever it was.
func (s *Server) revoke(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	tok := r.Form.Get("token")
	s.mu.Lock()
	s.revoked = append(s.revoked, r.Form.Get("token_type_hint")+" "+tok)
	delete(s.access, tok)
	delete(s.refresh, tok)
	s.mu.Unlock()
	w.WriteHeader(http.StatusOK)
}

// RevokeAll revokes every access and refresh token handed out (an administrator
// ending the grants mid-session): the MCP endpoint answers 401 to them and a
// refresh is refused with invalid_grant.
func (s *Server) RevokeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.access = map[string]time.Time{}
	s.refresh = map[string]bool{}
}

// Revoked lists the tokens revoked so far, each as "HINT TOKEN".
func (s *Server) Revoked() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.revoked...)
}

// HasToken reports whether an access token is still honoured.
func (s *Server) HasToken(tok string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.access[tok]
	return ok
}

const (
	jwtBearer     = "urn:ietf:params:oauth:grant-type:jwt-bearer"
	tokenExchange = "urn:ietf:params:oauth:grant-type:token-exchange"
	idJAGType     = "urn:ietf:params:oauth:token-type:id-jag"
	idTokenType   = "urn:ietf:params:oauth:token-type:id_token"
)

// fakeJWT is a JWT-shaped string with a random signature: the test IdP and AS
// recognise their own by value, so nothing here signs or verifies.
func fakeJWT(header, claims map[string]any) string {
	h, _ := json.Marshal(header)
	c, _ := json.Marshal(claims)
	enc := base64.RawURLEncoding
	return enc.EncodeToString(h) + "." + enc.EncodeToString(c) + "." + enc.EncodeToString([]byte(rand.Text()))
}

// idpToken is the IdP's token endpoint: RFC 8693 token exchange of the person's ID
// token for an ID-JAG (draft-ietf-oauth-identity-assertion-authz-grant §4.3), for
// the IdP client only, with every parameter the draft requires checked.
func (s *Server) idpToken(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	s.mu.Lock()
	s.exchangeForms = append(s.exchangeForms, r.Form)
	s.mu.Unlock()
	id, _, ok := r.BasicAuth()
	if !ok {
		id = r.Form.Get("client_id")
	}
	f := r.Form
	switch {
	case s.Knobs.XAAClientID == "":
		writeJSON(w, 404, map[string]string{"error": "not_found"})
	case f.Get("grant_type") != tokenExchange:
		writeJSON(w, 400, map[string]string{"error": "unsupported_grant_type"})
	case id != s.Knobs.IDPClientID:
		writeJSON(w, 401, map[string]string{"error": "invalid_client", "error_description": "unknown IdP client " + id})
	case f.Get("requested_token_type") != idJAGType || f.Get("subject_token_type") != idTokenType:
		writeJSON(w, 400, map[string]string{"error": "invalid_request", "error_description": "requested_token_type must be id-jag and subject_token_type id_token"})
	case f.Get("subject_token") != s.IDToken:
		writeJSON(w, 400, map[string]string{"error": "invalid_grant", "error_description": "unknown ID token"})
	case f.Get("audience") != s.Issuer || f.Get("resource") != s.URL:
		writeJSON(w, 400, map[string]string{"error": "invalid_target", "error_description": "audience must be " + s.Issuer + " and resource " + s.URL})
	default:
		exp := time.Now().Add(5 * time.Minute)
		j := jag{audience: f.Get("audience"), resource: f.Get("resource"), clientID: s.Knobs.XAAClientID, subject: "demo-user", expiry: exp}
		tok := fakeJWT(map[string]any{"alg": "ES256", "typ": "oauth-id-jag+jwt"}, map[string]any{"iss": s.Issuer + "/idp", "sub": j.subject,
			"aud": j.audience, "resource": j.resource, "client_id": j.clientID, "exp": exp.Unix(), "jti": rand.Text()})
		s.mu.Lock()
		s.jags[tok] = j
		s.Secrets = append(s.Secrets, tok)
		s.mu.Unlock()
		s.Exchanges.Add(1)
		writeJSON(w, 200, map[string]any{"access_token": tok, "issued_token_type": idJAGType, "token_type": "N_A", "expires_in": 300})
	}
}

// jwtBearerGrant checks an RFC 7523 grant whose assertion is an ID-JAG: the client
// authenticates, the ID-JAG is one the IdP issued, unexpired, for this
// authorization server, this client and (when named) this resource. It answers the
// refusal itself; ok false then.
func (s *Server) jwtBearerGrant(w http.ResponseWriter, r *http.Request) (granted string, ok bool) {
	id, sec, basic := r.BasicAuth()
	if !basic {
		id, sec = r.Form.Get("client_id"), r.Form.Get("client_secret")
	}
	if s.Knobs.XAAClientID == "" || id != s.Knobs.XAAClientID || sec != s.Knobs.XAAClientSecret {
		writeJSON(w, 401, map[string]string{"error": "invalid_client"})
		return "", false
	}
	s.mu.Lock()
	j, known := s.jags[r.Form.Get("assertion")]
	s.mu.Unlock()
	switch {
	case !known || time.Now().After(j.expiry):
		writeJSON(w, 400, map[string]string{"error": "invalid_grant", "error_description": "not an ID-JAG from the IdP, or expired"})
	case j.audience != s.Issuer || j.clientID != id:
		writeJSON(w, 400, map[string]string{"error": "invalid_grant", "error_description": "the ID-JAG is for another audience or client"})
	case r.Form.Get("resource") != "" && r.Form.Get("resource") != j.resource:
		writeJSON(w, 400, map[string]string{"error": "invalid_target"})
	default:
		s.JWTBearers.Add(1)
		granted = r.Form.Get("scope")
		if granted == "" {
			granted = "mcp:read"
		}
		return granted, true
	}
	return "", false
}

// ExchangeForms are the forms of the token exchange requests the IdP received, for
// a test to check what was (and was not) sent to it.
func (s *Server) ExchangeForms() []url.Values {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.exchangeForms)
}
