package wire

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// A log notification goes to the tap and not to the SDK (tapOnly): the SDK reads the
// response that follows it as the next message, while the tap saw both, in order.
// A request named notifications/message (it has an id) is still the SDK's.
func TestLogNotificationsGoToTheTapOnly(t *testing.T) {
	script := `read -r l
printf '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"one"}}\n'
printf '{"jsonrpc":"2.0","method":"notifications/message","id":7,"params":{"level":"info","data":"odd"}}\n'
printf '{"jsonrpc":"2.0","id":1,"result":{}}\n'
cat >/dev/null`
	tap := &Tap{}
	var mu sync.Mutex
	var seen []string
	tap.Listen(func(e Event) {
		if e.Kind == KindMessage && e.Dir == Recv {
			mu.Lock()
			seen = append(seen, string(e.Data))
			mu.Unlock()
		}
	})
	tr := NewStdio(StdioOptions{Argv: []string{"/bin/sh", "-c", script}, ProbeTimeout: -1, Grace: 100 * time.Millisecond, Tap: tap})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := tr.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	id, _ := jsonrpc.MakeID(float64(1))
	if err := conn.Write(ctx, &jsonrpc.Request{ID: id, Method: "ping"}); err != nil {
		t.Fatal(err)
	}
	msg, err := conn.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	req, ok := msg.(*jsonrpc.Request)
	if !ok || req.Method != "notifications/message" || !req.ID.IsValid() {
		t.Fatalf("the SDK's first message is %T %+v, want the request named notifications/message (the notification before it is the tap's alone)", msg, msg)
	}
	msg, err = conn.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if resp, ok := msg.(*jsonrpc.Response); !ok || resp.ID != id {
		t.Fatalf("the SDK's second message is %T %+v, want the response to #1", msg, msg)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 3 {
		t.Fatalf("the tap saw %d received messages, want all 3: %q", len(seen), seen)
	}
}
