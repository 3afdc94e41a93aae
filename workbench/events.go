package workbench

import (
	"slices"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/oauth"
	"github.com/mcpscope/mcpscope/surface"
)

// EventKind says what an Event is.
type EventKind string

const (
	// EventWire is a wire event of the server (Wire is set): messages, noise, stderr,
	// HTTP exchanges, its exit.
	EventWire EventKind = "wire"
	// EventStatus is a change of the server's status (Status is set).
	EventStatus EventKind = "status"
	// EventLog is a notifications/message from the server (Log is set).
	EventLog EventKind = "log"
	// EventToolsChanged is notifications/tools/list_changed.
	EventToolsChanged EventKind = "tools-changed"
	// EventResourceUpdated is notifications/resources/updated for a subscribed
	// resource (Text is its URI); EventResourcesChanged is
	// notifications/resources/list_changed.
	EventResourceUpdated  EventKind = "resource-updated"
	EventResourcesChanged EventKind = "resources-changed"
	// EventPromptsChanged is notifications/prompts/list_changed.
	EventPromptsChanged EventKind = "prompts-changed"
	// EventTaskStatus is a task's status notification (Task is set).
	EventTaskStatus EventKind = "task-status"
	// EventURLRequired is a request answered with -32042, URL elicitation required
	// (URLRequired is set).
	EventURLRequired EventKind = "url-required"
	// EventAdded and EventRemoved say a server joined or left the session.
	EventAdded   EventKind = "added"
	EventRemoved EventKind = "removed"
	// EventReconnect says an idle server is being reconnected for a request (Text
	// says why); a status event follows once it is connected.
	EventReconnect EventKind = "reconnect"
	// EventWatch says what the file watch of a server did (Text): a change seen and
	// the restart it causes, a watched path that does not exist, an HTTP re-list.
	EventWatch EventKind = "watch"
	// EventSurfaceChanged follows a restart or re-list caused by a watched file: the
	// server's tools, resources, templates and prompts compared with what they were
	// before (Surface is set; it may be empty: nothing changed).
	EventSurfaceChanged EventKind = "surface-changed"
	// EventAuth is one step of a server's OAuth login, as it happens (Auth is set):
	// the metadata tried and what it answered, the registration, the authorization
	// URL, the redirect, the token response (secrets masked), a token file that cannot
	// be read (kind "warning").
	EventAuth EventKind = "auth"
	// EventDropped follows events a slow reader lost (see SubscribeOptions):
	// Dropped counts them by kind.
	EventDropped EventKind = "dropped"
	// EventNeedsScope says a connected server refused a request for want of scope
	// (403 insufficient_scope); Text is the scope it asked for. Login with
	// Interaction.Scopes steps up.
	EventNeedsScope EventKind = "needs-scope"
)

// Event is one thing that happened in the session, tagged with its server.
type Event struct {
	Server string
	Kind   EventKind
	Time   time.Time
	Wire   *wire.Event
	Status *Status
	Log    *client.LogMessage
	Text   string
	// Surface is the classified comparison of an EventSurfaceChanged.
	Surface *surface.Report
	// Files are the watched files whose change set off a restart (or an HTTP
	// server's re-list): on the EventWatch that says so, and on the
	// EventSurfaceChanged that follows it. Absolute paths.
	Files []string
	// Auth is the login step of an EventAuth.
	Auth *oauth.Step
	// Dropped counts, by kind, the events an EventDropped stands for.
	Dropped map[EventKind]int
	// Task is the task of an EventTaskStatus; URLRequired the URLs of an
	// EventURLRequired.
	Task        *client.Task
	URLRequired *client.URLRequired
}

// DefaultMax and DefaultMaxBytes bound what waits for a reader that set no bound of
// its own: enough for a burst the reader takes a moment to catch up on, not the
// whole flood of a blocked one.
const (
	DefaultMax      = 4096
	DefaultMaxBytes = 8 << 20
)

// subscriber is one reader of the event stream. Events queue in front of the
// channel, so that no server ever waits for a slow reader; the reader sees them in
// the order they happened. The queue is bounded (max events, maxBytes): past the
// bound, what a server can send at its own rate (wire frames, logs, resource
// updates) is dropped and counted in an EventDropped queued where the first one was
// lost, so the reader learns what it missed; a status replaces the same server's
// status still queued (the latest wins); a list_changed already queued for the
// server is not queued again (one is as good as many). What comes at the pace of
// people and files (added, removed, watch, auth…) is always kept: it is few, and a
// reader that lost it would be wrong, not only behind.
type subscriber struct {
	kinds         map[EventKind]bool // nil: every kind
	except        map[EventKind]bool // kinds left out (nil: none)
	max, maxBytes int

	mu     sync.Mutex
	q      []Event
	bytes  int
	mark   int // the index in q of the EventDropped that counts drops now (-1: none)
	closed bool
	wake   chan struct{}
	out    chan Event
	stop   chan struct{}
}

func newSubscriber(o SubscribeOptions) *subscriber {
	s := &subscriber{max: o.Max, maxBytes: o.MaxBytes, mark: -1,
		wake: make(chan struct{}, 1), out: make(chan Event), stop: make(chan struct{})}
	if s.max <= 0 {
		s.max = DefaultMax
	}
	if s.maxBytes <= 0 {
		s.maxBytes = DefaultMaxBytes
	}
	if len(o.Kinds) > 0 {
		s.kinds = map[EventKind]bool{}
		for _, k := range o.Kinds {
			s.kinds[k] = true
		}
	}
	if len(o.Except) > 0 {
		s.except = map[EventKind]bool{}
		for _, k := range o.Except {
			s.except[k] = true
		}
	}
	go s.run()
	return s
}

// size is about what an event holds in memory.
func size(e Event) int {
	n := 256 + len(e.Text)
	if e.Wire != nil {
		n += len(e.Wire.Data) + len(e.Wire.Text)
	}
	if e.Log != nil {
		n += len(e.Log.Data) + len(e.Log.Logger) + len(e.Log.Level)
	}
	return n
}

func (s *subscriber) push(e Event) {
	if s.kinds != nil && !s.kinds[e.Kind] || s.except[e.Kind] {
		return
	}
	n := size(e)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	if len(s.q) == 0 || (len(s.q) < s.max && s.bytes+n <= s.maxBytes) {
		s.appendLocked(e, n)
	} else {
		switch e.Kind {
		case EventWire, EventLog, EventResourceUpdated:
			if s.mark < 0 {
				s.appendLocked(Event{Kind: EventDropped, Time: e.Time, Dropped: map[EventKind]int{}}, 256)
				s.mark = len(s.q) - 1
			}
			s.q[s.mark].Dropped[e.Kind]++
		case EventStatus:
			if i := s.findLocked(e.Server, e.Kind); i >= 0 {
				s.removeLocked(i)
			}
			s.appendLocked(e, n)
		case EventToolsChanged, EventPromptsChanged, EventResourcesChanged:
			if s.findLocked(e.Server, e.Kind) < 0 {
				s.appendLocked(e, n)
			}
		default:
			s.appendLocked(e, n)
		}
	}
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// appendLocked queues e; drops after it are counted in a new EventDropped (after e).
func (s *subscriber) appendLocked(e Event, n int) {
	s.q = append(s.q, e)
	s.bytes += n
	s.mark = -1
}

func (s *subscriber) findLocked(server string, k EventKind) int {
	for i := len(s.q) - 1; i >= 0; i-- {
		if s.q[i].Kind == k && s.q[i].Server == server {
			return i
		}
	}
	return -1
}

func (s *subscriber) removeLocked(i int) {
	s.bytes -= size(s.q[i])
	s.q = slices.Delete(s.q, i, i+1)
	if s.mark > i {
		s.mark--
	}
}

// queued is what waits for the reader.
func (s *subscriber) queued() (int, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.q), s.bytes
}

// close ends the stream once the queued events are read.
func (s *subscriber) close() {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// next takes the first queued event.
func (s *subscriber) next() (e Event, ok, closed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.q) == 0 {
		s.q, s.bytes = nil, 0 // let a flood's array go
		return Event{}, false, s.closed
	}
	e = s.q[0]
	s.q[0] = Event{}
	s.q = s.q[1:]
	s.bytes -= size(e)
	// The mark moves with the queue; taken, its counts are the reader's now.
	s.mark--
	return e, true, s.closed
}

func (s *subscriber) run() {
	defer close(s.out)
	for {
		e, ok, closed := s.next()
		if ok {
			select {
			case s.out <- e:
			case <-s.stop:
				return
			}
			continue
		}
		if closed {
			return
		}
		select {
		case <-s.wake:
		case <-s.stop:
			return
		}
	}
}
