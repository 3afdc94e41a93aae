package host

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
)

// stdioRaw speaks raw NDJSON JSON-RPC to ServeStdio, for what the SDK's client would
// not send (a 2025-11-25 tools/call with params.task).
type stdioRaw struct {
	w  io.Writer
	r  *bufio.Reader
	id int
}

func newStdioRaw(t *testing.T, version string) *stdioRaw {
	t.Helper()
	toServer, fromServer, _ := serveStdio(t, newHost(t, Options{}), FramingNDJSON)
	s := &stdioRaw{w: toServer, r: bufio.NewReader(fromServer)}
	if _, rerr := s.request(t, "initialize", `"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"raw","version":"0"}`); rerr != nil {
		t.Fatalf("initialize: %v", rerr)
	}
	fmt.Fprintln(toServer, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

// request sends one request and returns its answer (notifications in between are
// skipped).
func (s *stdioRaw) request(t *testing.T, method, params string) (result, rpcErr map[string]any) {
	t.Helper()
	s.id++
	if _, err := fmt.Fprintf(s.w, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s}}`+"\n", s.id, method, params); err != nil {
		t.Fatal(err)
	}
	for {
		line, err := s.r.ReadString('\n')
		if err != nil {
			t.Fatalf("%s: reading the answer: %v", method, err)
		}
		var msg struct {
			ID     *int           `json:"id"`
			Result map[string]any `json:"result"`
			Error  map[string]any `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			t.Fatalf("%s: the host wrote %q: %v", method, line, err)
		}
		if msg.ID != nil && *msg.ID == s.id {
			return msg.Result, msg.Error
		}
	}
}

// Before 2026-07-28 a tool's execution.taskSupport decides (mcp-wire.md §6.6): a
// plain tools/call of research, whose taskSupport is "required", is -32601 (it was
// answered with a CreateTaskResult, which the TypeScript SDK v2 client rejects), a
// call with params.task starts a task, and params.task on a tool without task
// support is -32601 too. The same over stdio and over HTTP.
func TestLegacyCallFollowsTaskSupport(t *testing.T) {
	const version = "2025-11-25"
	_, base := newHTTPHost(t)
	httpSide := &httpEra{url: base + "/mcp", version: version}
	transports := map[string]func(t *testing.T) func(method, params string) (map[string]any, map[string]any){
		"stdio": func(t *testing.T) func(method, params string) (map[string]any, map[string]any) {
			s := newStdioRaw(t, version)
			return func(method, params string) (map[string]any, map[string]any) { return s.request(t, method, params) }
		},
		"http": func(t *testing.T) func(method, params string) (map[string]any, map[string]any) {
			return func(method, params string) (map[string]any, map[string]any) {
				_, res, rerr, _ := httpSide.request(t, method, "", params)
				return res, rerr
			}
		},
	}
	for name, open := range transports {
		t.Run(name, func(t *testing.T) {
			request := open(t)
			res, rerr := request("tools/call", `"name":"research","arguments":{"topic":"owls","delayMs":1}`)
			if rerr == nil || rerr["code"] != float64(-32601) {
				t.Errorf("plain call of research = %v, %v; want -32601", res, rerr)
			} else if msg, _ := rerr["message"].(string); !strings.Contains(msg, `"research"`) || !strings.Contains(msg, "task") {
				t.Errorf("plain call of research: message %q names neither the tool nor why", msg)
			}

			res, rerr = request("tools/call", `"name":"research","arguments":{"topic":"owls","delayMs":1},"task":{"ttl":60000}`)
			if task, _ := res["task"].(map[string]any); rerr != nil || task["taskId"] == nil {
				t.Errorf("research with params.task = %v, %v; want a CreateTaskResult", res, rerr)
			}

			res, rerr = request("tools/call", `"name":"echo","arguments":{"text":"hi"},"task":{"ttl":60000}`)
			if rerr == nil || rerr["code"] != float64(-32601) {
				t.Errorf("echo with params.task = %v, %v; want -32601", res, rerr)
			} else if msg, _ := rerr["message"].(string); !strings.Contains(msg, `"echo"`) {
				t.Errorf("echo with params.task: message %q does not name the tool", msg)
			}

			res, rerr = request("tools/call", `"name":"echo","arguments":{"text":"hi"}`)
			if b, _ := json.Marshal(res); rerr != nil || !strings.Contains(string(b), `"text":"hi"`) {
				t.Errorf("plain echo = %s, %v", b, rerr)
			}
		})
	}
}

// A request without params (ping, as mcpscope's CLI sends it) reaches the host's
// middleware with a typed nil: reading its _meta crashed the host.
func TestRequestWithoutParams(t *testing.T) {
	s := newStdioRaw(t, "2025-11-25")
	s.id++
	fmt.Fprintf(s.w, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`+"\n", s.id)
	line, err := s.r.ReadString('\n')
	if err != nil || !strings.Contains(line, `"result":{}`) {
		t.Fatalf("ping without params = %q, %v; want an empty result", line, err)
	}
}
