package record

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/client/wire"
)

// A recording of several servers: version 2, every server in the header (redacted),
// every event with its server; ForServer gives one server as a version 1 recording.
func TestSeveralServers(t *testing.T) {
	var buf bytes.Buffer
	h := Header{
		Target: Target{Transport: "stdio", Argv: []string{"srv", "--api-key", "sekrit-123"}},
		Servers: []Server{
			{Name: "a", Target: Target{Transport: "stdio", Argv: []string{"srv", "--api-key", "sekrit-123"}}},
			{Name: "b", Target: Target{Transport: "http", URL: "http://127.0.0.1:9/mcp?api_key=other-secret-456"}},
		},
	}
	w, err := NewWriter(&buf, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.ListenServer("a")(wire.Event{Kind: wire.KindMessage, Dir: wire.Send, Data: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)})
	w.ListenServer("b")(wire.Event{Kind: wire.KindMessage, Dir: wire.Send, Data: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)})
	w.ListenServer("a")(wire.Event{Kind: wire.KindStderr, Data: []byte("hello from a")})
	w.Close()
	out := buf.String()
	if strings.Contains(out, "sekrit-123") || strings.Contains(out, "other-secret-456") {
		t.Fatalf("a secret reached the file:\n%s", out)
	}
	if !strings.Contains(out, `{"t":`) || !strings.Contains(out, `,"server":"b","dir":"send"`) {
		t.Fatalf("events:\n%s", out)
	}
	rec, err := Read(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if rec.Header.Version != VersionServers || !rec.Several() || strings.Join(rec.ServerNames(), ",") != "a,b" {
		t.Fatalf("header: %+v", rec.Header)
	}
	a, err := rec.ForServer("a")
	if err != nil || len(a.Events) != 2 || a.Header.Target.Argv[0] != "srv" || a.Several() || a.Events[1].Text != "hello from a" {
		t.Fatalf("a: %+v %v", a, err)
	}
	b, err := rec.ForServer("b")
	if err != nil || len(b.Events) != 1 || b.Header.Target.Transport != "http" || b.Events[0].Line != 3 {
		t.Fatalf("b: %+v %v", b, err)
	}
	if _, err := rec.ForServer("c"); err == nil || !strings.Contains(err.Error(), "it has: a, b") {
		t.Fatalf("c: %v", err)
	}
	// Saving keeps version 2 and the servers.
	var saved bytes.Buffer
	if _, err := rec.WriteTo(&saved); err != nil {
		t.Fatal(err)
	}
	again, err := Read(&saved)
	if err != nil || again.Header.Version != VersionServers || len(again.Events) != 3 || again.Events[1].Server != "b" {
		t.Fatalf("saved: %+v %v", again, err)
	}
	// A version 1 recording is its own one server.
	var one bytes.Buffer
	w1, _ := NewWriter(&one, Header{Target: Target{Transport: "stdio", Argv: []string{"x"}}}, nil)
	w1.Listen(wire.Event{Kind: wire.KindStderr, Data: []byte("x")})
	w1.Close()
	r1, err := Read(&one)
	if err != nil || r1.Header.Version != Version || r1.Several() || strings.Contains(one.String(), `"server"`) {
		t.Fatalf("v1: %+v %v", r1, err)
	}
	if same, err := r1.ForServer(""); err != nil || same != r1 {
		t.Fatalf("v1 ForServer: %v", err)
	}
}

// In a recording of several servers ids repeat across servers (each client starts at
// 1): a request pairs with its own server's answer and notifications, even when the
// other server answers the same id first.
func TestExchangesPairByServer(t *testing.T) {
	var buf bytes.Buffer
	h := Header{Servers: []Server{
		{Name: "a", Target: Target{Transport: "stdio", Argv: []string{"a"}}},
		{Name: "b", Target: Target{Transport: "stdio", Argv: []string{"b"}}},
	}}
	w, err := NewWriter(&buf, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	send := func(srv, msg string) {
		w.ListenServer(srv)(wire.Event{Kind: wire.KindMessage, Dir: wire.Send, Data: []byte(msg)})
	}
	recv := func(srv, msg string) {
		w.ListenServer(srv)(wire.Event{Kind: wire.KindMessage, Dir: wire.Recv, Data: []byte(msg)})
	}
	send("a", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow"}}`)
	send("b", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"fast"}}`)
	recv("b", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"from b"}}`)
	recv("b", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"answer of b"}]}}`)
	recv("a", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"from a"}}`)
	recv("a", `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"answer of a"}]}}`)
	w.Close()
	rec, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	xs := rec.Exchanges()
	if len(xs) != 2 {
		t.Fatalf("%d exchanges, want 2", len(xs))
	}
	for _, x := range xs {
		want := "answer of " + x.Server
		if !strings.Contains(string(x.Response), want) {
			t.Errorf("server %q's call got the answer %s, want %q", x.Server, x.Response, want)
		}
		if len(x.Notifications) != 1 || !strings.Contains(string(x.Notifications[0]), "from "+x.Server) {
			t.Errorf("server %q's call got the notifications %s", x.Server, x.Notifications)
		}
	}
	// ForServer's recording of one server pairs the same way.
	for _, name := range []string{"a", "b"} {
		sub, _ := rec.ForServer(name)
		sx := sub.Exchanges()
		if len(sx) != 1 || !strings.Contains(string(sx[0].Response), "answer of "+name) {
			t.Errorf("ForServer(%q).Exchanges() = %+v", name, sx)
		}
	}
}

// A server added to the session after the header was written: a server line names it
// with its target (redacted), the reader puts it in the header's servers, and its
// events are its own.
func TestServerAddedAfterHeader(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Servers: []Server{{Name: "a", Target: Target{Transport: "stdio", Argv: []string{"a"}}}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.ListenServer("a")(wire.Event{Kind: wire.KindMessage, Dir: wire.Send, Data: []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)})
	if err := w.AddServer(Server{Name: "late", Target: Target{Transport: "stdio", Argv: []string{"srv", "--token", "sekrit-789"}}}); err != nil {
		t.Fatal(err)
	}
	w.ListenServer("late")(wire.Event{Kind: wire.KindMessage, Dir: wire.Send, Data: []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)})
	w.ListenServer("late")(wire.Event{Kind: wire.KindStderr, Data: []byte("my token is sekrit-789")})
	w.Close()
	if strings.Contains(buf.String(), "sekrit-789") {
		t.Fatalf("a secret of the added server reached the file:\n%s", buf.String())
	}
	rec, err := Read(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(rec.ServerNames(), ",") != "a,late" || len(rec.Warnings) != 0 {
		t.Fatalf("servers %v, warnings %v\n%s", rec.ServerNames(), rec.Warnings, buf.String())
	}
	late, err := rec.ForServer("late")
	if err != nil || len(late.Events) != 2 || late.Header.Target.Argv[0] != "srv" || late.Events[0].Kind != KindMessage {
		t.Fatalf("late: %+v %v", late, err)
	}
	if len(rec.Events) != 3 {
		t.Fatalf("%d events, want 3 (the server line is not one)", len(rec.Events))
	}
	// Saved again, the added server is in the header.
	var saved bytes.Buffer
	if _, err := rec.WriteTo(&saved); err != nil {
		t.Fatal(err)
	}
	again, err := Read(&saved)
	if err != nil || strings.Join(again.ServerNames(), ",") != "a,late" {
		t.Fatalf("saved: %v %v", again.ServerNames(), err)
	}
	// A recording of one server takes no other.
	var one bytes.Buffer
	w1, _ := NewWriter(&one, Header{Target: Target{Transport: "stdio", Argv: []string{"x"}}}, nil)
	if err := w1.AddServer(Server{Name: "b", Target: Target{Transport: "stdio", Argv: []string{"b"}}}); err == nil {
		t.Errorf("a version 1 recording took a second server")
	}
}
