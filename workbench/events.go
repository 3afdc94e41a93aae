package workbench

import (
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
	// Task is the task of an EventTaskStatus; URLRequired the URLs of an
	// EventURLRequired.
	Task        *client.Task
	URLRequired *client.URLRequired
}

// subscriber is one reader of the event stream. Events queue without bound in front
// of the channel, so that no server ever waits for a slow reader; the reader sees
// them in the order they happened.
type subscriber struct {
	mu     sync.Mutex
	q      []Event
	closed bool
	wake   chan struct{}
	out    chan Event
	stop   chan struct{}
}

func newSubscriber() *subscriber {
	s := &subscriber{wake: make(chan struct{}, 1), out: make(chan Event), stop: make(chan struct{})}
	go s.run()
	return s
}

func (s *subscriber) push(e Event) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.q = append(s.q, e)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
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

func (s *subscriber) run() {
	defer close(s.out)
	for {
		s.mu.Lock()
		q, closed := s.q, s.closed
		s.q = nil
		s.mu.Unlock()
		for _, e := range q {
			select {
			case s.out <- e:
			case <-s.stop:
				return
			}
		}
		if len(q) > 0 {
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
