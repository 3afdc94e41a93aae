package check

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/plural"
	"github.com/mcpscope/mcpscope/validate"
)

// noSuchTool is a tool name no server has: the calls that carry it reach no tool.
const noSuchTool = "mcpscope-check-no-such-tool"

// hygiene: what an HTTP endpoint must refuse (hand-made requests, each one rule
// broken, beside a plain request that is accepted), then, on every transport, how
// errors are reported.
func (r *runner) hygiene(ctx context.Context) {
	if r.o.Target.URL == "" {
		for _, n := range []string{"origin", "host", "content-type", "headers", "session"} {
			r.add(StepHygiene, n, Skip, "stdio: no HTTP")
		}
	} else {
		r.httpHygiene(ctx)
	}
	r.unknownTool(ctx)
	r.missingResource(ctx)
	r.toolError(ctx)
	r.outputSchema(ctx)
}

// plain is the request each HTTP check breaks one rule of: an initialize in the
// 2025 era, a server/discover in 2026-07-28. Neither calls anything.
func (r *runner) plain() ([]byte, func(http.Header)) {
	if r.info.Era == client.EraModern {
		return discoverBody(), func(h http.Header) {
			h.Set("MCP-Protocol-Version", client.ModernVersion)
			h.Set("Mcp-Method", "server/discover")
		}
	}
	body := fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"mcpscope-check","version":"1"}}}`, r.info.ProtocolVersion)
	return []byte(body), nil
}

func (r *runner) httpHygiene(ctx context.Context) {
	body, headers := r.plain()
	ctl, err := r.post(ctx, body, headers, nil)
	r.endSession(ctx, ctl)
	if err != nil || ctl.status/100 != 2 {
		why := "could not tell: the plain request failed too"
		if err != nil {
			why += ": " + err.Error()
		} else {
			why += fmt.Sprintf(" (HTTP %d)", ctl.status)
		}
		for _, n := range []string{"origin", "host", "content-type", "headers", "session"} {
			r.add(StepHygiene, n, Warn, why)
		}
		return
	}
	// refused judges one broken request: want is the status the spec names.
	refused := func(name, broken string, a *answer, err error, want int, acceptedIs Status) {
		r.endSession(ctx, a)
		switch {
		case err != nil:
			r.add(StepHygiene, name, Warn, "could not tell: "+err.Error())
		case a.status == want:
			r.add(StepHygiene, name, Pass, fmt.Sprintf("%s: refused with HTTP %d", broken, a.status))
		case a.status >= 400:
			r.add(StepHygiene, name, Warn, fmt.Sprintf("%s: refused with HTTP %d (the spec names %d)", broken, a.status, want))
		default:
			r.add(StepHygiene, name, acceptedIs, fmt.Sprintf("%s: accepted (HTTP %d); it must be refused", broken, a.status))
		}
	}
	a, err := r.post(ctx, body, func(h http.Header) {
		if headers != nil {
			headers(h)
		}
		h.Set("Origin", "http://mcpscope-check.invalid")
	}, nil)
	refused("origin", "a request with Origin http://mcpscope-check.invalid", a, err, http.StatusForbidden, Fail)

	u, _ := url.Parse(r.o.Target.URL)
	host := "mcpscope-check.invalid"
	if u.Port() != "" {
		host = net.JoinHostPort(host, u.Port())
	}
	a, err = r.post(ctx, body, headers, &host)
	// DNS rebinding reaches servers on this machine: accepting a foreign Host there is
	// a fail; behind a public name it is a warning.
	st := Warn
	if loopbackHost(u.Hostname()) {
		st = Fail
	}
	refused("host", "a request with Host "+host+" to a server on "+u.Hostname()+" (DNS rebinding)", a, err, http.StatusForbidden, st)

	a, err = r.post(ctx, body, func(h http.Header) {
		if headers != nil {
			headers(h)
		}
		h.Set("Content-Type", "text/plain")
	}, nil)
	refused("content-type", "a POST with Content-Type text/plain", a, err, http.StatusUnsupportedMediaType, Fail)

	r.headerMismatch(ctx)
	r.unknownSession(ctx, ctl)
}

// rpcCode is the JSON-RPC error code in an HTTP answer's body (JSON, or the first
// event of a stream), 0 when there is none.
func rpcCode(a *answer) int64 {
	b := a.body
	if i := strings.Index(string(b), "data:"); i >= 0 && !strings.HasPrefix(strings.TrimSpace(string(b)), "{") {
		b = []byte(strings.SplitN(string(b[i+5:]), "\n", 2)[0])
	}
	var m struct {
		Error *struct {
			Code int64 `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(b, &m) != nil || m.Error == nil {
		return 0
	}
	return m.Error.Code
}

// headerMismatch (2026-07-28): Mcp-Method and Mcp-Name that disagree with the body
// must get -32020 (HTTP 400). The tools/call names a tool no server has, so a server
// that does not compare the headers still runs nothing.
func (r *runner) headerMismatch(ctx context.Context) {
	if r.info.Era != client.EraModern {
		r.add(StepHygiene, "headers", Skip, "Mcp-Method and Mcp-Name are 2026-07-28's")
		return
	}
	var details []string
	worst := Pass
	judge := func(what string, a *answer, err error) {
		switch {
		case err != nil:
			details = append(details, what+": "+err.Error())
			worst = worse(worst, Warn)
		case a.status == http.StatusBadRequest && rpcCode(a) == -32020:
			details = append(details, what+": refused with HTTP 400, -32020")
		case a.status >= 400 && rpcCode(a) != -32602 && rpcCode(a) != -32601:
			details = append(details, fmt.Sprintf("%s: refused with HTTP %d, code %d (the spec names 400, -32020 HeaderMismatch)", what, a.status, rpcCode(a)))
			worst = worse(worst, Warn)
		default:
			details = append(details, fmt.Sprintf("%s: not compared (HTTP %d, code %d)", what, a.status, rpcCode(a)))
			worst = Fail
		}
	}
	body := []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{` + modernMeta + `}}}`)
	a, err := r.post(ctx, body, func(h http.Header) {
		h.Set("MCP-Protocol-Version", client.ModernVersion)
		h.Set("Mcp-Method", "prompts/list")
	}, nil)
	judge("tools/list sent with Mcp-Method: prompts/list", a, err)
	if r.o.DryRun {
		details = append(details, "Mcp-Name: not sent (--dry-run sends no tools/call)")
	} else {
		body = []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"` + noSuchTool + `","arguments":{},"_meta":{` + modernMeta + `}}}`)
		a, err = r.post(ctx, body, func(h http.Header) {
			h.Set("MCP-Protocol-Version", client.ModernVersion)
			h.Set("Mcp-Method", "tools/call")
			h.Set("Mcp-Name", noSuchTool+"-other")
		}, nil)
		judge("tools/call "+noSuchTool+" sent with Mcp-Name: "+noSuchTool+"-other", a, err)
	}
	why := map[Status]string{Pass: "headers that disagree with the body are refused",
		Warn: "headers that disagree with the body are refused, not as the spec says",
		Fail: "a header that disagrees with the body was not refused"}[worst]
	r.add(StepHygiene, "headers", worst, why, details...)
}

func worse(a, b Status) Status {
	rank := map[Status]int{Skip: 0, Pass: 1, Warn: 2, Fail: 3}
	if rank[b] > rank[a] {
		return b
	}
	return a
}

// unknownSession (2025 era, a server that keeps sessions): a made-up Mcp-Session-Id
// must get 404, which tells a client to initialize again.
func (r *runner) unknownSession(ctx context.Context, ctl *answer) {
	if r.info.Era == client.EraModern {
		r.add(StepHygiene, "session", Skip, "2026-07-28 has no sessions")
		return
	}
	if ctl.header.Get("Mcp-Session-Id") == "" {
		r.add(StepHygiene, "session", Skip, "the server keeps no sessions (no Mcp-Session-Id on initialize)")
		return
	}
	body := []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`)
	a, err := r.post(ctx, body, func(h http.Header) {
		h.Set("MCP-Protocol-Version", r.info.ProtocolVersion)
		h.Set("Mcp-Session-Id", "mcpscope-check-unknown-session")
	}, nil)
	switch {
	case err != nil:
		r.add(StepHygiene, "session", Warn, "could not tell: "+err.Error())
	case a.status == http.StatusNotFound:
		r.add(StepHygiene, "session", Pass, "an unknown Mcp-Session-Id: refused with HTTP 404")
	case a.status >= 400:
		r.add(StepHygiene, "session", Warn, fmt.Sprintf("an unknown Mcp-Session-Id: refused with HTTP %d; the spec says 404, which tells a client to initialize again", a.status))
	default:
		r.add(StepHygiene, "session", Fail, fmt.Sprintf("an unknown Mcp-Session-Id: accepted (HTTP %d)", a.status))
	}
}

// unknownTool: a call to a tool the server does not have is a JSON-RPC error.
func (r *runner) unknownTool(ctx context.Context) {
	if r.o.DryRun {
		r.add(StepHygiene, "unknown-tool", Skip, "--dry-run: sends no tools/call", "would send tools/call "+noSuchTool+" {}")
		return
	}
	o := r.call(ctx, noSuchTool, json.RawMessage(`{}`))
	switch o.kind {
	case "rpc":
		r.add(StepHygiene, "unknown-tool", Pass, fmt.Sprintf("tools/call %s: JSON-RPC error %d", noSuchTool, o.code))
	case "isError":
		r.add(StepHygiene, "unknown-tool", Warn, fmt.Sprintf("tools/call %s: answered as a tool error (isError); the spec answers an unknown tool with a JSON-RPC error (-32602)", noSuchTool))
	case "accepted":
		r.add(StepHygiene, "unknown-tool", Fail, fmt.Sprintf("tools/call %s: answered as a success", noSuchTool))
	default:
		r.add(StepHygiene, "unknown-tool", Fail, fmt.Sprintf("tools/call %s: %s", noSuchTool, o.text))
	}
}

// missingResource: SEP-2164: -32602 from 2026-07-28, -32002 before (still accepted
// from an old server).
func (r *runner) missingResource(ctx context.Context) {
	if r.conn == nil || !r.conn.Session.HasCapability("resources") {
		r.add(StepHygiene, "missing-resource", Skip, "the server declares no resources capability")
		return
	}
	const uri = "mcpscope-check://no-such-resource"
	want, other := int64(-32002), int64(-32602)
	if r.info.Era == client.EraModern {
		want, other = -32602, -32002
	}
	_, err := r.conn.Session.ReadResource(ctx, uri)
	var rpc *client.RPCError
	switch {
	case err == nil:
		r.add(StepHygiene, "missing-resource", Fail, "resources/read "+uri+": answered as if it existed")
	case errors.As(err, &rpc) && rpc.Code == want:
		r.add(StepHygiene, "missing-resource", Pass, fmt.Sprintf("resources/read %s: JSON-RPC error %d", uri, rpc.Code))
	case errors.As(err, &rpc) && rpc.Code == other:
		st := Pass
		why := fmt.Sprintf("resources/read %s: JSON-RPC error %d (SEP-2164: %d in this era; clients accept both)", uri, rpc.Code, want)
		if r.info.Era == client.EraModern {
			st, why = Warn, fmt.Sprintf("resources/read %s: JSON-RPC error -32002, retired in 2026-07-28 (SEP-2164: -32602)", uri)
		}
		r.add(StepHygiene, "missing-resource", st, why)
	case errors.As(err, &rpc):
		r.add(StepHygiene, "missing-resource", Warn, fmt.Sprintf("resources/read %s: JSON-RPC error %d; SEP-2164 names %d", uri, rpc.Code, want))
	default:
		r.add(StepHygiene, "missing-resource", Fail, "resources/read "+uri+": "+err.Error())
	}
}

// firstCase is the first callable tool with a wrong-type case.
func (r *runner) firstCase() (client.Tool, Case, bool) {
	for _, t := range r.tools {
		if !r.callable(t) || !r.plainCall(t) {
			continue
		}
		cases, _, _, err := Cases(t.InputSchema)
		if err != nil {
			continue
		}
		for _, c := range cases {
			if strings.Contains(c.What, " given ") {
				return t, c, true
			}
		}
	}
	return client.Tool{}, Case{}, false
}

// toolError: a tool that fails (here: an argument of the wrong type) reports it as a
// result with isError, which a model reads and corrects, not as a protocol error
// (2025-11-25, SEP-1303: input validation errors are tool execution errors).
func (r *runner) toolError(ctx context.Context) {
	t, c, ok := r.firstCase()
	if !ok {
		r.add(StepHygiene, "tool-error", Skip, "no read-only tool (or one named with --include) with a typed argument to break")
		return
	}
	sent := fmt.Sprintf("tools/call %s %s (%s)", t.Name, c.Args, c.What)
	if r.o.DryRun {
		r.add(StepHygiene, "tool-error", Skip, "--dry-run: sends no tools/call", "would send "+sent)
		return
	}
	o := r.call(ctx, t.Name, c.Args)
	switch {
	case o.kind == "isError":
		r.add(StepHygiene, "tool-error", Pass, "reported as a tool error (isError)", sent)
	case o.kind == "rpc" && o.code == -32602 && r.info.ProtocolVersion < "2025-11-25":
		r.add(StepHygiene, "tool-error", Pass, "refused with -32602, as "+r.info.ProtocolVersion+" allows", sent)
	case o.kind == "rpc" && o.code == -32602:
		r.add(StepHygiene, "tool-error", Warn, "refused with a protocol error (-32602); from 2025-11-25 an invalid argument is a tool error (isError), so that the model can correct it", sent)
	case o.kind == "rpc":
		r.add(StepHygiene, "tool-error", Fail, fmt.Sprintf("reported as a protocol error (%d %s), not as isError", o.code, o.text), sent)
	case o.kind == "accepted":
		r.add(StepHygiene, "tool-error", Warn, "could not tell: the tool accepted an invalid argument (see inputs/"+t.Name+")", sent)
	default:
		r.add(StepHygiene, "tool-error", Fail, o.text, append([]string{sent}, o.stderr...)...)
	}
}

// maxOutputTools bounds the tools called to check their structured content.
const maxOutputTools = 10

// outputSchema: a tool with an output schema answers structuredContent that the
// schema accepts. Only callable tools whose plausible arguments the input schema
// accepts are called.
func (r *runner) outputSchema(ctx context.Context) {
	var details, would []string
	worst, n := Pass, 0
	for _, t := range r.tools {
		if len(t.OutputSchema) == 0 || !r.callable(t) || !r.plainCall(t) || n == maxOutputTools {
			continue
		}
		_, base, ok, err := Cases(t.InputSchema)
		if err != nil || !ok {
			continue
		}
		n++
		if r.o.DryRun {
			would = append(would, fmt.Sprintf("would send tools/call %s %s", t.Name, base))
			continue
		}
		o := r.call(ctx, t.Name, base)
		switch o.kind {
		case "accepted":
			if len(o.res.Structured) == 0 {
				worst = Fail
				details = append(details, t.Name+": no structuredContent, though the tool has an output schema")
				continue
			}
			v, err := validate.Check(t.OutputSchema, o.res.Structured)
			switch {
			case err != nil:
				details = append(details, t.Name+": the output schema cannot be used: "+err.Error())
				worst = worse(worst, Warn)
			case len(v) > 0:
				worst = Fail
				details = append(details, fmt.Sprintf("%s: structuredContent breaks the output schema: %s", t.Name, v[0]))
			default:
				details = append(details, t.Name+": structuredContent matches the output schema")
			}
		case "ended":
			worst = Fail
			details = append(details, t.Name+": "+o.text)
		default:
			details = append(details, fmt.Sprintf("%s %s: %s, not judged", t.Name, base, o))
		}
	}
	switch {
	case n == 0:
		r.add(StepHygiene, "output-schema", Skip, "no read-only tool (or one named with --include) with an output schema and arguments to call it with")
	case r.o.DryRun:
		r.add(StepHygiene, "output-schema", Skip, "--dry-run: sends no tools/call", would...)
	case worst == Pass:
		r.add(StepHygiene, "output-schema", Pass, plural.Count(n, "tool")+" with an output schema called", details...)
	case worst == Warn:
		r.add(StepHygiene, "output-schema", Warn, "could not judge every output schema", details...)
	default:
		r.add(StepHygiene, "output-schema", Fail, "structuredContent does not honour the output schema", details...)
	}
}
