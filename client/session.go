// Package client is mcpscope's MCP session: the only package that knows the SDK. It
// connects to a server through the wire layer, negotiates the era, and offers tools,
// calls and raw requests in types of its own that keep everything the server sent.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/jsonscan"
	"github.com/mcpscope/mcpscope/target"
)

// Version is mcpscope's version, sent as clientInfo.
var Version = "0.1.0"

// ModernVersion is the first stateless protocol revision.
const ModernVersion = "2026-07-28"

// Era names.
const (
	EraModern = "modern" // 2026-07-28 and later: stateless, server/discover
	EraLegacy = "legacy" // 2024-11-05 … 2025-11-25: initialize handshake
)

// Target is what to connect to: a command (Argv) or an HTTP URL. It is package
// target's (plain data, no SDK, so that config can make one); the name stays here
// so that code which only connects need not import both.
type Target = target.Target

// OAuthClient is a client registered with a server's authorization server (package
// target's).
type OAuthClient = target.OAuthClient

// Options configures a session.
type Options struct {
	Env          []string     // K=V pairs for the server's environment
	Dir          string       // the server's working directory
	Framing      wire.Framing // stdio framing: auto (default), ndjson, content-length
	Repair       bool         // accept and fix a missing "jsonrpc" and string-echoed ids
	Grace        time.Duration
	ProbeTimeout time.Duration
	MaxFrame     int
	// Protocol forces one protocol version instead of negotiating.
	Protocol string
	// ClientName and ClientVersion are the clientInfo the session sends (mcpscope's
	// when ClientName is empty): a replay of a host's recording (mcpscope tap) sends
	// the host's, since a server may answer a client by its name.
	ClientName, ClientVersion string
	// ConnectTimeout bounds the handshake (default 30 s).
	ConnectTimeout time.Duration
	// Timeout bounds each request (list page, call, raw request) while it is silent:
	// every progress notification restarts it. 0: no bound.
	Timeout time.Duration
	// TimeoutCap bounds each request however much progress it reports (default 10 ×
	// Timeout).
	TimeoutCap time.Duration
	// TimeoutFrom says where Timeout was set, for the message when it fires
	// ("" is the --timeout flag; the workbench names a config entry's own timeout).
	TimeoutFrom string
	// Transport for an HTTP target: "" (detect), "streamable" or "sse".
	Transport string
	// Header is sent with every HTTP request, over the target's own headers.
	Header http.Header
	// Secrets are values that must never appear in an event (a bearer token).
	Secrets []string
	// AllowCrossOrigin lets an HTTP session follow a redirect, or a legacy endpoint,
	// to another origin than the target URL's, without credentials; by default such
	// a request is refused when it would carry them.
	AllowCrossOrigin bool
	// Auth, when set, is asked for an OAuth authorizer for an HTTP target (package
	// oauth): its tokens go to the target's origin only, and a 401 or 403 it can
	// answer (a stored token, a refresh, a login) is retried. note puts a line in the
	// session's events (--trace, Traffic); secret adds a value to redact from them.
	// Not used when Header (or the target's) carries Authorization: --bearer wins.
	Auth func(target Target, note func(string), secret func(string)) wire.Authorizer
	// Tap receives every wire event. One is made when nil.
	Tap *wire.Tap
	// TraceParent and TraceState (W3C trace context, SEP-414) go into params._meta
	// of every request sent, on the wire (wire.RequestMeta); "" sends none.
	TraceParent, TraceState string
	// OnToolsChanged is called on notifications/tools/list_changed.
	OnToolsChanged func()
	// OnLog is called for notifications/message.
	OnLog func(LogMessage)
	// LogLevel asks for the server's log messages at this level and above: with
	// logging/setLevel after a legacy handshake, and in each call's _meta on 2026-07-28
	// sessions (where log messages only come for requests that ask). "" asks for none.
	LogLevel string
	// Elicit answers the server's requests for user input: elicitation/create in the
	// 2025 era, input_required results in 2026-07-28. Setting it advertises the
	// elicitation capability. It may block until the user answers.
	Elicit func(ctx context.Context, req ElicitRequest) (ElicitResponse, error)
	// Sample answers sampling/createMessage (and its 2026-07-28 input_required form);
	// setting it declares the sampling capability (see handlers.go).
	Sample func(ctx context.Context, req SamplingRequest) (SamplingResponse, error)
	// Roots, when not nil (an empty slice counts), declares the roots capability and
	// answers roots/list with these; SetRoots changes them.
	Roots []Root
	// OnResourceUpdated is called on notifications/resources/updated (after Subscribe).
	OnResourceUpdated func(uri string)
	// OnResourcesChanged and OnPromptsChanged are called on the list_changed
	// notifications.
	OnResourcesChanged func()
	OnPromptsChanged   func()
	// OnTaskStatus is called with a task as a status notification states it
	// (notifications/tasks/status in 2025-11-25, the tasks extension's
	// notifications/tasks in 2026-07-28), ahead of the next tasks/get.
	OnTaskStatus func(Task)
	// OnURLRequired is called when the server answers any request (a tool call,
	// prompts/get, resources/read) with URLElicitationRequired (-32042): the URLs the
	// user must visit before the request can succeed.
	OnURLRequired func(URLRequired)
}

// ElicitRequest is a server asking the user for input.
type ElicitRequest struct {
	Mode    string // "form" (default) or "url"
	Message string
	Schema  json.RawMessage // requestedSchema, for form mode
	URL     string          // for url mode
	// ElicitationID names a URL-mode request (2025-11-25).
	ElicitationID string
}

// ElicitResponse is the user's answer: Action is accept, decline or cancel.
type ElicitResponse struct {
	Action  string
	Content json.RawMessage // a JSON object, with accept in form mode
}

// LogMessage is a notifications/message from the server.
type LogMessage struct {
	Level  string
	Logger string
	Data   json.RawMessage
}

// Progress is one notifications/progress for a call.
type Progress struct {
	Progress float64
	Total    float64 // 0: unknown
	Message  string
}

// Info is what the handshake told about the server.
type Info struct {
	Name            string
	Version         string
	Title           string
	ProtocolVersion string
	Era             string
	Transport       string // TransportStdio, TransportStreamable or TransportSSE
	URL             string // the endpoint of an HTTP server
	Framing         wire.Framing
	Capabilities    json.RawMessage
	Instructions    string
	// From serverInfo, as the server sent them (each may be empty).
	Description string
	WebsiteURL  string
	Icons       []Icon
	// Discover is the server/discover result as sent (2026-07-28 sessions; nil on
	// sessions that did not use it).
	Discover json.RawMessage
}

// Icon is one of the icons a server (or a tool, resource or prompt) names: where the
// picture is (a URL or a data: URI) and what it says it is.
type Icon struct {
	Src      string   `json:"src"`
	MIMEType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	Theme    string   `json:"theme,omitempty"`
}

// Session is a connected MCP server.
type Session struct {
	// clientName and clientVersion: Options.ClientName's (see clientInfo).
	clientName, clientVersion string

	// afterCallTool, in tests, runs in Call between the SDK's return and the reading
	// of the captured answer: a test makes a late answer arrive there.
	afterCallTool func()

	cs     *mcp.ClientSession // guarded by mu: an expired HTTP session is replaced
	tr     *wire.Stdio        // stdio targets
	h      *httpConn          // HTTP targets
	tap    *wire.Tap
	info   Info
	opts   Options
	target Target
	token  atomic.Int64

	client      *mcp.Client
	sopts       *mcp.ClientSessionOptions
	reconnectMu sync.Mutex

	progress sync.Map // progress token -> func(Progress)

	mu        sync.Mutex
	toolPages map[string]json.RawMessage // raw tools/list results by cursor, for the SDK's cache hits
	roots     []Root                     // guarded by mu
	asked     serverRequests             // guarded by mu

	logLevel atomic.Value   // string: the level asked for (Options.LogLevel, SetLogLevel)
	declared map[string]any // client capabilities for the raw path's 2026-07-28 _meta
}

// session returns the current SDK session.
func (s *Session) session() *mcp.ClientSession {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cs
}

// SupportedVersions lists the protocol versions mcpscope speaks, newest first.
func SupportedVersions() []string { return mcp.SupportedProtocolVersions() }

// UsageError is a mistake in what the user asked for (package target's, so that
// config can return one without the SDK; errors.As finds it under either name).
type UsageError = target.UsageError

// Connect starts or reaches the server and completes the handshake.
func Connect(ctx context.Context, target Target, opts Options) (*Session, error) {
	if opts.Protocol != "" && !slices.Contains(SupportedVersions(), opts.Protocol) {
		return nil, &UsageError{Msg: fmt.Sprintf("unknown protocol version %q; mcpscope speaks %s", opts.Protocol, strings.Join(SupportedVersions(), ", "))}
	}
	if len(target.Argv) == 0 && target.URL == "" {
		return nil, &UsageError{Msg: "no server command given"}
	}
	if target.URL != "" && len(target.Argv) > 0 {
		return nil, &UsageError{Msg: "a target is either a command or a URL, not both"}
	}
	if target.URL == "" && (len(opts.Header) > 0 || opts.Transport != "") {
		return nil, &UsageError{Msg: "headers, tokens and --transport apply to HTTP servers; this target is a command"}
	}
	if opts.Tap == nil {
		opts.Tap = &wire.Tap{}
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = 30 * time.Second
	}
	s := &Session{tap: opts.Tap, opts: opts, target: target, toolPages: map[string]json.RawMessage{}}
	if target.URL == "" {
		dir := opts.Dir
		if dir == "" {
			dir = target.Dir
		}
		s.tr = wire.NewStdio(wire.StdioOptions{
			Argv: target.Argv, Env: append(append([]string(nil), target.Env...), opts.Env...), Dir: dir,
			Framing: opts.Framing, Repair: opts.Repair, Grace: opts.Grace,
			ProbeTimeout: opts.ProbeTimeout, NoDiscoverProbe: opts.Protocol != "",
			MaxFrame: opts.MaxFrame, Tap: opts.Tap, Meta: opts.requestMeta(),
		})
	}
	// Progress is taken from the wire, not from the SDK's handler: the SDK runs
	// notification handlers asynchronously, so the last progress of a call could arrive
	// after the call returned. The tap sees frames in order, before the SDK does.
	opts.Tap.Listen(s.onFrame)
	copts := &mcp.ClientOptions{
		// No roots, sampling or elicitation unless a handler is given: mcpscope has no
		// workspace to offer, and a server that asked for roots (server-everything does)
		// no longer exits when its stdin closes, which costs every one-shot command the
		// whole grace period.
		Capabilities: &mcp.ClientCapabilities{},
	}
	if opts.OnToolsChanged != nil {
		copts.ToolListChangedHandler = func(context.Context, *mcp.ToolListChangedRequest) { opts.OnToolsChanged() }
	}
	if opts.Elicit != nil {
		copts.ElicitationHandler = func(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			p := req.Params
			schema, _ := json.Marshal(p.RequestedSchema)
			resp, err := opts.Elicit(ctx, ElicitRequest{Mode: p.Mode, Message: p.Message, Schema: schema, URL: p.URL, ElicitationID: p.ElicitationID})
			if err != nil {
				return nil, err
			}
			res := &mcp.ElicitResult{Action: resp.Action}
			if len(resp.Content) > 0 {
				if err := json.Unmarshal(resp.Content, &res.Content); err != nil {
					return nil, fmt.Errorf("elicitation content must be a JSON object: %w", err)
				}
			}
			return res, nil
		}
	}
	s.logLevel.Store(opts.LogLevel)
	s.roots = append([]Root(nil), opts.Roots...)
	s.configureHandlers(copts)
	s.clientName, s.clientVersion = opts.ClientName, opts.ClientVersion
	name, version := s.clientInfo()
	client := mcp.NewClient(&mcp.Implementation{Name: name, Version: version}, copts)
	s.client = client
	s.addRoots()

	cctx, cancel := context.WithTimeout(ctx, opts.ConnectTimeout)
	defer cancel()
	cctx, capture := wire.WithCapture(cctx)
	var sopts *mcp.ClientSessionOptions
	if opts.Protocol != "" {
		sopts = &mcp.ClientSessionOptions{ProtocolVersion: opts.Protocol}
	}
	s.sopts = sopts
	if target.URL != "" {
		cs, err := s.connectHTTP(ctx, cctx, client, target, sopts)
		if err != nil {
			s.tap.Emit(wire.Event{Kind: wire.KindClosed, Text: "could not connect"})
			if s.h != nil {
				s.h.tap.CloseIdleConnections()
			}
			return nil, err
		}
		s.cs = cs
		s.fillInfo(capture)
		if err := s.checkForced(); err != nil {
			return nil, err
		}
		s.setLogLevel(cctx)
		return s, nil
	}
	// A handshake that runs out of time ends the server at once rather than after the
	// grace periods: the error is due now. (The SDK closes the connection itself
	// before Connect returns.)
	stopHurry := context.AfterFunc(cctx, func() {
		if conn := s.tr.Conn(); conn != nil && ctx.Err() == nil {
			conn.Hurry()
		}
	})
	cs, err := client.Connect(cctx, s.tr, sopts)
	stopHurry()
	if err != nil {
		if conn := s.tr.Conn(); conn != nil {
			_ = conn.Close()
		}
		return nil, s.connectError(ctx, cctx, err)
	}
	s.cs = cs
	s.fillInfo(capture)
	if err := s.checkForced(); err != nil {
		return nil, err
	}
	s.setLogLevel(cctx)
	return s, nil
}

// checkForced holds a forced protocol version to its word: the session uses it, or
// connecting fails with what the server offered instead (no silent fallback). The
// session is closed on failure.
func (s *Session) checkForced() error {
	if s.opts.Protocol == "" || s.info.ProtocolVersion == s.opts.Protocol {
		return nil
	}
	offered := s.info.ProtocolVersion
	if offered == "" {
		offered = "no version"
	}
	s.Close()
	return &ServerError{Reason: fmt.Sprintf("the server does not speak protocol %s, which --protocol forces: it offered %s; force that one, or leave out --protocol to negotiate", s.opts.Protocol, offered)}
}

// setLogLevel asks a legacy server that offers logging for messages at LogLevel. A
// refusal is not fatal: the session works without logs.
func (s *Session) setLogLevel(ctx context.Context) {
	if s.opts.LogLevel == "" || s.info.Era == EraModern || !bytes.Contains(s.info.Capabilities, []byte(`"logging"`)) {
		return
	}
	//lint:ignore SA1019 the logging API, deprecated by 2026-07-28 (SEP-2577), is what servers on earlier versions speak
	_ = s.cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: mcp.LoggingLevel(s.opts.LogLevel)})
}

func (s *Session) connectError(parent, cctx context.Context, err error) error {
	var se *wire.StartError
	if errors.As(err, &se) {
		return &ServerError{Reason: se.Error()}
	}
	if parent.Err() != nil {
		return parent.Err()
	}
	reason := "could not connect: " + err.Error()
	if cctx.Err() == context.DeadlineExceeded {
		reason = fmt.Sprintf("the server did not complete the handshake within %v (--connect-timeout)", s.opts.ConnectTimeout)
	}
	return s.serverError(reason, err)
}

// serverError explains a failure of the connection with what the wire layer knows:
// why reading stopped, how the process ended, its last stderr lines.
func (s *Session) serverError(reason string, err error) error {
	if s.tr == nil {
		return &ServerError{Reason: reason}
	}
	conn := s.tr.Conn()
	if conn == nil {
		return &ServerError{Reason: reason}
	}
	e := &ServerError{Reason: reason}
	if werr := conn.Err(); werr != nil {
		e.Reason = werr.Error()
	}
	// Wait for the exit first: LastStderr then also waits for the rest of stderr, so a
	// fatal message written just before exiting is in the report.
	exit, exited := conn.Exit(300 * time.Millisecond)
	e.Stderr = conn.LastStderr()
	if exited {
		e.Exit = &exit
		if conn.Err() == nil && !errors.Is(err, context.DeadlineExceeded) {
			e.Reason = "the server closed the connection"
			if s.cs == nil {
				e.Reason += " before completing the handshake"
			}
		}
	}
	if why := conn.Restarted(); why != "" {
		// The server was started twice: its stderr shows two starts, and the user
		// should know that the framing was guessed and that this is the second try.
		e.Restarted = why
	}
	return e
}

func (s *Session) fillInfo(capture *wire.Capture) {
	ir := s.cs.InitializeResult()
	info := Info{Transport: TransportStdio, ProtocolVersion: ir.ProtocolVersion, Instructions: ir.Instructions, Era: EraLegacy}
	if s.h != nil {
		info.Transport, info.URL = TransportStreamable, s.target.URL
		if s.h.mode == "sse" {
			info.Transport = TransportSSE
		}
	}
	if info.ProtocolVersion >= ModernVersion {
		info.Era = EraModern
	}
	if ir.ServerInfo != nil {
		info.Name, info.Version, info.Title = ir.ServerInfo.Name, ir.ServerInfo.Version, ir.ServerInfo.Title
		info.Description, info.WebsiteURL = ir.ServerInfo.Description, ir.ServerInfo.WebsiteURL
		for _, ic := range ir.ServerInfo.Icons {
			info.Icons = append(info.Icons, Icon{Src: ic.Source, MIMEType: ic.MIMEType, Sizes: ic.Sizes, Theme: string(ic.Theme)})
		}
	}
	if raw, ok := capture.Last("server/discover"); ok {
		var env struct {
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(raw, &env) == nil && len(env.Result) > 0 && env.Result[0] == '{' {
			info.Discover = env.Result
			// The serverInfo of a 2026-07-28 server travels in the result's _meta; keep
			// what the SDK's struct did not carry over.
			var d struct {
				Meta struct {
					ServerInfo *serverInfoRaw `json:"io.modelcontextprotocol/serverInfo"`
				} `json:"_meta"`
			}
			if json.Unmarshal(env.Result, &d) == nil && d.Meta.ServerInfo != nil {
				d.Meta.ServerInfo.fill(&info)
			}
		}
	}
	if raw, ok := capture.Last("initialize"); ok && len(info.Icons) == 0 {
		var env struct {
			Result struct {
				ServerInfo *serverInfoRaw `json:"serverInfo"`
			} `json:"result"`
		}
		if json.Unmarshal(raw, &env) == nil && env.Result.ServerInfo != nil {
			env.Result.ServerInfo.fill(&info)
		}
	}
	if s.tr != nil {
		if conn := s.tr.Conn(); conn != nil {
			info.Framing = conn.Framing()
		}
	}
	// Capabilities from the raw result keep members the SDK's struct drops.
	for _, method := range []string{"initialize", "server/discover"} {
		if raw, ok := capture.Last(method); ok {
			var env struct {
				Result struct {
					Capabilities json.RawMessage `json:"capabilities"`
				} `json:"result"`
			}
			if json.Unmarshal(raw, &env) == nil && env.Result.Capabilities != nil {
				info.Capabilities = env.Result.Capabilities
				break
			}
		}
	}
	if info.Capabilities == nil {
		info.Capabilities, _ = json.Marshal(ir.Capabilities)
	}
	s.info = info
}

// serverInfoRaw is serverInfo as sent, for the members Info keeps.
type serverInfoRaw struct {
	Name        string `json:"name"`
	Title       string `json:"title"`
	Version     string `json:"version"`
	Description string `json:"description"`
	WebsiteURL  string `json:"websiteUrl"`
	Icons       []Icon `json:"icons"`
}

// fill sets what info lacks from serverInfo as sent.
func (r *serverInfoRaw) fill(info *Info) {
	set := func(dst *string, v string) {
		if *dst == "" {
			*dst = v
		}
	}
	set(&info.Name, r.Name)
	set(&info.Title, r.Title)
	set(&info.Version, r.Version)
	set(&info.Description, r.Description)
	set(&info.WebsiteURL, r.WebsiteURL)
	if len(info.Icons) == 0 {
		for _, ic := range r.Icons {
			if ic.Src != "" {
				info.Icons = append(info.Icons, ic)
			}
		}
	}
}

// Info describes the connected server.
func (s *Session) Info() Info { return s.info }

// Tap is the session's wire event fan-out.
func (s *Session) Tap() *wire.Tap { return s.tap }

// Close ends the session and the server process; it returns once the process is gone.
// Over HTTP it ends the session on the server (DELETE) and closes the streams.
func (s *Session) Close() error {
	cs := s.session()
	if cs == nil {
		return nil
	}
	err := cs.Close()
	if s.h != nil {
		s.h.endSSE()
		s.h.tap.CloseIdleConnections()
		s.tap.Emit(wire.Event{Kind: wire.KindClosed, Text: "session closed"})
	}
	return err
}

// response is a raw JSON-RPC response.
type response struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

func parseResponse(raw json.RawMessage) (json.RawMessage, error) {
	result, _, err := parseResponseScan(raw)
	return result, err
}

// parseResponseScan is parseResponse in one validating pass over the message, which
// matters for a 100 MiB result: only the error member, if any, is decoded.
// validated says the result returned has been checked to be valid JSON.
func parseResponseScan(raw json.RawMessage) (result json.RawMessage, validated bool, err error) {
	if verr := jsonscan.Valid(raw); verr != nil {
		var r response
		if err := json.Unmarshal(raw, &r); err != nil {
			if jsonscan.IsDepth(verr) {
				return nil, false, verr
			}
			return nil, false, err
		}
	}
	var errRaw json.RawMessage
	jsonscan.MembersTrusted(raw, func(key, value []byte) bool {
		switch string(key) {
		case "result":
			result = value
		case "error":
			errRaw = value
		}
		return true
	})
	if errRaw != nil && string(errRaw) != "null" {
		var r response
		if err := json.Unmarshal(append(append([]byte(`{"error":`), errRaw...), '}'), &r); err != nil {
			return nil, false, err
		}
		if r.Error != nil {
			return nil, false, &RPCError{Code: r.Error.Code, Message: r.Error.Message, Data: r.Error.Data}
		}
	}
	return result, true, nil
}

// requestError explains a failed request: ctx is the caller's context, rctx the
// request's (it carries the timeout), capture the request's capture if any.
func (s *Session) requestError(ctx, rctx context.Context, err error, capture *wire.Capture) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if te := timeoutErr(rctx); te != nil {
		return te
	}
	if s.h != nil {
		if capture == nil {
			capture = &wire.Capture{}
		}
		return s.httpCallError(err, capture)
	}
	conn := s.tr.Conn()
	if errors.Is(err, mcp.ErrConnectionClosed) || conn.Ended() {
		return s.serverError("the server closed the connection", err)
	}
	if _, ok := conn.Exit(0); ok {
		return s.serverError("the server closed the connection", err)
	}
	return err
}

// ToolList is the result of listing every page of tools.
type ToolList struct {
	Tools    []Tool
	Pages    int
	Problems []string // what was wrong with the list itself (tools that are not objects, a bad cursor)
	// Refused are the tools the server listed that mcpscope does not offer, each with
	// why (also said in Problems): a call to one by name says why, not that the server
	// has no such tool.
	Refused []RefusedTool
	bytes   int // of the pages' results, which the tools keep parts of
}

// RefusedTool is a tool the server listed and mcpscope refused to offer.
type RefusedTool struct {
	Name string // as the server sent it: untrusted
	Why  string
}

// RefusedWhy says why the tool named name was refused, "" when it was not.
func (l *ToolList) RefusedWhy(name string) string {
	for _, r := range l.Refused {
		if r.Name == name {
			return r.Why
		}
	}
	return ""
}

// Bounds on one listing: an endless cursor must not fill memory. Far above real
// servers (10,000 tools with big schemas are some 20 MB).
const (
	maxListPages = 10000
	maxListBytes = 64 << 20
)

// Tools lists every page of tools. On 2026-07-28 sessions the SDK may answer from its
// TTL cache; the pages then come from the last raw answers. Use RefreshTools to ask the
// server for real. On a 2026-07-28 session over HTTP, a tool whose x-mcp-header
// markings are invalid is dropped, with a note in Problems.
func (s *Session) Tools(ctx context.Context) (*ToolList, error) {
	return s.listTools(ctx, func(cursor string) (json.RawMessage, error) {
		return s.toolsPage(ctx, cursor)
	})
}

// RefreshTools lists every page of tools from the server itself, past any cache.
func (s *Session) RefreshTools(ctx context.Context) (*ToolList, error) {
	return s.listTools(ctx, func(cursor string) (json.RawMessage, error) {
		params := json.RawMessage(`{}`)
		if cursor != "" {
			params, _ = json.Marshal(map[string]string{"cursor": cursor})
		}
		raw, err := s.Raw(ctx, "tools/list", params)
		if err != nil {
			return nil, err
		}
		result, err := parseResponse(raw)
		if err != nil {
			return nil, err
		}
		s.mu.Lock()
		s.toolPages[cursor] = result
		s.mu.Unlock()
		return result, nil
	})
}

// listTools follows nextCursor through every page that page returns.
func (s *Session) listTools(ctx context.Context, page func(cursor string) (json.RawMessage, error)) (*ToolList, error) {
	list := &ToolList{}
	seen := map[string]bool{}
	cursor := ""
	for {
		list.Pages++
		result, err := page(cursor)
		if err != nil {
			return nil, err
		}
		list.bytes += len(result)
		p, err := listPage(result)
		if err != nil {
			return nil, err
		}
		if p.Tools == nil {
			list.Problems = append(list.Problems, "a tools/list result has no tools member")
		} else {
			tools, problems := decodeTools(p.Tools)
			list.Problems = append(list.Problems, problems...)
			for _, t := range tools {
				if s.h != nil && s.info.Era == EraModern {
					if why := invalidParamHeaders(t.InputSchema); why != "" {
						why = why + " (a 2026-07-28 HTTP client must drop such a tool)"
						list.Problems = append(list.Problems, fmt.Sprintf("tool %q is not shown: %s", t.Name, why))
						list.Refused = append(list.Refused, RefusedTool{Name: t.Name, Why: why})
						continue
					}
				}
				list.Tools = append(list.Tools, t)
			}
		}
		if p.NextCursor == nil {
			return list, nil
		}
		next := *p.NextCursor
		switch {
		case next == "":
			// Valid per the spec, but the SDK omits an empty cursor, so it cannot be sent.
			list.Problems = append(list.Problems, "the server returned an empty nextCursor, which cannot be sent back; listing stopped there")
			return list, nil
		case seen[next]:
			list.Problems = append(list.Problems, fmt.Sprintf("the server returned cursor %q twice; listing stopped to avoid a loop", next))
			return list, nil
		case list.Pages >= maxListPages:
			list.Problems = append(list.Problems, fmt.Sprintf("more than %d pages; listing stopped", maxListPages))
			return list, nil
		case list.bytes > maxListBytes:
			list.Problems = append(list.Problems, fmt.Sprintf("the %d pages so far hold %s, more than the %s mcpscope keeps of one list; listing stopped (the server may be sending an endless cursor)",
				list.Pages, wire.HumanBytes(int64(list.bytes)), wire.HumanBytes(maxListBytes)))
			return list, nil
		}
		seen[next] = true
		cursor = next
	}
}

// toolsListPage is what listTools reads of one page.
type toolsListPage struct {
	Tools      json.RawMessage // a slice of the page: no copy of a big page
	NextCursor *string
}

// listPage reads the tools and the cursor of one tools/list result (valid JSON: the
// response it came in was checked).
func listPage(result json.RawMessage) (toolsListPage, error) {
	var p toolsListPage
	r := bytes.TrimSpace(result)
	if jsonscan.Valid(r) != nil || r[0] != '{' {
		return p, fmt.Errorf("the tools/list result is not an object: %s", abbreviate(r, 60))
	}
	var bad error
	jsonscan.MembersTrusted(r, func(key, v []byte) bool {
		switch string(key) {
		case "tools":
			p.Tools = v
		case "nextCursor":
			p.NextCursor = nil
			if string(v) == "null" {
				break
			}
			c, ok := jsonscan.String(v)
			if !ok {
				bad = fmt.Errorf("the tools/list result's nextCursor is %s, not a string", jsonKind(v))
				return false
			}
			p.NextCursor = &c
		}
		return true
	})
	return p, bad
}

// toolsPage fetches one page of tools/list as the raw result.
func (s *Session) toolsPage(ctx context.Context, cursor string) (json.RawMessage, error) {
	rctx, rt := s.startRequest(ctx, "tools/list")
	defer rt.stop()
	for attempt := 0; ; attempt++ {
		cs := s.session()
		cctx, capture := rt.capture(rctx)
		_, err := cs.ListTools(cctx, &mcp.ListToolsParams{Cursor: cursor})
		raw, ok := capture.Last("tools/list")
		switch {
		case ok:
			result, perr := parseResponse(raw)
			if perr != nil {
				return nil, perr
			}
			s.mu.Lock()
			s.toolPages[cursor] = result
			s.mu.Unlock()
			return result, nil
		case err != nil:
			if attempt == 0 && rctx.Err() == nil && s.sessionExpired(err, capture) {
				if rerr := s.reinitialize(ctx, cs); rerr != nil {
					return nil, rerr
				}
				continue
			}
			return nil, s.requestError(ctx, rctx, err, capture)
		default:
			// Served from the SDK's 2026-07-28 cache: use the page as it came last time.
			s.mu.Lock()
			result := s.toolPages[cursor]
			s.mu.Unlock()
			return result, nil
		}
	}
}

// CallOptions configures one call.
type CallOptions struct {
	OnProgress func(Progress)
}

// Call calls a tool. A JSON-RPC error comes back as *RPCError; a tool error is a
// result with IsError set. Cancelling ctx cancels the call on the server
// (notifications/cancelled, or closing the stream over 2026-07-28 HTTP) and returns
// ctx.Err(). With Options.Timeout the call always asks for progress, and each
// progress notification restarts its timeout; a timeout is a *TimeoutError.
func (s *Session) Call(ctx context.Context, name string, args json.RawMessage, opts CallOptions) (*CallResult, error) {
	rctx, rt := s.startRequest(ctx, fmt.Sprintf("tools/call %q", name))
	defer rt.stop()
	params := &mcp.CallToolParams{Name: name}
	if len(args) > 0 {
		params.Arguments = args
	}
	if m := s.logMeta(); m != nil {
		params.Meta = m
	}
	if opts.OnProgress != nil || s.opts.Timeout > 0 {
		token := "mcpscope-" + strconv.FormatInt(s.token.Add(1), 10)
		s.progress.Store(token, func(p Progress) {
			rt.progressed()
			if opts.OnProgress != nil {
				opts.OnProgress(p)
			}
		})
		defer s.progress.Delete(token)
		params.SetProgressToken(token)
	}
	for attempt := 0; ; attempt++ {
		cs := s.session()
		cctx, capture := rt.capture(rctx)
		_, err := cs.CallTool(cctx, params)
		if s.afterCallTool != nil {
			s.afterCallTool()
		}
		raw, ok := capture.Last("tools/call")
		if !ok {
			if err == nil {
				err = errors.New("no response was seen for the call")
			}
			// A 404 for an ended session means the server never ran the call.
			if attempt == 0 && rctx.Err() == nil && s.sessionExpired(err, capture) {
				if rerr := s.reinitialize(ctx, cs); rerr != nil {
					return nil, rerr
				}
				continue
			}
			return nil, s.requestError(ctx, rctx, err, capture)
		}
		result, validated, perr := parseResponseScan(raw)
		if perr != nil {
			return nil, perr
		}
		// The captured frame never changes, so the result's strings may share it: a
		// 100 MiB text block is then held once, in the frame.
		r, fast := decodeCallResultFast(result, validated, true)
		if !fast {
			r = decodeCallResultTolerant(result)
		}
		if err != nil && r.ResultType == "input_required" && errors.Is(err, ErrSamplingRejected) && rctx.Err() == nil {
			return nil, errSamplingRejectedRoundTrip
		}
		if err != nil {
			r.SDKError = err.Error()
		}
		return r, nil
	}
}

// errSamplingRejectedRoundTrip ends a 2026-07-28 request (tools/call, prompts/get,
// resources/read) whose sampling request the user rejected. The round trip stops
// there: 2026-07-28 has no way to send a rejection, so the server is sent no retry,
// and the interim input_required answer is not the request's result (it has no
// content: shown, it read as "(no content)"). Other ends of a round trip keep the
// interim answer, so that a caller can say which input was asked for.
var errSamplingRejectedRoundTrip = fmt.Errorf("%w: the server asked for a model reply (input_required) and the request was not retried, so the server got no reply (2026-07-28 has no way to send a rejection)", ErrSamplingRejected)

// requestMeta is what every request carries in params._meta (the trace context).
func (o Options) requestMeta() wire.RequestMeta {
	m := wire.RequestMeta{}
	if o.TraceParent != "" {
		m["traceparent"] = o.TraceParent
	}
	if o.TraceState != "" {
		m["tracestate"] = o.TraceState
	}
	return m
}

// Raw sends a hand-written request and returns the raw response message. On a
// 2026-07-28 session the required _meta members are added when params lack them.
// Over HTTP it is a POST of its own with the session's headers (Mcp-Session-Id and
// MCP-Protocol-Version, or Mcp-Method and Mcp-Name on 2026-07-28).
func (s *Session) Raw(ctx context.Context, method string, params json.RawMessage) (json.RawMessage, error) {
	if s.info.Era == EraModern {
		var err error
		if params, err = s.withModernMeta(params); err != nil {
			return nil, err
		}
	}
	rctx, rt := s.startRequest(ctx, method)
	defer rt.stop()
	var raw json.RawMessage
	var err error
	if s.h != nil {
		raw, err = s.rawHTTP(rctx, method, params)
		if err != nil {
			if te := timeoutErr(rctx); te != nil && ctx.Err() == nil {
				return nil, te
			}
			return nil, err
		}
		return raw, nil
	}
	raw, err = s.tr.Conn().RawCall(rctx, method, params)
	if err != nil {
		return nil, s.requestError(ctx, rctx, err, nil)
	}
	return raw, nil
}

func (s *Session) withModernMeta(params json.RawMessage) (json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	if len(params) > 0 {
		if err := json.Unmarshal(params, &m); err != nil {
			return nil, &UsageError{Msg: "params must be a JSON object: " + err.Error()}
		}
	}
	meta := map[string]json.RawMessage{}
	if m["_meta"] != nil {
		if err := json.Unmarshal(m["_meta"], &meta); err != nil {
			return nil, &UsageError{Msg: "params._meta must be a JSON object"}
		}
	}
	set := func(k string, v any) {
		if _, ok := meta[k]; !ok {
			meta[k], _ = json.Marshal(v)
		}
	}
	set("io.modelcontextprotocol/protocolVersion", s.info.ProtocolVersion)
	caps := s.declared
	if caps == nil {
		caps = map[string]any{}
	}
	set("io.modelcontextprotocol/clientCapabilities", caps)
	name, version := s.clientInfo()
	set("io.modelcontextprotocol/clientInfo", map[string]string{"name": name, "version": version})
	m["_meta"], _ = json.Marshal(meta)
	return json.Marshal(m)
}

// clientInfo is the name and version the session sends: Options', or mcpscope's.
func (s *Session) clientInfo() (name, version string) {
	if s.clientName == "" {
		return "mcpscope", Version
	}
	return s.clientName, s.clientVersion
}

// LastStderr returns the server's last stderr lines (none over HTTP).
func (s *Session) LastStderr() []string {
	if s.tr == nil {
		return nil
	}
	if c := s.tr.Conn(); c != nil {
		return c.LastStderr()
	}
	return nil
}
