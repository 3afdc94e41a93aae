// Package exportrec makes big recordings for measuring export, as a reader that
// writes them as it is read (so that a test that measures memory does not hold the
// recording itself): about size bytes of tools/call exchanges with 4 KiB results.
//
//   - "stdio": over stdio, each call with a progress notification.
//   - "http": over Streamable HTTP, each call a POST answered by an SSE stream, and a
//     GET stream open for the whole session carrying a log message now and then.
//   - "several": both, as the servers "local" and "remote" of one recording.
package exportrec

import (
	"bytes"
	"fmt"
	"io"
	"strings"
)

var text = strings.Repeat("lorem ipsum ", 340)

// Reader returns the recording.
func Reader(kind string, size int64) io.Reader {
	return &reader{kind: kind, size: size}
}

type reader struct {
	kind    string
	size    int64
	written int64
	i       int
	t       float64
	buf     bytes.Buffer
	done    bool
}

func (r *reader) tick() float64 { r.t += 0.0001; return r.t }

func (r *reader) Read(p []byte) (int, error) {
	for r.buf.Len() == 0 {
		if r.done {
			return 0, io.EOF
		}
		r.next()
	}
	n, _ := r.buf.Read(p)
	r.written += int64(n)
	return n, nil
}

func (r *reader) next() {
	b := &r.buf
	if r.i == 0 {
		switch r.kind {
		case "stdio":
			fmt.Fprintln(b, `{"mcpscope":"recording","version":1,"started":"2026-03-01T10:00:00Z","target":{"transport":"stdio","argv":["srv"]}}`)
		case "http":
			fmt.Fprintln(b, `{"mcpscope":"recording","version":1,"started":"2026-03-01T10:00:00Z","target":{"transport":"http","url":"http://127.0.0.1:1/mcp"}}`)
		default:
			fmt.Fprintln(b, `{"mcpscope":"recording","version":2,"started":"2026-03-01T10:00:00Z","target":{"transport":"stdio"},"servers":[{"name":"local","target":{"transport":"stdio","argv":["srv"]}},{"name":"remote","target":{"transport":"http","url":"http://127.0.0.1:1/mcp"}}]}`)
		}
		if r.kind != "http" {
			r.stdio(0, "initialize", `{"protocolVersion":"2025-11-25"}`)
		}
		if r.kind != "stdio" {
			fmt.Fprintf(b, `{"t":%.4f,%s"kind":"http","dir":"send","exchange":1,"method":"GET","url":"http://127.0.0.1:1/mcp","headers":{}}`+"\n", r.tick(), r.server("remote"))
			fmt.Fprintf(b, `{"t":%.4f,%s"kind":"http","dir":"recv","exchange":1,"status":200,"headers":{"Content-Type":["text/event-stream"],"Mcp-Session-Id":["s-1"]}}`+"\n", r.tick(), r.server("remote"))
		}
		r.i++
		return
	}
	if r.written+int64(b.Len()) >= r.size {
		fmt.Fprintln(b, `{"t":9999,"kind":"end"}`)
		r.done = true
		return
	}
	i := r.i
	r.i++
	if r.kind != "http" {
		r.stdio(i, "tools/call", `{"content":[{"type":"text","text":"`+text+`"}]}`)
	}
	if r.kind != "stdio" {
		x, s := i+1, r.server("remote")
		fmt.Fprintf(b, `{"t":%.4f,%s"kind":"http","dir":"send","exchange":%d,"method":"POST","url":"http://127.0.0.1:1/mcp","headers":{}}`+"\n", r.tick(), s, x)
		fmt.Fprintf(b, `{"t":%.4f,%s"dir":"send","framing":"http","exchange":%d,"msg":{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo"}}}`+"\n", r.tick(), s, x, i)
		fmt.Fprintf(b, `{"t":%.4f,%s"kind":"http","dir":"recv","exchange":%d,"status":200,"headers":{"Content-Type":["text/event-stream"]}}`+"\n", r.tick(), s, x)
		if i%100 == 0 {
			fmt.Fprintf(b, `{"t":%.4f,%s"dir":"recv","framing":"sse","exchange":1,"sse":{"id":"g%d"},"msg":{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"%d"}}}`+"\n", r.tick(), s, i, i)
		}
		fmt.Fprintf(b, `{"t":%.4f,%s"dir":"recv","framing":"sse","exchange":%d,"sse":{"id":"e%d"},"msg":{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"%s"}]}}}`+"\n", r.tick(), s, x, i, i, text)
	}
}

// server is the event's server member in a recording of several.
func (r *reader) server(name string) string {
	if r.kind != "several" {
		return ""
	}
	return `"server":"` + name + `",`
}

// stdio writes one exchange over stdio: the request, a progress notification, the
// response.
func (r *reader) stdio(id int, method, result string) {
	s := r.server("local")
	fmt.Fprintf(&r.buf, `{"t":%.4f,%s"dir":"send","msg":{"jsonrpc":"2.0","id":%d,"method":"%s","params":{"_meta":{"progressToken":%d}}}}`+"\n", r.tick(), s, id, method, id)
	fmt.Fprintf(&r.buf, `{"t":%.4f,%s"dir":"recv","msg":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%d,"progress":1}}}`+"\n", r.tick(), s, id)
	fmt.Fprintf(&r.buf, `{"t":%.4f,%s"dir":"recv","msg":{"jsonrpc":"2.0","id":%d,"result":%s}}`+"\n", r.tick(), s, id, result)
}
