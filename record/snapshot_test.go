package record

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/client/wire"
)

func msg(dir wire.Dir, s string) wire.Event {
	return wire.Event{Time: time.Now(), Kind: wire.KindMessage, Dir: dir, Data: []byte(s), Size: len(s)}
}

// A recording started mid-session begins with the handshake and the latest lists,
// marked as a snapshot, and loads with exchanges a mock can serve.
func TestSnapshotPrelude(t *testing.T) {
	var s Snapshot
	for _, e := range []wire.Event{
		msg(wire.Send, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`),
		msg(wire.Recv, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","serverInfo":{"name":"x","version":"1"},"capabilities":{"tools":{}}}}`),
		msg(wire.Send, `{"jsonrpc":"2.0","method":"notifications/initialized"}`),
		msg(wire.Send, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`),
		msg(wire.Recv, `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"old","inputSchema":{"type":"object"}}]}}`),
		msg(wire.Send, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"old"}}`),
		msg(wire.Recv, `{"jsonrpc":"2.0","id":3,"result":{"content":[]}}`),
		// A refetch replaces the earlier listing.
		msg(wire.Send, `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`),
		msg(wire.Recv, `{"jsonrpc":"2.0","id":4,"result":{"tools":[{"name":"new","inputSchema":{"type":"object"}}],"nextCursor":"p2"}}`),
		msg(wire.Send, `{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{"cursor":"p2"}}`),
		msg(wire.Recv, `{"jsonrpc":"2.0","id":5,"result":{"tools":[{"name":"new2","inputSchema":{"type":"object"}}]}}`),
	} {
		s.Listen(e)
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{Target: Target{Transport: "stdio", Argv: []string{"x"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteSnapshot(s.Events()); err != nil {
		t.Fatal(err)
	}
	w.Listen(msg(wire.Send, `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"new"}}`))
	w.Listen(msg(wire.Recv, `{"jsonrpc":"2.0","id":6,"result":{"content":[]}}`))
	w.Close()
	out := buf.String()
	if n := strings.Count(out, `"snapshot":true`); n != 7 {
		t.Errorf("%d snapshot events, want 7 (initialize pair, initialized, two list pages):\n%s", n, out)
	}
	if strings.Contains(out, `"name":"old"`) {
		t.Errorf("the stale listing and the earlier call were written:\n%s", out)
	}
	rec, err := Read(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	var methods []string
	for _, x := range rec.Exchanges() {
		methods = append(methods, x.Method)
	}
	if got := strings.Join(methods, ","); got != "initialize,tools/list,tools/list,tools/call" {
		t.Errorf("exchanges %s", got)
	}
	if !rec.Events[0].Snapshot || rec.Events[len(rec.Events)-2].Snapshot {
		t.Error("the snapshot flag does not load back")
	}
}
