package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/mcpscope/mcpscope/record"
)

// Mock answers requests from a recording: each request gets the recorded response of
// the best-matching recorded request, preceded by the notifications recorded with it.
// Progress and log messages come with every answer from an exchange; any other
// notification (a list changed) only with its first, as it happened once.
//
// Matching, among recorded requests with the same method: first those whose params are
// equal after ignoring _meta; then, for tools/call, prompts/get and resources/read, those
// naming the same tool, prompt or resource and sharing the most argument values; then,
// for other methods, any. A retried 2026-07-28 request (inputResponses, requestState)
// whose params match none exactly is answered by a recorded retry with the same
// requestState (the next step of its chain), else by any recorded retry of the same
// tool. An answer from a looser match carries result._meta[MetaKey]
// saying so, and Log is told. Within a rank
// the first not yet used, in recorded order, wins; when all have been used, the last one
// answers again. A request that matches nothing gets a JSON-RPC error listing the
// recorded requests for its method.
//
// The handshake is served in both eras whichever one was recorded: server/discover from
// a recorded discover (a legacy-only recording answers it with "method not found", as a
// legacy server would), initialize from a recorded initialize or, for a 2026 recording,
// made from the recorded discover result. ping is always answered.
type Mock struct {
	mu         sync.Mutex
	byMethod   map[string][]*mockEntry
	discover   *record.Exchange
	initialize *record.Exchange
	listen     *record.Exchange
	// Log, when set, is told about each request that got no exact match: answered from
	// a looser match, or with an error.
	Log func(note string)
}

type mockEntry struct {
	x      *record.Exchange
	params string            // canonical params without _meta
	name   string            // params.name or params.uri
	args   map[string]string // params.arguments: each member's canonical value
	// retry: the request retries one answered input_required (2026-07-28), carrying
	// inputResponses or requestState; state is its requestState.
	retry bool
	state string
	used  bool
}

// MetaKey is the member of a result's _meta where the mock says that the request's
// params differ from every recorded one (note), and which recorded request answered
// (answeredAs): record.MockMetaKey, which the workbench reads.
const MetaKey = record.MockMetaKey

// NewMock prepares a mock server for rec.
func NewMock(rec *record.Recording) *Mock {
	m := &Mock{byMethod: map[string][]*mockEntry{}}
	for _, x := range rec.Exchanges() {
		if x.Response == nil {
			continue
		}
		switch x.Method {
		case "server/discover":
			if hasResult(x.Response) {
				m.discover = x
			}
			continue
		case "initialize":
			if hasResult(x.Response) {
				m.initialize = x
			}
			continue
		case "subscriptions/listen":
			m.listen = x
			continue
		}
		p, name := canonicalParams(x.Params)
		retry, state := retryOf(x.Params)
		m.byMethod[x.Method] = append(m.byMethod[x.Method], &mockEntry{x: x, params: p, name: name, args: canonicalArgs(x.Params), retry: retry, state: state})
	}
	// A listen request is answered only when it ends, so it may have no response.
	if m.listen == nil {
		for _, x := range rec.Exchanges() {
			if x.Method == "subscriptions/listen" {
				m.listen = x
			}
		}
	}
	return m
}

// Requests counts the recorded requests the mock can answer (handshake excluded).
func (m *Mock) Requests() int {
	n := 0
	for _, es := range m.byMethod {
		n += len(es)
	}
	return n
}

func hasResult(resp json.RawMessage) bool {
	var r struct {
		Result json.RawMessage `json:"result"`
	}
	return json.Unmarshal(resp, &r) == nil && len(r.Result) > 0 && string(r.Result) != "null"
}

// canonicalParams returns params without _meta as canonical JSON (sorted members,
// absent and {} alike), and the name or uri it carries.
func canonicalParams(params json.RawMessage) (string, string) {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.UseNumber()
	if len(params) == 0 || dec.Decode(&m) != nil || m == nil {
		if len(params) == 0 || string(params) == "null" {
			return "{}", ""
		}
		return string(params), ""
	}
	delete(m, "_meta")
	name, _ := m["name"].(string)
	if name == "" {
		name, _ = m["uri"].(string)
	}
	b, _ := json.Marshal(m)
	return string(b), name
}

// canonicalArgs returns each member of params.arguments as canonical JSON.
func canonicalArgs(params json.RawMessage) map[string]string {
	var p struct {
		Arguments map[string]json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.Arguments) == 0 {
		return nil
	}
	out := make(map[string]string, len(p.Arguments))
	for k, v := range p.Arguments {
		var x any
		dec := json.NewDecoder(bytes.NewReader(v))
		dec.UseNumber()
		if dec.Decode(&x) != nil {
			out[k] = string(v)
			continue
		}
		b, _ := json.Marshal(x)
		out[k] = string(b)
	}
	return out
}

// shared counts the arguments a recorded request has with the same value as a live one.
func shared(recorded, live map[string]string) int {
	n := 0
	for k, v := range live {
		if w, ok := recorded[k]; ok && w == v {
			n++
		}
	}
	return n
}

// Handle answers one frame from the client (a message or a batch) and returns the
// messages to send back, in order: notifications, then the response. Client
// notifications and responses get nothing.
func (m *Mock) Handle(frame []byte) [][]byte {
	var out [][]byte
	for _, raw := range record.Split(frame) {
		out = append(out, m.handleOne(raw)...)
	}
	return out
}

func (m *Mock) handleOne(raw []byte) [][]byte {
	var msg record.Message
	if err := json.Unmarshal(raw, &msg); err != nil {
		return [][]byte{errorResponse(json.RawMessage("null"), -32700, "Parse error: "+err.Error(), nil)}
	}
	if !msg.IsRequest() {
		return nil // notifications and responses need no answer
	}
	id := msg.ID
	switch msg.Method {
	case "server/discover":
		if m.discover != nil {
			return [][]byte{withID(m.discover.Response, string(id))}
		}
		return [][]byte{errorResponse(id, -32601, "Method not found: server/discover (the recorded server speaks the legacy era)", nil)}
	case "initialize":
		return [][]byte{m.initializeResponse(id, msg.Params)}
	case "ping":
		return [][]byte{resultResponse(id, json.RawMessage("{}"))}
	case "subscriptions/listen":
		return m.listenAck(id)
	}
	m.mu.Lock()
	e, exact, first := m.match(msg.Method, msg.Params)
	m.mu.Unlock()
	if e == nil {
		return [][]byte{m.unmatched(id, msg.Method, msg.Params)}
	}
	response := e.x.Response
	if !exact {
		// A mock that answers other arguments with a recorded answer says so: on
		// serve's stderr, and in the answer itself, where the client (and whoever reads
		// its result) sees it.
		if m.Log != nil {
			m.Log(fmt.Sprintf("%s: no recorded request has these params; answered as recorded for %s", describe(&record.Exchange{Method: msg.Method, Params: msg.Params}), describe(e.x)))
		}
		what := msg.Method
		if e.name != "" {
			what += " " + e.name
		}
		response = withMockNote(response, fmt.Sprintf("no recorded %s has these arguments: this is the answer recorded for the closest one (answeredAs)", what), describe(e.x))
	}
	token := record.ProgressToken(msg.Params)
	var out [][]byte
	for _, n := range e.x.Notifications {
		// A notification about the request (its progress, its log lines) comes with
		// every answer; any other (a list changed, a resource updated) happened once,
		// during the recorded exchange, and is replayed once: with the first answer
		// from that exchange. Sent again with every answer, a list_changed recorded
		// inside a tools/list made a client that re-lists on it spin.
		if !first && !requestScoped(n) {
			continue
		}
		if n = rewriteProgress(n, token); n != nil {
			out = append(out, n)
		}
	}
	return append(out, withID(response, string(id)))
}

// withMockNote adds result._meta[MetaKey] to a recorded response; a response without
// a result object (an error) is left as recorded.
func withMockNote(resp json.RawMessage, note, answeredAs string) json.RawMessage {
	var msg map[string]json.RawMessage
	if json.Unmarshal(resp, &msg) != nil {
		return resp
	}
	var result map[string]json.RawMessage
	if json.Unmarshal(msg["result"], &result) != nil || result == nil {
		return resp
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(result["_meta"], &meta) != nil || meta == nil {
		meta = map[string]json.RawMessage{}
	}
	meta[MetaKey], _ = json.Marshal(record.MockNote{Note: note, AnsweredAs: answeredAs})
	result["_meta"], _ = json.Marshal(meta)
	msg["result"], _ = json.Marshal(result)
	b, err := json.Marshal(orderedMessage(msg))
	if err != nil {
		return resp
	}
	return b
}

// requestScoped reports whether a recorded notification belongs to the request it
// came with (progress, a log message) rather than to the server's state.
func requestScoped(n json.RawMessage) bool {
	var env record.Message
	if json.Unmarshal(n, &env) != nil {
		return false
	}
	return env.Method == "notifications/progress" || env.Method == "notifications/message"
}

// match picks the recorded exchange that answers a request; first says it had not
// answered before.
func (m *Mock) match(method string, params json.RawMessage) (e *mockEntry, exact, first bool) {
	entries := m.byMethod[method]
	if len(entries) == 0 {
		return nil, false, false
	}
	p, name := canonicalParams(params)
	pick := func(ok func(*mockEntry) bool) (*mockEntry, bool) {
		var last *mockEntry
		for _, e := range entries {
			if !ok(e) {
				continue
			}
			if !e.used {
				e.used = true
				return e, true
			}
			last = e
		}
		return last, false
	}
	if e, first := pick(func(e *mockEntry) bool { return e.params == p }); e != nil {
		return e, true, first
	}
	if retry, state := retryOf(params); retry && name != "" {
		// A retry whose answers differ from the recorded ones is answered by the step
		// of the chain its requestState names (the server's state says which round
		// it answers), else by a recorded retry of the same tool: never by a first
		// request, and not by argument values, which every round shares.
		if state != "" {
			if e, first := pick(func(e *mockEntry) bool { return e.retry && e.name == name && e.state == state }); e != nil {
				return e, false, first
			}
		}
		if e, first := pick(func(e *mockEntry) bool { return e.retry && e.name == name }); e != nil {
			return e, false, first
		}
	}
	if name != "" {
		// Of the recorded requests naming the same tool (prompt, resource), the ones
		// sharing the most argument values with this one.
		live, best := canonicalArgs(params), -1
		for _, e := range entries {
			if e.name == name {
				best = max(best, shared(e.args, live))
			}
		}
		e, first := pick(func(e *mockEntry) bool { return e.name == name && shared(e.args, live) == best })
		return e, false, first
	}
	e, first = pick(func(e *mockEntry) bool { return e.name == "" })
	return e, false, first
}

// retryOf reports whether params retry an input_required answer (they carry
// inputResponses or requestState) and the requestState they echo.
func retryOf(params json.RawMessage) (retry bool, state string) {
	if !bytes.Contains(params, []byte("inputResponses")) && !bytes.Contains(params, []byte("requestState")) {
		return false, ""
	}
	var p struct {
		InputResponses json.RawMessage `json:"inputResponses"`
		RequestState   json.RawMessage `json:"requestState"`
	}
	if json.Unmarshal(params, &p) != nil || (p.InputResponses == nil && p.RequestState == nil) {
		return false, ""
	}
	return true, str(p.RequestState)
}

func (m *Mock) unmatched(id json.RawMessage, method string, params json.RawMessage) []byte {
	m.mu.Lock()
	entries := m.byMethod[method]
	var recorded []string
	var data []json.RawMessage
	for _, e := range entries {
		recorded = append(recorded, describe(e.x))
		p, _ := canonicalParams(e.x.Params) // without _meta
		data = append(data, json.RawMessage(p))
	}
	m.mu.Unlock()
	desc := describe(&record.Exchange{Method: method, Params: params})
	if m.Log != nil {
		m.Log(desc + ": no recorded request matches; answered with an error")
	}
	if len(entries) == 0 {
		var methods []string
		m.mu.Lock()
		for k := range m.byMethod {
			methods = append(methods, k)
		}
		m.mu.Unlock()
		sort.Strings(methods)
		have := "none"
		if len(methods) > 0 {
			have = strings.Join(methods, ", ")
		}
		return errorResponse(id, -32601, fmt.Sprintf("Method not found: the recording has no %s request (recorded methods: %s)", method, have), nil)
	}
	sort.Strings(recorded)
	d, _ := json.Marshal(map[string]any{"recorded": data})
	return errorResponse(id, -32602, fmt.Sprintf("no recorded %s matches %s; recorded: %s", method, desc, strings.Join(recorded, "; ")), d)
}

// legacyVersions are the versions initialize may settle on, newest first.
var legacyVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

func (m *Mock) initializeResponse(id, params json.RawMessage) []byte {
	if m.initialize != nil {
		return withID(m.initialize.Response, string(id))
	}
	if m.discover == nil {
		return errorResponse(id, -32603, "the recording has no handshake to answer initialize from", nil)
	}
	// A 2026 recording: build the legacy answer from the discover result.
	var req struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(params, &req)
	version := legacyVersions[0]
	for _, v := range legacyVersions {
		if v == req.ProtocolVersion {
			version = v
		}
	}
	var d struct {
		Result struct {
			Capabilities json.RawMessage            `json:"capabilities"`
			Instructions string                     `json:"instructions"`
			Meta         map[string]json.RawMessage `json:"_meta"`
		} `json:"result"`
	}
	_ = json.Unmarshal(m.discover.Response, &d)
	result := map[string]any{"protocolVersion": version}
	if caps := d.Result.Capabilities; len(caps) > 0 {
		result["capabilities"] = caps
	} else {
		result["capabilities"] = map[string]any{}
	}
	if si := d.Result.Meta["io.modelcontextprotocol/serverInfo"]; len(si) > 0 {
		result["serverInfo"] = si
	} else {
		result["serverInfo"] = map[string]string{"name": "mcpscope-serve", "version": "recorded"}
	}
	if d.Result.Instructions != "" {
		result["instructions"] = d.Result.Instructions
	}
	b, _ := json.Marshal(result)
	return resultResponse(id, b)
}

// listenAck acknowledges a subscriptions/listen with the recorded acknowledgement (its
// subscription id rewritten) and leaves the request open, as a server does.
func (m *Mock) listenAck(id json.RawMessage) [][]byte {
	if m.listen != nil {
		for _, n := range m.listen.Notifications {
			var env record.Message
			if json.Unmarshal(n, &env) == nil && env.Method == "notifications/subscriptions/acknowledged" {
				return [][]byte{setSubscriptionID(n, id)}
			}
		}
	}
	ack := fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{},"_meta":{"io.modelcontextprotocol/subscriptionId":%s}}}`, id)
	return [][]byte{[]byte(ack)}
}

func setSubscriptionID(n json.RawMessage, id json.RawMessage) []byte {
	var msg map[string]json.RawMessage
	if json.Unmarshal(n, &msg) != nil {
		return n
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(msg["params"], &params) != nil || params == nil {
		params = map[string]json.RawMessage{}
	}
	var meta map[string]json.RawMessage
	if json.Unmarshal(params["_meta"], &meta) != nil || meta == nil {
		meta = map[string]json.RawMessage{}
	}
	meta["io.modelcontextprotocol/subscriptionId"] = id
	params["_meta"], _ = json.Marshal(meta)
	msg["params"], _ = json.Marshal(params)
	b, _ := json.Marshal(orderedMessage(msg))
	return b
}

// rewriteProgress gives a recorded progress notification the live request's token, or
// drops it (nil) when the live request asked for no progress.
func rewriteProgress(n json.RawMessage, token string) json.RawMessage {
	if !bytes.Contains(n, []byte("notifications/progress")) {
		return n
	}
	var msg map[string]json.RawMessage
	if json.Unmarshal(n, &msg) != nil {
		return n
	}
	var method string
	if json.Unmarshal(msg["method"], &method) != nil || method != "notifications/progress" {
		return n
	}
	if token == "" {
		return nil
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(msg["params"], &params) != nil || params == nil {
		return n
	}
	params["progressToken"] = json.RawMessage(token)
	msg["params"], _ = json.Marshal(params)
	b, _ := json.Marshal(orderedMessage(msg))
	return b
}

func resultResponse(id, result json.RawMessage) []byte {
	b, _ := json.Marshal(orderedMessage{"jsonrpc": json.RawMessage(`"2.0"`), "id": id, "result": result})
	return b
}

func errorResponse(id json.RawMessage, code int, message string, data json.RawMessage) []byte {
	e := struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data,omitempty"`
	}{code, message, data}
	eb, _ := json.Marshal(e)
	b, _ := json.Marshal(orderedMessage{"jsonrpc": json.RawMessage(`"2.0"`), "id": id, "error": eb})
	return b
}
