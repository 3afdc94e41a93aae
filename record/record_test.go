package record

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/client/wire"
)

// sample writes one event of every kind the wire layer emits, plus an HTTP pair.
func sample(t *testing.T, red *Redactor) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{
		McpscopeVersion: "test",
		Target:          Target{Transport: "stdio", Argv: []string{"server", "--token=sekrit-value"}, Env: []string{"API_KEY"}, Framing: "auto"},
		Client:          &Peer{Name: "mcpscope", Version: "test"},
	}, red)
	if err != nil {
		t.Fatal(err)
	}
	now := w.Start()
	at := func(ms int) time.Time { return now.Add(time.Duration(ms) * time.Millisecond) }
	w.Listen(wire.Event{Time: at(1), Kind: wire.KindMessage, Dir: wire.Send, Framing: wire.FramingNDJSON, Data: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"<b>&"}}}`)})
	w.Listen(wire.Event{Time: at(2), Kind: wire.KindMessage, Dir: wire.Recv, Framing: wire.FramingContentLength, Data: []byte("{\n  \"jsonrpc\": \"2.0\",\n  \"method\": \"notifications/progress\",\n  \"params\": {\"progressToken\": 1, \"progress\": 1}\n}")})
	w.Listen(wire.Event{Time: at(3), Kind: wire.KindMessage, Dir: wire.Recv, Data: []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"echo: <b>&"}]}}`)})
	w.Listen(wire.Event{Time: at(4), Kind: wire.KindStderr, Data: []byte("listening…")})
	w.Listen(wire.Event{Time: at(5), Kind: wire.KindNoise, Dir: wire.Recv, Data: []byte("xxxx"), Size: 500 << 20})
	w.Listen(wire.Event{Time: at(6), Kind: wire.KindRepair, Dir: wire.Recv, Data: []byte(`{"jsonrpc":"2.0","id":2,"result":{}}`), Text: `inserted the missing "jsonrpc":"2.0"`})
	w.Listen(wire.Event{Time: at(7), Kind: wire.KindSynthetic, Text: "restarting with Content-Length framing"})
	w.Write(Event{T: 0.008, Kind: KindHTTP, Dir: Send, Method: "POST", URL: "http://127.0.0.1:5757/mcp", Exchange: 3, Headers: map[string][]string{"Authorization": {"Bearer abc.def"}, "Mcp-Method": {"tools/call"}}})
	w.Write(Event{T: 0.009, Kind: KindHTTP, Dir: Recv, Exchange: 3, Status: 401, Headers: map[string][]string{"Set-Cookie": {"sid=1"}, "Www-Authenticate": {`Bearer resource_metadata="x"`, `Basic`}}})
	w.Listen(wire.Event{Time: at(10), Kind: wire.KindClosed, Exit: &wire.Exit{Code: -1, Signal: "SIGKILL"}, Text: "server killed by SIGKILL"})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestWriteRead(t *testing.T) {
	data := sample(t, nil)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 12 {
		t.Fatalf("%d lines, want header + 10 events + end:\n%s", len(lines), data)
	}
	for i, l := range lines {
		if !json.Valid([]byte(l)) {
			t.Errorf("line %d is not JSON: %s", i+1, l)
		}
	}
	// The exact lines are the format's contract.
	want := []string{
		`{"t":0.001,"dir":"send","msg":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"<b>&"}}}}`,
		`{"t":0.002,"dir":"recv","framing":"content-length","msg":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}}`,
		`{"t":0.003,"dir":"recv","msg":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"echo: <b>&"}]}}}`,
		`{"t":0.004,"kind":"stderr","text":"listening…"}`,
		`{"t":0.005,"kind":"noise","dir":"recv","size":524288000,"text":"xxxx"}`,
		`{"t":0.006,"kind":"repair","dir":"recv","text":"inserted the missing \"jsonrpc\":\"2.0\"","msg":{"jsonrpc":"2.0","id":2,"result":{}}}`,
		`{"t":0.007,"kind":"synthetic","text":"restarting with Content-Length framing"}`,
		`{"t":0.008,"kind":"http","dir":"send","exchange":3,"method":"POST","url":"http://127.0.0.1:5757/mcp","headers":{"Authorization":["[redacted]"],"Mcp-Method":["tools/call"]}}`,
		`{"t":0.009,"kind":"http","dir":"recv","exchange":3,"status":401,"headers":{"Set-Cookie":["[redacted]"],"Www-Authenticate":["Bearer resource_metadata=\"x\"","Basic"]}}`,
		`{"t":0.01,"kind":"closed","exit":-1,"signal":"SIGKILL","text":"server killed by SIGKILL"}`,
	}
	for i, w := range want {
		if lines[i+1] != w {
			t.Errorf("line %d:\n got %s\nwant %s", i+2, lines[i+1], w)
		}
	}
	if !strings.HasPrefix(lines[11], `{"t":`) || !strings.Contains(lines[11], `"kind":"end"`) {
		t.Errorf("last line %s", lines[11])
	}

	rec, err := Read(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Complete || len(rec.Warnings) != 0 || len(rec.Events) != 10 {
		t.Fatalf("complete %v, warnings %v, %d events", rec.Complete, rec.Warnings, len(rec.Events))
	}
	h := rec.Header
	if h.Format != Format || h.Version != Version || h.Target.Argv[1] != "--token=[redacted]" || h.Target.Env[0] != "API_KEY" || h.Started.IsZero() {
		t.Errorf("header %+v", h)
	}
	if e := rec.Events[1]; e.Kind != KindMessage || e.Framing != "content-length" || e.Line != 3 || !e.IsMessage() {
		t.Errorf("event 2: %+v", e)
	}
	if e := rec.Events[9]; e.Exit == nil || *e.Exit != -1 || e.Signal != "SIGKILL" {
		t.Errorf("closed: %+v", e)
	}

	// Writing the recording back gives the same bytes.
	var again bytes.Buffer
	if _, err := rec.WriteTo(&again); err != nil {
		t.Fatal(err)
	}
	again2 := strings.Split(again.String(), "\n")
	for i := 1; i < 11; i++ {
		if again2[i] != lines[i] {
			t.Errorf("rewritten line %d:\n got %s\nwant %s", i+1, again2[i], lines[i])
		}
	}
}

// A file cut anywhere (the recorder was killed mid-line) still loads: every whole line
// before the cut, and a warning for the torn one.
func TestTornFile(t *testing.T) {
	data := sample(t, nil)
	headerEnd := bytes.IndexByte(data, '\n') + 1
	for cut := headerEnd; cut < len(data); cut++ {
		rec, err := Read(bytes.NewReader(data[:cut]))
		if err != nil {
			t.Fatalf("cut at %d: %v", cut, err)
		}
		whole := bytes.Count(data[headerEnd:cut], []byte("\n"))
		torn := cut > 0 && data[cut-1] != '\n'
		n := len(rec.Events)
		if rec.Complete {
			n++ // the end marker
		}
		// A line cut right before its "\n" is whole JSON and is kept.
		if n != whole && !(torn && n == whole+1) {
			t.Fatalf("cut at %d: %d events, %d whole lines", cut, len(rec.Events), whole)
		}
		if torn && n == whole && !strings.Contains(strings.Join(rec.Warnings, "\n"), "incomplete") {
			t.Fatalf("cut at %d: no warning about the torn line: %v", cut, rec.Warnings)
		}
	}
}

func TestReadErrors(t *testing.T) {
	cases := map[string]string{
		"":                                     "empty file",
		"hello\n":                              "not an mcpscope recording",
		`{"mcpscope":"other","version":1}`:     "not an mcpscope recording",
		`{"mcpscope":"recording"}`:             "no valid format version",
		`{"mcpscope":"recording","version":9}`: "format version 9",
	}
	for in, want := range cases {
		_, err := Read(strings.NewReader(in))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
	rec, err := Read(strings.NewReader(`{"mcpscope":"recording","version":1}` + "\n" + "garbage\n" + `{"t":1,"dir":"send","msg":{"jsonrpc":"2.0","method":"x"}}` + "\n"))
	if err != nil || len(rec.Events) != 1 || len(rec.Warnings) != 2 || !strings.Contains(rec.Warnings[0], "line 2 is not a recording event") {
		t.Errorf("%v %+v", err, rec)
	}
}

func TestRedaction(t *testing.T) {
	red, err := NewRedactor([]string{"sekrit-value", `q"uote`}, []string{`ghp_[A-Za-z0-9]+`})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ in, want string }{
		{`{"a":"sekrit-value"}`, `{"a":"[redacted]"}`},
		{`{"a":"x sekrit-value y","b":1}`, `{"a":"x [redacted] y","b":1}`},
		{`{"a":"sekrit\u002dvalue"}`, `{"a":"[redacted]"}`},                              // escaped in the JSON
		{`{"a":"say q\"uote"}`, `{"a":"say [redacted]"}`},                                // a secret that needs escaping
		{`{"t":"token ghp_abc123 ok"}`, `{"t":"token [redacted] ok"}`},                   // a pattern
		{`{"ghp_key":1}`, `{"[redacted]":1}`},                                            // member names too
		{`{"nested":"{\"k\":\"sekrit-value\"}"}`, `{"nested":"{\"k\":\"[redacted]\"}"}`}, // JSON in a string
		{`{"a":"clean", "n": 1.5e3}`, `{"a":"clean", "n": 1.5e3}`},                       // untouched bytes
		{`{"a":"unterminated sekrit-value`, `{"a":"unterminated [redacted]`},
	}
	for _, c := range cases {
		if got := string(red.JSON([]byte(c.in))); got != c.want {
			t.Errorf("JSON(%s) = %s, want %s", c.in, got, c.want)
		}
	}
	if got := red.Text("a sekrit-value and ghp_zzz"); got != "a [redacted] and [redacted]" {
		t.Errorf("Text: %s", got)
	}
	if _, err := NewRedactor(nil, []string{"("}); err == nil {
		t.Error("a bad pattern was accepted")
	}
	if _, err := NewRedactor(nil, []string{"x*"}); err == nil {
		t.Error("a pattern matching the empty string was accepted")
	}

	names, secrets := EnvSecrets([]string{"API_KEY=abcd1234", "GITHUB_TOKEN=ghp_x", "DB_PASSWORD=hunter22", "PATH=/bin", "DEBUG=1", "SHORT_TOKEN=ab", "OPENAI=sk-proj-0123456789abcdef"})
	if strings.Join(names, ",") != "API_KEY,GITHUB_TOKEN,DB_PASSWORD,PATH,DEBUG,SHORT_TOKEN,OPENAI" {
		t.Errorf("names %v", names)
	}
	if strings.Join(secrets, ",") != "abcd1234,ghp_x,hunter22,sk-proj-0123456789abcdef" {
		t.Errorf("secrets %v", secrets)
	}

	// Through the writer: header argv, messages, text.
	data := sample(t, red)
	if bytes.Contains(data, []byte("sekrit-value")) {
		t.Errorf("the secret reached the file:\n%s", data)
	}
	if !bytes.Contains(data, []byte(`"--token=[redacted]"`)) {
		t.Errorf("argv not redacted:\n%s", data)
	}
}

func TestCreateIn(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for range 3 {
		w, err := CreateIn(dir, Header{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, w.Path())
		w.Close()
	}
	if paths[0] == paths[1] || paths[1] == paths[2] || !strings.HasPrefix(filepath.Base(paths[0]), "mcpscope-") || filepath.Ext(paths[0]) != ".jsonl" {
		t.Errorf("names %v", paths)
	}
	rec, err := Load(paths[2])
	if err != nil || !rec.Complete {
		t.Fatalf("%v %+v", err, rec)
	}
	st, _ := os.Stat(paths[0])
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v: a recording may hold private data", st.Mode())
	}
}

func TestExchanges(t *testing.T) {
	in := `{"mcpscope":"recording","version":1}
{"t":0.1,"dir":"send","msg":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}}
{"t":0.2,"dir":"recv","msg":{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}}
{"t":0.3,"dir":"send","msg":{"jsonrpc":"2.0","method":"notifications/initialized"}}
{"t":0.4,"dir":"send","msg":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","_meta":{"progressToken":"p1"}}}}
{"t":0.5,"dir":"send","msg":{"jsonrpc":"2.0","id":3,"method":"tools/list"}}
{"t":0.6,"dir":"recv","msg":{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":1}}}
{"t":0.7,"dir":"recv","msg":{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}}
{"t":0.8,"dir":"recv","msg":[{"jsonrpc":"2.0","id":3,"result":{"tools":[]}},{"jsonrpc":"2.0","id":9,"method":"ping"}]}
{"t":0.9,"dir":"send","msg":{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}}
{"t":1.0,"dir":"recv","msg":{"jsonrpc":"2.0","id":2,"result":{}}}
{"t":1.1,"dir":"recv","msg":{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}}
{"t":1.2,"dir":"send","msg":{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo"}}}
`
	rec, err := Read(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	xs := rec.Exchanges()
	if len(xs) != 4 {
		t.Fatalf("%d exchanges", len(xs))
	}
	if !xs[0].Handshake() || xs[0].Response == nil {
		t.Errorf("initialize: %+v", xs[0])
	}
	slow, list, last := xs[1], xs[2], xs[3]
	if slow.Response != nil || len(slow.Notifications) != 1 || !strings.Contains(string(slow.Notifications[0]), "p1") {
		t.Errorf("cancelled slow call: response %s, notifications %s", slow.Response, slow.Notifications)
	}
	if list.Response == nil || len(list.Notifications) != 1 || !strings.Contains(string(list.Notifications[0]), "notifications/message") {
		t.Errorf("tools/list: response %s, notifications %s", list.Response, list.Notifications)
	}
	if last.Response != nil || last.ResponseEvent != -1 {
		t.Errorf("unanswered: %+v", last)
	}
	if era, v := Era(xs); era != "legacy" || v != "2025-06-18" {
		t.Errorf("era %s %s", era, v)
	}
}

// FuzzRead: arbitrary bytes give a recording or an error, never a panic, and whatever
// loads can be written back and read again.
func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"mcpscope":"recording","version":1,"started":"2026-01-01T00:00:00Z","target":{"transport":"stdio","argv":["x"]}}` + "\n" + `{"t":0.1,"dir":"send","msg":{"jsonrpc":"2.0","id":1,"method":"tools/list"}}` + "\n" + `{"t":0.2,"dir":"recv","msg":{"jsonrpc":"2.0","id":1,"result":{"tools":[]}}}` + "\n" + `{"t":0.3,"kind":"end"}` + "\n"))
	f.Add([]byte(`{"mcpscope":"recording","version":1}` + "\n" + `{"t":0.1,"dir":"send","msg":{"jsonrpc":"2.0","id":1,"meth`))
	f.Add([]byte(`{"mcpscope":"recording","version":1}` + "\n" + `{"t":"x","msg":[1,2]}` + "\n" + `{"kind":"closed","exit":-1}` + "\n" + `{"msg":[{"id":1,"method":"a"},{"id":1,"result":1}],"dir":"send"}`))
	f.Add([]byte(`{"mcpscope":"recording","version":2}`))
	f.Add([]byte("\n\n\x00\xff{"))
	f.Add([]byte(`{"mcpscope":"recording","version":1}` + "\r\n" + `{"t":1e400}` + "\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		rec.Exchanges()
		var buf bytes.Buffer
		if _, err := rec.WriteTo(&buf); err != nil {
			t.Fatalf("write back: %v", err)
		}
		again, err := Read(&buf)
		if err != nil {
			t.Fatalf("reading what was written back: %v\n%s", err, buf.Bytes())
		}
		if len(again.Events) != len(rec.Events) {
			t.Fatalf("%d events, %d after writing back\n%s", len(rec.Events), len(again.Events), buf.Bytes())
		}
	})
}

// Events of an HTTP transport keep the exchange, method, URL, status, headers and SSE
// fields; credentials in headers never reach the file.
func TestHTTPEvents(t *testing.T) {
	var buf bytes.Buffer
	red, _ := NewRedactor([]string{"tok-123456"}, nil)
	w, err := NewWriter(&buf, Header{Target: Target{Transport: "http", URL: "http://127.0.0.1:5757/mcp?key=tok-123456"}}, red)
	if err != nil {
		t.Fatal(err)
	}
	at := w.Start().Add(time.Millisecond)
	w.Listen(wire.Event{Time: at, Kind: wire.KindHTTP, Dir: wire.Send, Text: "POST http://127.0.0.1:5757/mcp", HTTP: &wire.HTTPInfo{
		Exchange: 1, Method: "POST", URL: "http://127.0.0.1:5757/mcp",
		Header: map[string][]string{"Authorization": {"Bearer tok-123456"}, "Mcp-Method": {"tools/call"}, "X-Api-Key": {"tok-123456"}},
	}})
	w.Listen(wire.Event{Time: at, Kind: wire.KindMessage, Dir: wire.Send, Framing: wire.FramingHTTP, Data: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`), HTTP: &wire.HTTPInfo{Exchange: 1, Method: "POST", URL: "http://127.0.0.1:5757/mcp"}})
	w.Listen(wire.Event{Time: at, Kind: wire.KindHTTP, Dir: wire.Recv, HTTP: &wire.HTTPInfo{
		Exchange: 1, Method: "POST", URL: "http://127.0.0.1:5757/mcp", Status: 200,
		Header: map[string][]string{"Content-Type": {"text/event-stream"}, "Set-Cookie": {"a=b"}},
	}})
	w.Listen(wire.Event{Time: at, Kind: wire.KindMessage, Dir: wire.Recv, Framing: wire.FramingSSE, Data: []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), HTTP: &wire.HTTPInfo{Exchange: 1, SSE: &wire.SSEInfo{ID: "7"}}})
	w.Listen(wire.Event{Time: at, Kind: wire.KindHTTP, Dir: wire.Recv, Text: "failed", HTTP: &wire.HTTPInfo{Exchange: 2, Error: "connection refused"}})
	w.Close()
	out := buf.String()
	for _, want := range []string{
		`"url":"http://127.0.0.1:5757/mcp?key=[redacted]"`,
		`{"t":0.001,"kind":"http","dir":"send","exchange":1,"method":"POST","url":"http://127.0.0.1:5757/mcp","headers":{"Authorization":["[redacted]"],"Mcp-Method":["tools/call"],"X-Api-Key":["[redacted]"]},"text":"POST http://127.0.0.1:5757/mcp"}`,
		`{"t":0.001,"dir":"send","framing":"http","exchange":1,"msg":{"jsonrpc":"2.0","id":1,"method":"tools/call"}}`,
		`{"t":0.001,"kind":"http","dir":"recv","exchange":1,"status":200,"headers":{"Content-Type":["text/event-stream"],"Set-Cookie":["[redacted]"]}}`,
		`{"t":0.001,"dir":"recv","framing":"sse","exchange":1,"sse":{"id":"7"},"msg":{"jsonrpc":"2.0","id":1,"result":{}}}`,
		`{"t":0.001,"kind":"http","dir":"recv","exchange":2,"error":"connection refused","text":"failed"}`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %s in\n%s", want, out)
		}
	}
	if strings.Contains(out, "tok-123456") {
		t.Errorf("a secret reached the file:\n%s", out)
	}
	rec, err := Read(strings.NewReader(out))
	if err != nil || len(rec.Events) != 5 || rec.Events[3].SSE == nil || rec.Events[3].SSE.ID != "7" || rec.Events[0].Headers["Mcp-Method"][0] != "tools/call" {
		t.Errorf("%v %+v", err, rec)
	}
	if xs := rec.Exchanges(); len(xs) != 1 || xs[0].Response == nil {
		t.Errorf("exchanges over HTTP: %+v", xs)
	}
}

// A recording line over MaxLine is skipped with a warning that says so, and the rest
// of the recording is read.
func TestOverlongRecordingLineIsSkipped(t *testing.T) {
	old := MaxLine
	MaxLine = 1000
	defer func() { MaxLine = old }()
	in := `{"mcpscope":"recording","version":1,"target":{"transport":"stdio"}}` + "\n" +
		`{"t":0.1,"dir":"recv","msg":{"jsonrpc":"2.0","id":1,"result":{"text":"` + strings.Repeat("x", 5000) + `"}}}` + "\n" +
		`{"t":0.2,"dir":"recv","msg":{"jsonrpc":"2.0","id":2,"result":{}}}` + "\n" +
		`{"t":0.3,"kind":"end"}` + "\n"
	rec, err := Read(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Events) != 1 || !rec.Complete {
		t.Fatalf("events %d, complete %v", len(rec.Events), rec.Complete)
	}
	if len(rec.Warnings) != 1 || !strings.Contains(rec.Warnings[0], "line 2 is 5.0 KiB, more than the 1000 B limit") {
		t.Fatalf("warnings %q", rec.Warnings)
	}
	// An overlong first line is not a recording.
	if _, err := Read(strings.NewReader(strings.Repeat("y", 3000) + "\n")); err == nil || !strings.Contains(err.Error(), "more than the 1000 B a recording line may have") {
		t.Fatalf("overlong header: %v", err)
	}
}

// A message over 1 MiB is written from its bytes and reads back whole.
func TestBigMessageRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	msg := []byte(`{"jsonrpc":"2.0","id":1,"result":{"text":"` + strings.Repeat("z", 3<<20) + `"}}`)
	w.Listen(wire.Event{Kind: wire.KindMessage, Dir: wire.Recv, Data: msg})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	rec, err := Read(&buf)
	if err != nil || len(rec.Events) != 1 || !bytes.Equal(rec.Events[0].Msg, msg) || !rec.Complete {
		t.Fatalf("read back: %v, %d events, warnings %q", err, len(rec.Events), rec.Warnings)
	}
}
