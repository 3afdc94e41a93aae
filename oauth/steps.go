// Package oauth logs mcpscope in to MCP servers that sit behind OAuth 2.1: discovery
// of the protected resource and authorization server metadata, client registration,
// the authorization code flow with PKCE (a loopback redirect, a browser, or a pasted
// URL), client credentials, and a token store shared by every mcpscope process. It
// builds on the official SDK's oauthex (metadata types, WWW-Authenticate parsing,
// dynamic registration) and golang.org/x/oauth2 (PKCE, the token requests); what
// they leave to the caller (receiving the code, storing tokens, the step log) is
// here. Every step is an event a caller can subscribe to; secrets in it are masked.
package oauth

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/internal/termsafe"
)

// Step is one thing the flow did, for a log a person reads: which metadata URL was
// tried and what it answered, the registration method, the authorization URL, the
// redirect received, the token response (secrets masked), scopes and expiry.
type Step struct {
	Time time.Time
	Kind string // discovery, metadata, registration, client, authorize, redirect, exchange, token, claims, refresh, dpop, store, warning, error
	Text string // one line, secrets masked
}

func (s Step) String() string { return s.Kind + ": " + s.Text }

// Log fans steps out to its subscribers. The zero value works; nil drops steps.
type Log struct {
	mu   sync.Mutex
	subs []func(Step)
	all  []Step
}

// Subscribe calls f for every later step (from the goroutine that logs it).
func (l *Log) Subscribe(f func(Step)) {
	if l == nil {
		return
	}
	l.mu.Lock()
	l.subs = append(l.subs, f)
	l.mu.Unlock()
}

// Steps returns every step logged so far.
func (l *Log) Steps() []Step {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Step(nil), l.all...)
}

func (l *Log) add(kind, format string, a ...any) {
	if l == nil {
		return
	}
	// A step quotes what servers sent (metadata, claims, errors): it is made safe
	// for a terminal here, once, for every reader (auth login -v, the Auth view).
	s := Step{Time: time.Now(), Kind: kind, Text: termsafe.Line(fmt.Sprintf(format, a...))}
	l.mu.Lock()
	l.all = append(l.all, s)
	subs := slices.Clone(l.subs)
	l.mu.Unlock()
	for _, f := range subs {
		f(s)
	}
}

// mask shows a secret's length and nothing of it.
func mask(s string) string {
	if s == "" {
		return "(none)"
	}
	return fmt.Sprintf("[redacted, %d chars]", len(s))
}
