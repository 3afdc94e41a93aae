package record

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/termsafe"
)

// SessionOptions say where and how a Session records.
type SessionOptions struct {
	// Path is --record: a file, or a directory (such as ".", or "") for a dated name
	// in it (CreateIn).
	Path string
	// Redactor makes the redactor of each new file (the -e values, --redact, the
	// credentials of the HTTP headers); each server's own secrets are added to it.
	Redactor func() (*Redactor, error)
	// Version and Client fill the header.
	Version string
	Client  *Peer
	// Snapshots keeps what each server's session says (its handshake and lists) so
	// that a recording started later (Toggle) begins with it and replays on its own.
	Snapshots bool
	// Log gets the notes a person reads: where a dated name records, a file left
	// incomplete. Nil: os.Stderr.
	Log io.Writer
}

// SessionServer is one server of a Session: its name, its target as the header
// describes it, and the secrets of its own environment (a config entry's env).
type SessionServer struct {
	Name    string
	Target  Target
	Secrets []string
}

// Session records every server of a session into one file (format version 2): the
// header names each server with its target, each event its server. It can be
// started and stopped (the workbench's R): each start writes a new file that begins
// with what the session knows of each server by then (a snapshot), so that it
// replays and serves on its own. Every method is safe to call from any goroutine
// (R runs in a command; events come on the wire's).
type Session struct {
	opts SessionOptions

	mu        sync.Mutex
	servers   []SessionServer
	quiet     bool // the screen says where it records on its own
	done      bool // Stop ran: the session is ending and no toggle starts a file
	w         *Writer
	listeners map[string]wire.Listener
	snaps     map[string]*Snapshot // per server, for a recording started later
}

// NewSession makes the recording of a session of servers; it records nothing until
// Start or Toggle.
func NewSession(servers []SessionServer, opts SessionOptions) *Session {
	if opts.Log == nil {
		opts.Log = os.Stderr
	}
	s := &Session{opts: opts, servers: servers}
	if opts.Snapshots {
		s.snaps = map[string]*Snapshot{}
		for _, srv := range servers {
			s.snaps[srv.Name] = &Snapshot{}
		}
	}
	return s
}

// Start begins the first file (--record given at the start).
func (s *Session) Start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.beginLocked()
}

// Quiet stops the note that says where a dated name records: once the screen is up,
// it says so itself.
func (s *Session) Quiet() {
	s.mu.Lock()
	s.quiet = true
	s.mu.Unlock()
}

// beginLocked creates the file, writes each server's snapshot (when the recording
// starts mid-session) and records from then on; s.mu is held. With no server to
// record it writes nothing.
func (s *Session) beginLocked() error {
	red, err := s.opts.Redactor()
	if err != nil {
		return err
	}
	h := Header{McpscopeVersion: s.opts.Version, Client: s.opts.Client}
	for _, srv := range s.servers {
		for _, v := range srv.Secrets {
			red.AddSecret(v)
		}
		h.Servers = append(h.Servers, Server{Name: srv.Name, Target: srv.Target})
	}
	if len(h.Servers) == 0 {
		return nil
	}
	h.Target = h.Servers[0].Target
	path := s.opts.Path
	if path == "" {
		path = "."
	}
	var w *Writer
	if st, serr := os.Stat(path); serr == nil && st.IsDir() {
		w, err = CreateIn(path, h, red)
	} else {
		w, err = Create(path, h, red)
	}
	if err != nil {
		return fmt.Errorf("--record: %w", err)
	}
	for _, srv := range h.Servers {
		if snap := s.snaps[srv.Name]; snap != nil {
			if err := w.WriteSnapshotOf(srv.Name, snap.Events()); err != nil {
				w.Close()
				return fmt.Errorf("--record: %w", err)
			}
		}
	}
	if w.Path() != s.opts.Path && !s.quiet {
		fmt.Fprintf(s.opts.Log, "mcpscope: recording to %s\n", w.Path())
	}
	s.w = w
	s.listeners = map[string]wire.Listener{}
	for _, srv := range h.Servers {
		s.listeners[srv.Name] = w.ListenServer(srv.Name)
	}
	return nil
}

// Add takes in a server that joined the session (the workbench's :add): a running
// recording names it in a server line (its header was written before) and records
// its events; a later start has it in its header. A server already named is left
// as it is (a configured server brought back, or overridden under its name).
func (s *Session) Add(srv SessionServer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, have := range s.servers {
		if have.Name == srv.Name {
			return
		}
	}
	s.servers = append(s.servers, srv)
	if s.snaps != nil {
		s.snaps[srv.Name] = &Snapshot{}
	}
	if s.w == nil {
		return
	}
	if err := s.w.AddServer(Server{Name: srv.Name, Target: srv.Target}, srv.Secrets...); err != nil {
		fmt.Fprintf(s.opts.Log, "mcpscope: %s is not recorded: %s\n", termsafe.Line(srv.Name), termsafe.Line(err.Error()))
		return
	}
	s.listeners[srv.Name] = s.w.ListenServer(srv.Name)
}

// Listen records one wire event of a server (and keeps what a later start needs).
func (s *Session) Listen(server string, e wire.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if snap := s.snaps[server]; snap != nil {
		snap.Listen(e)
	}
	if l := s.listeners[server]; l != nil {
		l(e)
	}
}

// Path is the file being written ("" when not recording).
func (s *Session) Path() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.w == nil {
		return ""
	}
	return s.w.Path()
}

// Toggle starts a recording (returning its file) or stops the running one
// (returning ""). The next start after a stop records where the last one did
// (NextPlace), never in the current directory unless that is where Path pointed.
func (s *Session) Toggle() (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return "", errors.New("the session is ending; nothing more is recorded")
	}
	if s.w != nil {
		s.closeLocked()
		s.opts.Path = NextPlace(s.opts.Path)
		return "", nil
	}
	if err := s.beginLocked(); err != nil {
		return "", err
	}
	if s.w == nil {
		return "", errors.New("no server of the session can be recorded")
	}
	return s.w.Path(), nil
}

// Stop finishes the file, after every server has closed; no toggle starts another.
func (s *Session) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done = true
	s.closeLocked()
}

func (s *Session) closeLocked() {
	if s.w == nil {
		return
	}
	if err := s.w.Close(); err != nil {
		fmt.Fprintf(s.opts.Log, "mcpscope: the recording %s is incomplete: %v\n", s.w.Path(), err)
	}
	s.w, s.listeners = nil, nil
}

// NextPlace is where the next recording goes once one has ended: a new dated name
// in the same directory, or beside the file that was named (the ended recording
// holds that name). Not the current directory, unless that is where path pointed.
func NextPlace(path string) string {
	if path == "" {
		return ""
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return path
	}
	return filepath.Dir(path)
}
