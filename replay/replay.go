// Package replay runs mcpscope recordings again: as a golden test against a live
// server (Run, and Golden inside go test), and as a mock server that answers from a
// recording (Mock).
//
// A golden replay connects to the server afresh with mcpscope's client (so the era is
// negotiated again: a 2025-era recording replays against a dual-era server), skips the
// recorded handshake, sends each recorded request that was answered with a fresh id,
// waits for the response and compares it with the recorded one as JSON. Notifications
// that arrive while a request is pending are compared as a multiset (or in order with
// StrictOrder), a listing's items by name (or by position with StrictOrder).
package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/plural"
	"github.com/mcpscope/mcpscope/record"
	"github.com/mcpscope/mcpscope/target"
)

// DefaultTimeout bounds each exchange when Options.Timeout is zero.
const DefaultTimeout = time.Minute

// Options configure a golden replay.
type Options struct {
	// Client says how to start and talk to the server (environment, framing, grace…).
	// Its Tap, if set, also receives the replay's wire events (--trace, --record).
	Client client.Options
	// Ignore lists JSON-pointer patterns to ignore on top of DefaultIgnore and the
	// recording's own header "ignore" list.
	Ignore []string
	// StrictOrder compares the notifications of each exchange in order rather than as
	// a multiset, and a listing's items (tools/list's tools…) by position rather than
	// by name.
	StrictOrder bool
	// Update makes Report.Updated a copy of the recording in which the exchanges that
	// differ have the live server's response and notifications.
	Update bool
	// Redact applies to what Update writes (the recording was redacted when made).
	Redact *record.Redactor
	// Timeout bounds each exchange; zero means DefaultTimeout.
	Timeout time.Duration
	// Only, when set, runs only the exchanges named: by their JSON-RPC id (a saved
	// collection names its calls TOOL-N) or by the tool or prompt they name. The rest
	// are skipped; a name that matches nothing is a usage error.
	Only []string

	// hostAnswers: a tapped recording's answers to the server's requests (Run and
	// RunFile read them).
	hostAnswers *hostAnswers
}

// Report is the outcome of a golden replay.
//
// Its JSON (replay --format json) uses camelCase members, like --inspect's; the
// lists are [] when empty.
type Report struct {
	Replayed  int       `json:"replayed"` // exchanges sent and compared
	Equal     int       `json:"equal"`
	Handshake int       `json:"handshake"` // handshake exchanges skipped (negotiated afresh)
	Failures  []Failure `json:"failures"`
	Skipped   []Skipped `json:"skipped"`
	// Operations are the exchanges made of several recorded requests (an
	// input_required round trip, a task and its polls), equal or not.
	Operations []Operation `json:"operations"`
	// ClientNotifications counts recorded client notifications other than
	// notifications/initialized, which replay does not send.
	ClientNotifications int      `json:"clientNotifications"`
	Warnings            []string `json:"warnings"`
	RecordedEra         string   `json:"recordedEra"`
	LiveEra             string   `json:"liveEra"`
	LiveVersion         string   `json:"liveVersion"`
	// Host is the host a tapped recording was made with ("name version"), whose
	// clientInfo and protocol version the replay used; "" for other recordings.
	Host string `json:"host,omitempty"`
	// Updated is the rewritten recording when Options.Update was set.
	Updated *record.Recording `json:"-"`
}

// OK reports whether every replayed exchange matched.
func (r *Report) OK() bool { return len(r.Failures) == 0 }

// Failure is one exchange that did not match.
type Failure struct {
	Exchange int     `json:"exchange"` // 1-based, counting the recording's requests
	Line     int     `json:"line"`     // the request's line in the recording
	Request  string  `json:"request"`  // method and a short form of its params
	Diffs    []Where `json:"diffs"`
	Err      string  `json:"error,omitempty"` // the exchange could not be completed (timeout, server gone)
	// Operation names an operation of several requests (an input_required round
	// trip, a task and its polls) compared as this one exchange; "" for one request.
	Operation string `json:"operation,omitempty"`
}

// Where is a difference in one message of an exchange.
type Where struct {
	In string `json:"in"` // "response", or a notification: "notifications/progress", "notifications/message #2"
	Diff
}

// MarshalJSON writes the report with [] for an empty list, never null.
func (r Report) MarshalJSON() ([]byte, error) {
	type plain Report
	p := plain(r)
	if p.Failures == nil {
		p.Failures = []Failure{}
	}
	if p.Skipped == nil {
		p.Skipped = []Skipped{}
	}
	if p.Operations == nil {
		p.Operations = []Operation{}
	}
	if p.Warnings == nil {
		p.Warnings = []string{}
	}
	return json.Marshal(p)
}

// MarshalJSON writes the failure with [] for no diffs.
func (f Failure) MarshalJSON() ([]byte, error) {
	type plain Failure
	p := plain(f)
	if p.Diffs == nil {
		p.Diffs = []Where{}
	}
	return json.Marshal(p)
}

// Skipped is a recorded request that was not replayed, and why.
type Skipped struct {
	Exchange int    `json:"exchange"`
	Line     int    `json:"line"`
	Request  string `json:"request"`
	Reason   string `json:"reason"`
}

// WriteText prints the differences per exchange and a summary line.
func (r *Report) WriteText(w io.Writer) {
	for _, o := range r.Operations {
		if o.Equal {
			fmt.Fprintf(w, "exchange %d (line %d): %s: %s: equal\n", o.Exchange, o.Line, o.Request, o.Operation)
		}
	}
	for _, f := range r.Failures {
		if f.Operation != "" {
			fmt.Fprintf(w, "exchange %d (line %d): %s: %s\n", f.Exchange, f.Line, f.Request, f.Operation)
		} else {
			fmt.Fprintf(w, "exchange %d (line %d): %s\n", f.Exchange, f.Line, f.Request)
		}
		if f.Err != "" {
			fmt.Fprintf(w, "  %s\n", f.Err)
		}
		for _, d := range f.Diffs {
			fmt.Fprintf(w, "  %s %s\n", d.In, d.Path)
			fmt.Fprintf(w, "    expected: %s\n", d.Expected)
			fmt.Fprintf(w, "    got:      %s\n", d.Got)
		}
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(w, "skipped exchange %d (line %d): %s: %s\n", s.Exchange, s.Line, s.Request, s.Reason)
	}
	fmt.Fprintln(w, r.Summary())
}

// Summary is one line: how many exchanges matched.
func (r *Report) Summary() string {
	var b strings.Builder
	if r.OK() {
		fmt.Fprintf(&b, "replay: all %d exchanges equal", r.Replayed)
	} else {
		fmt.Fprintf(&b, "replay: %d of %d exchanges differ", len(r.Failures), r.Replayed)
	}
	var notes []string
	if r.Host != "" {
		notes = append(notes, "as the host "+r.Host)
	}
	if r.LiveEra != "" {
		era := fmt.Sprintf("%s era (%s)", r.LiveEra, r.LiveVersion)
		if r.RecordedEra != "" && r.RecordedEra != r.LiveEra {
			era += ", recorded in the " + r.RecordedEra + " era"
		}
		notes = append(notes, era)
	}
	if r.Handshake > 0 {
		notes = append(notes, plural.Count(r.Handshake, "handshake request")+" negotiated afresh")
	}
	if len(r.Skipped) > 0 {
		notes = append(notes, fmt.Sprintf("%d skipped", len(r.Skipped)))
	}
	if r.ClientNotifications > 0 {
		notes = append(notes, plural.Count(r.ClientNotifications, "client notification")+" not sent")
	}
	if len(notes) > 0 {
		b.WriteString(" (" + strings.Join(notes, "; ") + ")")
	}
	return b.String()
}

// removedIn2026 are methods a 2026-07-28 server no longer has: a legacy recording's
// calls to them are skipped when the live session is modern.
var removedIn2026 = map[string]bool{
	"ping": true, "logging/setLevel": true, "resources/subscribe": true, "resources/unsubscribe": true,
	"tasks/list": true, "tasks/result": true,
}

// Run replays rec against the server target starts. It returns an error only when
// the replay could not start (bad options, the server would not connect); differences
// and an exchange the server failed are in the report.
func Run(ctx context.Context, rec *record.Recording, target target.Target, opts Options) (*Report, error) {
	xs := rec.Exchanges()
	if len(opts.Only) > 0 {
		if err := checkOnly(slices.Values(xs), opts.Only); err != nil {
			return nil, err
		}
	}
	src := &memorySource{xs: xs}
	if hostOf(rec.Header) != nil {
		i := 0
		opts.hostAnswers = collectHostAnswers(func() *record.Event {
			for ; i < len(rec.Events); i++ {
				if rec.Events[i].IsMessage() {
					i++
					return &rec.Events[i-1]
				}
			}
			return nil
		})
	}
	report, lives, err := run(ctx, rec.Header, src, target, opts)
	if err != nil {
		return nil, err
	}
	report.Warnings = append(append([]string(nil), rec.Warnings...), report.Warnings...)
	report.ClientNotifications = countClientNotifications(rec)
	if opts.Update {
		report.Updated = updated(rec, lives, opts.Redact)
	}
	return report, nil
}

// RunFile replays the recording at path as Run does, reading it as the replay goes
// (record.Reader): what it holds is the exchanges still pending in the file, not the
// file, so memory stays flat in the size of the recording. server picks one server
// of a recording of several ("" for a recording of one). Options.Update needs the
// whole recording to rewrite it, so it loads the file and runs Run.
func RunFile(ctx context.Context, path, server string, target target.Target, opts Options) (*Report, error) {
	if opts.Update {
		rec, err := record.Load(path)
		if err != nil {
			return nil, err
		}
		if rec, err = rec.ForServer(server); err != nil {
			return nil, &client.UsageError{Msg: err.Error()}
		}
		return Run(ctx, rec, target, opts)
	}
	if len(opts.Only) > 0 {
		// --only names nothing is a usage error said before the replay starts: one
		// pass over the file that keeps no exchange.
		src, err := openFile(path, server)
		if err != nil {
			return nil, err
		}
		err = checkOnly(src.all(), opts.Only)
		src.close()
		if err != nil {
			return nil, err
		}
	}
	src, err := openFile(path, server)
	if err != nil {
		return nil, err
	}
	defer src.close()
	if hostOf(src.header) != nil {
		// One pass for the host's answers to the server's requests: only those are
		// kept, so memory stays flat in the size of the recording.
		r, err := record.Open(path)
		if err != nil {
			return nil, err
		}
		opts.hostAnswers = collectHostAnswers(func() *record.Event {
			ev, err := r.Next()
			if err != nil {
				return nil
			}
			return ev
		})
		r.Close()
	}
	report, _, err := run(ctx, src.header, src, target, opts)
	if err != nil {
		return nil, err
	}
	if src.err != nil {
		return nil, src.err
	}
	report.Warnings = append(append([]string(nil), src.r.Warnings...), report.Warnings...)
	report.ClientNotifications = src.clientNotes
	return report, nil
}

// source is where a replay takes its exchanges from, in the order their requests
// were sent: a recording in memory, or one read from its file as the replay goes.
type source interface {
	// next returns the next exchange, or nil at the end.
	next() *record.Exchange
}

// hostOf is the host of a recording made by mcpscope tap (its client), or nil.
func hostOf(h record.Header) *record.Peer {
	if !h.Tapped || h.Client == nil || h.Client.Name == "" {
		return nil
	}
	return h.Client
}

// peekVersion reads src's handshake (the exchanges up to the first that is not one)
// for the protocol version it ran at, and returns a source that hands them out
// again first.
func peekVersion(src source) (source, string) {
	var head []*record.Exchange
	for x := src.next(); x != nil; x = src.next() {
		head = append(head, x)
		if !x.Handshake() {
			break
		}
	}
	_, version := record.Era(head)
	return &peeked{head: head, rest: src}, version
}

// peeked hands out head, then rest.
type peeked struct {
	head []*record.Exchange
	rest source
}

func (p *peeked) next() *record.Exchange {
	if len(p.head) > 0 {
		x := p.head[0]
		p.head = p.head[1:]
		return x
	}
	return p.rest.next()
}

// memorySource hands out the exchanges of a recording in memory.
type memorySource struct {
	xs []*record.Exchange
	i  int
}

func (m *memorySource) next() *record.Exchange {
	if m.i == len(m.xs) {
		return nil
	}
	m.i++
	return m.xs[m.i-1]
}

// fileSource pairs the events of a recording's file (record.Pairer) as they are
// read; it keeps the requests still pending and nothing else.
type fileSource struct {
	r           *record.Reader
	header      record.Header
	server      string
	p           record.Pairer
	n           int // events read
	clientNotes int
	done        bool  // the file is read to its end
	err         error // a read error: the replay's outcome is an error
}

// openFile opens a recording's file for a replay of one server (server "" for a
// recording of one): the header is the one ForServer would give.
func openFile(path, server string) (*fileSource, error) {
	r, err := record.Open(path)
	if err != nil {
		return nil, err
	}
	h := r.Header
	if server != "" || len(h.Servers) > 0 {
		// ForServer's header. A server added in the session is named by a line
		// further on (KindServer): then the whole file is read for the names.
		servers := h.Servers
		if !slices.ContainsFunc(servers, func(s record.Server) bool { return s.Name == server }) {
			for _, err := r.Next(); err == nil; _, err = r.Next() {
			}
			servers = r.Header.Servers
			r.Close()
			if r, err = record.Open(path); err != nil {
				return nil, err
			}
		}
		one, ferr := (&record.Recording{Header: record.Header{Servers: servers}}).ForServer(server)
		if ferr != nil {
			r.Close()
			return nil, &client.UsageError{Msg: ferr.Error()}
		}
		h.Servers, h.Version, h.Target = nil, record.Version, one.Header.Target
	}
	return &fileSource{r: r, header: h, server: server}, nil
}

func (f *fileSource) close() { f.r.Close() }

func (f *fileSource) next() *record.Exchange {
	for {
		if x := f.p.Next(); x != nil {
			return x
		}
		if f.done {
			return nil
		}
		ev, err := f.r.Next()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				f.err = err
			}
			f.p.End()
			f.done = true
			continue
		}
		if f.server != "" && ev.Server != f.server {
			continue
		}
		f.clientNotes += clientNotifications(ev)
		f.p.Add(f.n, ev)
		f.n++
	}
}

// all reads every exchange (for checkOnly: only their ids and names are kept).
func (f *fileSource) all() iter.Seq[*record.Exchange] {
	return func(yield func(*record.Exchange) bool) {
		for x := f.next(); x != nil; x = f.next() {
			if !yield(x) {
				return
			}
		}
	}
}

// live is what the server answered to an exchange that differed (for Update).
type live struct {
	x        *record.Exchange
	response json.RawMessage
	notes    []json.RawMessage
}

// run replays the exchanges of src, recorded with header h. With opts.Update it
// also returns the live answers of the exchanges that differ.
func run(ctx context.Context, h record.Header, src source, target target.Target, opts Options) (*Report, []live, error) {
	patterns, err := parsePatterns(append(append(append([]string{}, DefaultIgnore...), h.Ignore...), opts.Ignore...))
	if err != nil {
		return nil, nil, &client.UsageError{Msg: err.Error()}
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	report := &Report{}

	copts := opts.Client
	if host := hostOf(h); host != nil {
		report.Host = strings.TrimSpace(host.Name + " " + host.Version)
	}
	if copts.Framing == "" {
		// The framing the recording asked for (auto unless the user forced one).
		if f, ok := wire.ParseFraming(h.Target.Framing); ok {
			copts.Framing = f
		}
	}
	if host := hostOf(h); host != nil {
		// A host's recording (mcpscope tap): the replay is the host again, with its
		// clientInfo and at the version it ran (unless --protocol says otherwise),
		// so that a server that answers by either answers as it did.
		var version string
		src, version = peekVersion(src)
		if copts.Protocol == "" {
			copts.Protocol = version
		}
		if copts.ClientName == "" {
			copts.ClientName, copts.ClientVersion = host.Name, host.Version
		}
		if opts.hostAnswers != nil {
			opts.hostAnswers.apply(&copts)
		}
	}
	if copts.Tap == nil {
		copts.Tap = &wire.Tap{}
	}
	col := &collector{}
	remove := copts.Tap.Listen(col.listen)
	defer remove()
	s, err := client.Connect(ctx, target, copts)
	if err != nil {
		return nil, nil, err
	}
	defer s.Close()
	info := s.Info()
	report.LiveEra, report.LiveVersion = info.Era, info.ProtocolVersion

	// The matcher is made at the first exchange compared: the recorded era (of the
	// handshake, which comes first) decides how lenient it is.
	var m *Matcher
	matcher := func() *Matcher {
		if m == nil {
			m = newMatcher(patterns)
			m.listsByPosition = opts.StrictOrder
			if report.RecordedEra != "" && report.RecordedEra != report.LiveEra {
				extra, _ := parsePatterns(eraIgnore)
				m.patterns = append(m.patterns, extra...)
				m.eraLenient = true
			}
		}
		return m
	}

	var lives []live
	gone := false // the server stopped: the rest is skipped
	g := newGrouper(src)
	for x := g.next(); x != nil; x = g.next() {
		n := g.number(x)
		steps := g.follow(x) // the rest of x's operation (an input_required chain, a task)
		line := x.Line
		switch {
		case gone:
			// The server is gone: nothing more can be replayed.
			if !x.Handshake() && x.Response != nil {
				report.Skipped = append(report.Skipped, Skipped{n, line, describe(x), "not replayed: the server had stopped"})
			}
			continue
		case x.Handshake():
			report.Handshake++
			if report.RecordedEra == "" {
				report.RecordedEra, _ = record.Era([]*record.Exchange{x})
			}
			continue
		case len(opts.Only) > 0 && !onlyMatch(x, opts.Only):
			report.Skipped = append(report.Skipped, Skipped{n, line, describe(x), "not named by --only"})
			continue
		case x.Response == nil:
			report.Skipped = append(report.Skipped, Skipped{n, line, describe(x), "no response was recorded (cancelled, or the recording stopped first)"})
			continue
		case report.LiveEra == client.EraModern && report.RecordedEra == client.EraLegacy && removedIn2026[x.Method]:
			report.Skipped = append(report.Skipped, Skipped{n, line, describe(x), "the method does not exist in the 2026-07-28 era the server negotiated"})
			continue
		}
		params, perr := stripModernMeta(x.Params)
		if perr != nil {
			report.Skipped = append(report.Skipped, Skipped{n, line, describe(x), "its params are not a JSON object"})
			continue
		}
		report.Replayed++
		if len(steps) > 0 {
			if err := runOperation(ctx, report, s, col, matcher(), opts, n, x, steps); err != nil {
				if ctx.Err() != nil {
					return nil, nil, ctx.Err()
				}
				gone = true
			}
			continue
		}
		col.start()
		cctx, cancel := context.WithTimeout(ctx, opts.Timeout)
		resp, err := s.Raw(cctx, x.Method, params)
		cancel()
		notes := col.stop()
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			msg := err.Error()
			if errors.Is(err, context.DeadlineExceeded) {
				msg = fmt.Sprintf("no response within %v", opts.Timeout)
			}
			report.Failures = append(report.Failures, Failure{Exchange: n, Line: line, Request: describe(x), Err: msg})
			var se *client.ServerError
			if errors.As(err, &se) {
				gone = true // the server is gone: nothing more can be replayed
			}
			continue
		}
		scopes := []string{x.Method}
		if name := requestName(x.Params); name != "" {
			scopes = append(scopes, name)
		}
		var diffs []Where
		for _, d := range matcher().scoped(scopes...).Compare(x.Response, resp) {
			diffs = append(diffs, Where{In: "response", Diff: d})
		}
		diffs = append(diffs, compareNotifications(matcher(), scopes, x.Notifications, notes, opts.StrictOrder)...)
		if len(diffs) == 0 {
			report.Equal++
			continue
		}
		report.Failures = append(report.Failures, Failure{Exchange: n, Line: line, Request: describe(x), Diffs: diffs})
		if opts.Update {
			// Only what differs is rewritten, so that a golden's history shows real
			// changes, not new values of ignored fields.
			lives = append(lives, live{x, resp, notes})
		}
		// A server error after the response (it crashed) surfaces at the next Raw.
	}
	return report, lives, nil
}

// updated is rec with the live server's answers in place of the exchanges that
// differed (Options.Update).
func updated(rec *record.Recording, lives []live, red *record.Redactor) *record.Recording {
	upd := &record.Recording{Header: rec.Header, Warnings: rec.Warnings, Complete: true}
	now := time.Now().UTC()
	upd.Header.Updated = &now
	replace := map[int]live{}
	drop := map[int]bool{}
	for _, l := range lives {
		replace[l.x.ResponseEvent] = l
		for _, e := range l.x.NotificationEvents {
			drop[e] = true
		}
	}
	for i, ev := range rec.Events {
		if drop[i] && !isBatch(ev.Msg) {
			continue
		}
		l, ok := replace[i]
		if !ok || isBatch(ev.Msg) {
			upd.Events = append(upd.Events, ev)
			continue
		}
		for _, n := range l.notes {
			upd.Events = append(upd.Events, record.Event{T: ev.T, Kind: record.KindMessage, Dir: record.Recv, Msg: red.JSON(n)})
		}
		ev.Msg = red.JSON(withID(l.response, l.x.ID))
		upd.Events = append(upd.Events, ev)
	}
	return upd
}

func isBatch(msg json.RawMessage) bool {
	t := strings.TrimSpace(string(msg))
	return strings.HasPrefix(t, "[")
}

func countClientNotifications(rec *record.Recording) int {
	n := 0
	for i := range rec.Events {
		n += clientNotifications(&rec.Events[i])
	}
	return n
}

// clientNotifications counts the client notifications of an event other than
// notifications/initialized (which replay sends afresh; the others it does not send).
func clientNotifications(ev *record.Event) int {
	if !ev.IsMessage() || ev.Dir != record.Send {
		return 0
	}
	n := 0
	for _, raw := range record.Split(ev.Msg) {
		var m record.Message
		if json.Unmarshal(raw, &m) == nil && m.IsNotification() && m.Method != "notifications/initialized" {
			n++
		}
	}
	return n
}

// collector gathers the server notifications that arrive while an exchange is pending.
type collector struct {
	mu     sync.Mutex
	active bool
	notes  []json.RawMessage
}

func (c *collector) start() {
	c.mu.Lock()
	c.active, c.notes = true, nil
	c.mu.Unlock()
}

func (c *collector) stop() []json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.active = false
	n := c.notes
	c.notes = nil
	return n
}

func (c *collector) listen(e wire.Event) {
	if e.Kind != wire.KindMessage || e.Dir != wire.Recv || !bytes.Contains(e.Data, []byte(`"method"`)) {
		return // responses need no look
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.active {
		return
	}
	for _, raw := range record.Split(e.Data) {
		var m record.Message
		if json.Unmarshal(raw, &m) == nil && m.IsNotification() {
			c.notes = append(c.notes, append(json.RawMessage(nil), raw...))
		}
	}
}

// sessionMeta are the _meta members a modern session puts on every request; the live
// session adds its own. Other members (logLevel, progressToken) change what the server
// does and are sent as recorded; so are clientCapabilities that declare something
// (sampling, roots, elicitation): the server answers differently without them.
var sessionMeta = map[string]bool{
	"io.modelcontextprotocol/protocolVersion":    true,
	"io.modelcontextprotocol/clientCapabilities": true,
	"io.modelcontextprotocol/clientInfo":         true,
}

// stripModernMeta removes the session members of params._meta (see sessionMeta) and
// an _meta left empty.
func stripModernMeta(params json.RawMessage) (json.RawMessage, error) {
	if len(params) == 0 || string(params) == "null" {
		return nil, nil
	}
	if !strings.Contains(string(params), "io.modelcontextprotocol/") {
		return params, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(params, &m); err != nil {
		return nil, err
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(m["_meta"], &meta) == nil && meta != nil {
		for k, v := range meta {
			if k == "io.modelcontextprotocol/clientCapabilities" && declares(v) {
				continue
			}
			if sessionMeta[k] {
				delete(meta, k)
			}
		}
		if len(meta) == 0 {
			delete(m, "_meta")
		} else {
			m["_meta"], _ = json.Marshal(meta)
		}
	}
	return json.Marshal(m)
}

// declares reports whether recorded clientCapabilities declare anything.
func declares(caps json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(caps, &m) == nil && len(m) > 0
}

// withID returns msg with its top-level id set to id (compact JSON).
func withID(msg json.RawMessage, id string) json.RawMessage {
	var m map[string]json.RawMessage
	if json.Unmarshal(msg, &m) != nil {
		return msg
	}
	m["id"] = json.RawMessage(id)
	out, err := json.Marshal(orderedMessage(m))
	if err != nil {
		return msg
	}
	return out
}

// orderedMessage marshals a message's members in the usual order: jsonrpc, id,
// method, params, result, error, then the rest.
type orderedMessage map[string]json.RawMessage

func (o orderedMessage) MarshalJSON() ([]byte, error) {
	first := []string{"jsonrpc", "id", "method", "params", "result", "error"}
	var keys []string
	for _, k := range first {
		if _, ok := o[k]; ok {
			keys = append(keys, k)
		}
	}
	var rest []string
	for k := range o {
		switch k {
		case "jsonrpc", "id", "method", "params", "result", "error":
		default:
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	keys = append(keys, rest...)
	var b []byte
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		kb, _ := json.Marshal(k)
		b = append(b, kb...)
		b = append(b, ':')
		b = append(b, o[k]...)
	}
	return append(b, '}'), nil
}

// describe is a short form of a request for reports: method, the tool, prompt or
// resource it names, and its arguments.
func describe(x *record.Exchange) string {
	var p struct {
		Name      string          `json:"name"`
		URI       string          `json:"uri"`
		Arguments json.RawMessage `json:"arguments"`
		Cursor    *string         `json:"cursor"`
	}
	_ = json.Unmarshal(x.Params, &p)
	s := x.Method
	switch {
	case p.Name != "":
		s += " " + p.Name
	case p.URI != "":
		s += " " + p.URI
	}
	if len(p.Arguments) > 0 && string(p.Arguments) != "null" {
		a := string(p.Arguments)
		if len(a) > 120 {
			a = a[:120] + "…"
		}
		s += " " + a
	}
	if p.Cursor != nil {
		s += fmt.Sprintf(" (cursor %q)", *p.Cursor)
	}
	return s
}

// requestName is the tool or prompt a request names (params.name), or "".
func requestName(params json.RawMessage) string {
	var p struct {
		Name string `json:"name"`
	}
	_ = json.Unmarshal(params, &p)
	return p.Name
}

// listChanged matches the notifications a server sends when its lists change. They are
// not compared: a server sends them when its state changes, and whether one lands
// before or after a response is a race (server-everything announces its tools while
// the first tools/list is pending, or just after).
func listChanged(method string) bool {
	return strings.HasPrefix(method, "notifications/") && strings.HasSuffix(method, "/list_changed")
}

// compareNotifications compares the notifications of one exchange; scopes are its
// request's (see parsePatterns).
func compareNotifications(base *Matcher, scopes []string, expected, got []json.RawMessage, strict bool) []Where {
	matchers := map[string]*Matcher{}
	matcherFor := func(method string) *Matcher {
		m, ok := matchers[method]
		if !ok {
			m = base.scoped(append(scopes[:len(scopes):len(scopes)], method)...)
			matchers[method] = m
		}
		return m
	}
	type note struct {
		method string
		v      any
		raw    json.RawMessage
	}
	withoutListChanged := func(ns []note) []note {
		out := ns[:0]
		for _, n := range ns {
			if !listChanged(n.method) {
				out = append(out, n)
			}
		}
		return out
	}
	parse := func(raws []json.RawMessage) []note {
		out := make([]note, 0, len(raws))
		for _, r := range raws {
			v, err := decode(r)
			if err != nil {
				v = string(r)
			}
			var env record.Message
			_ = json.Unmarshal(r, &env)
			out = append(out, note{env.Method, v, r})
		}
		return out
	}
	exp, liv := withoutListChanged(parse(expected)), withoutListChanged(parse(got))
	var out []Where
	diffPair := func(in string, a, b note) {
		var ds []Diff
		matcherFor(a.method).walk(nil, a.v, b.v, &ds)
		for _, d := range ds {
			out = append(out, Where{In: in, Diff: d})
		}
	}
	missing := func(a note) {
		out = append(out, Where{In: a.method, Diff: Diff{Path: "(a notification)", Expected: render(a.v), Got: "(absent)"}})
	}
	unexpected := func(b note) {
		out = append(out, Where{In: b.method, Diff: Diff{Path: "(a notification)", Expected: "(absent)", Got: render(b.v)}})
	}
	if strict {
		for i := 0; i < max(len(exp), len(liv)); i++ {
			switch {
			case i >= len(liv):
				missing(exp[i])
			case i >= len(exp):
				unexpected(liv[i])
			case exp[i].method != liv[i].method:
				out = append(out, Where{In: fmt.Sprintf("notification #%d", i+1), Diff: Diff{Path: "/method", Expected: render(exp[i].method), Got: render(liv[i].method)}})
			default:
				diffPair(fmt.Sprintf("%s (notification #%d)", exp[i].method, i+1), exp[i], liv[i])
			}
		}
		return out
	}
	// Multiset: take out the equal pairs, then pair what is left by method, in order.
	usedE := make([]bool, len(exp))
	usedL := make([]bool, len(liv))
	for i := range exp {
		for j := range liv {
			if !usedL[j] && exp[i].method == liv[j].method && matcherFor(exp[i].method).equal(nil, exp[i].v, liv[j].v) {
				usedE[i], usedL[j] = true, true
				break
			}
		}
	}
	count := map[string]int{}
	for i := range exp {
		if usedE[i] {
			continue
		}
		paired := false
		for j := range liv {
			if !usedL[j] && exp[i].method == liv[j].method {
				usedE[i], usedL[j] = true, true
				count[exp[i].method]++
				diffPair(fmt.Sprintf("%s #%d", exp[i].method, count[exp[i].method]), exp[i], liv[j])
				paired = true
				break
			}
		}
		if !paired {
			missing(exp[i])
		}
	}
	for j := range liv {
		if !usedL[j] {
			unexpected(liv[j])
		}
	}
	return out
}

// exchangeID is an exchange's id as a word: a string id unquoted.
func exchangeID(x *record.Exchange) string {
	var s string
	if json.Unmarshal([]byte(x.ID), &s) == nil {
		return s
	}
	return x.ID
}

func onlyMatch(x *record.Exchange, only []string) bool {
	id, name := exchangeID(x), requestName(x.Params)
	for _, o := range only {
		if o == id || (name != "" && o == name) {
			return true
		}
	}
	return false
}

// checkOnly fails when a name of --only matches no exchange of xs, listing the
// names. It keeps the names, not the exchanges (xs may be read from a file).
func checkOnly(xs iter.Seq[*record.Exchange], only []string) error {
	found := map[string]bool{}
	var names []string
	seen := map[string]bool{}
	for x := range xs {
		if x.Handshake() {
			continue
		}
		for _, o := range only {
			if !found[o] && onlyMatch(x, []string{o}) {
				found[o] = true
			}
		}
		for _, n := range []string{exchangeID(x), requestName(x.Params)} {
			if n != "" && !seen[n] && len(names) <= 40 {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	var missing []string
	for _, o := range only {
		if !found[o] {
			missing = append(missing, o)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if len(names) > 40 {
		names = append(names[:40], "…")
	}
	return &client.UsageError{Msg: fmt.Sprintf("--only %s: no exchange has that id or names that tool; the recording has: %s", strings.Join(missing, ", "), strings.Join(names, ", "))}
}

// MatchesOnly reports whether a name of --only (an exchange's id or a tool name)
// picks some exchange of rec other than the handshake.
func MatchesOnly(rec *record.Recording, name string) bool {
	for _, x := range rec.Exchanges() {
		if !x.Handshake() && onlyMatch(x, []string{name}) {
			return true
		}
	}
	return false
}

// OnlyNames lists what --only accepts for rec: every exchange's id and every tool
// name (for messages).
func OnlyNames(rec *record.Recording) []string {
	var names []string
	seen := map[string]bool{}
	for _, x := range rec.Exchanges() {
		if x.Handshake() {
			continue
		}
		for _, n := range []string{exchangeID(x), requestName(x.Params)} {
			if n != "" && !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	return names
}
