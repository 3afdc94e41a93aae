package oauth

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"time"
)

// signAssertion makes a private_key_jwt client assertion (RFC 7523 §2.2): iss and
// sub the client ID, aud the authorization server's issuer, five minutes to live,
// a random jti.
func signAssertion(keyPEM []byte, alg, clientID, aud string) (string, error) {
	block, _ := pem.Decode(keyPEM)
	if block == nil {
		return "", errorf("the client key is not PEM")
	}
	var key any
	var err error
	if key, err = x509.ParsePKCS8PrivateKey(block.Bytes); err != nil {
		if key, err = x509.ParseECPrivateKey(block.Bytes); err != nil {
			if key, err = x509.ParsePKCS1PrivateKey(block.Bytes); err != nil {
				return "", errorf("the client key is neither a PKCS#8, EC nor PKCS#1 private key: %v", err)
			}
		}
	}
	if alg == "" {
		switch k := key.(type) {
		case *ecdsa.PrivateKey:
			alg = map[int]string{256: "ES256", 384: "ES384", 521: "ES512"}[k.Curve.Params().BitSize]
		case *rsa.PrivateKey:
			alg = "RS256"
		case ed25519.PrivateKey:
			alg = "EdDSA"
		}
	}
	now := time.Now()
	hdr, _ := json.Marshal(map[string]string{"alg": alg, "typ": "JWT"})
	claims, _ := json.Marshal(map[string]any{"iss": clientID, "sub": clientID, "aud": aud,
		"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(), "jti": rand.Text()})
	enc := base64.RawURLEncoding
	input := enc.EncodeToString(hdr) + "." + enc.EncodeToString(claims)
	var sig []byte
	switch k := key.(type) {
	case *ecdsa.PrivateKey:
		var h crypto.Hash
		size := 32
		switch alg {
		case "ES256":
			h = crypto.SHA256
		case "ES384":
			h, size = crypto.SHA384, 48
		case "ES512":
			h, size = crypto.SHA512, 66
		default:
			return "", errorf("an EC key cannot sign %s", alg)
		}
		hh := h.New()
		hh.Write([]byte(input))
		r, s, err := ecdsa.Sign(rand.Reader, k, hh.Sum(nil))
		if err != nil {
			return "", err
		}
		sig = append(pad(r, size), pad(s, size)...)
	case *rsa.PrivateKey:
		var digest []byte
		var h crypto.Hash
		switch alg {
		case "RS256":
			d := sha256.Sum256([]byte(input))
			digest, h = d[:], crypto.SHA256
		case "RS512":
			d := sha512.Sum512([]byte(input))
			digest, h = d[:], crypto.SHA512
		default:
			return "", errorf("an RSA key cannot sign %s here (use RS256 or RS512)", alg)
		}
		if sig, err = rsa.SignPKCS1v15(rand.Reader, k, h, digest); err != nil {
			return "", err
		}
	case ed25519.PrivateKey:
		sig = ed25519.Sign(k, []byte(input))
	default:
		return "", errorf("unsupported client key type %T", key)
	}
	return input + "." + enc.EncodeToString(sig), nil
}

func pad(n *big.Int, size int) []byte {
	b := n.Bytes()
	if len(b) >= size {
		return b
	}
	return append(make([]byte, size-len(b)), b...)
}
