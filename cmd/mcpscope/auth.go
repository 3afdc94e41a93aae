package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/config"
	"github.com/mcpscope/mcpscope/internal/readfile"
	"github.com/mcpscope/mcpscope/internal/termsafe"
	"github.com/mcpscope/mcpscope/oauth"
	"github.com/mcpscope/mcpscope/target"
)

// oauthFlags are the OAuth login flags every command that reaches a server takes.
type oauthFlags struct {
	clientID        string
	clientSecret    string
	clientSecretEnv string
	clientKey       string // PEM file for private_key_jwt
	signingAlg      string
	metadataURL     string
	scope           string
	grant           string
	redirectPort    int
	login           bool // run the browser login without a terminal
	paste           bool // read a pasted redirect URL or code from stdin
	assertionFile   string
	assertionEnv    string
	// --oauth-grant id-jag (enterprise-managed authorization)
	idTokenFile        string
	idTokenEnv         string
	idpTokenEndpoint   string
	idpClientID        string
	idpClientSecret    string
	idpClientSecretEnv string
	noOAuth            bool
	dpop               bool // DPoP-bound tokens even where the server does not ask
}

func (c *common) registerOAuth(fs *flag.FlagSet) { c.oauthF.register(fs) }

func (o *oauthFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&o.clientID, "client-id", "", "OAuth: a client ID registered with the authorization server")
	fs.StringVar(&o.clientSecret, "client-secret", "", "OAuth: that client's secret (never printed or recorded)")
	fs.StringVar(&o.clientSecretEnv, "client-secret-env", "", "OAuth: read the client secret from this environment variable")
	fs.StringVar(&o.clientKey, "client-key", "", "OAuth: a PEM private key file for private_key_jwt client authentication")
	fs.StringVar(&o.signingAlg, "client-key-alg", "", "OAuth: the JWT signing algorithm for --client-key (default: by the key)")
	fs.StringVar(&o.metadataURL, "client-metadata-url", "", "OAuth: an https URL of this client's metadata document, used as client_id where supported")
	fs.StringVar(&o.scope, "scope", "", "OAuth: the scopes to ask for, space-separated (default: what the server names)")
	fs.StringVar(&o.grant, "oauth-grant", oauth.GrantAuthorizationCode, "OAuth grant: authorization-code, client-credentials, jwt-bearer or id-jag (enterprise-managed: an ID token exchanged at the IdP)")
	fs.StringVar(&o.assertionFile, "assertion-file", "", "OAuth jwt-bearer: a file holding the workload's JWT (never printed or recorded)")
	fs.StringVar(&o.assertionEnv, "assertion-env", "", "OAuth jwt-bearer: read the workload's JWT from this environment variable")
	fs.StringVar(&o.idTokenFile, "id-token-file", "", "OAuth id-jag: a file holding your ID token from the enterprise identity provider (never printed or recorded)")
	fs.StringVar(&o.idTokenEnv, "id-token-env", "", "OAuth id-jag: read the ID token from this environment variable")
	fs.StringVar(&o.idpTokenEndpoint, "idp-token-endpoint", "", "OAuth id-jag: the identity provider's token endpoint, where the ID token is exchanged for an ID-JAG")
	fs.StringVar(&o.idpClientID, "idp-client-id", "", "OAuth id-jag: this client's ID at the identity provider")
	fs.StringVar(&o.idpClientSecret, "idp-client-secret", "", "OAuth id-jag: that client's secret at the identity provider (never printed or recorded)")
	fs.StringVar(&o.idpClientSecretEnv, "idp-client-secret-env", "", "OAuth id-jag: read the identity provider client's secret from this environment variable")
	fs.IntVar(&o.redirectPort, "redirect-port", oauth.DefaultRedirectPort, "OAuth: the loopback port for the login's redirect (0: any)")
	fs.BoolVar(&o.login, "login", false, "OAuth: on a 401, run the browser login even without a terminal")
	fs.BoolVar(&o.paste, "paste", false, "OAuth: read the redirected URL (or the code) from stdin")
	fs.BoolVar(&o.noOAuth, "no-oauth", false, "never log in; a 401 is an error")
	fs.BoolVar(&o.dpop, "dpop", false, "OAuth: ask for DPoP-bound tokens (RFC 9449) even where the server does not say it wants them")
}

// managerOptions reads the flags into the options of an oauth.Manager: each step
// below reads or checks one group of flags, in the order their errors are reported.
func (o *oauthFlags) managerOptions(stderr io.Writer, interactive bool) (oauth.Options, error) {
	opts := oauth.Options{ClientID: o.clientID, ClientSecret: o.clientSecret, ClientMetadataURL: o.metadataURL,
		SigningAlg: o.signingAlg, Scopes: strings.Fields(o.scope), RedirectPort: o.redirectPort,
		Browser: os.Getenv("BROWSER"), Out: stderr, DPoP: o.dpop}
	steps := []func(*oauth.Options) error{
		o.checkRedirectPort, o.readGrant, o.readAssertion, o.idJAGOptions,
		o.readClientSecret, o.readClientKey, o.checkClient,
	}
	for _, step := range steps {
		if err := step(&opts); err != nil {
			return opts, err
		}
	}
	dir, err := oauth.DefaultDir()
	if err != nil {
		return opts, &exitError{code: exitServer, msg: err.Error()}
	}
	opts.Store = &oauth.Store{Dir: dir, Warn: func(s string) { fmt.Fprintln(stderr, "mcpscope: warning: "+s) }}
	opts.Interactive = interactive
	opts.Unattended = !isTerminal(stderr)
	if o.paste || (interactive && stdinIsTerminal() && isTerminal(stderr)) {
		opts.Paste = os.Stdin
	}
	return opts, nil
}

func (o *oauthFlags) checkRedirectPort(*oauth.Options) error {
	if o.redirectPort < 0 || o.redirectPort > 65535 {
		return usageErr("--redirect-port %d: give a port from 1 to 65535, or 0 for any", o.redirectPort)
	}
	return nil
}

// grants are --oauth-grant's words (the RFC's spelling with _ too), each to its grant.
var grants = map[string]string{
	"": oauth.GrantAuthorizationCode, oauth.GrantAuthorizationCode: oauth.GrantAuthorizationCode, "authorization_code": oauth.GrantAuthorizationCode,
	oauth.GrantClientCredentials: oauth.GrantClientCredentials, "client_credentials": oauth.GrantClientCredentials,
	oauth.GrantJWTBearer: oauth.GrantJWTBearer, "jwt_bearer": oauth.GrantJWTBearer,
	oauth.GrantIDJAG: oauth.GrantIDJAG, "id_jag": oauth.GrantIDJAG,
}

func (o *oauthFlags) readGrant(opts *oauth.Options) error {
	g, ok := grants[o.grant]
	if !ok {
		return usageErr("--oauth-grant %q: use authorization-code, client-credentials, jwt-bearer or id-jag", o.grant)
	}
	opts.Grant = g
	return nil
}

// readAssertion reads jwt-bearer's JWT (a file or a variable, never the command line).
func (o *oauthFlags) readAssertion(opts *oauth.Options) error {
	switch {
	case o.assertionFile != "" && o.assertionEnv != "":
		return usageErr("give --assertion-file or --assertion-env, not both")
	case o.assertionFile != "":
		data, err := readfile.Read(o.assertionFile, readfile.MaxEnvFile)
		if err != nil {
			return usageErr("--assertion-file: %v", err)
		}
		opts.Assertion = strings.TrimSpace(string(data))
	case o.assertionEnv != "":
		opts.Assertion = strings.TrimSpace(os.Getenv(o.assertionEnv))
		if opts.Assertion == "" {
			return usageErr("--assertion-env %s: the variable is not set or empty", o.assertionEnv)
		}
	}
	if opts.Grant == oauth.GrantJWTBearer && opts.Assertion == "" {
		return usageErr("--oauth-grant jwt-bearer needs the workload's JWT: --assertion-file FILE or --assertion-env VAR")
	}
	if opts.Assertion != "" && opts.Grant != oauth.GrantJWTBearer {
		return usageErr("--assertion-file and --assertion-env are for --oauth-grant jwt-bearer")
	}
	return nil
}

func (o *oauthFlags) readClientSecret(opts *oauth.Options) error {
	if o.clientSecretEnv == "" {
		return nil
	}
	if o.clientSecret != "" {
		return usageErr("give --client-secret or --client-secret-env, not both")
	}
	opts.ClientSecret = os.Getenv(o.clientSecretEnv)
	if opts.ClientSecret == "" {
		return usageErr("--client-secret-env %s: the variable is not set or empty", o.clientSecretEnv)
	}
	return nil
}

func (o *oauthFlags) readClientKey(opts *oauth.Options) error {
	if o.clientKey == "" {
		return nil
	}
	pem, err := readfile.Read(o.clientKey, readfile.MaxEnvFile)
	if err != nil {
		return usageErr("--client-key: %v", err)
	}
	opts.PrivateKeyPEM = pem
	return nil
}

// checkClient refuses a client the grant cannot use: credentials without an ID, a
// grant that needs credentials without them, a metadata document not on https.
func (o *oauthFlags) checkClient(opts *oauth.Options) error {
	if (opts.ClientSecret != "" || o.clientKey != "") && opts.ClientID == "" {
		return usageErr("--client-secret and --client-key need --client-id")
	}
	if opts.Grant == oauth.GrantIDJAG && opts.ClientID == "" {
		return usageErr("--oauth-grant id-jag needs --client-id (with --client-secret or --client-secret-env): the client registered with the server's authorization server, which presents the ID-JAG")
	}
	if opts.Grant == oauth.GrantClientCredentials && (opts.ClientID == "" || (opts.ClientSecret == "" && o.clientKey == "")) {
		return usageErr("--oauth-grant client-credentials needs --client-id with --client-secret (or --client-secret-env) or --client-key")
	}
	if o.metadataURL != "" && !strings.HasPrefix(o.metadataURL, "https://") {
		return usageErr("--client-metadata-url %q: a client ID metadata document must be served over https", o.metadataURL)
	}
	return nil
}

// idJAGOptions reads the flags of --oauth-grant id-jag: the ID token (a file or a
// variable, never the command line, where other users' ps would show it), the
// IdP's token endpoint (https, or http on this machine: the ID token and the IdP
// client's secret are sent there) and the IdP's client.
func (o *oauthFlags) idJAGOptions(opts *oauth.Options) error {
	if err := o.readIDToken(opts); err != nil {
		return err
	}
	if err := o.readIDPClient(opts); err != nil {
		return err
	}
	return checkIDJAG(opts)
}

// readIDToken reads the ID token: a file or a variable.
func (o *oauthFlags) readIDToken(opts *oauth.Options) error {
	switch {
	case o.idTokenFile != "" && o.idTokenEnv != "":
		return usageErr("give --id-token-file or --id-token-env, not both")
	case o.idTokenFile != "":
		data, err := readfile.Read(o.idTokenFile, readfile.MaxEnvFile)
		if err != nil {
			return usageErr("--id-token-file: %v", err)
		}
		opts.IDToken = strings.TrimSpace(string(data))
	case o.idTokenEnv != "":
		opts.IDToken = strings.TrimSpace(os.Getenv(o.idTokenEnv))
		if opts.IDToken == "" {
			return usageErr("--id-token-env %s: the variable is not set or empty", o.idTokenEnv)
		}
	}
	return nil
}

// readIDPClient reads the IdP's token endpoint and client.
func (o *oauthFlags) readIDPClient(opts *oauth.Options) error {
	opts.IDPTokenEndpoint, opts.IDPClientID, opts.IDPClientSecret = o.idpTokenEndpoint, o.idpClientID, o.idpClientSecret
	if o.idpClientSecretEnv == "" {
		return nil
	}
	if o.idpClientSecret != "" {
		return usageErr("give --idp-client-secret or --idp-client-secret-env, not both")
	}
	opts.IDPClientSecret = os.Getenv(o.idpClientSecretEnv)
	if opts.IDPClientSecret == "" {
		return usageErr("--idp-client-secret-env %s: the variable is not set or empty", o.idpClientSecretEnv)
	}
	return nil
}

// checkIDJAG refuses id-jag's flags without the grant, and the grant without them.
func checkIDJAG(opts *oauth.Options) error {
	given := opts.IDToken != "" || opts.IDPTokenEndpoint != "" || opts.IDPClientID != "" || opts.IDPClientSecret != ""
	switch {
	case opts.Grant != oauth.GrantIDJAG && given:
		return usageErr("--id-token-file, --id-token-env, --idp-token-endpoint and --idp-client-id/--idp-client-secret are for --oauth-grant id-jag")
	case opts.Grant != oauth.GrantIDJAG:
		return nil
	case opts.IDToken == "":
		return usageErr("--oauth-grant id-jag needs the ID token from your identity provider: --id-token-file FILE or --id-token-env VAR")
	case opts.IDPTokenEndpoint == "":
		return usageErr("--oauth-grant id-jag needs --idp-token-endpoint URL: the identity provider's token endpoint, where the ID token is exchanged")
	case opts.IDPClientSecret != "" && opts.IDPClientID == "":
		return usageErr("--idp-client-secret needs --idp-client-id")
	}
	if err := checkTokenEndpoint(opts.IDPTokenEndpoint); err != nil {
		return usageErr("--idp-token-endpoint %s: %v", opts.IDPTokenEndpoint, err)
	}
	return nil
}

// checkTokenEndpoint refuses an endpoint that secrets must not be sent to: one
// that is neither https nor http on this machine.
func checkTokenEndpoint(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("not an https URL")
	}
	h := u.Hostname()
	loopback := h == "localhost" || h == "127.0.0.1" || h == "::1"
	if u.Scheme == "https" || (u.Scheme == "http" && loopback) {
		return nil
	}
	return fmt.Errorf("the ID token and the IdP client's secret go there: it must be https (or http on this machine)")
}

func stdinIsTerminal() bool { return isTerminal(os.Stdin) }

// applyOAuth lets a session log in on a 401: with a stored token, a refresh or
// client credentials always; with the browser flow on a terminal, or with --login.
func (c *common) applyOAuth(o *client.Options, stderr io.Writer) error {
	if c.oauthF.noOAuth {
		return nil
	}
	interactive := c.oauthF.login || (stdinIsTerminal() && isTerminal(stderr))
	mo, err := c.oauthF.managerOptions(stderr, interactive)
	if err != nil {
		return err
	}
	o.Secrets = append(o.Secrets, mo.ClientSecret, mo.Assertion, mo.IDToken, mo.IDPClientSecret)
	o.Auth = func(t target.Target, note, secret func(string)) wire.Authorizer {
		opts := mo
		withEntry(&opts, t.OAuth, c.oauthF)
		opts.Log = &oauth.Log{}
		opts.Log.Subscribe(func(s oauth.Step) { note(s.String()) })
		m := oauth.New(t.URL, opts)
		m.OnSecret(secret)
		return m
	}
	return nil
}

// workbenchOAuth gives the workbench the OAuth options of each HTTP server (nil
// with --no-oauth): the workbench logs a server in only when the user asks (L), with
// the URL and the paste field in a dialog, so nothing here prints or reads stdin.
func (c *common) workbenchOAuth() (func(target.Target) oauth.Options, error) {
	if c.oauthF.noOAuth {
		return nil, nil
	}
	mo, err := c.oauthF.managerOptions(io.Discard, false)
	if err != nil {
		return nil, err
	}
	mo.Paste = nil
	f := c.oauthF
	return func(t target.Target) oauth.Options {
		o := mo
		withEntry(&o, t.OAuth, f)
		return o
	}, nil
}

// withEntry takes a config entry's oauth block where the flags say nothing. An
// entry with an ID token logs in by enterprise-managed authorization (id-jag)
// unless the flags name another grant.
func withEntry(o *oauth.Options, e *target.OAuthClient, f oauthFlags) {
	if e == nil {
		return
	}
	if e.DPoP {
		o.DPoP = true // an entry's "dpop": true holds whichever client logs in
	}
	if e.IDToken != "" && (f.grant == "" || f.grant == oauth.GrantAuthorizationCode) && o.IDToken == "" {
		o.Grant = oauth.GrantIDJAG
		o.IDToken, o.IDPTokenEndpoint, o.IDPClientID, o.IDPClientSecret = e.IDToken, e.IDPTokenEndpoint, e.IDPClientID, e.IDPClientSecret
	}
	if f.clientID != "" {
		return
	}
	o.ClientID, o.ClientSecret = e.ClientID, e.ClientSecret
	if len(o.Scopes) == 0 {
		o.Scopes = e.Scopes
	}
	if e.RedirectPort > 0 && f.redirectPort == oauth.DefaultRedirectPort {
		o.RedirectPort = e.RedirectPort
	}
}

// authUsage is the usage of auth's subcommands, from the command table.
func authUsage() string {
	var b strings.Builder
	b.WriteString("usage:\n")
	for _, c := range lookup(commandTable, "auth").subs {
		b.WriteString("  " + c.usageLines()[0] + "\n")
	}
	return b.String()
}

// runAuth is auth without a subcommand the table knows (those are dispatched to
// runAuthSub): --help lists them, anything else is a usage error.
func runAuth(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usageErr("auth: give login, status, logout or token\n%s", authUsage())
	}
	if isHelp(args[0]) {
		return &helpError{flag.NewFlagSet("auth", flag.ContinueOnError)}
	}
	return unknownSub(lookup(commandTable, "auth"), args[0], "mcpscope")
}

// runAuthSub runs one auth subcommand. Each registers only the flags it honours: the
// OAuth client flags for login and token (a refresh may need the client), -v for
// login, --format for status, --all for logout.
func runAuthSub(sub string) commandFunc {
	return func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
		return authSub(ctx, sub, args, stdout, stderr)
	}
}

func authSub(ctx context.Context, sub string, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("auth "+sub, flag.ContinueOnError)
	var of oauthFlags
	if sub == "login" || sub == "token" {
		of.register(fs)
	} else {
		// Not honoured here: registered on a set of their own for their defaults only.
		of.register(flag.NewFlagSet("", flag.ContinueOnError))
	}
	var verbose, all bool
	format := "table"
	switch sub {
	case "login":
		fs.BoolVar(&verbose, "v", false, "print each step of the login")
	case "status":
		fs.StringVar(&format, "format", "table", "table or json")
	case "logout":
		fs.BoolVar(&all, "all", false, "every stored login")
	}
	cfgFile := fs.String("config", "", "read server NAMEs from this config file only")
	var inputs multiFlag
	fs.Var(&inputs, "input", "ID=VALUE for ${input:ID} in a config file")
	pos, _, err := parse(fs, args, func([]string, string) bool { return false })
	if err != nil {
		return err
	}
	server := ""
	var entryOAuth *target.OAuthClient
	if len(pos) > 1 {
		return usageErr("auth %s: one server at a time, got %s", sub, strings.Join(pos, " "))
	}
	if len(pos) == 1 {
		server, entryOAuth, err = authServerURL(ctx, pos[0], *cfgFile, inputs)
		if err != nil {
			return err
		}
	}
	mo, err := of.managerOptions(stderr, true)
	if err != nil {
		return err
	}
	withEntry(&mo, entryOAuth, of)
	switch sub {
	case "login":
		return authLogin(ctx, server, mo, verbose, stdout, stderr)
	case "status":
		return authStatus(mo.Store, server, format, stdout)
	case "logout":
		return authLogout(ctx, server, all, mo, stdout, stderr)
	case "token":
		return authToken(ctx, server, mo, stdout)
	}
	return usageErr("auth %s: unknown; use login, status, logout or token\n%s", sub, authUsage())
}

// authLogin is `auth login`: a login through the browser (or a paste), stored.
func authLogin(ctx context.Context, server string, mo oauth.Options, verbose bool, stdout, stderr io.Writer) error {
	if server == "" {
		return usageErr("auth login: give the server's URL or config NAME\n%s", authUsage())
	}
	mo.Log = &oauth.Log{}
	if verbose {
		mo.Log.Subscribe(func(s oauth.Step) { fmt.Fprintf(stderr, "  %-12s %s\n", s.Kind, s.Text) })
	}
	m := oauth.New(server, mo)
	e, err := m.Login(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &exitError{code: exitServer, msg: "login to " + server + " failed: " + err.Error()}
	}
	fmt.Fprintf(stdout, "logged in to %s\n  issuer  %s\n  scopes  %s\n  expiry  %s\n", termsafe.Line(e.Server), termsafe.Line(e.Issuer), termsafe.Line(scopes(e.Scopes)), expiry(e))
	if e.RefreshToken == "" && e.Grant == "authorization_code" && !e.Expiry.IsZero() {
		// Without a refresh token the login ends with the token: say so now
		// rather than when a later command stops.
		fmt.Fprintf(stderr, "mcpscope: note: no refresh token came back (the authorization server did not grant offline_access); you will have to log in again in %s\n", roughly(time.Until(e.Expiry)))
	}
	return nil
}

// authStatus is `auth status`: the stored logins (of one server), as a table or JSON.
func authStatus(store *oauth.Store, server, format string, stdout io.Writer) error {
	var es []*oauth.Entry
	if server != "" {
		es = store.ForServer(server)
	} else {
		es = store.All()
	}
	if format == "json" {
		type row struct {
			Server   string     `json:"server"`
			Issuer   string     `json:"issuer"`
			Resource string     `json:"resource"`
			Scopes   []string   `json:"scopes"`
			Expiry   *time.Time `json:"expiry,omitempty"`
			Refresh  bool       `json:"refreshable"`
			Grant    string     `json:"grant,omitempty"`
			// What a server's author debugs a login with: the documents as
			// fetched and the client as registered (kept at the login; absent
			// for a login stored before), and the token's claims decoded from
			// the stored token (never the token, a secret or the signature).
			ResourceMeta *oauth.ResourceMetadata `json:"resource_metadata,omitempty"`
			IssuerMeta   *oauth.IssuerMetadata   `json:"issuer_metadata,omitempty"`
			Client       *oauth.ClientMetadata   `json:"client_metadata,omitempty"`
			Claims       *oauth.Claims           `json:"token_claims"`
		}
		rows := []row{}
		for _, e := range es {
			r := row{Server: e.Server, Issuer: e.Issuer, Resource: e.Resource, Scopes: e.Scopes, Refresh: e.RefreshToken != "" || (e.Grant == "client_credentials" && e.ClientSecret != ""), Grant: e.Grant,
				ResourceMeta: e.ResourceMeta, IssuerMeta: e.IssuerMeta, Client: e.Client, Claims: oauth.DecodeClaims(e.AccessToken, e.Issuer, e.Resource)}
			if !e.Expiry.IsZero() {
				t := e.Expiry
				r.Expiry = &t
			}
			rows = append(rows, r)
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"formatVersion": 1, "logins": rows})
	}
	if len(es) == 0 {
		if server != "" {
			fmt.Fprintf(stdout, "no stored login for %s (mcpscope auth login %s)\n", server, server)
		} else {
			fmt.Fprintf(stdout, "no stored logins (in %s)\n", store.Dir)
		}
		return nil
	}
	for _, e := range es {
		refresh := renewal(e)
		fmt.Fprintf(stdout, "%s\n  issuer  %s\n  scopes  %s\n  expiry  %s (%s)\n", termsafe.Line(e.Server), termsafe.Line(e.Issuer), termsafe.Line(scopes(e.Scopes)), expiry(e), refresh)
		// The claims' audience and expiry: a token for another audience is the
		// commonest reason a server refuses a login that worked (DecodeClaims
		// makes its strings safe).
		fmt.Fprintf(stdout, "  claims  %s\n", oauth.DecodeClaims(e.AccessToken, e.Issuer, e.Resource).Summary())
	}
	return nil
}

// authLogout is `auth logout`: stored logins revoked and removed, with the client
// registrations no other login uses.
func authLogout(ctx context.Context, server string, all bool, mo oauth.Options, stdout, stderr io.Writer) error {
	store := mo.Store
	var es []*oauth.Entry
	switch {
	case all && server != "":
		return usageErr("auth logout: give a server or --all, not both")
	case all:
		es = store.All()
	case server == "":
		return usageErr("auth logout: give the server's URL or config NAME, or --all")
	default:
		es = store.ForServer(server)
	}
	// The client registration kept for an issuer goes too (with --all, every
	// one; else when no other stored login uses that issuer), so that logging
	// out is the way to start afresh where the authorization server forgot it.
	forget := map[string]bool{}
	if all {
		for _, r := range store.Registrations() {
			forget[r.Issuer] = true
		}
	}
	if len(es) == 0 && len(forget) == 0 {
		fmt.Fprintln(stdout, "no stored login to remove")
		return nil
	}
	for _, e := range es {
		// Revoke at the authorization server first (RFC 7009): a token file that
		// leaked stays usable until it expires otherwise. A failure is said, and
		// the login is removed here all the same.
		note, rerr := oauth.New(e.Server, mo).Revoke(ctx, e)
		if err := store.Delete(e); err != nil {
			return &exitError{code: exitServer, msg: fmt.Sprintf("removing the login for %s: %v", e.Server, err)}
		}
		fmt.Fprintf(stdout, "logged out of %s (issuer %s)\n", e.Server, e.Issuer)
		if rerr != nil {
			fmt.Fprintf(stderr, "mcpscope: warning: %v\n", rerr)
		} else {
			fmt.Fprintf(stdout, "  %s\n", note)
		}
		forget[e.Issuer] = true
	}
	for _, e := range store.All() {
		delete(forget, e.Issuer) // still used by another login
	}
	for _, issuer := range slices.Sorted(maps.Keys(forget)) {
		r := store.LoadRegistration(issuer)
		ok, err := store.DeleteRegistration(issuer)
		if err != nil {
			return &exitError{code: exitServer, msg: fmt.Sprintf("removing the client registered with %s: %v", issuer, err)}
		}
		if ok && r != nil {
			fmt.Fprintf(stdout, "forgot the client %s registered with %s (kept in %s); the next login there registers again\n", r.ClientID, issuer, store.ClientsDir())
		}
	}
	return nil
}

// authToken is `auth token`: the stored access token, refreshed if need be, never a
// new login.
func authToken(ctx context.Context, server string, mo oauth.Options, stdout io.Writer) error {
	if server == "" {
		return usageErr("auth token: give the server's URL or config NAME")
	}
	mo.Interactive = false
	m := oauth.New(server, mo)
	tok, err := m.Token(ctx)
	if err != nil || tok == "" {
		msg := fmt.Sprintf("no usable stored login for %s; run: mcpscope auth login %s", server, server)
		if err != nil {
			msg = err.Error()
		}
		return &exitError{code: exitServer, msg: msg}
	}
	fmt.Fprintln(stdout, tok)
	return nil
}

// authServerURL reads URL|NAME: a URL as is, a NAME from the config files (its url).
func authServerURL(ctx context.Context, word, file string, inputs []string) (string, *target.OAuthClient, error) {
	if client.IsURL(word) {
		return word, nil, nil
	}
	in, err := config.ParseInputs(inputs)
	if err != nil {
		return "", nil, err
	}
	srv, err := (&config.Sources{File: file, Inputs: in}).Resolve(ctx, []string{word})
	if err != nil {
		return "", nil, err
	}
	if srv.Target.URL == "" {
		return "", nil, usageErr("%s is not an HTTP server (OAuth is for http:// and https:// servers)", word)
	}
	return srv.Target.URL, srv.Target.OAuth, nil
}

// roughly says a duration to the minute from a minute on, else to the second
// ("10m", "1h30m", "28s").
func roughly(d time.Duration) string {
	if d < time.Minute {
		return max(d, 0).Round(time.Second).String()
	}
	s := d.Round(time.Minute).String()
	s = strings.TrimSuffix(s, "0s")
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// renewal says how a stored login gets its next access token: a client-credentials
// login asks for one itself (it has no refresh token and needs none).
func renewal(e *oauth.Entry) string {
	switch {
	case e.RefreshToken != "":
		return "refreshable"
	case e.Grant == "client_credentials" && e.ClientSecret != "":
		return "renews itself with client credentials"
	case e.Grant == "client_credentials":
		return "renews with client credentials when given --client-key"
	case e.Grant == "urn:ietf:params:oauth:grant-type:jwt-bearer":
		return "renews with the workload's JWT when given --assertion-file or --assertion-env"
	case e.Grant == oauth.GrantIDJAG:
		return "renews by exchanging the ID token again when given --id-token-file or --id-token-env (and --idp-token-endpoint)"
	}
	return "no refresh token"
}

func scopes(s []string) string {
	if len(s) == 0 {
		return "(none)"
	}
	return strings.Join(s, " ")
}

func expiry(e *oauth.Entry) string {
	if e.Expiry.IsZero() {
		return "none given"
	}
	d := time.Until(e.Expiry).Round(time.Second)
	if d < 0 {
		return fmt.Sprintf("expired %s ago", -d)
	}
	return fmt.Sprintf("in %s (%s)", d, e.Expiry.Local().Format(time.RFC3339))
}
