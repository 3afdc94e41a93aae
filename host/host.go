// Package host is mcpscope's bundled MCP server ("mcpscope host"), built on the official
// Go SDK's server.
//
// It serves demo tools that exercise the whole protocol (content of every type,
// annotations, progress, cancellation, logging, elicitation in both eras, list_changed,
// resources, prompts and completion), tools loaded from a tool file (see package
// toolfile), or both; that surface is spec-clean, and the deliberate protocol faults
// clients are tested against are served only when asked (Options.Faults, faults.go).
// One *mcp.Server is served over stdio (NDJSON or Content-Length
// framing, see ServeStdio) or stateless Streamable HTTP for the 2025 and 2026-07-28 eras
// on one endpoint (see NewHTTPHandler and ServeHTTP).
package host

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/host/toolfile"
	"github.com/mcpscope/mcpscope/internal/readfile"
	"github.com/mcpscope/mcpscope/watch"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Name is the server name the host reports in serverInfo.
const Name = "mcpscope-host"

// DefaultWatchInterval is the quiet time after the last write to the tool file before
// it is reloaded (the file is watched with fsnotify, not polled).
const DefaultWatchInterval = 100 * time.Millisecond

// fallbackPoll is how often the tool file is polled when the system cannot watch it
// (no inotify watches left, say).
const fallbackPoll = 300 * time.Millisecond

// Options configure a Host.
type Options struct {
	// ToolFile is the path of a tool file ({"tools":[…]}). Empty: no file tools.
	ToolFile string
	// Demo serves the demo tools, resources and prompts alongside the tool file's
	// tools. They are always served when ToolFile is empty.
	Demo bool
	// Logger receives the host's diagnostics (tool file reloads and errors, tool
	// stderr). Nil discards them. The SDK's own logging goes here at Warn and above.
	Logger *slog.Logger
	// Version is reported in serverInfo. Empty means "dev".
	Version string
	// Conformance serves, beside the demo, the fixtures the official conformance
	// suite's server scenarios call (see conformance.go), and makes HTTPHandler keep
	// sessions for 2025 clients (HTTPOptions.Sessions). It implies Demo and cannot be
	// combined with a ToolFile.
	Conformance bool
	// Faults serves the deliberate protocol faults (faults.go: bad_output, whose
	// structuredContent breaks its own outputSchema) as fixtures for clients. Off, the
	// host's surface is spec-clean. Neither Demo nor Conformance implies it: the
	// conformance suite calls none of them, and a conformance run should meet a
	// conformant server.
	Faults bool
	// WatchInterval is the quiet time after a write to the tool file before it is
	// reloaded (a burst of writes is one reload); zero means DefaultWatchInterval, a
	// negative value turns watching off.
	WatchInterval time.Duration

	// afterFirstRead, in tests, runs after New has read the tool file for the first
	// time: an edit made there must still be seen.
	afterFirstRead func()
}

// Host is a running bundled host: an *mcp.Server with its demo state and, when a tool
// file is given, the goroutine that watches it. Close stops the watcher.
type Host struct {
	server *mcp.Server
	log    *slog.Logger
	opts   Options

	mu         sync.Mutex
	fileTools  []string // names registered from the tool file
	lastSeen   []byte   // tool file content last acted on (installed, or reported as broken)
	pendingBad []byte   // broken content seen once by the fallback poll, reported if the next poll sees it again
	lastErr    error    // the error of the last reload, nil if it was good
	demo       *demoState
	tasks      *taskStore // the tools that run as tasks, and their tasks (with the demo)

	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once

	testSlowDone func(error) // tests: called when the slow tool stops on cancellation
}

// New builds the host's server. With a tool file, the file must load: a broken file is
// an error here (a broken edit later keeps the last good set instead).
func New(opts Options) (*Host, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	if opts.Conformance && opts.ToolFile != "" {
		return nil, fmt.Errorf("the conformance profile serves the demo and the suite's fixtures; it cannot be combined with a tool file")
	}
	if opts.ToolFile == "" {
		opts.Demo = true
	}
	h := &Host{log: log, opts: opts, stop: make(chan struct{}), done: make(chan struct{})}

	instructions := "mcpscope's bundled tool host."
	if opts.Demo {
		instructions += " Its demo tools exercise the protocol; none of them touches the network."
	}
	if opts.ToolFile != "" {
		instructions += " Tools from " + opts.ToolFile + " run local commands."
	}
	if opts.Faults {
		instructions += " It also serves deliberate protocol faults (bad_output breaks its own output schema) as fixtures for clients."
	}
	sopts := &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       slog.New(minLevel{log.Handler(), slog.LevelWarn}),
		Capabilities: &mcp.ServerCapabilities{
			//lint:ignore SA1019 the logging API, deprecated by 2026-07-28 (SEP-2577), is what servers on earlier versions speak
			Logging: &mcp.LoggingCapabilities{},
			Tools:   &mcp.ToolCapabilities{ListChanged: true},
		},
	}
	if opts.Demo {
		sopts.CompletionHandler = complete
		// Subscriptions are kept by the SDK; the handlers only accept them.
		sopts.SubscribeHandler = func(context.Context, *mcp.SubscribeRequest) error { return nil }
		sopts.UnsubscribeHandler = func(context.Context, *mcp.UnsubscribeRequest) error { return nil }
		sopts.Capabilities.Resources = &mcp.ResourceCapabilities{Subscribe: true, ListChanged: true}
		sopts.Capabilities.Prompts = &mcp.PromptCapabilities{}
		// directoryRead: the host answers resources/directory/read (skilldirs.go).
		sopts.Capabilities.Extensions = map[string]any{skillsExtension: map[string]any{"directoryRead": true}, tasksExt: map[string]any{}}
	}
	h.server = mcp.NewServer(&mcp.Implementation{Name: Name, Title: "mcpscope bundled host", Version: opts.Version}, sopts)
	h.server.AddReceivingMiddleware(versionGuard, h.echoTrace)

	if opts.Demo {
		h.demo = newDemoState()
		h.addDemo()
		h.addPrimitives()
		h.addTasks()
		if opts.Conformance {
			h.addConformance()
		}
	}
	if opts.Faults {
		h.addFaults()
	}
	h.server.AddReceivingMiddleware(completeResults)
	if opts.ToolFile != "" {
		// The watch is in place before the first read: an edit made between the read
		// and the watch would otherwise never be seen (the file would be served as it
		// was until the next edit). A change the watch reports for content the read
		// already got is dropped by reload, which compares.
		var w *watch.Watcher
		var werr error
		if opts.WatchInterval >= 0 {
			w, werr = watch.New([]string{opts.ToolFile}, h.watchInterval())
		}
		f, data, err := h.firstRead()
		if err != nil {
			if w != nil {
				w.Close()
			}
			return nil, err
		}
		h.install(f, data)
		if opts.afterFirstRead != nil {
			opts.afterFirstRead()
		}
		if opts.WatchInterval >= 0 {
			go h.watch(w, werr)
			return h, nil
		}
	}
	close(h.done)
	return h, nil
}

// Server returns the MCP server, to serve over any transport.
func (h *Host) Server() *mcp.Server { return h.server }

// Close stops watching the tool file. It does not close sessions: cancel the context
// given to ServeStdio or ServeHTTP for that.
func (h *Host) Close() error {
	h.closeOnce.Do(func() { close(h.stop) })
	<-h.done
	return nil
}

// ToolFileError reports the error of the last tool file reload, or nil when the tools
// served are the file's current content.
func (h *Host) ToolFileError() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.lastErr
}

// firstRead reads and checks the tool file when the host starts.
func (h *Host) firstRead() (*toolfile.File, []byte, error) {
	data, err := readfile.Read(h.opts.ToolFile, readfile.MaxConfig)
	if err != nil {
		return nil, nil, fmt.Errorf("reading tool file: %w", err)
	}
	f, err := h.load(data)
	if err != nil {
		return nil, nil, err
	}
	return f, data, nil
}

func (h *Host) watchInterval() time.Duration {
	if h.opts.WatchInterval == 0 {
		return DefaultWatchInterval
	}
	return h.opts.WatchInterval
}

// watch reloads the tool file when w reports a change; err is watch.New's, when the
// file could not be watched (then the file is polled).
func (h *Host) watch(w *watch.Watcher, err error) {
	defer close(h.done)
	if err != nil {
		h.log.Warn("cannot watch the tool file; polling it instead", "file", h.opts.ToolFile, "every", fallbackPoll, "err", err)
		h.poll()
		return
	}
	defer w.Close()
	for {
		select {
		case <-h.stop:
			return
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			if ev.Kind == watch.Changed {
				h.reload(true)
			}
		}
	}
}

// poll checks the tool file every fallbackPoll, for systems that cannot watch it.
func (h *Host) poll() {
	t := time.NewTicker(fallbackPoll)
	defer t.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-t.C:
			h.reload(false)
		}
	}
}

// reload re-reads the tool file if its content changed since it was last looked at.
// A good file replaces the file's tools (the SDK then sends
// notifications/tools/list_changed); a broken one keeps the last good set, and the
// error goes to the logger and, as a notifications/message, to connected clients. A
// settled says the content is the end of a burst of writes (the watcher's debounce);
// otherwise (the fallback poll) broken content is reported only when two polls in a
// row see it, so an editor that writes a file in steps does not cause a false alarm.
// Only the watcher calls it.
func (h *Host) reload(settled bool) {
	data, err := readfile.Read(h.opts.ToolFile, readfile.MaxConfig)
	if err != nil {
		err = fmt.Errorf("reading tool file: %w", err)
		h.mu.Lock()
		already := h.lastErr != nil && h.lastErr.Error() == err.Error()
		h.lastSeen, h.pendingBad, h.lastErr = nil, nil, err
		h.mu.Unlock()
		if !already {
			h.reportReloadError(err)
		}
		return
	}
	h.mu.Lock()
	unchanged := bytes.Equal(data, h.lastSeen)
	h.mu.Unlock()
	if unchanged {
		return
	}
	f, err := h.load(data)
	if err != nil {
		h.mu.Lock()
		settled = settled || bytes.Equal(data, h.pendingBad)
		if settled {
			h.lastSeen, h.pendingBad, h.lastErr = data, nil, err
		} else {
			h.pendingBad = data
		}
		h.mu.Unlock()
		if settled {
			h.reportReloadError(err)
		}
		return
	}
	h.install(f, data)
	h.log.Info("tool file reloaded", "file", h.opts.ToolFile, "tools", len(f.Tools))
}

func (h *Host) reportReloadError(err error) {
	msg := fmt.Sprintf("tool file edit rejected, still serving the last good tools: %v", err)
	h.log.Error(msg)
	h.notifyLog(msg)
}

// load validates data as the tool file.
func (h *Host) load(data []byte) (*toolfile.File, error) {
	f, err := toolfile.Parse(h.opts.ToolFile, data)
	if err != nil {
		return nil, err
	}
	for i, t := range f.Tools {
		if h.opts.Demo && isDemoTool(t.Name) {
			return nil, fmt.Errorf("%s: tools[%d] (%q): the name is taken by a demo tool; rename it or serve without demo tools", f.Path, i, t.Name)
		}
		if h.opts.Faults && isFaultTool(t.Name) {
			return nil, fmt.Errorf("%s: tools[%d] (%q): the name is taken by a fault fixture; rename it or serve without --faults", f.Path, i, t.Name)
		}
	}
	if err := sdkAccepts(f); err != nil {
		return nil, err
	}
	return f, nil
}

// install makes f's tools the served set, data the content last seen.
func (h *Host) install(f *toolfile.File, data []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var names []string
	for _, t := range f.Tools {
		names = append(names, t.Name)
	}
	var gone []string
	for _, n := range h.fileTools {
		if !slices.Contains(names, n) {
			gone = append(gone, n)
		}
	}
	if len(gone) > 0 {
		h.server.RemoveTools(gone...)
	}
	for _, t := range f.Tools {
		h.server.AddTool(t.MCPTool(), h.fileToolHandler(t))
	}
	h.fileTools = names
	h.lastSeen, h.pendingBad, h.lastErr = data, nil, nil
}

// sdkAccepts registers f's tools on a scratch server, turning the SDK's panics on tools
// it refuses (an invalid x-mcp-header annotation, for one) into an error.
func sdkAccepts(f *toolfile.File) (err error) {
	scratch := mcp.NewServer(&mcp.Implementation{Name: "check"}, &mcp.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	for i, t := range f.Tools {
		func() {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("%s: tools[%d] (%q): rejected by the MCP SDK: %v", f.Path, i, t.Name, r)
				}
			}()
			scratch.AddTool(t.MCPTool(), func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return nil, nil })
		}()
		if err != nil {
			return err
		}
	}
	return nil
}

func (h *Host) fileToolHandler(t *toolfile.Tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, out, err := t.Call(ctx, req.Params.Arguments)
		if out.Stderr != "" {
			h.log.Info("tool stderr", "tool", t.Name, "exit", out.ExitCode, "stderr", out.Stderr)
		}
		return res, err
	}
}

// notifyLog sends msg as an error-level notifications/message to every connected
// session that asked for log messages.
func (h *Host) notifyLog(msg string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for ss := range h.server.Sessions() {
		//lint:ignore SA1019 the logging API, deprecated by 2026-07-28 (SEP-2577), is what servers on earlier versions speak
		_ = ss.Log(ctx, &mcp.LoggingMessageParams{Level: "error", Logger: Name, Data: msg})
	}
}

// versionGuard answers a request whose _meta names a protocol version the server does
// not support with -32022 and data.supported. The SDK does so for unsupported versions
// from 2026-07-28 on, but lets an older unknown one (1900-01-01, say) through.
// completeResult is a result of the host's own methods (AddReceivingCustomMethod),
// which the SDK does not mark with resultType as it marks its own results.
type completeResult interface{ markComplete() }

// resultTypeField gives a custom result type the resultType member every
// 2026-07-28 result carries (mcp-wire.md §4.3); embed it.
type resultTypeField struct {
	ResultType string `json:"resultType,omitempty"`
}

func (r *resultTypeField) markComplete() {
	if r.ResultType == "" {
		r.ResultType = "complete"
	}
}

// cacheFields gives a custom list or get result the ttlMs and cacheScope that
// 2026-07-28 requires on them (skills/list and skills/get: mcp-wire.md §4.7, §6.7);
// embed it. Before 2026-07-28 they stay absent.
type cacheFields struct {
	TTLMs      *int   `json:"ttlMs,omitempty"`
	CacheScope string `json:"cacheScope,omitempty"`
}

// markCacheable sets what the SDK sets on its own lists: immediately stale (the
// demo's lists change), cacheable by anyone.
func (c *cacheFields) markCacheable() {
	if c.TTLMs == nil {
		c.TTLMs = new(int)
	}
	if c.CacheScope == "" {
		c.CacheScope = "public"
	}
}

// completeResults marks every custom result of a 2026-07-28 request "complete"
// (unless it already says otherwise), and gives the cacheable ones their cache
// fields, so that no method the host adds can forget them: the TypeScript SDK v2
// client rejects a result without them. New adds it last, outermost, so it also
// sees the results other middleware makes.
func completeResults(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil || res == nil || reflect.ValueOf(res).IsNil() {
			return res, err
		}
		if isModern, _ := modern(req); isModern {
			if r, ok := res.(completeResult); ok {
				r.markComplete()
			}
			if r, ok := res.(interface{ markCacheable() }); ok {
				r.markCacheable()
			}
		}
		return res, nil
	}
}

func versionGuard(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		p := req.GetParams()
		if p == nil || reflect.ValueOf(p).IsNil() {
			return next(ctx, method, req)
		}
		v, ok := p.GetMeta()["io.modelcontextprotocol/protocolVersion"].(string)
		if !ok || slices.Contains(mcp.SupportedProtocolVersions(), v) {
			return next(ctx, method, req)
		}
		data, _ := json.Marshal(mcp.UnsupportedProtocolVersionData{Supported: mcp.SupportedProtocolVersions(), Requested: v})
		return nil, &jsonrpc.Error{
			Code:    mcp.CodeUnsupportedProtocolVersion,
			Message: fmt.Sprintf("unsupported protocol version %q", v),
			Data:    data,
		}
	}
}

// minLevel passes on only records at or above a level.
type minLevel struct {
	slog.Handler
	min slog.Level
}

func (m minLevel) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= m.min && m.Handler.Enabled(ctx, l)
}

func (m minLevel) WithAttrs(a []slog.Attr) slog.Handler {
	return minLevel{m.Handler.WithAttrs(a), m.min}
}

func (m minLevel) WithGroup(name string) slog.Handler {
	return minLevel{m.Handler.WithGroup(name), m.min}
}

var _ io.Closer = (*Host)(nil)
