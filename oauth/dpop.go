package oauth

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// DPoP (RFC 9449; MCP SEP-1932): sender-constrained tokens. A login that uses it
// makes an ES256 key pair of its own, sends a proof signed with it on each token
// request (the authorization server binds the tokens to the key: token_type DPoP)
// and on each request to the MCP server ("Authorization: DPoP TOKEN" and a DPoP
// header with htm, htu, iat, a fresh jti, ath, and the server's nonce when it gave
// one). The private key is kept with the token in the store (the same 0600 file),
// so that a later process refreshes and calls with the key the tokens are bound to;
// it never goes on the wire. A stolen token is useless without it.
//
// When: the user asks (--dpop, a config entry's "oauth": {"dpop": true}); or the
// resource says it wants it: its metadata's dpop_bound_access_tokens_required, or a
// 401 whose only challenge is DPoP's (RFC 9449 §7.1, how the conformance suite's
// auth/dpop signals it). The authorization server listing
// dpop_signing_alg_values_supported is not enough by itself: a resource that takes
// only Bearer would then refuse the bound token.

// dpopAlg is the one algorithm mcpscope signs proofs with.
const dpopAlg = "ES256"

// dpopKey is a login's proof key.
type dpopKey struct {
	priv  *ecdsa.PrivateKey
	pem   string // PKCS#8, as stored (Entry.DPoPKey)
	x, y  string // the public key's coordinates, base64url
	thumb string // RFC 7638 thumbprint (what the token's cnf.jkt names)
}

func newDPoPKey() (*dpopKey, error) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return nil, err
	}
	return dpopKeyOf(priv, string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})))
}

func parseDPoPKey(s string) (*dpopKey, error) {
	block, _ := pem.Decode([]byte(s))
	if block == nil {
		return nil, errorf("the stored DPoP key is not PEM")
	}
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, errorf("the stored DPoP key does not parse: %v", err)
	}
	priv, ok := k.(*ecdsa.PrivateKey)
	if !ok || priv.Curve != elliptic.P256() {
		return nil, errorf("the stored DPoP key is not a P-256 key")
	}
	return dpopKeyOf(priv, s)
}

func dpopKeyOf(priv *ecdsa.PrivateKey, pemText string) (*dpopKey, error) {
	pub, err := priv.PublicKey.ECDH()
	if err != nil {
		return nil, err
	}
	pt := pub.Bytes() // 0x04 || X || Y
	enc := base64.RawURLEncoding
	k := &dpopKey{priv: priv, pem: pemText, x: enc.EncodeToString(pt[1:33]), y: enc.EncodeToString(pt[33:])}
	// RFC 7638: the required members in lexical order, no white space.
	sum := sha256.Sum256([]byte(`{"crv":"P-256","kty":"EC","x":"` + k.x + `","y":"` + k.y + `"}`))
	k.thumb = enc.EncodeToString(sum[:])
	return k, nil
}

// htu is a request's URL as a proof names it: without query and fragment (RFC
// 9449 §4.2).
func htu(u *url.URL) string {
	c := *u
	c.RawQuery, c.ForceQuery, c.Fragment, c.RawFragment, c.User = "", false, "", "", nil
	return c.String()
}

// proof makes a DPoP proof JWT for one request: a new jti each time (a server
// refuses a replayed one), ath when it goes with an access token, the server's
// nonce when it gave one.
func (k *dpopKey) proof(method string, u *url.URL, token, nonce string) (string, error) {
	hdr, _ := json.Marshal(map[string]any{"typ": "dpop+jwt", "alg": dpopAlg,
		"jwk": map[string]string{"kty": "EC", "crv": "P-256", "x": k.x, "y": k.y}})
	claims := map[string]any{"jti": rand.Text(), "htm": method, "htu": htu(u), "iat": time.Now().Unix()}
	if token != "" {
		sum := sha256.Sum256([]byte(token))
		claims["ath"] = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	if nonce != "" {
		claims["nonce"] = nonce
	}
	body, _ := json.Marshal(claims)
	enc := base64.RawURLEncoding
	input := enc.EncodeToString(hdr) + "." + enc.EncodeToString(body)
	digest := sha256.Sum256([]byte(input))
	r, s, err := ecdsa.Sign(rand.Reader, k.priv, digest[:])
	if err != nil {
		return "", err
	}
	return input + "." + enc.EncodeToString(append(pad(r, 32), pad(s, 32)...)), nil
}

// dpopState is a manager's DPoP bookkeeping, behind its own lock (a request's
// proof is made without the manager's, which a login holds for minutes).
type dpopState struct {
	mu     sync.Mutex
	nonces map[string]string   // origin → the latest DPoP-Nonce it gave
	keys   map[string]*dpopKey // stored PEM → parsed
}

func (s *dpopState) nonce(u *url.URL) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nonces[origin(u)]
}

// note keeps the nonce an answer carries: the latest one per origin is the one to
// send (RFC 9449 §8.2, §9: a server may hand out a new one with any answer).
func (s *dpopState) note(u *url.URL, h http.Header) {
	n := h.Get("DPoP-Nonce")
	if n == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.nonces == nil {
		s.nonces = map[string]string{}
	}
	s.nonces[origin(u)] = n
}

func (s *dpopState) key(stored string) (*dpopKey, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if k := s.keys[stored]; k != nil {
		return k, nil
	}
	k, err := parseDPoPKey(stored)
	if err != nil {
		return nil, err
	}
	if s.keys == nil {
		s.keys = map[string]*dpopKey{}
	}
	s.keys[stored] = k
	return k, nil
}

func origin(u *url.URL) string { return strings.ToLower(u.Scheme + "://" + u.Host) }

// dpopLogin decides whether a new login asks for DPoP-bound tokens (see the
// package comment above for when) and, if so, makes its key and a context whose
// token requests carry proofs of it.
func (m *Manager) dpopLogin(ctx context.Context, d *discovered, chs []oauthex.Challenge) (context.Context, *dpopKey, error) {
	var why string
	switch {
	case m.opts.DPoP:
		why = "asked for (--dpop, or the config entry's oauth.dpop)"
	case d.prm != nil && d.prm.DPOPBoundAccessTokensRequired:
		why = "the protected resource metadata says dpop_bound_access_tokens_required"
	case len(chs) > 0 && !slices.ContainsFunc(chs, func(c oauthex.Challenge) bool { return c.Scheme != "dpop" }):
		why = "the server's challenge is DPoP's (WWW-Authenticate: DPoP)"
	default:
		return ctx, nil, nil
	}
	if len(d.dpopAlgs) > 0 && !slices.Contains(d.dpopAlgs, dpopAlg) {
		return ctx, nil, errorf("DPoP-bound tokens are wanted (%s), and the authorization server %s takes DPoP proofs signed with %s only; mcpscope signs them with %s",
			why, d.asm.Issuer, strings.Join(d.dpopAlgs, ", "), dpopAlg)
	}
	key, err := newDPoPKey()
	if err != nil {
		return ctx, nil, err
	}
	m.secret(key.pem)
	note := ""
	if len(d.dpopAlgs) == 0 {
		note = "; the authorization server lists no dpop_signing_alg_values_supported (one that does not know DPoP issues a Bearer token)"
	}
	m.step("dpop", "DPoP-bound tokens: %s; a new %s proof key for this login, thumbprint %s%s", why, dpopAlg, key.thumb, note)
	return withDPoP(ctx, key, d.asm.TokenEndpoint), key, nil
}

// dpopBind keeps the login's key with its token when the authorization server
// bound the token to it (token_type DPoP); a Bearer token goes as Bearer.
func (m *Manager) dpopBind(e *Entry, key *dpopKey) {
	if key == nil || e == nil {
		return
	}
	if !strings.EqualFold(e.TokenType, "DPoP") {
		m.step("dpop", "the authorization server issued a %s token, not a DPoP-bound one: it is sent as Bearer", orNone(e.TokenType))
		return
	}
	e.DPoPKey = key.pem
	m.step("dpop", "the token is bound to the proof key %s (token_type DPoP); the key is kept with it", key.thumb)
}

// dpopRefresh is the context of a stored login's token request: with proofs of
// its kept key when its tokens are bound to one (a refresh token bound to the key
// is refused without them).
func (m *Manager) dpopRefresh(ctx context.Context, e *Entry) (context.Context, error) {
	if e.DPoPKey == "" {
		return ctx, nil
	}
	m.secret(e.DPoPKey)
	key, err := m.dpop.key(e.DPoPKey)
	if err != nil {
		return ctx, err
	}
	return withDPoP(ctx, key, e.TokenEndpoint), nil
}

// Authorize sets the credentials of one request to the MCP server (each try of
// it): "Authorization: Bearer TOKEN", or, for a DPoP-bound token,
// "Authorization: DPoP TOKEN" and a proof made for this request.
func (m *Manager) Authorize(req *http.Request, token string) error {
	m.mu.Lock()
	var stored string
	if m.entry != nil && m.entry.AccessToken == token && strings.EqualFold(m.entry.TokenType, "DPoP") {
		stored = m.entry.DPoPKey
	}
	m.mu.Unlock()
	if stored == "" {
		req.Header.Set("Authorization", "Bearer "+token)
		return nil
	}
	key, err := m.dpop.key(stored)
	if err != nil {
		return err
	}
	p, err := key.proof(req.Method, req.URL, token, m.dpop.nonce(req.URL))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "DPoP "+token)
	req.Header.Set("DPoP", p)
	return nil
}

// Answered sees the MCP server's answer to a request Authorize set: it keeps a
// DPoP-Nonce, and reports whether the answer is a use_dpop_nonce challenge (a 401)
// the request should be sent again for, with a proof carrying the new nonce (RFC
// 9449 §9). The caller sends it again once, not more.
func (m *Manager) Answered(req *http.Request, status int, header http.Header) bool {
	m.dpop.note(req.URL, header)
	if status != http.StatusUnauthorized || header.Get("DPoP-Nonce") == "" {
		return false
	}
	chs, _ := oauthex.ParseWWWAuthenticate(header.Values("WWW-Authenticate"))
	if challengeParam(chs, "error") != "use_dpop_nonce" {
		return false
	}
	m.step("dpop", "%s wants a DPoP nonce in the proof (use_dpop_nonce); sending %s again with it", origin(req.URL), req.Method)
	return true
}

type dpopCtxKey struct{}

type dpopFor struct {
	key      *dpopKey
	endpoint string // the token endpoint: only requests there carry proofs
}

func withDPoP(ctx context.Context, key *dpopKey, tokenEndpoint string) context.Context {
	return context.WithValue(ctx, dpopCtxKey{}, &dpopFor{key: key, endpoint: tokenEndpoint})
}

// dpopTransport puts a proof on the token requests of a DPoP login (whoever makes
// them: golang.org/x/oauth2's Exchange and client credentials, or postToken), and
// answers a token endpoint's use_dpop_nonce (RFC 9449 §8) by sending the request
// once more with the nonce it gave.
type dpopTransport struct {
	m    *Manager
	base http.RoundTripper
}

func (t *dpopTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	d, _ := req.Context().Value(dpopCtxKey{}).(*dpopFor)
	if d == nil || req.Method != http.MethodPost {
		return t.base.RoundTrip(req)
	}
	if eu, err := url.Parse(d.endpoint); err != nil || htu(eu) != htu(req.URL) {
		return t.base.RoundTrip(req)
	}
	send := func(first bool) (*http.Response, error) {
		r := req.Clone(req.Context())
		if !first {
			if req.GetBody == nil {
				return nil, errorf("the token request cannot be sent again with the DPoP nonce")
			}
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			r.Body = body
		}
		p, err := d.key.proof(http.MethodPost, req.URL, "", t.m.dpop.nonce(req.URL))
		if err != nil {
			return nil, err
		}
		r.Header.Set("DPoP", p)
		resp, err := t.base.RoundTrip(r)
		if err == nil {
			t.m.dpop.note(req.URL, resp.Header)
		}
		return resp, err
	}
	resp, err := send(true)
	if err != nil || resp.StatusCode != http.StatusBadRequest || resp.Header.Get("DPoP-Nonce") == "" {
		return resp, err
	}
	data, rerr := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	resp.Body.Close()
	if rerr != nil {
		return nil, rerr
	}
	var body struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(data, &body) != nil || body.Error != "use_dpop_nonce" {
		resp.Body = io.NopCloser(bytes.NewReader(data))
		return resp, nil
	}
	t.m.step("dpop", "the token endpoint %s wants a DPoP nonce in the proof (use_dpop_nonce); sending the request again with it", d.endpoint)
	return send(false)
}
