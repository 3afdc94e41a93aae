package main_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/record"
)

// harSchema is the HAR 1.2 structure (export/testdata: every required member).
func harSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "export", "testdata", "har-1.2.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("har.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("har.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

type harEntry struct {
	StartedDateTime string  `json:"startedDateTime"`
	Time            float64 `json:"time"`
	Request         struct {
		Method   string `json:"method"`
		URL      string `json:"url"`
		Headers  []struct{ Name, Value string }
		PostData struct{ Text string } `json:"postData"`
	} `json:"request"`
	Response struct {
		Status  int `json:"status"`
		Content struct {
			MimeType string `json:"mimeType"`
			Text     string `json:"text"`
		} `json:"content"`
	} `json:"response"`
}

// validHAR checks out against the HAR 1.2 structure and returns its entries.
func validHAR(t *testing.T, out string) []harEntry {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(out))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if err := harSchema(t).Validate(v); err != nil {
		t.Fatalf("not HAR 1.2: %v", err)
	}
	var doc struct {
		Log struct{ Entries []harEntry } `json:"log"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Log.Entries
}

// within checks that a time lies within the recording (from its start to its last
// event).
func within(t *testing.T, rec *record.Recording, what string, at time.Time) {
	t.Helper()
	last := rec.Events[len(rec.Events)-1].T
	end := rec.Header.Started.Add(time.Duration(last*float64(time.Second)) + time.Millisecond)
	if at.Before(rec.Header.Started.Add(-time.Millisecond)) || at.After(end) {
		t.Errorf("%s %v is outside the recording (%v to %v)", what, at, rec.Header.Started, end)
	}
}

type otlpSpan struct {
	TraceID, SpanID, ParentSpanID, Name string
	StartTimeUnixNano, EndTimeUnixNano  string
	Attributes                          []struct {
		Key   string
		Value struct{ StringValue string }
	}
	Status struct{ Code int }
}

func (s otlpSpan) attr(k string) string {
	for _, a := range s.Attributes {
		if a.Key == k {
			return a.Value.StringValue
		}
	}
	return ""
}

func otlpSpans(t *testing.T, out string) []otlpSpan {
	t.Helper()
	var doc struct {
		ResourceSpans []struct {
			ScopeSpans []struct{ Spans []otlpSpan }
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.ResourceSpans) != 1 || len(doc.ResourceSpans[0].ScopeSpans) != 1 {
		t.Fatalf("not OTLP JSON with one resource and scope: %v\n%s", err, out)
	}
	return doc.ResourceSpans[0].ScopeSpans[0].Spans
}

func unixNano(t *testing.T, s string) time.Time {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("time %q: %v", s, err)
	}
	return time.Unix(0, n)
}

var (
	traceIDRE = regexp.MustCompile(`^[0-9a-f]{32}$`)
	spanIDRE  = regexp.MustCompile(`^[0-9a-f]{16}$`)
)

// TestExportStdioRecording: a real recording of a call over stdio, exported three
// ways: HAR 1.2 with one entry per request on a synthetic stdio:// URL, OTLP spans
// with valid and distinct ids named by method and tool within the recording's times,
// and the exchanges as JSON; the same export twice is the same bytes.
func TestExportStdioRecording(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	file := filepath.Join(t.TempDir(), "call.jsonl")
	expect(t, mcpscope(t, nil, "call", "echo", "text=hi", "--record", file, "--", bin, "host"), 0, []string{"hi"}, nil)
	rec := load(t, file)

	r := mcpscope(t, nil, "export", file, "--format", "har")
	expect(t, r, 0, nil, nil)
	entries := validHAR(t, r.stdout)
	var call *harEntry
	for i, e := range entries {
		at, err := time.Parse(time.RFC3339Nano, e.StartedDateTime)
		if err != nil {
			t.Fatal(err)
		}
		within(t, rec, "entry "+e.Request.URL, at)
		if e.Request.URL == "stdio://mcpscope/tools/call" {
			call = &entries[i]
		}
	}
	if call == nil || call.Response.Status != 200 || !strings.Contains(call.Request.PostData.Text, `"text":"hi"`) || !strings.Contains(call.Response.Content.Text, `"text":"hi"`) {
		t.Fatalf("no tools/call entry with its request and response: %+v\n%s", call, r.stdout)
	}

	r = mcpscope(t, nil, "export", file, "--format", "otlp")
	expect(t, r, 0, nil, nil)
	spans := otlpSpans(t, r.stdout)
	if len(spans) != len(entries) {
		t.Fatalf("%d spans for %d requests", len(spans), len(entries))
	}
	seen := map[string]bool{}
	var echo *otlpSpan
	for i, s := range spans {
		if !traceIDRE.MatchString(s.TraceID) || !spanIDRE.MatchString(s.SpanID) || seen[s.SpanID] || s.TraceID != spans[0].TraceID {
			t.Fatalf("span %q: trace %q span %q (ids must be hex, span ids distinct, one trace)", s.Name, s.TraceID, s.SpanID)
		}
		seen[s.SpanID] = true
		start, end := unixNano(t, s.StartTimeUnixNano), unixNano(t, s.EndTimeUnixNano)
		within(t, rec, s.Name+" start", start)
		within(t, rec, s.Name+" end", end)
		if end.Before(start) {
			t.Errorf("span %q ends before it starts", s.Name)
		}
		if s.Name == "tools/call echo" {
			echo = &spans[i]
		}
	}
	if echo == nil || echo.attr("mcp.method.name") != "tools/call" || echo.attr("gen_ai.tool.name") != "echo" || echo.attr("network.transport") != "pipe" || echo.ParentSpanID != "" {
		t.Fatalf("no span for the echo call with the MCP conventions' attributes: %+v", echo)
	}

	r = mcpscope(t, nil, "export", file, "--format", "json")
	expect(t, r, 0, nil, nil)
	var xs []struct {
		Method, Name, Outcome string
		Response              json.RawMessage
	}
	if err := json.Unmarshal([]byte(r.stdout), &xs); err != nil {
		t.Fatal(err)
	}
	last := xs[len(xs)-1]
	if last.Method != "tools/call" || last.Name != "echo" || last.Outcome != "result" || !bytes.Contains(last.Response, []byte(`"hi"`)) {
		t.Fatalf("last exchange %+v", last)
	}
	if again := mcpscope(t, nil, "export", file, "--format", "json"); again.stdout != r.stdout {
		t.Fatal("two exports of one file differ")
	}
}

// TestExportHTTPRecording: a recording against the bundled host over Streamable
// HTTP: one HAR entry per HTTP exchange, with the recorded headers (the bearer token
// redacted, as the recording has it) and the SSE stream as its events; OTLP spans say
// tcp and the server's address.
func TestExportHTTPRecording(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(testutil.Mcpscope(t), "host", "--http", "127.0.0.1:0")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	lines := bufio.NewScanner(stderr)
	url := ""
	for lines.Scan() {
		if m := regexp.MustCompile(`(http://127\.0\.0\.1:\d+/mcp)`).FindStringSubmatch(lines.Text()); m != nil {
			url = m[1]
			break
		}
	}
	if url == "" {
		t.Fatal("the host never said where it listens")
	}
	go func() {
		for lines.Scan() {
		}
	}()
	file := filepath.Join(t.TempDir(), "http.jsonl")
	const token = "tok-export-5a4b3c"
	expect(t, mcpscope(t, nil, "call", "echo", "text=hi", "--bearer", token, "--record", file, url), 0, []string{"hi"}, nil)
	rec := load(t, file)
	exchanges := map[int]bool{}
	for _, ev := range rec.Events {
		if ev.Kind == record.KindHTTP && ev.Dir == record.Send {
			exchanges[ev.Exchange] = true
		}
	}

	r := mcpscope(t, nil, "export", file, "--format", "har")
	expect(t, r, 0, nil, nil)
	if strings.Contains(r.stdout, token) {
		t.Fatal("the bearer token reached the HAR")
	}
	entries := validHAR(t, r.stdout)
	if len(entries) != len(exchanges) || len(entries) < 3 {
		t.Fatalf("%d HAR entries for %d HTTP exchanges", len(entries), len(exchanges))
	}
	var call *harEntry
	for i, e := range entries {
		at, _ := time.Parse(time.RFC3339Nano, e.StartedDateTime)
		within(t, rec, "entry", at)
		if e.Request.Method != "POST" || e.Request.URL != url || e.Response.Status != 200 {
			t.Errorf("entry %d: %s %s -> %d", i, e.Request.Method, e.Request.URL, e.Response.Status)
		}
		auth := ""
		for _, h := range e.Request.Headers {
			if h.Name == "Authorization" {
				auth = h.Value
			}
		}
		if auth != record.Redacted {
			t.Errorf("entry %d: Authorization %q, want it as recorded, %s", i, auth, record.Redacted)
		}
		if strings.Contains(e.Request.PostData.Text, `"tools/call"`) {
			call = &entries[i]
		}
	}
	if call == nil || call.Response.Content.MimeType != "text/event-stream" || !strings.Contains(call.Response.Content.Text, "event: message\ndata: {") || !strings.Contains(call.Response.Content.Text, `"text":"hi"`) {
		t.Fatalf("the tools/call entry lacks its SSE response: %+v", call)
	}

	r = mcpscope(t, nil, "export", file, "--format", "otlp")
	expect(t, r, 0, nil, nil)
	for _, s := range otlpSpans(t, r.stdout) {
		if s.attr("network.transport") != "tcp" || s.attr("server.address") != "127.0.0.1" {
			t.Errorf("span %q: transport %q address %q", s.Name, s.attr("network.transport"), s.attr("server.address"))
		}
	}
}

// TestExportOTLPHonoursTraceparent: a request that carried _meta.traceparent (as a
// traced host sends it) is a span of that trace, child of the span it names; a
// malformed one is ignored; the other spans stay in the recording's own trace.
func TestExportOTLPHonoursTraceparent(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "call.jsonl")
	expect(t, mcpscope(t, nil, "call", "echo", "text=hi", "--record", file, "--", bin, "host"), 0, nil, nil)
	// The request as a traced host sends it: the recording is rewritten with a
	// traceparent in the tools/call's _meta (mcpscope's own client sends none).
	const traceID, parentID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	withMeta := func(tp string) string {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			if strings.Contains(l, `"method":"tools/call"`) {
				l = strings.Replace(l, `"_meta":{`, `"_meta":{"traceparent":"`+tp+`","tracestate":"vendor=1",`, 1)
			}
			out = append(out, l)
		}
		p := filepath.Join(dir, strconv.Itoa(len(tp))+"-"+strconv.FormatInt(time.Now().UnixNano(), 10)+".jsonl")
		if err := os.WriteFile(p, []byte(strings.Join(out, "\n")+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	r := mcpscope(t, nil, "export", withMeta("00-"+traceID+"-"+parentID+"-01"), "--format", "otlp")
	expect(t, r, 0, []string{`"traceState":"vendor=1"`}, nil)
	spans := otlpSpans(t, r.stdout)
	found := false
	for _, s := range spans {
		if s.Name == "tools/call echo" {
			found = true
			if s.TraceID != traceID || s.ParentSpanID != parentID || s.SpanID == parentID {
				t.Errorf("the traced call: trace %q parent %q span %q, want trace %s under %s", s.TraceID, s.ParentSpanID, s.SpanID, traceID, parentID)
			}
		} else if s.TraceID == traceID || s.ParentSpanID != "" {
			t.Errorf("span %q joined the host's trace without a traceparent", s.Name)
		}
	}
	if !found {
		t.Fatal("no span for the call")
	}
	r = mcpscope(t, nil, "export", withMeta("00-"+strings.Repeat("0", 32)+"-"+parentID+"-01"), "--format", "otlp")
	for _, s := range otlpSpans(t, r.stdout) {
		if s.ParentSpanID != "" {
			t.Errorf("an all-zero trace id was honoured: %+v", s)
		}
	}
}

// TestExportBadInput: one message and exit 2 for a usage error, a file that is not a
// recording or is missing included (as replay and serve say it: it was exit 1, the
// code of a server that failed); -o writes the file whole.
func TestExportBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notRec := filepath.Join(dir, "notes.txt")
	writeFile(t, notRec, "hello\n")
	expect(t, mcpscope(t, nil, "export", notRec), 2, nil, []string{"give --format har (HTTP tools), otlp (tracing back ends) or json (scripts)"})
	expect(t, mcpscope(t, nil, "export", notRec, "--format", "pcap"), 2, nil, []string{`--format "pcap": use har, otlp, json`})
	expect(t, mcpscope(t, nil, "export", "--format", "har"), 2, nil, []string{"name one recording"})
	expect(t, mcpscope(t, nil, "export", notRec, "--format", "har"), 2, nil, []string{"cannot read the recording", "not an mcpscope recording"})
	expect(t, mcpscope(t, nil, "export", filepath.Join(dir, "missing.jsonl"), "--format", "har"), 2, nil, []string{"cannot read the recording", "missing.jsonl"})
	// open says it the same way (it exited 1, a server's failure, where the other
	// commands that read a recording exit 2).
	expect(t, mcpscope(t, nil, "open", notRec), 2, nil, []string{"cannot open the recording", "not an mcpscope recording"})
	expect(t, mcpscope(t, nil, "open", filepath.Join(dir, "missing.jsonl")), 2, nil, []string{"cannot open the recording", "missing.jsonl"})

	bin := testutil.Mcpscope(t)
	file := filepath.Join(dir, "call.jsonl")
	expect(t, mcpscope(t, nil, "call", "echo", "text=hi", "--record", file, "--", bin, "host"), 0, nil, nil)
	out := filepath.Join(dir, "call.har")
	expect(t, mcpscope(t, nil, "export", file, "--format", "har", "-o", out), 0, nil, nil)
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	validHAR(t, string(b))
	expect(t, mcpscope(t, nil, "export", file, "--format", "har", "-o", dir), 2, nil, []string{"not a regular file"})
}

// TestExportSeveralServers: a recording of two servers (version 2) exports each
// server's requests under its name: HAR URLs stdio://NAME/METHOD, spans with
// mcpscope.server and distinct ids; a subscriptions/listen still open at the end is
// not an error.
func TestExportSeveralServers(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "two.jsonl")
	expect(t, mcpscope(t, nil, "--inspect", "--record", file, "--server", "a=host", "--server", "b=host"), 0, nil, nil)
	if rec := load(t, file); rec.Header.Version != record.VersionServers {
		t.Fatalf("version %d", rec.Header.Version)
	}
	r := mcpscope(t, nil, "export", file, "--format", "har")
	expect(t, r, 0, nil, nil)
	urls := map[string]bool{}
	for _, e := range validHAR(t, r.stdout) {
		urls[e.Request.URL] = true
	}
	for _, u := range []string{"stdio://a/tools/list", "stdio://b/tools/list"} {
		if !urls[u] {
			t.Errorf("no entry for %s: %v", u, urls)
		}
	}
	r = mcpscope(t, nil, "export", file, "--format", "otlp")
	expect(t, r, 0, nil, nil)
	ids, servers := map[string]bool{}, map[string]bool{}
	spans := otlpSpans(t, r.stdout)
	for _, s := range spans {
		ids[s.SpanID] = true
		servers[s.attr("mcpscope.server")] = true
		if s.attr("mcp.method.name") == "subscriptions/listen" && s.Status.Code != 0 {
			t.Errorf("an open subscriptions/listen is an error span: %+v", s)
		}
	}
	if len(ids) != len(spans) || !servers["a"] || !servers["b"] {
		t.Fatalf("%d distinct span ids of %d, servers %v", len(ids), len(spans), servers)
	}
}
