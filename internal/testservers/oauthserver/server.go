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
	dpop           dpopState
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
		scopes: map[string]string{}, codeScope: map[string]string{}, refScope: map[string]string{}, clients: map[string][]string{}}
	base := "http://" + ln.Addr().String()
	s.URL, s.Issuer = base+"/mcp", base
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-protected-resource/", s.prm)
	mux.HandleFunc("/.well-known/oauth-authorization-server", s.asMeta)
	mux.HandleFunc("/register", s.register)
	mux.HandleFunc("/authorize", s.authorize)
	mux.HandleFunc("/token", s.token)
	mux.HandleFunc("/revoke", s.revoke)
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
	iss := s.Issuer
	if s.Knobs.WrongIssuer {
		iss = "https://evil.example"
	}
	meta := map[string]any{"issuer": iss, "authorization_endpoint": s.Issuer + "/authorize", "token_endpoint": s.Issuer + "/token",
		"registration_endpoint": s.Issuer + "/register", "code_challenge_methods_supported": []string{"S256"}, "revocation_endpoint": s.Issuer + "/revoke",
		"scopes_supported": []string{"mcp:read", "offline_access"}, "token_endpoint_auth_methods_supported": []string{"client_secret_post"},
		"authorization_response_iss_parameter_supported": s.Knobs.IssParamAdvertise}
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
	at := s.newSecret("at-")
	if granted == "" {
		granted = "mcp:read offline_access"
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
	if !s.Knobs.NoRefresh && r.Form.Get("grant_type") != "client_credentials" {
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
