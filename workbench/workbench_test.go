package workbench_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/target"
	"github.com/mcpscope/mcpscope/workbench"
)

func TestMain(m *testing.M) { testutil.Main(m) }

const deadline = 60 * time.Second

// base is the options of every test workbench: a long handshake bound, so that a
// hanging server hangs for the whole test.
func base() client.Options {
	return client.Options{ConnectTimeout: 10 * time.Minute, Timeout: 5 * time.Minute, Grace: 200 * time.Millisecond}
}

func fake(t *testing.T, name, scenario string, env ...string) workbench.Spec {
	return workbench.Spec{Name: name, Target: target.Target{Argv: testutil.FakeServer(t, scenario), Env: env}}
}

func host(t testing.TB, name string) workbench.Spec {
	if t == nil {
		return workbench.Spec{Name: name}
	}
	return workbench.Spec{Name: name, Target: target.Target{Argv: []string{testutil.Mcpscope(t), "host"}}}
}

// recorder collects the event stream.
type recorder struct {
	mu     sync.Mutex
	events []workbench.Event
	done   chan struct{}
}

func record(t *testing.T, w *workbench.Workbench) *recorder {
	ch, cancel := w.Subscribe()
	r := &recorder{done: make(chan struct{})}
	go func() {
		defer close(r.done)
		for e := range ch {
			r.mu.Lock()
			r.events = append(r.events, e)
			r.mu.Unlock()
		}
	}()
	t.Cleanup(func() { cancel(); <-r.done })
	return r
}

func (r *recorder) snapshot() []workbench.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]workbench.Event(nil), r.events...)
}

// states lists the status changes of one server, in order.
func (r *recorder) states(server string) []workbench.State {
	var out []workbench.State
	for _, e := range r.snapshot() {
		if e.Server == server && e.Kind == workbench.EventStatus {
			out = append(out, e.Status.State)
		}
	}
	return out
}

// waitFor polls cond until it holds, failing the test after the deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	end := time.Now().Add(deadline)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func newBench(t *testing.T, opts workbench.Options) *workbench.Workbench {
	if opts.Client.ConnectTimeout == 0 {
		opts.Client = base()
	}
	w := workbench.New(opts)
	t.Cleanup(func() { w.Close() })
	return w
}

func wait(t *testing.T, w *workbench.Workbench, name string) workbench.Status {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	st, err := w.Wait(ctx, name)
	if err != nil {
		t.Fatalf("waiting for %s: %v (status %+v)", name, err, st)
	}
	return st
}

// Servers connect concurrently: one that never answers the handshake (added first)
// does not keep the others from connecting and answering calls.
func TestHangingServerDoesNotDelayTheOthers(t *testing.T) {
	pidfile, env := testutil.PIDFile(t)
	w := newBench(t, workbench.Options{})
	must(t, w.Add(fake(t, "hang", "mute", env)))
	must(t, w.Add(fake(t, "fake", "ndjson", env)))
	must(t, w.Add(host(t, "host")))
	for _, name := range []string{"fake", "host"} {
		if st := wait(t, w, name); st.State != workbench.StateConnected {
			t.Fatalf("%s: %+v", name, st)
		}
	}
	// The others are connected and answer while the hanging one still connects.
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	r, err := w.Call(ctx, workbench.ToolID{Server: "host", Tool: "echo"}, []byte(`{"text":"hi"}`), client.CallOptions{})
	if err != nil || r.IsError || !strings.Contains(string(r.Raw), "hi") {
		t.Fatalf("host/echo: %+v %v", r, err)
	}
	if st, _ := w.Status("hang"); st.State != workbench.StateConnecting {
		t.Fatalf("hang: %+v", st)
	}
	got := w.Names()
	if strings.Join(got, ",") != "hang,fake,host" {
		t.Errorf("order %v", got)
	}
	w.Close()
	testutil.AssertGone(t, pidfile, 2)
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// Status: connecting → connected (era, version, transport); failed with the reason and
// the last stderr lines; exited with the signal; restart connects again.
func TestStatusTransitions(t *testing.T) {
	pidfile, env := testutil.PIDFile(t)
	w := newBench(t, workbench.Options{})
	rec := record(t, w)
	must(t, w.Add(fake(t, "ok", "ndjson", env)))
	must(t, w.Add(fake(t, "broken", "exit-at-once")))
	must(t, w.Add(workbench.Spec{Name: "missing", Target: target.Target{Argv: []string{"/nonexistent/mcp-server"}}}))

	st := wait(t, w, "ok")
	if st.State != workbench.StateConnected || st.Info.Era == "" || st.Info.ProtocolVersion == "" || st.Info.Transport != client.TransportStdio {
		t.Fatalf("ok: %+v", st)
	}
	st = wait(t, w, "broken")
	if st.State != workbench.StateFailed || !strings.Contains(strings.Join(st.Stderr, "\n"), "fatal: missing configuration FOO_TOKEN") || st.Exit == nil || st.Exit.Code != 1 {
		t.Fatalf("broken: %+v", st)
	}
	st = wait(t, w, "missing")
	if st.State != workbench.StateFailed || !strings.Contains(st.Reason, `cannot start "/nonexistent/mcp-server"`) {
		t.Fatalf("missing: %+v", st)
	}
	// A failed server's requests say why.
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	_, err := w.Tools(ctx, "broken")
	var se *workbench.StatusError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), `server "broken" failed`) || !strings.Contains(err.Error(), "FOO_TOKEN") {
		t.Fatalf("tools of broken: %v", err)
	}

	// Kill the server's process from outside: its status says exited, with the signal.
	pids := testutil.PIDs(t, pidfile)
	if len(pids) != 1 {
		t.Fatalf("pids %v", pids)
	}
	syscall.Kill(pids[0], syscall.SIGKILL)
	waitFor(t, "ok to exit", func() bool { st, _ := w.Status("ok"); return st.State == workbench.StateExited })
	st, _ = w.Status("ok")
	if st.Exit == nil || st.Exit.Signal != "SIGKILL" || !strings.Contains(st.Reason, "killed by SIGKILL") || st.Info.Era == "" {
		t.Fatalf("exited: %+v", st)
	}
	if _, err := w.Tools(ctx, "ok"); err == nil || !strings.Contains(err.Error(), `server "ok" exited`) {
		t.Fatalf("tools of exited: %v", err)
	}
	must(t, w.Restart("ok"))
	if st := wait(t, w, "ok"); st.State != workbench.StateConnected {
		t.Fatalf("after restart: %+v", st)
	}
	if _, err := w.Tools(ctx, "ok"); err != nil {
		t.Fatal(err)
	}
	want := []workbench.State{workbench.StateConnecting, workbench.StateConnected, workbench.StateExited, workbench.StateConnecting, workbench.StateConnected}
	waitFor(t, "the status events", func() bool { return len(rec.states("ok")) >= len(want) })
	if got := rec.states("ok"); !equalStates(got, want) {
		t.Errorf("ok went %v, want %v", got, want)
	}
	if got := rec.states("broken"); !equalStates(got, []workbench.State{workbench.StateConnecting, workbench.StateFailed}) {
		t.Errorf("broken went %v", got)
	}
	// Every wire event names its server.
	seen := map[string]bool{}
	for _, e := range rec.snapshot() {
		if e.Kind == workbench.EventWire {
			seen[e.Server] = true
		}
	}
	if !seen["ok"] || !seen["broken"] {
		t.Errorf("wire events from %v", seen)
	}
	w.Close()
	testutil.AssertGone(t, pidfile, 2)
}

func equalStates(a, b []workbench.State) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// An HTTP 401 is "needs login", not a failure like any other.
func TestNeedsLogin(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"`)
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()
	w := newBench(t, workbench.Options{})
	must(t, w.Add(workbench.Spec{Name: "remote", Target: target.Target{URL: srv.URL + "/mcp"}}))
	must(t, w.Add(host(t, "host")))
	st := wait(t, w, "remote")
	var ae *client.AuthError
	if st.State != workbench.StateNeedsLogin || !errors.As(st.Err, &ae) || ae.Status != 401 {
		t.Fatalf("remote: %+v", st)
	}
	if st := wait(t, w, "host"); st.State != workbench.StateConnected {
		t.Fatalf("host: %+v", st)
	}
}

// Remove stops the server's process and reaps it before it returns; also while the
// server is still connecting.
func TestRemoveReaps(t *testing.T) {
	pidfile, env := testutil.PIDFile(t)
	w := newBench(t, workbench.Options{})
	rec := record(t, w)
	must(t, w.Add(host(t, "host")))
	must(t, w.Add(fake(t, "a", "ndjson", env)))
	if st := wait(t, w, "a"); st.State != workbench.StateConnected {
		t.Fatalf("a: %+v", st)
	}
	pids := testutil.PIDs(t, pidfile)
	must(t, w.Remove("a"))
	for _, pid := range pids {
		if testutil.Alive(pid) {
			t.Errorf("process %d of a is still running after Remove returned", pid)
		}
	}
	if _, ok := w.Status("a"); ok {
		t.Error("a is still listed")
	}
	// A server that hangs in its handshake.
	must(t, w.Add(fake(t, "hang", "mute", env)))
	waitFor(t, "hang to start", func() bool { return len(testutil.PIDs(t, pidfile)) == 2 })
	must(t, w.Remove("hang"))
	for _, pid := range testutil.PIDs(t, pidfile) {
		if testutil.Alive(pid) {
			t.Errorf("process %d is still running after Remove returned", pid)
		}
	}
	if err := w.Remove("nope"); !errors.Is(err, workbench.ErrNoServer) || !strings.Contains(err.Error(), "the session has: host") {
		t.Errorf("remove nope: %v", err)
	}
	if err := w.Remove("host"); err == nil || !strings.Contains(err.Error(), "only server") {
		t.Errorf("remove the last: %v", err)
	}
	removed := 0
	for _, e := range rec.snapshot() {
		if e.Kind == workbench.EventRemoved {
			removed++
		}
	}
	if removed != 2 {
		t.Errorf("%d removed events", removed)
	}
}

// --idle-disconnect: an idle server's process is stopped; the next request reconnects
// it transparently, with an event that says so.
func TestIdleDisconnectAndReconnect(t *testing.T) {
	pidfile, env := testutil.PIDFile(t)
	w := newBench(t, workbench.Options{Client: base(), IdleDisconnect: 100 * time.Millisecond})
	rec := record(t, w)
	must(t, w.Add(fake(t, "a", "ndjson", env)))
	if st := wait(t, w, "a"); st.State != workbench.StateConnected {
		t.Fatalf("a: %+v", st)
	}
	waitFor(t, "a to go idle", func() bool { st, _ := w.Status("a"); return st.State == workbench.StateIdle })
	first := testutil.PIDs(t, pidfile)
	waitFor(t, "the idle process to end", func() bool { return !testutil.Alive(first[0]) })
	st, _ := w.Status("a")
	if !strings.Contains(st.Reason, "without a request") || st.Info.Era == "" {
		t.Errorf("idle: %+v", st)
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	r, err := w.Call(ctx, workbench.ToolID{Server: "a", Tool: "echo"}, []byte(`{"message":"back"}`), client.CallOptions{})
	if err != nil || !strings.Contains(string(r.Raw), "back") {
		t.Fatalf("call after idle: %+v %v", r, err)
	}
	var reconnect bool
	for _, e := range rec.snapshot() {
		if e.Kind == workbench.EventReconnect && e.Server == "a" && strings.Contains(e.Text, "reconnecting") {
			reconnect = true
		}
	}
	if !reconnect {
		t.Error("no reconnect event")
	}
	if n := len(testutil.PIDs(t, pidfile)); n != 2 {
		t.Errorf("%d processes started, want 2", n)
	}
	// A request in flight keeps the server from going idle under it.
	sess, release, err := w.Session(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.Tools(ctx); err != nil {
		t.Fatal(err)
	}
	if st, _ := w.Status("a"); st.State != workbench.StateConnected {
		t.Errorf("went %s while in use", st.State)
	}
	release()
	w.Close()
	testutil.AssertGone(t, pidfile, 2)
}

// Per-server timeouts: the spec's own wins over the session's default.
func TestPerServerTimeout(t *testing.T) {
	w := newBench(t, workbench.Options{})
	short := host(t, "short")
	short.Timeout = 50 * time.Millisecond
	must(t, w.Add(short))
	must(t, w.Add(host(t, "long")))
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	args := []byte(`{"steps":1,"delayMs":1500}`)
	_, err := w.Call(ctx, workbench.ToolID{Server: "short", Tool: "slow"}, args, client.CallOptions{})
	var te *client.TimeoutError
	if !errors.As(err, &te) || te.Timeout != 50*time.Millisecond {
		t.Fatalf("short: %v", err)
	}
	// The message names the bound the user set: the config entry's, not --timeout.
	if msg := err.Error(); !strings.Contains(msg, "the timeout of short's config entry") || strings.Contains(msg, "--timeout") {
		t.Errorf("the timeout is not named as the entry's own: %v", err)
	}
	r, err := w.Call(ctx, workbench.ToolID{Server: "long", Tool: "slow"}, args, client.CallOptions{})
	if err != nil || r.IsError {
		t.Fatalf("long: %+v %v", r, err)
	}
}

func TestNames(t *testing.T) {
	for _, bad := range []string{"", "a/b", "my server", "tab\tname", "bell\a", strings.Repeat("x", 65),
		"mcp__x__y", "..", ".", "a..b", "a\u202eb", "osc\x1b]52;c;eA==\a", "host:8080", "a@b"} {
		if err := workbench.ValidateName(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	for _, good := range []string{"github", "fs-1", "my_server", "a.b", "Ünïcode"} {
		if err := workbench.ValidateName(good); err != nil {
			t.Errorf("%q: %v", good, err)
		}
	}
	if err := workbench.ValidateName("a/b"); !strings.Contains(err.Error(), "server/tool") {
		t.Errorf("slash: %v", err)
	}
	cases := []struct {
		in           string
		server, tool string
	}{
		{"github/search", "github", "search"},
		{"mcp__github__search_code", "github", "search_code"},
		{"mcp__my__srv__do", "my__srv", "do"}, // a known server name with "__"
		{"mcp__other__x__y", "other", "x__y"},
	}
	for _, c := range cases {
		id, err := workbench.ParseToolID(c.in, []string{"github", "my__srv", "my"})
		if err != nil || id.Server != c.server || id.Tool != c.tool {
			t.Errorf("%s: %+v %v", c.in, id, err)
		}
	}
	for _, bad := range []string{"search", "/x", "gh/", "mcp__x", "mcp____x"} {
		if _, err := workbench.ParseToolID(bad, nil); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	id := workbench.ToolID{Server: "gh", Tool: "search"}
	if id.String() != "gh/search" || id.Qualified() != "mcp__gh__search" {
		t.Errorf("%s %s", id, id.Qualified())
	}
}

// Names are checked on Add: invalid ones and duplicates are refused; a session-added
// server overrides a configured one of the same name, and removing it brings the
// configured one back.
func TestAddOverrideRemove(t *testing.T) {
	pidfile, env := testutil.PIDFile(t)
	configured := fake(t, "fs", "ndjson", env)
	configured.Source, configured.Origin = workbench.SourceConfig, "~/.mcp.json:3"
	w := newBench(t, workbench.Options{Client: base(), Configured: []workbench.Spec{configured}})
	if err := w.Add(host(t, "a/b")); err == nil || !strings.Contains(err.Error(), `"/"`) {
		t.Errorf("slash: %v", err)
	}
	if err := w.Add(host(t, "a b")); err == nil || !strings.Contains(err.Error(), "white space") {
		t.Errorf("space: %v", err)
	}
	must(t, w.Add(host(t, "host")))
	if err := w.Add(host(t, "host")); err == nil || !strings.Contains(err.Error(), `already a server named "host"`) {
		t.Errorf("duplicate: %v", err)
	}
	if err := w.AddConfigured("nope"); err == nil || !strings.Contains(err.Error(), "configured: fs") {
		t.Errorf("unknown configured: %v", err)
	}
	must(t, w.AddConfigured("fs"))
	if st := wait(t, w, "fs"); st.State != workbench.StateConnected || st.Info.Name != "fakemcp" {
		t.Fatalf("configured fs: %+v", st)
	}
	// Override it with the bundled host under the same name.
	over := host(t, "fs")
	must(t, w.Add(over))
	if st := wait(t, w, "fs"); st.State != workbench.StateConnected || st.Info.Name == "fakemcp" {
		t.Fatalf("overriding fs: %+v", st)
	}
	list := w.List()
	if len(list) != 2 || list[1].Spec.Name != "fs" || !list[1].Overrides || list[1].Spec.Source != workbench.SourceSession {
		t.Fatalf("list: %+v", list)
	}
	first := testutil.PIDs(t, pidfile)
	waitFor(t, "the configured process to end", func() bool { return !testutil.Alive(first[0]) })
	// Removing the override brings the configured one back.
	must(t, w.Remove("fs"))
	if st := wait(t, w, "fs"); st.State != workbench.StateConnected || st.Info.Name != "fakemcp" {
		t.Fatalf("configured fs back: %+v", st)
	}
	if list := w.List(); len(list) != 2 || list[1].Overrides || list[1].Spec.Source != workbench.SourceConfig {
		t.Fatalf("list: %+v", list)
	}
	w.Close()
	testutil.AssertGone(t, pidfile, 2)
}

// Logs and list changes come on the stream, tagged with their server.
func TestLogsAndListChangesAreTagged(t *testing.T) {
	opts := base()
	opts.LogLevel = "info"
	w := newBench(t, workbench.Options{Client: opts})
	rec := record(t, w)
	must(t, w.Add(host(t, "one")))
	must(t, w.Add(host(t, "two")))
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	if _, err := w.Call(ctx, workbench.ToolID{Server: "two", Tool: "log"}, nil, client.CallOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Call(ctx, workbench.ToolID{Server: "one", Tool: "toggle_tool"}, nil, client.CallOptions{}); err != nil {
		t.Fatal(err)
	}
	has := func(server string, kind workbench.EventKind) bool {
		for _, e := range rec.snapshot() {
			if e.Server == server && e.Kind == kind {
				return true
			}
		}
		return false
	}
	waitFor(t, "a log of two", func() bool { return has("two", workbench.EventLog) })
	waitFor(t, "tools changed of one", func() bool { return has("one", workbench.EventToolsChanged) })
	if has("one", workbench.EventLog) || has("two", workbench.EventToolsChanged) {
		t.Error("an event is tagged with the wrong server")
	}
}

// A server that floods notifications disturbs no other server: calls to the others
// (and to itself) are answered while it floods, and its events carry its name.
func TestFloodingServerDisturbsNoOther(t *testing.T) {
	opts := base()
	opts.LogLevel = "info"
	w := newBench(t, workbench.Options{Client: opts})
	rec := record(t, w)
	must(t, w.Add(fake(t, "flood", "flood")))
	must(t, w.Add(host(t, "host")))
	floods := func() int {
		n := 0
		for _, e := range rec.snapshot() {
			if e.Server == "flood" && e.Kind == workbench.EventLog {
				n++
			}
		}
		return n
	}
	waitFor(t, "the flood to start", func() bool { return floods() > 100 })
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	for i := 0; i < 20; i++ {
		r, err := w.Call(ctx, workbench.ToolID{Server: "host", Tool: "echo"}, []byte(`{"text":"still here"}`), client.CallOptions{})
		if err != nil || !strings.Contains(string(r.Raw), "still here") {
			t.Fatalf("host/echo during the flood: %+v %v", r, err)
		}
	}
	r, err := w.Call(ctx, workbench.ToolID{Server: "flood", Tool: "echo"}, []byte(`{"message":"me too"}`), client.CallOptions{})
	if err != nil || !strings.Contains(string(r.Raw), "me too") {
		t.Fatalf("flood/echo: %+v %v", r, err)
	}
	before := floods()
	waitFor(t, "the flood to go on", func() bool { return floods() > before })
	for _, e := range rec.snapshot() {
		if e.Kind == workbench.EventLog && e.Server != "flood" {
			t.Fatalf("a log of %s", e.Server)
		}
	}
}

// A request in flight across a restart does not keep the new connection from going
// idle: the count of requests in flight belongs to a connection, and the old one's
// release is not the new one's.
func TestIdleArmsAfterARestartMidRequest(t *testing.T) {
	_, env := testutil.PIDFile(t)
	w := newBench(t, workbench.Options{Client: base(), IdleDisconnect: 100 * time.Millisecond})
	must(t, w.Add(fake(t, "a", "ndjson", env)))
	if st := wait(t, w, "a"); st.State != workbench.StateConnected {
		t.Fatalf("a: %+v", st)
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	_, release, err := w.Session(ctx, "a") // a request in flight
	if err != nil {
		t.Fatal(err)
	}
	must(t, w.Restart("a"))
	waitFor(t, "a to connect again", func() bool {
		st, _ := w.Status("a")
		return st.State == workbench.StateConnected
	})
	release() // the old connection's request ends
	waitFor(t, "a to go idle after the restart", func() bool { st, _ := w.Status("a"); return st.State == workbench.StateIdle })
}

// The snapshot holds what a view shows of a server, so that the view keeps no copy
// of its own: the resources and prompts counted, on which attempt; the last
// handshake's info through a restart; whether it ever connected; when it was heard.
func TestSnapshotHoldsWhatAViewShows(t *testing.T) {
	w := newBench(t, workbench.Options{})
	must(t, w.Add(host(t, "h")))
	if st := wait(t, w, "h"); st.State != workbench.StateConnected {
		t.Fatalf("status %+v", st)
	}
	snap, _ := w.Snapshot("h")
	if !snap.EverConnected || snap.Info.Era == "" || snap.Heard.IsZero() || snap.Counts != nil {
		t.Fatalf("connected, not counted: %+v", snap)
	}
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	c, err := w.CountLists(ctx, "h")
	if err != nil || c.Gen != 1 || c.Resources < 1 || c.Prompts < 1 {
		t.Fatalf("CountLists = %+v, %v; want the host's resources and prompts on attempt 1", c, err)
	}
	if snap, _ = w.Snapshot("h"); snap.Counts == nil || *snap.Counts != c {
		t.Fatalf("the snapshot's counts are %+v, want %+v", snap.Counts, c)
	}
	info := snap.Info
	must(t, w.Restart("h"))
	snap, _ = w.Snapshot("h")
	if snap.Status.Gen != 2 || snap.Info.Era != info.Era || snap.Info.Name != info.Name || !snap.EverConnected || snap.Counts.Gen != 1 {
		t.Errorf("restarting: gen %d, info %+v (want the last handshake's), counts %+v (want attempt 1's)", snap.Status.Gen, snap.Info, snap.Counts)
	}
}
