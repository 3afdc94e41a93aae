package tui

import (
	"encoding/json"
	"sort"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/record"
)

// loadRecording shows a recording (mcpscope open): its wire events in Traffic and its
// calls in History (the last one in Result), as they were recorded. A recording of
// several servers (version 2) shows each event and call under its server's name; the
// session then serves each server of the recording as a mock of that name.
func (m *model) loadRecording(rec *record.Recording) {
	started := rec.Header.Started
	several := rec.Several()
	events := make([]wire.Event, 0, len(rec.Events)+2)
	servers := make([]string, 0, cap(events))
	snapshot := false
	for i := range rec.Events {
		e := &rec.Events[i]
		if e.Kind == record.KindEnd {
			continue
		}
		if e.Snapshot && !snapshot {
			snapshot = true
			events = append(events, wire.Event{Time: started, Kind: wire.KindSynthetic,
				Text: "the recording started mid-session: the handshake and lists that follow are a snapshot of what the session knew then"})
			servers = append(servers, "")
		}
		events = append(events, e.Wire(started))
		servers = append(servers, e.Server)
	}
	events = append(events, wire.Event{Time: time.Now(), Kind: wire.KindSynthetic,
		Text: "end of the recording; what follows is this session with the mock server"})
	servers = append(servers, "")
	nameW := 0
	for _, n := range rec.ServerNames() {
		nameW = min(max(nameW, len(n)), 16)
	}
	if several {
		m.traffic.addFrom(events, servers)
	} else {
		m.traffic.add(events)
	}
	for i, e := range events {
		if e.Kind != wire.KindStderr {
			continue
		}
		line := safeText(string(e.Data))
		if several && servers[i] != "" {
			m.stderr.addFrom(padName(servers[i], nameW)+" │ "+line, servers[i])
			continue
		}
		m.stderr.add(line)
	}

	// The calls, server by server (request ids repeat across servers), then in the
	// order they were made.
	parts := []*record.Recording{rec}
	names := []string{""}
	if several {
		parts, names = nil, nil
		for _, n := range rec.ServerNames() {
			if sub, err := rec.ForServer(n); err == nil {
				parts, names = append(parts, sub), append(names, n)
			}
		}
	}
	var calls []*outcome
	for k, sub := range parts {
		at := func(i int) time.Time {
			return started.Add(time.Duration(sub.Events[i].T * float64(time.Second)))
		}
		for _, ex := range sub.Exchanges() {
			if ex.Method != "tools/call" {
				continue
			}
			var p struct {
				Name      string          `json:"name"`
				Arguments json.RawMessage `json:"arguments"`
			}
			_ = json.Unmarshal(ex.Params, &p)
			o := &outcome{server: names[k], tool: client.Tool{Name: p.Name}, args: p.Arguments, started: at(ex.RequestEvent), recorded: true}
			if ex.Response == nil {
				o.cancelled = true
			} else {
				o.elapsed = at(ex.ResponseEvent).Sub(o.started)
				o.result, o.err = client.ParseCallResponse(ex.Response)
			}
			calls = append(calls, o)
		}
	}
	sort.SliceStable(calls, func(i, j int) bool { return calls[i].started.Before(calls[j].started) })
	for _, o := range calls {
		m.nextID++
		o.id = m.nextID
		m.calls = append(m.calls, o)
		m.current = o
	}
}
