package main_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testservers/oauthserver"
	"github.com/mcpscope/mcpscope/internal/testutil"
)

// lockedBuffer collects a process's stderr while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// runningTap is a `mcpscope tap --listen` a test started.
type runningTap struct {
	URL    string // what the host is to use, as the tap printed it
	stderr *lockedBuffer
	cmd    *exec.Cmd
	done   chan struct{}
}

var tapListeningRE = regexp.MustCompile(`mcpscope tap: listening on (http://127\.0\.0\.1:\d+\S*) -> `)

// startTapListen runs `mcpscope tap --listen 127.0.0.1:0 ARGS... TARGET` and waits
// until it says where it listens. It is interrupted (SIGINT, by PID) when the test
// ends unless stop was called.
func startTapListen(t *testing.T, env []string, target string, args ...string) *runningTap {
	t.Helper()
	argv := append(append([]string{"tap", "--listen", "127.0.0.1:0"}, args...), target)
	cmd := exec.Command(testutil.Mcpscope(t), argv...)
	cmd.Env = append(os.Environ(), env...)
	tp := &runningTap{stderr: &lockedBuffer{}, cmd: cmd, done: make(chan struct{})}
	cmd.Stderr = tp.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { cmd.Wait(); close(tp.done) }()
	t.Cleanup(func() {
		select {
		case <-tp.done:
		default:
			cmd.Process.Kill()
			<-tp.done
		}
	})
	out := testutil.Eventually(t, "the tap to say where it listens", func() (bool, string) {
		s := tp.stderr.String()
		select {
		case <-tp.done:
			t.Fatalf("the tap exited before listening:\n%s", s)
		default:
		}
		return tapListeningRE.MatchString(s), s
	})
	tp.URL = tapListeningRE.FindStringSubmatch(out)[1]
	return tp
}

// stop interrupts the tap as a person does (Ctrl-C) and returns its exit code and
// stderr.
func (tp *runningTap) stop(t *testing.T) (int, string) {
	t.Helper()
	tp.cmd.Process.Signal(syscall.SIGINT)
	testutil.Within(t, "the tap stopping on SIGINT", func() { <-tp.done })
	return tp.cmd.ProcessState.ExitCode(), tp.stderr.String()
}

// hostHTTP runs `mcpscope host --http 127.0.0.1:0` until the test ends and returns
// its MCP URL.
func hostHTTP(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(testutil.Mcpscope(t), append([]string{"host", "--http", "127.0.0.1:0"}, args...)...)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-done })
	re := regexp.MustCompile(`serving (http://127\.0\.0\.1:\d+/mcp)`)
	out := testutil.Eventually(t, "the host to serve HTTP", func() (bool, string) {
		s := stderr.String()
		return re.MatchString(s), s
	})
	return re.FindStringSubmatch(out)[1]
}

// sdkHost runs the official TypeScript SDK v2 client as the host
// (interop/tap-host.mjs): it connects to url over mode (http or sse) in era
// (legacy or modern), lists the tools and calls tool with args; it returns the JSON
// line the client printed.
func sdkHost(t *testing.T, env []string, mode, era, url, tool, args string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not installed: %v", err)
	}
	cmd := exec.Command(node, filepath.Join(testutil.Root(), "interop", "tap-host.mjs"), mode, era, url, tool, args)
	cmd.Dir = filepath.Join(testutil.Root(), "interop")
	cmd.Env = append(os.Environ(), env...)
	r := runCommand(t, cmd)
	if r.code != 0 {
		t.Fatalf("the TypeScript SDK client (%s %s %s) failed with %d:\n%s%s", mode, era, url, r.code, r.stdout, r.stderr)
	}
	return strings.TrimSpace(r.stdout)
}

// inspectorCLI runs the official Inspector's CLI as the host and returns what it
// printed.
func inspectorCLI(t *testing.T, args ...string) string {
	t.Helper()
	bin := filepath.Join(testutil.Root(), "interop", "node_modules", ".bin", "mcp-inspector")
	home := t.TempDir()
	cmd := exec.Command(bin, append([]string{"--cli"}, args...)...)
	cmd.Dir = home
	cmd.Env = append(os.Environ(), "HOME="+home, "MCP_CATALOG_PATH="+filepath.Join(home, "catalog.json"))
	r := runCommand(t, cmd)
	if r.code != 0 {
		t.Fatalf("the Inspector CLI %v failed with %d:\n%s%s", args, r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// tapRecording reads a recording: its header and its events as JSON objects.
func tapRecording(t *testing.T, path string) (header map[string]any, events []map[string]any, text string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: a line that is not JSON: %v\n%s", path, err, sc.Text())
		}
		if header == nil {
			header = m
			continue
		}
		events = append(events, m)
	}
	return header, events, string(b)
}

// The TypeScript SDK v2 client, in both eras, gets through the tap exactly what it
// gets from the bundled host directly; the recording names it as the client and holds
// its calls, the protocol's headers with them (Mcp-Method, Mcp-Name on 2026-07-28).
func TestTapListenTSClientBothEras(t *testing.T) {
	direct := hostHTTP(t)
	rec := filepath.Join(t.TempDir(), "tapped.jsonl")
	tp := startTapListen(t, nil, direct, "--record", rec)
	if !strings.HasSuffix(tp.URL, "/mcp") {
		t.Errorf("the tap's URL %s does not keep the server's path /mcp", tp.URL)
	}
	for _, era := range []string{"legacy", "modern"} {
		want := sdkHost(t, nil, "http", era, direct, "echo", `{"text":"through the tap"}`)
		got := sdkHost(t, nil, "http", era, tp.URL, "echo", `{"text":"through the tap"}`)
		if got != want {
			t.Errorf("%s: through the tap the client got\n%s\ndirectly\n%s", era, got, want)
		}
		if !strings.Contains(got, `"text":"through the tap"`) {
			t.Errorf("%s: the call's result %s", era, got)
		}
	}
	code, stderr := tp.stop(t)
	if code != 0 || !strings.Contains(stderr, "mcpscope tap: stopped; the recording is "+rec) {
		t.Fatalf("the tap stopped with %d:\n%s", code, stderr)
	}
	header, events, text := tapRecording(t, rec)
	if c, _ := header["client"].(map[string]any); c["name"] != "tap-host-test" || c["version"] != "2.4.0" {
		t.Errorf("the recording's client is %v, want the host's clientInfo", header["client"])
	}
	if tg, _ := header["target"].(map[string]any); tg["url"] != direct || tg["transport"] != "http" {
		t.Errorf("the recording's target is %v, want %s", header["target"], direct)
	}
	calls, results := 0, 0
	for _, e := range events {
		msg, _ := e["msg"].(map[string]any)
		if msg == nil {
			continue
		}
		if msg["method"] == "tools/call" && e["dir"] == "send" && e["framing"] == "http" {
			calls++
		}
		if res, _ := msg["result"].(map[string]any); res != nil && e["dir"] == "recv" && strings.Contains(mustJSON(res), "through the tap") {
			results++
		}
	}
	if calls != 2 || results != 2 {
		t.Errorf("the recording holds %d tools/call requests and %d results of them; want 2 of each (one per era):\n%s", calls, results, text)
	}
	for _, want := range []string{`"Mcp-Method":["tools/call"]`, `"Mcp-Name":["echo"]`, `"Mcp-Protocol-Version":["2026-07-28"]`, `"kind":"closed","text":"the tap stopped"`, `"kind":"end"`} {
		if !strings.Contains(text, want) {
			t.Errorf("the recording lacks %s", want)
		}
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// server-everything over Streamable HTTP and over the legacy HTTP+SSE transport:
// the SDK client through the tap gets what it gets directly, and its legacy POSTs go
// through the tap to the endpoint the server named.
func TestTapListenEverythingHTTPAndSSE(t *testing.T) {
	for _, c := range []struct{ mode, path, transport, tool, args, want string }{
		{"streamableHttp", "/mcp", "http", "get-sum", `{"a":2,"b":3}`, "The sum of 2 and 3 is 5."},
		{"sse", "/sse", "sse", "echo", `{"message":"legacy through the tap"}`, "Echo: legacy through the tap"},
	} {
		t.Run(c.mode, func(t *testing.T) {
			srv := testutil.EverythingHTTP(t, c.mode)
			direct := "http://" + srv.Addr + c.path
			rec := filepath.Join(t.TempDir(), "tapped.jsonl")
			tp := startTapListen(t, nil, direct, "--record", rec)
			want := sdkHost(t, nil, c.transport, "legacy", direct, c.tool, c.args)
			got := sdkHost(t, nil, c.transport, "legacy", tp.URL, c.tool, c.args)
			if got != want || !strings.Contains(got, c.want) {
				t.Errorf("through the tap the client got\n%s\ndirectly\n%s", got, want)
			}
			if code, stderr := tp.stop(t); code != 0 {
				t.Fatalf("the tap stopped with %d:\n%s", code, stderr)
			}
			header, _, text := tapRecording(t, rec)
			if c, _ := header["client"].(map[string]any); c["name"] != "tap-host-test" {
				t.Errorf("the recording's client is %v", header["client"])
			}
			if !strings.Contains(text, c.want) {
				t.Errorf("the recording lacks the result %q:\n%s", c.want, text)
			}
			if c.mode == "sse" {
				origin := "http://" + srv.Addr
				for _, want := range []string{`"sse":{"event":"endpoint"}`, `"method":"POST","url":"` + origin + `/message?sessionId=[redacted]"`, `"framing":"sse"`} {
					if !strings.Contains(text, want) {
						t.Errorf("the recording lacks %s:\n%s", want, text)
					}
				}
			}
		})
	}
}

// The official Inspector's CLI as the host: tools/list and a call through the tap
// print what they print directly.
func TestTapListenInspectorCLI(t *testing.T) {
	direct := hostHTTP(t)
	rec := filepath.Join(t.TempDir(), "tapped.jsonl")
	tp := startTapListen(t, nil, direct, "--record", rec)
	for _, args := range [][]string{
		{"--transport", "http", "--method", "tools/list"},
		{"--transport", "http", "--method", "tools/call", "--tool-name", "add", "--tool-arg", "a=40", "b=2"},
	} {
		want := inspectorCLI(t, append([]string{direct}, args...)...)
		got := inspectorCLI(t, append([]string{tp.URL}, args...)...)
		if got != want {
			t.Errorf("%v through the tap:\n%s\ndirectly:\n%s", args, got, want)
		}
	}
	if code, stderr := tp.stop(t); code != 0 {
		t.Fatalf("the tap stopped with %d:\n%s", code, stderr)
	}
	header, _, text := tapRecording(t, rec)
	if header["client"] == nil {
		t.Errorf("the recording names no client:\n%s", text)
	}
	if !strings.Contains(text, `"sum":42`) {
		t.Errorf("the recording lacks the add call's result:\n%s", text)
	}
}

// An OAuth-protected server: a host without a valid token gets the server's 401 and
// its WWW-Authenticate byte for byte; a host with one gets its tools. The token goes
// to the server and never into the recording.
func TestTapListenOAuthServer(t *testing.T) {
	srv := oauthserver.Start(t, oauthserver.Knobs{CCClientID: "tap-machine", CCClientSecret: "tap-machine-secret-71c2"})
	rec := filepath.Join(t.TempDir(), "tapped.jsonl")
	tp := startTapListen(t, nil, srv.URL, "--record", rec)

	challenge := func(u string) (int, []string, string) {
		req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer not-a-valid-token-5d0c")
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Values("WWW-Authenticate"), string(b)
	}
	ds, dh, db := challenge(srv.URL)
	ts, th, tb := challenge(tp.URL)
	if ds != http.StatusUnauthorized || ts != ds || len(th) != 1 || th[0] != dh[0] || tb != db {
		t.Errorf("through the tap: %d %q %q; directly: %d %q %q", ts, th, tb, ds, dh, db)
	}

	token := clientCredentialsToken(t, srv, "tap-machine", "tap-machine-secret-71c2")
	env := []string{"TAP_BEARER=" + token}
	want := sdkHost(t, env, "http", "legacy", srv.URL, "whoami", `{}`)
	got := sdkHost(t, env, "http", "legacy", tp.URL, "whoami", `{}`)
	if got != want || !strings.Contains(got, "hello, logged-in user") {
		t.Errorf("with a token, through the tap:\n%s\ndirectly:\n%s", got, want)
	}
	if code, stderr := tp.stop(t); code != 0 {
		t.Fatalf("the tap stopped with %d:\n%s", code, stderr)
	}
	_, _, text := tapRecording(t, rec)
	for _, secret := range []string{token, "not-a-valid-token-5d0c"} {
		if strings.Contains(text, secret) {
			t.Errorf("a token reached the recording:\n%s", text)
		}
	}
	wantChallenge, _ := json.Marshal(dh[0])
	for _, want := range []string{`"Authorization":["[redacted]"]`, `"status":401`, `"Www-Authenticate":[` + string(wantChallenge) + `]`, "hello, logged-in user"} {
		if !strings.Contains(text, want) {
			t.Errorf("the recording lacks %s:\n%s", want, text)
		}
	}
}

// clientCredentialsToken gets an access token from the test authorization server
// (the client_credentials grant), as a machine host would have.
func clientCredentialsToken(t *testing.T, srv *oauthserver.Server, id, secret string) string {
	t.Helper()
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {secret}, "resource": {srv.URL}, "scope": {"mcp:read"}}
	resp, err := http.PostForm(srv.Issuer+"/token", form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	b, _ := io.ReadAll(resp.Body)
	if json.Unmarshal(b, &tok) != nil || tok.AccessToken == "" {
		t.Fatalf("no token from the test authorization server: %d %s", resp.StatusCode, b)
	}
	return tok.AccessToken
}

// Without --record, the recording goes to the state directory's taps/, named by the
// date; the tap says where.
func TestTapListenRecordsIntoTheStateDirectory(t *testing.T) {
	state := t.TempDir()
	direct := hostHTTP(t)
	tp := startTapListen(t, []string{"XDG_STATE_HOME=" + state}, direct)
	sdkHost(t, nil, "http", "modern", tp.URL, "echo", `{"text":"x"}`)
	code, stderr := tp.stop(t)
	files, _ := filepath.Glob(filepath.Join(state, "mcpscope", "taps", "mcpscope-*.jsonl"))
	if code != 0 || len(files) != 1 || !strings.Contains(stderr, "recording to "+files[0]) {
		t.Fatalf("exit %d, files %v, stderr:\n%s", code, files, stderr)
	}
	st, err := os.Stat(files[0])
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the recording's mode: %v %v, want 0600", st.Mode(), err)
	}
	header, _, _ := tapRecording(t, files[0])
	if c, _ := header["client"].(map[string]any); c["name"] != "tap-host-test" {
		t.Errorf("the recording's client is %v", header["client"])
	}
}

// Bad input: one clear message, exit 2, nothing listening.
func TestTapListenBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tap", "--listen", "0.0.0.0:0", "http://127.0.0.1:1/mcp"}, "0.0.0.0 listens on every network interface; the tap listens on loopback only"},
		{[]string{"tap", "--listen", ":0", "http://127.0.0.1:1/mcp"}, "listens on every network interface"},
		{[]string{"tap", "--listen", "192.168.1.4:0", "http://127.0.0.1:1/mcp"}, `"192.168.1.4" is not a loopback address`},
		{[]string{"tap", "--listen", "127.0.0.1", "http://127.0.0.1:1/mcp"}, "want HOST:PORT on loopback"},
		{[]string{"tap", "--listen", "127.0.0.1:0"}, "name a loopback address and the server's URL"},
		{[]string{"tap", "--listen", "127.0.0.1:0", "ftp://example.com/mcp"}, `"ftp://example.com/mcp" is not an http:// or https:// URL`},
		{[]string{"tap", "--listen", "127.0.0.1:0", "http://127.0.0.1:1/mcp", "--", "node", "server.js"}, "not to a command after --"},
		{[]string{"tap", "--listen", "127.0.0.1:0", "--record", filepath.Join(dir, "no", "such", "dir", "x.jsonl"), "http://127.0.0.1:1/mcp"}, "--record: cannot create the recording"},
	} {
		r := mcpscope(t, nil, c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line with %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

// A server that cannot be reached: the host gets 502 with the reason, the tap says
// so once and goes on.
func TestTapListenUnreachableServer(t *testing.T) {
	// Port 1 (tcpmux): nothing listens there on a test machine.
	dead := "http://127.0.0.1:1/mcp"
	rec := filepath.Join(t.TempDir(), "tapped.jsonl")
	tp := startTapListen(t, nil, dead, "--record", rec)
	for i := 0; i < 2; i++ {
		resp, err := http.Post(tp.URL, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadGateway || !strings.Contains(string(b), "mcpscope tap: cannot reach the server") {
			t.Fatalf("the host got %d %q; want 502 saying the server cannot be reached", resp.StatusCode, b)
		}
	}
	code, stderr := tp.stop(t)
	if code != 0 || strings.Count(stderr, "cannot reach the server") != 1 {
		t.Errorf("exit %d; want the tap to say once that it cannot reach the server:\n%s", code, stderr)
	}
}

// The golden loop: what a host did through the tap replays against the same server
// (every exchange equal), as the host (its clientInfo and version: the recording says
// it was tapped, as a stdio tap's does), and fails, with the difference shown, against
// a changed one.
func TestTapListenRecordingReplays(t *testing.T) {
	direct := hostHTTP(t)
	rec := filepath.Join(t.TempDir(), "tapped.jsonl")
	tp := startTapListen(t, nil, direct, "--record", rec)
	sdkHost(t, nil, "http", "modern", tp.URL, "echo", `{"text":"golden"}`)
	if code, stderr := tp.stop(t); code != 0 {
		t.Fatalf("the tap stopped with %d:\n%s", code, stderr)
	}
	if header, _, _ := tapRecording(t, rec); header["tapped"] != true {
		t.Errorf(`the recording's header does not say "tapped":true: %v`, header)
	}
	r := mcpscope(t, nil, "replay", rec)
	if r.code != 0 || !strings.Contains(r.stderr+r.stdout, "exchanges equal") {
		t.Fatalf("replay against the same server: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr+r.stdout, "as the host tap-host-test 2.4.0") {
		t.Errorf("replay of a tapped recording does not run as its host:\n%s%s", r.stdout, r.stderr)
	}
	tools := filepath.Join(t.TempDir(), "tools.json")
	os.WriteFile(tools, []byte(`{"tools":[{"name":"echo","description":"a changed echo","run":["/bin/echo","changed"]}]}`), 0o600)
	changed := hostHTTP(t, "--tools", tools)
	r = mcpscope(t, nil, "replay", rec, "--", changed)
	if r.code != 1 || !strings.Contains(r.stdout+r.stderr, "golden") || !strings.Contains(r.stdout+r.stderr, "changed") {
		t.Errorf("replay against a changed server: exit %d, want 1 and the difference:\n%s%s", r.code, r.stdout, r.stderr)
	}
}
