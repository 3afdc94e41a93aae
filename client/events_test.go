package client

import (
	"testing"

	"github.com/mcpscope/mcpscope/client/wire"
)

func recv(data string) wire.Event {
	return wire.Event{Kind: wire.KindMessage, Dir: wire.Recv, Data: []byte(data), Head: wire.ParseHead([]byte(data))}
}

// The client raises typed events from the frames its transport named: a task status
// notification and a -32042 error, whatever request it answers, in a batch too; a
// result that merely mentions them raises nothing.
func TestTypedEventsFromFrames(t *testing.T) {
	var tasks []Task
	var urls []URLRequired
	var logs []LogMessage
	s := &Session{opts: Options{
		OnTaskStatus:  func(t Task) { tasks = append(tasks, t) },
		OnURLRequired: func(u URLRequired) { urls = append(urls, u) },
		OnLog:         func(l LogMessage) { logs = append(logs, l) },
	}}
	for _, f := range []string{
		`{"jsonrpc":"2.0","method":"notifications/tasks/status","params":{"taskId":"t1","status":"working","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttl":null}}`,
		`{"jsonrpc":"2.0","id":9,"error":{"code":-32042,"message":"visit first","data":{"elicitations":[{"mode":"url","url":"https://example.com/a","message":"log in","elicitationId":"e1"}]}}}`,
		`{"jsonrpc":"2.0","id":10,"result":{"content":[{"type":"text","text":"notifications/tasks/status -32042"}]}}`,
		`{"jsonrpc":"2.0","id":11,"error":{"code":-32602,"message":"-32042"}}`,
		`[{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"in a batch"}},{"jsonrpc":"2.0","method":"notifications/tasks","params":{"taskId":"t2","status":"completed","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttl":null}}]`,
	} {
		s.onFrame(recv(f))
	}
	if len(tasks) != 2 || tasks[0].ID != "t1" || tasks[0].Status != "working" || tasks[1].ID != "t2" || tasks[1].Status != "completed" {
		t.Errorf("task events = %+v", tasks)
	}
	if len(urls) != 1 || urls[0].ID != "9" || len(urls[0].Elicitations) != 1 || urls[0].Elicitations[0].URL != "https://example.com/a" || urls[0].Elicitations[0].ElicitationID != "e1" {
		t.Errorf("URL-required events = %+v", urls)
	}
	if len(logs) != 1 || string(logs[0].Data) != `"in a batch"` {
		t.Errorf("log events = %+v", logs)
	}
}
