package main

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
)

// remoteFlags are the flags for HTTP servers and configured targets.
type remoteFlags struct {
	headers    multiFlag // -H 'Name: value'
	bearer     string
	bearerEnv  string
	crossOK    bool // --allow-cross-origin
	transport  string
	timeout    time.Duration
	timeoutCap time.Duration
	// timeoutFrom: where timeout came from when not from --timeout (a config entry).
	timeoutFrom string
	config      string
	inputs      multiFlag // --input ID=VALUE for ${input:ID}
}

// registerRemote adds the flags of remote.go. It owns --timeout: a per-request bound
// that progress restarts (the session applies it), so common.timeout stays 0.
func (c *common) registerRemote(fs *flag.FlagSet) {
	r := &c.remote
	fs.Var(&r.headers, "H", "HTTP header 'Name: value' for every request (repeatable)")
	fs.Var(&r.headers, "header", "HTTP header 'Name: value' for every request (repeatable)")
	fs.StringVar(&r.bearer, "bearer", "", "send Authorization: Bearer TOKEN (never printed or recorded)")
	fs.StringVar(&r.bearerEnv, "bearer-env", "", "send Authorization: Bearer with the token in this environment variable")
	fs.BoolVar(&r.crossOK, "allow-cross-origin", false, "follow a redirect or legacy endpoint to another origin, without credentials")
	fs.StringVar(&r.transport, "transport", "", "HTTP transport: streamable or sse (default: detect)")
	fs.DurationVar(&r.timeout, "timeout", client.DefaultTimeout, "bound on each request while it reports no progress (0: none)")
	fs.DurationVar(&r.timeoutCap, "timeout-cap", 0, "bound on each request however much progress it reports (default 10x --timeout)")
	fs.StringVar(&r.config, "config", "", "read server NAMEs from this config file only")
	fs.Var(&r.inputs, "input", "ID=VALUE for ${input:ID} in a config file (repeatable)")
}

// applyRemote sets the options of remote.go.
func (c *common) applyRemote(o *client.Options) error {
	r := &c.remote
	if _, ok := client.ParseTransport(r.transport); !ok {
		return usageErr("--transport %q: use streamable or sse", r.transport)
	}
	header, secrets, err := r.httpHeader()
	if err != nil {
		return err
	}
	if len(header) > 0 {
		o.Header = header
	}
	o.Secrets = append(o.Secrets, secrets...)
	o.Transport = r.transport
	o.AllowCrossOrigin = r.crossOK
	o.Timeout = r.timeout
	o.TimeoutCap = r.timeoutCap
	o.TimeoutFrom = r.timeoutFrom
	return nil
}

// gives reports whether -H, --bearer or --bearer-env sends the header name (a
// registry remote's declared header is then the user's, not asked for).
func (r *remoteFlags) gives(name string) bool {
	if strings.EqualFold(name, "Authorization") && (r.bearer != "" || r.bearerEnv != "") {
		return true
	}
	for _, hv := range r.headers {
		if n, _, ok := strings.Cut(hv, ":"); ok && strings.EqualFold(strings.TrimSpace(n), name) {
			return true
		}
	}
	return false
}

// httpHeader reads -H, --bearer and --bearer-env. Secrets are the values never to
// print: the token, and the value of any header whose name says it is a credential.
func (r *remoteFlags) httpHeader() (http.Header, []string, error) {
	h := http.Header{}
	var secrets []string
	for _, hv := range r.headers {
		name, value, ok := strings.Cut(hv, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || name == "" || strings.ContainsAny(name, " \t\r\n") {
			return nil, nil, usageErr("-H %q: give 'Name: value'", hv)
		}
		h.Add(name, value)
		if wire.SensitiveHeader(name) {
			secrets = append(secrets, value)
			if _, tok, ok := strings.Cut(value, " "); ok {
				secrets = append(secrets, tok)
			}
		}
	}
	token := r.bearer
	if r.bearerEnv != "" {
		if r.bearer != "" {
			return nil, nil, usageErr("give --bearer or --bearer-env, not both")
		}
		token = os.Getenv(r.bearerEnv)
		if token == "" {
			return nil, nil, usageErr("--bearer-env %s: the variable is not set or empty", r.bearerEnv)
		}
	}
	if token != "" {
		h.Set("Authorization", "Bearer "+token)
		secrets = append(secrets, token)
	}
	return h, secrets, nil
}

// traceHTTP prints an HTTP event for --trace: the request line or status, then the
// headers (secrets already redacted by the wire layer), or a body that is not a
// message.
func traceHTTP(w io.Writer, t float64, e wire.Event) {
	fmt.Fprintf(w, "%8.3f %-7s %-4s %s\n", t, e.Kind, e.Dir, e.Text)
	if e.HTTP != nil && e.HTTP.Header != nil {
		keys := make([]string, 0, len(e.HTTP.Header))
		for k := range e.HTTP.Header {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			for _, v := range e.HTTP.Header[k] {
				fmt.Fprintf(w, "%22s%s: %s\n", "", k, clip(v, 200, len(v)))
			}
		}
	}
	if len(e.Data) > 0 {
		fmt.Fprintf(w, "%22s%s\n", "", clip(string(e.Data), 400, e.Size))
	}
}
