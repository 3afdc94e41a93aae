package main_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/record"
)

func load(t *testing.T, path string) *record.Recording {
	t.Helper()
	rec, err := record.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

// edit replaces old by new in the file, once, failing when old is not there.
func edit(t *testing.T, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(old)) {
		t.Fatalf("%s does not contain %s", path, old)
	}
	if err := os.WriteFile(path, bytes.Replace(b, []byte(old), []byte(new), 1), 0o600); err != nil {
		t.Fatal(err)
	}
}

// replayFake replays a recording of a fake server and checks no server is left.
func replayFake(t *testing.T, args ...string) result {
	t.Helper()
	pidfile, env := testutil.PIDFile(t)
	r := mcpscope(t, []string{env}, append([]string{"replay"}, args...)...)
	if _, err := os.Stat(pidfile); err == nil {
		testutil.AssertGone(t, pidfile, 1)
	}
	return r
}

// Record, replay equal (exit 0); change one recorded value and replay reports exactly
// that path (exit 1); --update makes it equal again. In both stdio framings, for
// --inspect and call.
func TestRecordReplayRoundTrip(t *testing.T) {
	t.Parallel()
	for _, scenario := range []string{"ndjson", "content-length"} {
		for _, mode := range []string{"call", "inspect"} {
			t.Run(scenario+"/"+mode, func(t *testing.T) {
				t.Parallel()
				file := filepath.Join(t.TempDir(), "session.jsonl")
				args := []string{"call", "echo", "message=hi", "--record", file}
				old, new, path, value := `"text":"echo: hi"`, `"text":"echo: HI"`, "/result/content/0/text", `"echo: HI"`
				if mode == "inspect" {
					args = []string{"--inspect", "--record", file}
					old, new, path, value = `"description":"Add two numbers"`, `"description":"Add numbers"`, "/result/tools/1/description", `"Add numbers"`
				}
				expect(t, fake(t, scenario, args...), 0, nil, nil)

				rec := load(t, file)
				if !rec.Complete || len(rec.Warnings) > 0 {
					t.Errorf("complete %v, warnings %v", rec.Complete, rec.Warnings)
				}
				if rec.Header.Target.Transport != "stdio" || rec.Header.Target.Argv[1] != scenario || rec.Header.Target.Framing != "auto" {
					t.Errorf("header %+v", rec.Header.Target)
				}
				framings := map[string]int{}
				for _, ev := range rec.Events {
					if ev.Kind == record.KindMessage && ev.Dir == record.Recv {
						framings[ev.Framing]++
					}
				}
				if scenario == "content-length" && (framings["content-length"] == 0 || framings[""] > 0) {
					t.Errorf("content-length frames not marked: %v", framings)
				}
				if ev := rec.Events[len(rec.Events)-1]; ev.Kind != record.KindClosed || ev.Exit == nil || *ev.Exit != 0 {
					t.Errorf("last event %+v, want the server's exit", ev)
				}

				want := "replay: all 2 exchanges equal"
				if mode == "inspect" {
					want = "replay: all 1 exchanges equal"
				}
				expect(t, replayFake(t, file), 0, []string{want}, nil)

				edit(t, file, old, new)
				r := replayFake(t, file)
				expect(t, r, 1, []string{"  response " + path + "\n    expected: " + value + "\n"}, []string{"differs from the live server in 1 of"})
				if n := strings.Count(r.stdout, "expected:"); n != 1 {
					t.Errorf("%d differences reported, want exactly one:\n%s", n, r.stdout)
				}

				expect(t, replayFake(t, file, "--update"), 0, nil, []string{"updated " + file})
				expect(t, replayFake(t, file), 0, []string{want}, nil)
				if b, _ := os.ReadFile(file); bytes.Contains(b, []byte(new)) {
					t.Errorf("--update left the edited value in the file")
				}
			})
		}
	}
}

// A golden of a tool list stays readable when the server adds a tool at the front:
// the replay names the new tool and the one description that changed, not every
// later tool shifted by one; --strict-order compares by position.
func TestReplayComparesAToolListByName(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	dir := t.TempDir()
	tool := func(name, description string) string {
		return `{"name":"` + name + `","description":"` + description + `","inputSchema":{"type":"object"},"run":["true"]}`
	}
	write := func(name string, tools ...string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(`{"tools":[`+strings.Join(tools, ",")+`]}`), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	v1 := write("v1.json", tool("alpha", "First."), tool("beta", "Second."), tool("gamma", "Third."))
	v2 := write("v2.json", tool("aardvark", "New."), tool("alpha", "First."), tool("beta", "Second, changed."), tool("gamma", "Third."))
	file := filepath.Join(dir, "tools.jsonl")
	expect(t, mcpscope(t, nil, "--inspect", "--record", file, "--", bin, "host", "--tools", v1), 0, nil, nil)

	r := mcpscope(t, nil, "replay", file, "--", bin, "host", "--tools", v2)
	expect(t, r, 1, []string{
		"response /result/tools/1/description\n    expected: \"Second.\"\n    got:      \"Second, changed.\"",
		"response /result/tools/0\n    expected: (absent)\n    got:      {\"description\":\"New.\"",
	}, nil)
	if n := strings.Count(r.stdout, "expected:"); n != 2 {
		t.Errorf("%d differences reported, want the new tool and the changed description:\n%s", n, r.stdout)
	}

	r = mcpscope(t, nil, "replay", file, "--strict-order", "--", bin, "host", "--tools", v2)
	expect(t, r, 1, []string{"response /result/tools/0/name\n    expected: \"alpha\"\n    got:      \"aardvark\""}, nil)
}

// The command after -- replaces the recorded one; --ignore hides a path; JSON output.
func TestReplayFlags(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "s.jsonl")
	expect(t, fake(t, "ndjson", "call", "add", "a=2", "b=3", "--record", file), 0, nil, nil)
	edit(t, file, `"structuredContent":{"sum":5}`, `"structuredContent":{"sum":6}`)
	pidfile, env := testutil.PIDFile(t)
	argv := append([]string{"replay", file, "--"}, testutil.FakeServer(t, "ndjson")...)
	r := mcpscope(t, []string{env}, argv...)
	expect(t, r, 1, []string{"  response /result/structuredContent/sum\n    expected: 6\n    got:      5\n"}, nil)
	expect(t, replayFake(t, file, "--ignore", "/result/structured*/sum"), 0, []string{"all 2 exchanges equal"}, nil)
	expect(t, replayFake(t, file, "--ignore", "add:/result/structuredContent/sum"), 0, []string{"all 2 exchanges equal"}, nil)
	expect(t, replayFake(t, file, "--ignore", "echo:/result/structuredContent/sum"), 1, nil, nil) // scoped to another tool
	r = replayFake(t, file, "--format", "json")
	var report struct {
		Replayed int
		Failures []struct {
			Request string
			Diffs   []struct{ In, Path, Expected, Got string }
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &report); err != nil || report.Replayed != 2 || len(report.Failures) != 1 || report.Failures[0].Diffs[0].Expected != "6" {
		t.Errorf("--format json: %v %+v\n%s", err, report, r.stdout)
	}
	testutil.AssertGone(t, pidfile, 1)

	expect(t, mcpscope(t, nil, "replay"), 2, nil, []string{"replay needs one recording"})
	expect(t, mcpscope(t, nil, "replay", file, "--ignore", "result"), 2, nil, []string{"JSON pointer"})
	expect(t, mcpscope(t, nil, "replay", "/nonexistent.jsonl"), 2, nil, []string{"no such file"})
	os.WriteFile(file, []byte("not a recording\n"), 0o600)
	expect(t, mcpscope(t, nil, "replay", file), 2, nil, []string{"not an mcpscope recording"})
}

// --record with a directory picks a dated name in it.
func TestRecordAutoName(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := fake(t, "ndjson", "call", "echo", "message=x", "--record", dir)
	expect(t, r, 0, nil, []string{"mcpscope: recording to " + filepath.Join(dir, "mcpscope-")})
	files, _ := filepath.Glob(filepath.Join(dir, "mcpscope-*.jsonl"))
	if len(files) != 1 || !regexp.MustCompile(`mcpscope-\d{8}-\d{6}\.jsonl$`).MatchString(files[0]) {
		t.Fatalf("files %v", files)
	}
	load(t, files[0])
}

// Secrets never reach the file: an env value that looks like a token (which the
// server echoes back in full), a --redact pattern, and env values from --env-file.
func TestRecordRedaction(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "s.jsonl")
	envFile := filepath.Join(dir, "env")
	os.WriteFile(envFile, []byte("DB_PASSWORD=correct-horse-battery\nPLAIN_SETTING=visible-value\n"), 0o600)
	r := everything(t, "call", "get-env", "--record", file, "--env-file", envFile,
		"-e", "API_TOKEN=tok-4f9a8b7c6d5e", "-e", "NOTE=call me at hunter42 please", "--redact", `hunter\d+`)
	expect(t, r, 0, []string{"tok-4f9a8b7c6d5e", "correct-horse-battery", "hunter42"}, nil) // the server did get them
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"tok-4f9a8b7c6d5e", "correct-horse-battery", "hunter42"} {
		if bytes.Contains(b, []byte(secret)) {
			t.Errorf("%q reached the recording", secret)
		}
	}
	if !bytes.Contains(b, []byte("visible-value")) || !bytes.Contains(b, []byte("call me at [redacted] please")) || !bytes.Contains(b, []byte(`\"API_TOKEN\": \"[redacted]\"`)) {
		t.Errorf("redacted too much or too little:\n%s", b)
	}
	h := load(t, file).Header
	if strings.Join(h.Target.Env, ",") != "DB_PASSWORD,PLAIN_SETTING,API_TOKEN,NOTE" {
		t.Errorf("env names in the header: %v", h.Target.Env)
	}
	expect(t, mcpscope(t, nil, "--inspect", "--record", file, "--redact", "(", "--", "true"), 2, nil, []string{"--redact"})
}

// A recording mcpscope killed with SIGKILL mid-call leaves a file that loads and
// replays up to the last whole exchange.
func TestRecordCrashSafety(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "crash.jsonl")
	pidfile, env := testutil.PIDFile(t)
	args := append([]string{"call", "slow", "steps=20", "--record", file, "--"}, testutil.FakeServer(t, "progress")...)
	cmd := exec.Command(testutil.Mcpscope(t), args...)
	cmd.Env = append(os.Environ(), env)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Kill it once the call is under way: the recording holds the request and the
	// server's first progress notification.
	deadline := time.Now().Add(testutil.Patience)
	for {
		b, _ := os.ReadFile(file)
		if bytes.Contains(b, []byte(`"method":"tools/call"`)) && bytes.Contains(b, []byte(`notifications/progress`)) {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the call never started; recording:\n%s", b)
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	// The orphaned server finishes its call (20 × 50 ms) and exits at stdin EOF.
	for end := time.Now().Add(testutil.Patience); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		alive := false
		for _, pid := range testutil.PIDs(t, pidfile) {
			alive = alive || testutil.Alive(pid)
		}
		if !alive {
			break
		}
	}
	testutil.AssertGone(t, pidfile, 1)

	rec := load(t, file)
	if rec.Complete || !strings.Contains(strings.Join(rec.Warnings, "\n"), "no end marker") {
		t.Errorf("complete %v, warnings %v", rec.Complete, rec.Warnings)
	}
	xs := rec.Exchanges()
	last := xs[len(xs)-1]
	if last.Method != "tools/call" || last.Response != nil {
		t.Fatalf("last exchange %+v", last)
	}
	r := replayFake(t, file)
	expect(t, r, 0, []string{"all 1 exchanges equal", "skipped exchange 4 (line", "tools/call slow {\"steps\":20}: no response was recorded"}, []string{"no end marker"})
}

// serve answers mcpscope's own client from a recording, in the recorded era and the
// other one.
func TestServeOwnClient(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	legacy := filepath.Join(dir, "legacy.jsonl")
	expect(t, fake(t, "ndjson", "call", "echo", "message=hi", "--record", legacy), 0, nil, nil)
	modern := filepath.Join(dir, "modern.jsonl")
	expect(t, mcpscope(t, nil, "call", "echo", "text=hello", "--record", modern, "--", testutil.Mcpscope(t), "host"), 0, nil, nil)

	bin := testutil.Mcpscope(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, c := range []struct {
		file, era, protocol, tool, args, want string
	}{
		{legacy, client.EraLegacy, "", "echo", `{"message":"hi"}`, "echo: hi"},
		{modern, client.EraModern, "", "echo", `{"text":"hello"}`, "hello"},
		{modern, client.EraLegacy, "2025-06-18", "echo", `{"text":"hello"}`, "hello"}, // a 2026 recording served to a legacy client
		{legacy, client.EraLegacy, "", "echo", `{"message":"other"}`, "echo: hi"},     // same tool, other arguments
	} {
		s, err := client.Connect(ctx, client.Target{Argv: []string{bin, "serve", c.file}}, client.Options{Protocol: c.protocol})
		if err != nil {
			t.Fatalf("connect to serve %s: %v", c.file, err)
		}
		if s.Info().Era != c.era {
			t.Errorf("%s: era %s, want %s", c.file, s.Info().Era, c.era)
		}
		list, err := s.Tools(ctx)
		if err != nil || len(list.Tools) < 3 {
			t.Errorf("tools: %v %+v", err, list)
		}
		res, err := s.Call(ctx, c.tool, json.RawMessage(c.args), client.CallOptions{})
		if err != nil || len(res.Content) != 1 || res.Content[0].Text != c.want {
			t.Errorf("%s: call: %v %+v", c.file, err, res)
		}
		_, err = s.Call(ctx, "nope", nil, client.CallOptions{})
		var re *client.RPCError
		if !errors.As(err, &re) || !strings.Contains(re.Message, "no recorded tools/call matches tools/call nope {}; recorded: tools/call echo") {
			t.Errorf("unmatched call: %v", err)
		}
		s.Close()
	}
}

// serve answers the official TypeScript SDK v2 client (pinned in interop/).
func TestServeTypeScriptClient(t *testing.T) {
	t.Parallel()
	sdk := filepath.Join(testutil.Root(), "interop", "node_modules", "@modelcontextprotocol", "client", "dist")
	if _, err := os.Stat(filepath.Join(sdk, "stdio.mjs")); err != nil {
		t.Fatalf("the TypeScript SDK client is not installed in interop/ (%v); run scripts/test or npm ci in interop/", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "host.jsonl")
	expect(t, mcpscope(t, nil, "call", "echo", "text=from ts", "--record", file, "--", testutil.Mcpscope(t), "host"), 0, nil, nil)
	script := filepath.Join(dir, "client.mjs")
	os.WriteFile(script, []byte(`
import { Client } from "`+filepath.ToSlash(filepath.Join(sdk, "index.mjs"))+`";
import { StdioClientTransport } from "`+filepath.ToSlash(filepath.Join(sdk, "stdio.mjs"))+`";
const [command, ...args] = process.argv.slice(2);
const client = new Client({ name: "ts-client", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command, args, stderr: "inherit" }));
const tools = await client.listTools();
const result = await client.callTool({ name: "echo", arguments: { text: "from ts" } });
let unmatched = "";
try { await client.callTool({ name: "nope", arguments: {} }); } catch (e) { unmatched = String(e.message); }
console.log(JSON.stringify({ server: client.getServerVersion(), tools: tools.tools.map(t => t.name), result, unmatched }));
await client.close();
`), 0o600)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, testutil.Mcpscope(t), "serve", file)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("TypeScript client: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	var out struct {
		Server struct{ Name string }
		Tools  []string
		Result struct {
			Content []struct{ Text string }
		}
		Unmatched string
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	if out.Server.Name != "mcpscope-host" || len(out.Tools) < 10 || len(out.Result.Content) != 1 || out.Result.Content[0].Text != "from ts" || !strings.Contains(out.Unmatched, "no recorded tools/call matches") {
		t.Errorf("%+v\nstderr:\n%s", out, stderr.String())
	}
}

// serve --http answers the Go SDK's Streamable HTTP client.
func TestServeHTTP(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "host.jsonl")
	expect(t, mcpscope(t, nil, "call", "add", "a=1", "b=2", "--record", file, "--", testutil.Mcpscope(t), "host"), 0, nil, nil)
	expect(t, mcpscope(t, nil, "serve", file, "--http", "0.0.0.0:0"), 2, nil, []string{"loopback addresses only"})

	cmd := exec.Command(testutil.Mcpscope(t), "serve", file, "--http", "127.0.0.1:0")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Errorf("serve --http after SIGTERM: %v", err)
		}
	}()
	lines := bufio.NewScanner(stderr)
	addr := ""
	for lines.Scan() {
		if m := regexp.MustCompile(`at (http://\S+/mcp)`).FindStringSubmatch(lines.Text()); m != nil {
			addr = m[1]
			break
		}
	}
	if addr == "" {
		t.Fatal("serve --http never said where it listens")
	}
	go func() {
		for lines.Scan() {
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: addr}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) < 10 {
		t.Fatalf("list: %v", err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 1, "b": 2}})
	if err != nil {
		t.Fatalf("call: %v", err)
	}
	if b, _ := json.Marshal(res.StructuredContent); string(b) != `{"sum":3}` {
		t.Errorf("structured content %s", b)
	}
}

// The README's worked example: server-everything's toggle-simulated-logging sends a
// log message of a random level before its result, so its replay needs two ignore
// rules scoped to that notification.
func TestReplayEverything(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "everything.jsonl")
	expect(t, everything(t, "call", "toggle-simulated-logging", "--record", file), 0, []string{"Started simulated"}, nil)
	xs := load(t, file).Exchanges()
	if last := xs[len(xs)-1]; len(last.Notifications) != 1 || !strings.Contains(string(last.Notifications[0]), "notifications/message") {
		t.Fatalf("the log message was not recorded with the call: %+v", last)
	}
	ignore := []string{"--ignore", "notifications/message:/params/level", "--ignore", "notifications/message:/params/data"}
	for range 3 {
		expect(t, mcpscope(t, nil, append([]string{"replay", file}, ignore...)...), 0, []string{"all 2 exchanges equal"}, nil)
	}
	// With the rules saved in the file, a plain replay passes too.
	expect(t, mcpscope(t, nil, append([]string{"replay", file, "--save-ignore"}, ignore...)...), 0, nil, []string{"ignores notifications/message:/params/level"})
	expect(t, mcpscope(t, nil, "replay", file), 0, []string{"all 2 exchanges equal"}, nil)

	inspectFile := filepath.Join(dir, "inspect.jsonl")
	// --inspect also lists resources, templates and prompts: 4 exchanges.
	expect(t, everything(t, "--inspect", "--record", inspectFile), 0, nil, nil)
	expect(t, mcpscope(t, nil, "replay", inspectFile), 0, []string{"all 4 exchanges equal (legacy era"}, nil)
}

// Over HTTP: a --bearer token never reaches the recording, not even when the server
// echoes it back in a result; the recording replays against the URL.
func TestRecordHTTPBearer(t *testing.T) {
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
	const token = "tok-bearer-9f8e7d6c5b"
	expect(t, mcpscope(t, nil, "call", "echo", "text=my token is "+token, "--bearer", token, "--record", file, url), 0, []string{token}, nil)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(token)) {
		t.Errorf("the bearer token reached the recording:\n%s", b)
	}
	if !bytes.Contains(b, []byte(`"kind":"http"`)) || !bytes.Contains(b, []byte(`"Authorization":["[redacted]"]`)) || !bytes.Contains(b, []byte(`my token is [redacted]`)) {
		t.Errorf("HTTP events or redactions missing:\n%s", b)
	}
	rec := load(t, file)
	if rec.Header.Target.Transport != "http" || rec.Header.Target.URL != url {
		t.Errorf("header target %+v", rec.Header.Target)
	}
	// Replayed at the recorded URL (the request carries the redacted text, which the
	// host echoes).
	expect(t, mcpscope(t, nil, "replay", file), 0, []string{"all 2 exchanges equal (modern era"}, nil)
}
