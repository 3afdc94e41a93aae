package record

import (
	"encoding/json"
	"sync"

	"github.com/mcpscope/mcpscope/client/wire"
)

// Snapshot keeps what a recording started in the middle of a session needs to stand
// on its own: the session's handshake (server/discover, initialize and
// notifications/initialized) and the latest answer to each list request (tools,
// resources, templates, prompts; every page). Attach Listen to the session's tap from
// the start; a Writer writes Events first, each marked "snapshot": true, so that
// open, serve and replay find the handshake and lists they need.
type Snapshot struct {
	mu        sync.Mutex
	pending   map[string]pendingReq // sent requests of interest, by canonical id
	handshake []wire.Event          // discover and initialize pairs, the initialized notification
	lists     map[string][]wire.Event
	order     []string // list methods in the order first seen
}

type pendingReq struct {
	method string
	cursor bool // a next-page request
	e      wire.Event
}

// snapshotLists are the list methods a snapshot keeps.
var snapshotLists = map[string]bool{
	"tools/list": true, "resources/list": true, "resources/templates/list": true, "prompts/list": true,
}

// Listen sees one wire event; it is a wire.Listener.
func (s *Snapshot) Listen(e wire.Event) {
	if e.Kind != wire.KindMessage || len(e.Data) == 0 || len(e.Data) > 16<<20 {
		return
	}
	if e.Dir == wire.Recv {
		// Only answers matter here (the wire layer read the frame's shape: a flood of
		// log notifications during the handshake is never decoded). A frame without
		// a head (a recording's, before heads) is decoded as before.
		if e.Shape != wire.ShapeNone && e.Shape != wire.ShapeResult && e.Shape != wire.ShapeError {
			return
		}
		// Answers are decoded only while a request of interest waits, so a busy
		// session's results cost nothing here.
		s.mu.Lock()
		waiting := len(s.pending) > 0
		s.mu.Unlock()
		if !waiting {
			return
		}
	}
	var m struct {
		Message
		Params struct {
			Cursor *string `json:"cursor"`
		} `json:"params"`
	}
	if json.Unmarshal(e.Data, &m) != nil {
		return // a batch, or not JSON: not part of a handshake or a list
	}
	e.Data = append([]byte(nil), e.Data...)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending == nil {
		s.pending, s.lists = map[string]pendingReq{}, map[string][]wire.Event{}
	}
	switch {
	case e.Dir == wire.Send && m.Method == "notifications/initialized":
		s.handshake = append(s.handshake, e)
	case e.Dir == wire.Send && m.IsRequest():
		switch {
		case m.Method == "server/discover":
			// A new session (a restart): what the old one knew no longer holds.
			s.handshake, s.lists, s.order = nil, map[string][]wire.Event{}, nil
		case m.Method == "initialize":
			s.handshake = dropMethod(s.handshake, "initialize")
			s.lists, s.order = map[string][]wire.Event{}, nil
		case !snapshotLists[m.Method]:
			return
		}
		s.pending[CanonicalID(m.ID)] = pendingReq{method: m.Method, cursor: m.Params.Cursor != nil, e: e}
	case e.Dir == wire.Recv && m.IsResponse():
		id := CanonicalID(m.ID)
		p, ok := s.pending[id]
		if !ok {
			return
		}
		delete(s.pending, id)
		if p.method == "server/discover" || p.method == "initialize" {
			s.handshake = append(s.handshake, p.e, e)
			return
		}
		if _, seen := s.lists[p.method]; !seen {
			s.order = append(s.order, p.method)
		}
		if !p.cursor {
			s.lists[p.method] = nil // a fresh listing replaces the pages before it
		}
		s.lists[p.method] = append(s.lists[p.method], p.e, e)
	}
}

// dropMethod removes a request (and the response after it) of the given method.
func dropMethod(es []wire.Event, method string) []wire.Event {
	out := es[:0:0]
	for i := 0; i < len(es); i++ {
		var m Message
		if json.Unmarshal(es[i].Data, &m) == nil && m.Method == method && m.IsRequest() {
			i++ // and its response
			continue
		}
		out = append(out, es[i])
	}
	return out
}

// Events returns what the session knows now: the handshake, then the lists.
func (s *Snapshot) Events() []wire.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]wire.Event(nil), s.handshake...)
	for _, m := range s.order {
		out = append(out, s.lists[m]...)
	}
	return out
}

// WriteSnapshot writes events (from Snapshot.Events) marked "snapshot": true, at
// time 0: they happened before the recording started. Call it before the writer
// listens to the live session.
func (w *Writer) WriteSnapshot(events []wire.Event) error { return w.WriteSnapshotOf("", events) }

// WriteSnapshotOf is WriteSnapshot for one server of a recording of several (version
// 2): each event names that server.
func (w *Writer) WriteSnapshotOf(server string, events []wire.Event) error {
	for _, e := range events {
		ev := w.event(e, server)
		ev.T, ev.Snapshot = 0, true
		if err := w.write(&ev, e.Kind == wire.KindMessage); err != nil {
			return err
		}
	}
	return nil
}
