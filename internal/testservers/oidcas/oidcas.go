// Package oidcas runs a real authorization server for mcpscope's login tests,
// panva's oidc-provider (interop/oidc-as.mjs, installed by npm ci in interop/), with
// an MCP resource server in front of it: a Go protected resource that publishes its
// metadata (RFC 9728) and accepts a bearer token only when it is a JWT access token
// (RFC 9068) signed by a key of the authorization server's JWKS, from its issuer,
// not expired, and meant for it (aud is its URL, RFC 8707). oidc-provider does not
// introspect JWT access tokens, so a revocation reaches the resource server only
// through Deny (as a deployment's revocation feed would). Both listen on 127.0.0.1;
// both stop when the test ends.
package oidcas

import (
	"bufio"
	"context"
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// Options configure the authorization server.
type Options struct {
	TTL       int  // access token lifetime in seconds (0: 3600)
	NoRefresh bool // issue no refresh tokens at all
}

// Server is the authorization server and the MCP resource server behind it.
type Server struct {
	URL    string // the MCP endpoint, http://127.0.0.1:PORT/mcp
	Issuer string // the authorization server, http://127.0.0.1:PORT

	opts Options
	port string
	t    testing.TB

	mu     sync.Mutex
	proc   *exec.Cmd
	done   chan struct{}
	keys   map[string]*rsa.PublicKey // the JWKS, by kid
	denied map[string]bool
}

// Start runs the authorization server and the resource server until the test ends.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	s := &Server{opts: opts, t: t, port: "0"}
	s.start()
	t.Cleanup(s.stop)
	s.serveResource()
	return s
}

func nodeBinary() string {
	// interop pins node 22 (the npm package "node"); the system's may be older.
	if p := filepath.Join(testutil.Root(), "interop", "node_modules", ".bin", "node"); fileExists(p) {
		return p
	}
	if p, err := exec.LookPath("node"); err == nil {
		return p
	}
	return "node"
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// start runs interop/oidc-as.mjs on s.port ("0": any) and waits for its issuer line.
func (s *Server) start() {
	t := s.t
	t.Helper()
	dir := filepath.Join(testutil.Root(), "interop")
	if !fileExists(filepath.Join(dir, "node_modules", "oidc-provider", "package.json")) {
		t.Fatalf("oidc-provider is not installed in interop/node_modules; run scripts/test, or `npm ci` in interop/")
	}
	args := []string{"--require", filepath.Join(dir, "loopback.cjs"), filepath.Join(dir, "oidc-as.mjs")}
	if s.opts.TTL > 0 {
		args = append(args, "--ttl", fmt.Sprint(s.opts.TTL))
	}
	if s.opts.NoRefresh {
		args = append(args, "--no-refresh")
	}
	cmd := exec.Command(nodeBinary(), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PORT="+s.port)
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting oidc-as.mjs: %v", err)
	}
	pw.Close()
	out := &strings.Builder{}
	issuer := make(chan string, 1)
	var outMu sync.Mutex
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			line := sc.Text()
			outMu.Lock()
			out.WriteString(line + "\n")
			outMu.Unlock()
			if v, ok := strings.CutPrefix(line, "issuer "); ok {
				select {
				case issuer <- v:
				default:
				}
			}
		}
		pr.Close()
	}()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	s.mu.Lock()
	s.proc, s.done = cmd, done
	s.mu.Unlock()
	output := func() string { outMu.Lock(); defer outMu.Unlock(); return out.String() }
	select {
	case iss := <-issuer:
		if s.Issuer != "" {
			// Restarted: the issuer and the port are what they were (the resource
			// server reads them meanwhile, so they are not written again).
			if iss != s.Issuer {
				t.Fatalf("the restarted authorization server is %s, not %s", iss, s.Issuer)
			}
			break
		}
		s.Issuer = iss
		u, _ := url.Parse(iss)
		s.port = u.Port()
	case <-done:
		t.Fatalf("oidc-as.mjs exited before it was ready:\n%s", output())
	case <-time.After(testutil.Patience):
		t.Fatalf("oidc-as.mjs was not ready within %v:\n%s", testutil.Patience, output())
	}
}

// stop ends the authorization server (by its PID: SIGTERM, then SIGKILL).
func (s *Server) stop() {
	s.mu.Lock()
	cmd, done := s.proc, s.done
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
	}
}

// Restart stops the authorization server and starts it again on the same port: it
// forgets every registration, grant and token, as an in-memory or reset one does.
func (s *Server) Restart() {
	s.t.Helper()
	s.stop()
	s.mu.Lock()
	s.keys = nil // the resource server's JWKS cache goes with the old key
	s.mu.Unlock()
	s.start()
}

// TokenRequest is one request the token endpoint answered.
type TokenRequest struct {
	GrantType string `json:"grant_type"`
	Resource  any    `json:"resource"` // a string, a list, or absent
	ClientID  string `json:"client_id"`
	Status    int    `json:"status"`
	Error     string `json:"error"`
	Refresh   bool   `json:"refresh_token_issued"`
}

// Log is what the authorization server saw since it (last) started.
type Log struct {
	Token   []TokenRequest `json:"token"`
	Secrets []string       `json:"secrets"` // every token and client secret it issued
	// Authorize is the client_id of each authorization request (a browser's, or
	// anything else's), ClientReads of each RFC 7592 client read.
	Authorize   []string `json:"authorize"`
	ClientReads []string `json:"client_reads"`
}

// Count returns how many token requests had the grant type.
func (l *Log) Count(grant string) int {
	n := 0
	for _, r := range l.Token {
		if r.GrantType == grant {
			n++
		}
	}
	return n
}

// Log fetches the authorization server's log.
func (s *Server) Log() *Log {
	s.t.Helper()
	resp, err := http.Get(s.Issuer + "/test/log")
	if err != nil {
		s.t.Fatalf("the authorization server's log: %v", err)
	}
	defer resp.Body.Close()
	var l Log
	if err := json.NewDecoder(resp.Body).Decode(&l); err != nil {
		s.t.Fatalf("the authorization server's log: %v", err)
	}
	return &l
}

// Browser returns a $BROWSER value for mcpscope: curl following the authorization
// server's redirects with a cookie jar of its own (the login and consent pages set
// cookies that the next redirect needs), to the loopback redirect.
func Browser(t testing.TB) string {
	dir := t.TempDir()
	script := filepath.Join(dir, "browser")
	testutil.WriteExecutable(t, script, fmt.Sprintf("#!/bin/sh\nexec curl -sfL -c %[1]q -b %[1]q -o /dev/null \"$1\"\n", filepath.Join(dir, "cookies")))
	return script
}

// serveResource runs the MCP resource server on its own port.
func (s *Server) serveResource() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	s.URL = base + "/mcp"
	ms := mcp.NewServer(&mcp.Implementation{Name: "oidc-resource", Version: "1"}, nil)
	mcp.AddTool(ms, &mcp.Tool{Name: "whoami", Description: "says who the token is for"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello, test-user"}}}, nil, nil
	})
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"resource": s.URL, "authorization_servers": []string{s.Issuer}, "scopes_supported": []string{"mcp:read"}})
	})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return ms }, nil)
	mux.Handle("/mcp", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || !s.accepts(r.Context(), tok) {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="invalid_token", resource_metadata="%s/.well-known/oauth-protected-resource/mcp", scope="mcp:read"`, base))
			http.Error(w, `{"error":"invalid_token"}`, http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	s.t.Cleanup(func() { srv.Close() })
}

// Deny makes the resource server refuse the token from now on, as one does that
// learns of its revocation.
func (s *Server) Deny(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.denied == nil {
		s.denied = map[string]bool{}
	}
	s.denied[token] = true
}

// accepts verifies the JWT access token: signature (RS256, a key of the issuer's
// JWKS, fetched again for an unknown kid), iss, aud and exp.
func (s *Server) accepts(ctx context.Context, tok string) bool {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return false
	}
	s.mu.Lock()
	denied := s.denied[tok]
	s.mu.Unlock()
	if denied {
		return false
	}
	var hdr struct{ Alg, Kid string }
	var claims struct {
		Iss string `json:"iss"`
		Aud any    `json:"aud"`
		Exp int64  `json:"exp"`
	}
	if decodePart(parts[0], &hdr) != nil || decodePart(parts[1], &claims) != nil || hdr.Alg != "RS256" {
		return false
	}
	key := s.key(ctx, hdr.Kid)
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if key == nil || err != nil {
		return false
	}
	h := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if rsa.VerifyPKCS1v15(key, crypto.SHA256, h[:], sig) != nil {
		return false
	}
	if claims.Iss != s.Issuer || time.Now().Unix() >= claims.Exp {
		return false
	}
	switch a := claims.Aud.(type) {
	case string:
		return a == s.URL
	case []any:
		return slices.ContainsFunc(a, func(v any) bool { return v == s.URL })
	}
	return false
}

func decodePart(p string, v any) error {
	data, err := base64.RawURLEncoding.DecodeString(p)
	if err != nil {
		return err
	}
	return json.Unmarshal(data, v)
}

// key returns the issuer's RSA key with the kid, fetching the JWKS again when it is
// not known yet (the authorization server restarted with a new key).
func (s *Server) key(ctx context.Context, kid string) *rsa.PublicKey {
	s.mu.Lock()
	k := s.keys[kid]
	s.mu.Unlock()
	if k != nil {
		return k
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.Issuer+"/jwks", nil)
	if err != nil {
		return nil
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	var set struct {
		Keys []struct{ Kty, Kid, N, E string } `json:"keys"`
	}
	if json.NewDecoder(resp.Body).Decode(&set) != nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.keys == nil {
		s.keys = map[string]*rsa.PublicKey{}
	}
	for _, j := range set.Keys {
		n, err1 := base64.RawURLEncoding.DecodeString(j.N)
		e, err2 := base64.RawURLEncoding.DecodeString(j.E)
		if j.Kty != "RSA" || err1 != nil || err2 != nil {
			continue
		}
		s.keys[j.Kid] = &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
	}
	return s.keys[kid]
}
