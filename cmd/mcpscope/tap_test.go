package main_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/record"
)

// tapShell is a server command that runs `mcpscope tap` between two tees, inside the
// host's own command: what the host wrote (host-sent), what the server read
// (server-got), what the server wrote (server-sent) and what the host read (host-got)
// all land in dir, so that a test sees the bytes on both sides of the tap.
func tapShell(bin, dir string, server ...string) []string {
	q := func(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
	inner := fmt.Sprintf("tee %s | %s | tee %s", q(filepath.Join(dir, "server-got")), shellJoin(server), q(filepath.Join(dir, "server-sent")))
	outer := fmt.Sprintf("tee %s | %s tap --record %s -- sh -c %s | tee %s",
		q(filepath.Join(dir, "host-sent")), q(bin), q(filepath.Join(dir, "tap.jsonl")), q(inner), q(filepath.Join(dir, "host-got")))
	return []string{"sh", "-c", outer}
}

func shellJoin(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

// sameBytes fails unless the two files of dir hold the same bytes (and some).
func sameBytes(t *testing.T, dir, a, b string) []byte {
	t.Helper()
	x, err1 := os.ReadFile(filepath.Join(dir, a))
	y, err2 := os.ReadFile(filepath.Join(dir, b))
	if err1 != nil || err2 != nil {
		t.Fatalf("%v %v", err1, err2)
	}
	if len(x) == 0 || !bytes.Equal(x, y) {
		t.Errorf("%s (%d bytes) and %s (%d bytes) differ: the tap changed the bytes\n%s: %.400q\n%s: %.400q", a, len(x), b, len(y), a, x, b, y)
	}
	return x
}

// recordedMessages are the recording's messages of one direction, compacted.
func recordedMessages(t *testing.T, rec *record.Recording, dir string) []string {
	t.Helper()
	var out []string
	for _, e := range rec.Events {
		if e.IsMessage() && e.Dir == dir {
			var b bytes.Buffer
			json.Compact(&b, e.Msg)
			out = append(out, b.String())
		}
	}
	return out
}

// answersAfterRequests fails when a response is recorded before the request it
// answers (the tap reads the two directions on two goroutines).
func answersAfterRequests(t *testing.T, rec *record.Recording) {
	t.Helper()
	seen := map[string]map[string]bool{record.Send: {}, record.Recv: {}}
	for _, e := range rec.Events {
		if !e.IsMessage() {
			continue
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(e.Msg, &m) != nil || len(m.ID) == 0 {
			continue
		}
		other := record.Recv
		if e.Dir == record.Recv {
			other = record.Send
		}
		if m.Method != "" {
			seen[e.Dir][string(m.ID)] = true
		} else if !seen[other][string(m.ID)] {
			t.Errorf("line %d: the answer to id %s is recorded before its request", e.Line, m.ID)
		}
	}
}

// wireMessages are the NDJSON lines of a byte stream, compacted.
func wireMessages(data []byte) []string {
	var out []string
	for _, l := range bytes.Split(data, []byte("\n")) {
		l = bytes.TrimSpace(l)
		if len(l) == 0 {
			continue
		}
		var b bytes.Buffer
		if json.Compact(&b, l) == nil {
			out = append(out, b.String())
		}
	}
	return out
}

// The official TypeScript SDK v2 client, as the host, in both eras: through the tap it
// gets what it gets from the server directly; the bytes on both sides of the tap are
// the same; the recording holds the host's messages as it sent them and names it.
func TestTapTypeScriptClient(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed")
	}
	bin := testutil.Mcpscope(t)
	script := filepath.Join(testutil.Root(), "interop", "ts-client.mjs")
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			t.Parallel()
			run := func(argv ...string) string {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				cmd := exec.CommandContext(ctx, node, append([]string{script, "stdio", era}, argv...)...)
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				if err := cmd.Run(); err != nil {
					t.Fatalf("TypeScript client: %v\n%s\n%s", err, stdout.String(), stderr.String())
				}
				return stdout.String()
			}
			direct := run(bin, "host")
			dir := t.TempDir()
			tapped := run(tapShell(bin, dir, bin, "host")...)
			if direct != tapped || !strings.Contains(direct, `"from the TypeScript SDK"`) {
				t.Errorf("through the tap the client got\n%s\ndirectly\n%s", tapped, direct)
			}
			sent := sameBytes(t, dir, "host-sent", "server-got")
			got := sameBytes(t, dir, "server-sent", "host-got")
			rec := load(t, filepath.Join(dir, "tap.jsonl"))
			if rec.Header.Client == nil || rec.Header.Client.Name != "ts-interop" || rec.Header.Client.Version != "1.0.0" {
				t.Errorf("the recording's client is %+v, want the host's clientInfo (ts-interop 1.0.0)", rec.Header.Client)
			}
			if w, r := wireMessages(sent), recordedMessages(t, rec, record.Send); strings.Join(w, "\n") != strings.Join(r, "\n") {
				t.Errorf("recorded host messages differ from the wire:\nwire:\n%s\nrecorded:\n%s", strings.Join(w, "\n"), strings.Join(r, "\n"))
			}
			if w, r := wireMessages(got), recordedMessages(t, rec, record.Recv); len(w) < 4 || strings.Join(w, "\n") != strings.Join(r, "\n") {
				t.Errorf("recorded server messages differ from the wire: %d on the wire, %d recorded", len(w), len(r))
			}
			answersAfterRequests(t, rec)
			if last := rec.Events[len(rec.Events)-1]; last.Kind != record.KindClosed || last.Exit == nil || *last.Exit != 0 {
				t.Errorf("the recording's last event is %+v, want the server's normal exit", last)
			}
		})
	}
}

// The official Inspector CLI as the host (it takes a "--" in the server's arguments
// as its own: the tap's command starts at its first word all the same).
func TestTapInspectorCLI(t *testing.T) {
	t.Parallel()
	inspector := filepath.Join(testutil.Root(), "interop", "node_modules", ".bin", "mcp-inspector")
	if _, err := os.Stat(inspector); err != nil {
		t.Fatalf("the Inspector is not installed in interop/ (%v); run npm ci in interop/", err)
	}
	bin := testutil.Mcpscope(t)
	run := func(argv ...string) string {
		args := append(append([]string{"--cli"}, argv...), "--method", "tools/call", "--tool-name", "echo", "--tool-arg", "text=hi from the inspector")
		r := runCommand(t, exec.Command(inspector, args...))
		if r.code != 0 {
			t.Fatalf("inspector: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		return r.stdout
	}
	direct := run(bin, "host")
	file := filepath.Join(t.TempDir(), "tap.jsonl")
	tapped := run(bin, "tap", "--record", file, "--", bin, "host")
	if direct != tapped || !strings.Contains(direct, "hi from the inspector") {
		t.Errorf("through the tap:\n%s\ndirectly:\n%s", tapped, direct)
	}
	rec := load(t, file)
	if rec.Header.Client == nil || rec.Header.Client.Name != "inspector-cli" {
		t.Errorf("the recording's client is %+v, want the Inspector's clientInfo", rec.Header.Client)
	}
	answersAfterRequests(t, rec)
	var call bool
	for _, m := range recordedMessages(t, rec, record.Send) {
		call = call || strings.Contains(m, `"method":"tools/call"`) && strings.Contains(m, "hi from the inspector")
	}
	if !call {
		t.Errorf("the recording lacks the Inspector's tools/call")
	}
}

// Content-Length framing passes through the tap untouched, and is recorded as such.
func TestTapContentLength(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	dir := t.TempDir()
	// The tee in front of the tap reads the host's first request at once, so the
	// host's probe cannot tell a slow start from silence: it gets all the time a
	// loaded machine needs.
	host := append([]string{"call", "echo", "text=framed", "--framing", "content-length", "--probe-timeout", "2m", "--"}, tapShell(bin, dir, bin, "host", "--framing", "content-length")...)
	expect(t, mcpscope(t, nil, host...), 0, []string{"framed"}, nil)
	sent := sameBytes(t, dir, "host-sent", "server-got")
	sameBytes(t, dir, "server-sent", "host-got")
	if !bytes.HasPrefix(sent, []byte("Content-Length: ")) {
		t.Fatalf("the host did not speak Content-Length: %.200q", sent)
	}
	rec := load(t, filepath.Join(dir, "tap.jsonl"))
	n := 0
	for _, e := range rec.Events {
		if e.IsMessage() {
			n++
			if e.Framing != "content-length" {
				t.Errorf("line %d recorded with framing %q", e.Line, e.Framing)
			}
		}
	}
	if n < 4 || rec.Header.Client == nil || rec.Header.Client.Name != "mcpscope" {
		t.Errorf("%d messages recorded, client %+v", n, rec.Header.Client)
	}
}

// descendants are the PIDs below pid (from /proc).
func descendants(pid int) []int {
	parent := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		f := strings.Fields(string(b[i+1:]))
		if len(f) > 2 {
			pp, _ := strconv.Atoi(f[1])
			parent[pp] = append(parent[pp], p)
		}
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range parent[p] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// The host kills the tap with SIGKILL in the middle of a call: nothing of the server
// is left, and the recording is readable up to that point (the call is in it). The
// server leaves a child of its own in a session of its own (setsid), which neither
// stdin's EOF nor a process group reaches: only the supervision the tap runs the
// server under ends it.
func TestTapKilledLeavesNoServer(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	file := filepath.Join(t.TempDir(), "tap.jsonl")
	// The host: mcpscope call, whose server command is the tap.
	host := exec.Command(bin, "call", "slow", "steps=1000", "delayMs=1000", "--timeout", "0", "--probe-timeout", "2m", "--",
		bin, "tap", "--record", file, "--", "sh", "-c", `setsid sleep 1000 </dev/null >/dev/null 2>&1 & exec "$0" host`, bin)
	var stderr bytes.Buffer
	host.Stderr = &stderr
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { host.Wait(); close(done) }()
	t.Cleanup(func() {
		host.Process.Kill()
		<-done
	})
	testutil.WaitFile(t, file, `"method":"tools/call"`)
	// The tap is the host's descendant whose command line says tap.
	tapPID := 0
	var server []int
	testutil.Eventually(t, "the tap and its server running", func() (bool, string) {
		for _, p := range descendants(host.Process.Pid) {
			b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p))
			if bytes.HasPrefix(bytes.TrimPrefix(b, []byte(bin+"\x00")), []byte("tap\x00")) {
				tapPID = p
			}
		}
		if tapPID == 0 {
			return false, "no tap process"
		}
		server = descendants(tapPID)
		return len(server) >= 3, fmt.Sprintf("tap %d has %v", tapPID, server) // supervisor, host, sleep
	})
	if err := syscall.Kill(tapPID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for _, p := range server {
		testutil.Eventually(t, fmt.Sprintf("process %d of the tapped server gone", p), func() (bool, string) {
			return !testutil.Alive(p), ""
		})
	}
	rec := load(t, file)
	var call bool
	for _, m := range recordedMessages(t, rec, record.Send) {
		call = call || strings.Contains(m, `"name":"slow"`)
	}
	if !call || rec.Header.Client == nil {
		t.Errorf("the recording up to the kill lacks the call (or the client): %+v", rec.Header)
	}
}

// A recording that fails (here: the file size limit, as a full disk would) is said
// once on stderr and stops; the host's call goes through all the same.
func TestTapRecordingFailsHostGoesOn(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	file := filepath.Join(t.TempDir(), "tap.jsonl")
	// ulimit -f counts 512-byte blocks in sh: the header fits, the host's first
	// message does not.
	// --probe-timeout: the tap reads the host's first request at once, so mcpscope's
	// probe (which waits for the server to read it) cannot tell a slow start from
	// silence.
	r := mcpscope(t, nil, "call", "echo", "text=still here", "--probe-timeout", "2m", "--", "sh", "-c", `ulimit -f 1; exec "$0" tap --record "$1" -- "$0" host`, bin, file)
	expect(t, r, 0, []string{"still here"}, nil)
	// call shows its server's last stderr lines only on failure: read the tap's own
	// words from a run whose stderr the test sees.
	cmd := exec.Command("sh", "-c", `ulimit -f 1; exec "$0" tap --record "$1" -- "$0" host`, bin, file)
	cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"a-host-with-a-very-long-name-` + strings.Repeat("x", 600) + `","version":"1"}}}` + "\n")
	r = runCommand(t, cmd)
	expect(t, r, 0, []string{`"protocolVersion":"2025-11-25"`}, []string{"mcpscope tap: recording stopped: "})
	if n := strings.Count(r.stderr, "recording stopped"); n != 1 {
		t.Errorf("said %d times:\n%s", n, r.stderr)
	}
}

// The tap exits as its server did; what the tap itself cannot do is said in one line.
func TestTapExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rec := filepath.Join(dir, "r.jsonl")
	expect(t, mcpscope(t, nil, "tap", "--record", rec, "--", "sh", "-c", "echo bye >&2; exit 7"), 7, nil, []string{"bye"})
	if r := load(t, rec); len(r.Events) == 0 || r.Events[len(r.Events)-1].Kind != record.KindClosed || *r.Events[len(r.Events)-1].Exit != 7 {
		t.Errorf("recording: %+v", r.Events)
	}
	expect(t, mcpscope(t, nil, "tap", "--record", rec, "--", "sh", "-c", "kill -TERM $$"), 128+15, nil, nil)
	expect(t, mcpscope(t, nil, "tap", "--record", rec), 2, nil, []string{"give the server command after --"})
	expect(t, mcpscope(t, nil, "tap", "--record", rec, "--", filepath.Join(dir, "no-such-server")), 1, nil, []string{"cannot start", "no such file"})
	// Without --record: a dated file in the state directory.
	state := t.TempDir()
	expect(t, mcpscope(t, []string{"XDG_STATE_HOME=" + state}, "tap", "--", "true"), 0, nil, []string{"mcpscope tap: recording true to " + filepath.Join(state, "mcpscope", "taps", "mcpscope-")})
}

// A tapped session is a golden test and a mock: replayed against the same server it
// passes (as the host again: its clientInfo, its protocol version), against a changed
// server it fails with a readable diff, and serve answers the host's client from it.
func TestTapReplayAndServe(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed")
	}
	sdk := filepath.Join(testutil.Root(), "interop", "node_modules", "@modelcontextprotocol", "client", "dist")
	bin := testutil.Mcpscope(t)
	dir := t.TempDir()
	tools := func(name, says string) string {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(`{"tools":[{"name":"greet","description":"Says hello.","inputSchema":{"type":"object","properties":{"who":{"type":"string"}}},"run":["printf","%s","`+says+`"]}]}`), 0o600)
		return path
	}
	v1, v2 := tools("v1.json", "hello from v1"), tools("v2.json", "hello from v2")
	script := filepath.Join(dir, "host.mjs")
	os.WriteFile(script, []byte(`
import { Client } from "`+filepath.ToSlash(filepath.Join(sdk, "index.mjs"))+`";
import { StdioClientTransport } from "`+filepath.ToSlash(filepath.Join(sdk, "stdio.mjs"))+`";
const [command, ...args] = process.argv.slice(2);
const client = new Client({ name: "a-real-host", version: "2.0.0" }, { versionNegotiation: { mode: "legacy" } });
await client.connect(new StdioClientTransport({ command, args, stderr: "inherit" }));
const tools = await client.listTools();
const result = await client.callTool({ name: "greet", arguments: { who: "tap" } });
console.log(JSON.stringify({ tools: tools.tools.map(t => t.name), result }));
await client.close();
`), 0o600)
	host := func(argv ...string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, node, append([]string{script}, argv...)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("the host: %v\n%s\n%s", err, stdout.String(), stderr.String())
		}
		return stdout.String()
	}
	file := filepath.Join(dir, "tapped.jsonl")
	direct := host(bin, "tap", "--record", file, "--", bin, "host", "--tools", v1)
	if !strings.Contains(direct, "hello from v1") {
		t.Fatalf("the host got %s", direct)
	}

	r := mcpscope(t, nil, "replay", file, "--trace")
	expect(t, r, 0, []string{"replay: all 2 exchanges equal (as the host a-real-host 2.0.0; legacy era (2025-11-25)"}, []string{`"clientInfo":{"name":"a-real-host","version":"2.0.0"}`})

	r = mcpscope(t, nil, "replay", file, "--", bin, "host", "--tools", v2)
	expect(t, r, 1, []string{"tools/call greet", `expected: "hello from v1"`, `got:      "hello from v2"`, "1 of 2 exchanges differ"}, nil)

	if served := host(bin, "serve", file); served != direct {
		t.Errorf("serve answered the host with\n%s\nthe server did\n%s", served, direct)
	}
}

// The tap's environment is the host's, with the secrets the host's config gives its
// server: a value of a secret-named variable never reaches the recording, wherever a
// message carries it (the bytes forwarded are unchanged).
func TestTapRedactsTheEnvironmentsSecrets(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	file := filepath.Join(t.TempDir(), "tap.jsonl")
	secret := "sekret-value-" + strings.Repeat("7", 20)
	// PWD's name looks like a password's; its value is the working directory, which
	// a tool's paths hold: it stays.
	wd := "/home/someone/project-dir"
	r := mcpscope(t, []string{"SERVICE_API_TOKEN=" + secret, "PWD=" + wd}, "call", "echo", "text=my "+secret+" in "+wd, "--probe-timeout", "2m", "--", bin, "tap", "--record", file, "--", bin, "host")
	expect(t, r, 0, []string{"my " + secret}, nil)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b, []byte(secret)) || !bytes.Contains(b, []byte(`"my `+record.Redacted+` in `+wd+`"`)) {
		t.Errorf("the recording holds the secret, or not its mask:\n%s", b)
	}
}

// Replay answers the server's requests as the host did: here the host's roots (a
// 2025-11-25 session, where the server asks roots/list on its own). Without them the
// replay's client declared no roots and the host's roots tool failed.
func TestTapReplayAnswersAsTheHostDid(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	dir := t.TempDir()
	root := filepath.Join(dir, "the-hosts-root")
	os.Mkdir(root, 0o700)
	file := filepath.Join(dir, "tapped.jsonl")
	expect(t, mcpscope(t, nil, "call", "roots", "--root", root, "--protocol", "2025-11-25", "--probe-timeout", "2m", "--",
		bin, "tap", "--record", file, "--", bin, "host"), 0, []string{"the-hosts-root"}, nil)
	if b, _ := os.ReadFile(file); !bytes.Contains(b, []byte(`"method":"roots/list"`)) {
		t.Fatalf("the server never asked the host for its roots:\n%s", b)
	}
	answersAfterRequests(t, load(t, file))
	if r := mcpscope(t, nil, "replay", file); r.code != 0 || !strings.Contains(r.stdout, "replay: all 2 exchanges equal") || !strings.Contains(r.stdout, "legacy era (2025-11-25)") {
		b, _ := os.ReadFile(file)
		t.Errorf("replay: exit %d\n%s%s\nthe recording:\n%s", r.code, r.stdout, r.stderr, b)
	}
}

// The host closes stdin: the server's stdin closes; a server that ignores it (and
// SIGTERM) gets --grace twice and is then killed, and the tap exits as it ended
// (137: SIGKILL), with nothing of the server left.
func TestTapHostClosesStdin(t *testing.T) {
	t.Parallel()
	pidfile, env := testutil.PIDFile(t)
	file := filepath.Join(t.TempDir(), "tap.jsonl")
	r := mcpscope(t, []string{env}, "tap", "--grace", "200ms", "--record", file, "--", testutil.Build(t, "./internal/testservers/fakemcp"), "hang")
	expect(t, r, 128+9, nil, nil)
	testutil.AssertGone(t, pidfile, 1)
	rec := load(t, file)
	if last := rec.Events[len(rec.Events)-1]; last.Kind != record.KindClosed || last.Signal != "SIGKILL" {
		t.Errorf("the recording ends with %+v, want the server killed by SIGKILL", last)
	}
}
