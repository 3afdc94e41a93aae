package oauthserver

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// The server's side of DPoP (RFC 9449), for Knobs.DPoP: it checks every proof the
// way a strict server does and says what it refused.

const (
	asNonce = "as-nonce-7f3a"
	rsNonce = "rs-nonce-91c2"
)

type dpopState struct {
	bound    map[string]string // access or refresh token → the thumbprint of its key
	jtis     map[string]bool
	problems []string
	// ASNonceAsked and RSNonceAsked count the use_dpop_nonce answers.
	asNonceAsked, rsNonceAsked atomic.Int32
	proofs                     atomic.Int32 // resource requests with a valid proof
}

// DPoPProblems lists the proofs (or their absence) the server refused, each with why.
func (s *Server) DPoPProblems() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.dpop.problems...)
}

// DPoPCounts says how many use_dpop_nonce answers the token endpoint (as) and the
// MCP endpoint (rs) gave, and how many MCP requests came with a valid proof.
func (s *Server) DPoPCounts() (as, rs, proofs int) {
	return int(s.dpop.asNonceAsked.Load()), int(s.dpop.rsNonceAsked.Load()), int(s.dpop.proofs.Load())
}

// DPoPBound reports whether a token the server issued is bound to a proof key.
func (s *Server) DPoPBound(tok string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dpop.bound[tok] != ""
}

func (s *Server) bind(tok, jkt string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dpop.bound == nil {
		s.dpop.bound = map[string]string{}
	}
	s.dpop.bound[tok] = jkt
}

func (s *Server) dpopProblem(format string, a ...any) string {
	msg := fmt.Sprintf(format, a...)
	s.mu.Lock()
	s.dpop.problems = append(s.dpop.problems, msg)
	s.mu.Unlock()
	return msg
}

// dpopToken checks the proof of a token request; it answers the request itself
// (ok false) when the proof is missing, wrong or lacks the nonce.
func (s *Server) dpopToken(w http.ResponseWriter, r *http.Request) (jkt string, ok bool) {
	jkt, nonce, why := s.checkProof(r, "")
	if why != "" {
		writeJSON(w, 400, map[string]string{"error": "invalid_dpop_proof", "error_description": s.dpopProblem("token endpoint: %s", why)})
		return "", false
	}
	if s.Knobs.DPoPNonce && nonce != asNonce {
		s.dpop.asNonceAsked.Add(1)
		w.Header().Set("DPoP-Nonce", asNonce)
		writeJSON(w, 400, map[string]string{"error": "use_dpop_nonce", "error_description": "the authorization server wants a nonce"})
		return "", false
	}
	if r.Form.Get("grant_type") == "refresh_token" {
		s.mu.Lock()
		want := s.dpop.bound[r.Form.Get("refresh_token")]
		s.mu.Unlock()
		if want != "" && want != jkt {
			writeJSON(w, 400, map[string]string{"error": "invalid_dpop_proof", "error_description": s.dpopProblem("token endpoint: the refresh token is bound to another key")})
			return "", false
		}
	}
	return jkt, true
}

// dpopGuard checks the MCP endpoint's request: "Authorization: DPoP TOKEN" with a
// valid proof of the key the token is bound to. It returns the token, or answers
// the request itself (ok false).
func (s *Server) dpopGuard(w http.ResponseWriter, r *http.Request) (string, bool) {
	meta := fmt.Sprintf(`resource_metadata="%s/.well-known/oauth-protected-resource%s"`, s.Issuer, r.URL.Path)
	scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	refuse := func(errCode, why string) (string, bool) {
		if s.Knobs.DPoPUnadvertised {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="%s", %s`, errCode, meta))
		} else {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`DPoP error="%s", algs="ES256", %s`, errCode, meta))
		}
		if why != "" {
			s.dpopProblem("resource: %s", why)
		}
		http.Error(w, `{"error":"`+errCode+`"}`, http.StatusUnauthorized)
		return "", false
	}
	if tok == "" {
		if s.Knobs.DPoPUnadvertised {
			w.Header().Set("WWW-Authenticate", "Bearer "+meta)
		} else {
			w.Header().Set("WWW-Authenticate", `DPoP algs="ES256", `+meta)
		}
		http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
		return "", false
	}
	if !strings.EqualFold(scheme, "DPoP") {
		return refuse("invalid_token", "the token came with the scheme "+scheme+", not DPoP")
	}
	s.mu.Lock()
	want := s.dpop.bound[tok]
	s.mu.Unlock()
	if want == "" {
		return refuse("invalid_token", "")
	}
	jkt, nonce, why := s.checkProof(r, tok)
	if why != "" {
		return refuse("invalid_dpop_proof", why)
	}
	if s.Knobs.DPoPNonce && nonce != rsNonce {
		s.dpop.rsNonceAsked.Add(1)
		w.Header().Set("DPoP-Nonce", rsNonce)
		return refuse("use_dpop_nonce", "")
	}
	if jkt != want {
		return refuse("invalid_token", "the proof's key is not the one the token is bound to")
	}
	s.dpop.proofs.Add(1)
	return tok, true
}

// checkProof checks the request's DPoP header (RFC 9449 §4.3): one proof, typ
// dpop+jwt, ES256 with a public JWK, a valid signature, htm and htu of this
// request, iat within 5 minutes, a jti never seen, and, with a token, ath. It
// returns the key's thumbprint and the proof's nonce, or why it is refused.
func (s *Server) checkProof(r *http.Request, tok string) (jkt, nonce, why string) {
	vals := r.Header.Values("DPoP")
	if len(vals) != 1 || vals[0] == "" {
		return "", "", fmt.Sprintf("%d DPoP headers, want 1", len(vals))
	}
	proof := vals[0]
	s.mu.Lock()
	s.Secrets = append(s.Secrets, proof)
	s.mu.Unlock()
	parts := strings.Split(proof, ".")
	if len(parts) != 3 {
		return "", "", "the proof is not a JWS"
	}
	enc := base64.RawURLEncoding
	var hdr struct {
		Typ, Alg string
		JWK      map[string]string `json:"jwk"`
	}
	var claims struct {
		JTI   string `json:"jti"`
		HTM   string `json:"htm"`
		HTU   string `json:"htu"`
		IAT   int64  `json:"iat"`
		ATH   string `json:"ath"`
		Nonce string `json:"nonce"`
	}
	h, err1 := enc.DecodeString(parts[0])
	c, err2 := enc.DecodeString(parts[1])
	sig, err3 := enc.DecodeString(parts[2])
	if err1 != nil || err2 != nil || err3 != nil || json.Unmarshal(h, &hdr) != nil || json.Unmarshal(c, &claims) != nil {
		return "", "", "the proof does not decode"
	}
	if hdr.Typ != "dpop+jwt" || hdr.Alg != "ES256" {
		return "", "", fmt.Sprintf("typ %q alg %q, want dpop+jwt ES256", hdr.Typ, hdr.Alg)
	}
	if hdr.JWK["d"] != "" {
		return "", "", "the jwk holds the private key"
	}
	x, errx := enc.DecodeString(hdr.JWK["x"])
	y, erry := enc.DecodeString(hdr.JWK["y"])
	if hdr.JWK["kty"] != "EC" || hdr.JWK["crv"] != "P-256" || errx != nil || erry != nil || len(sig) != 64 {
		return "", "", "the jwk is not a P-256 public key"
	}
	if len(x) != 32 || len(y) != 32 {
		return "", "", "the jwk is not a P-256 public key"
	}
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
	if err != nil {
		return "", "", "the jwk is not a point of P-256: " + err.Error()
	}
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if !ecdsa.Verify(pub, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return "", "", "the signature does not verify"
	}
	if claims.HTM != r.Method {
		return "", "", fmt.Sprintf("htm %q for a %s", claims.HTM, r.Method)
	}
	if want := s.Issuer + r.URL.Path; claims.HTU != want {
		return "", "", fmt.Sprintf("htu %q, want %q", claims.HTU, want)
	}
	if d := time.Since(time.Unix(claims.IAT, 0)); d > 5*time.Minute || d < -5*time.Minute {
		return "", "", "iat out of the window"
	}
	if tok != "" {
		sum := sha256.Sum256([]byte(tok))
		if claims.ATH != enc.EncodeToString(sum[:]) {
			return "", "", "ath is not the token's hash"
		}
	}
	if claims.JTI == "" {
		return "", "", "no jti"
	}
	s.mu.Lock()
	if s.dpop.jtis == nil {
		s.dpop.jtis = map[string]bool{}
	}
	seen := s.dpop.jtis[claims.JTI]
	s.dpop.jtis[claims.JTI] = true
	s.mu.Unlock()
	if seen {
		return "", "", "a replayed jti " + claims.JTI
	}
	// RFC 7638 thumbprint: the required members in lexical order, no spaces.
	tp := sha256.Sum256([]byte(`{"crv":"P-256","kty":"EC","x":"` + hdr.JWK["x"] + `","y":"` + hdr.JWK["y"] + `"}`))
	return enc.EncodeToString(tp[:]), claims.Nonce, ""
}
