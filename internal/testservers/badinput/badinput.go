// Package badinput is the stdio loop of two test servers that each reproduce one
// real way a server mishandles bad arguments (lenient: it accepts them; fragile: it
// crashes on a wrong type). It speaks the 2025 era over NDJSON: initialize, ping,
// tools/list and tools/call; server/discover and anything else get -32601.
//
// Every request's method (and a call's tool name) is appended to the file named by
// $BADINPUT_LOG, one line each, so that a test can see what was sent, and what was
// not.
package badinput

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// Tools is the tools/list answer both servers give: lookup is read-only, erase is
// not (a check must never call it unasked).
const Tools = `[
{"name":"lookup","description":"Looks a record up.","annotations":{"readOnlyHint":true},
 "inputSchema":{"type":"object","properties":{"id":{"type":"integer"},"mode":{"type":"string","enum":["fast","full"]}},"required":["id"]}},
{"name":"erase","description":"Erases a record.",
 "inputSchema":{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}}]`

// Call answers one tools/call of a known tool: the text and isError.
type Call func(tool string, args map[string]any) (text string, isError bool)

// Serve runs the loop until stdin ends.
func Serve(in io.Reader, out io.Writer, call Call) {
	var log io.Writer = io.Discard
	if p := os.Getenv("BADINPUT_LOG"); p != "" {
		if f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
			defer f.Close()
			log = f
		}
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name            string         `json:"name"`
				Arguments       map[string]any `json:"arguments"`
				ProtocolVersion string         `json:"protocolVersion"`
			} `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || len(m.ID) == 0 {
			continue // a notification (or garbage): nothing to answer
		}
		fmt.Fprintln(log, m.Method, m.Params.Name)
		reply := func(result string) { fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", m.ID, result) }
		fail := func(code int, msg string) {
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":%q}}`+"\n", m.ID, code, msg)
		}
		switch m.Method {
		case "initialize":
			v := m.Params.ProtocolVersion
			if v == "" || v > "2025-11-25" {
				v = "2025-11-25"
			}
			reply(fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"badinput","version":"1"}}`, v))
		case "ping":
			reply(`{}`)
		case "tools/list":
			var tools bytes.Buffer
			_ = json.Compact(&tools, []byte(Tools)) // one line: NDJSON
			reply(`{"tools":` + tools.String() + `}`)
		case "tools/call":
			if m.Params.Name != "lookup" && m.Params.Name != "erase" {
				fail(-32602, "unknown tool "+m.Params.Name)
				continue
			}
			text, isErr := call(m.Params.Name, m.Params.Arguments)
			b, _ := json.Marshal(text)
			reply(fmt.Sprintf(`{"content":[{"type":"text","text":%s}],"isError":%v}`, b, isErr))
		default:
			fail(-32601, "method not found: "+m.Method)
		}
	}
}
