package main

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/termsafe"
	"github.com/mcpscope/mcpscope/record"
	"github.com/mcpscope/mcpscope/workbench"
)

// sessionRecording records every server of a session into one file (format version
// 2): the header names each server with its target, each event its server. In the
// workbench it can be started and stopped (R): each start writes a new file that
// begins with what the session knows of each server by then (its handshake and
// lists, marked as a snapshot), so that it replays and serves on its own.
type sessionRecording struct {
	c       *common
	servers []namedServer
	quiet   bool // the workbench says where it records on its own screen

	mu        sync.Mutex
	done      bool // stop ran: the session is ending and no toggle starts a file
	w         *record.Writer
	listeners map[string]wire.Listener
	snaps     map[string]*record.Snapshot // per server, for a recording started later
}

// recordTarget is a target as the header describes it, with the names and secrets of
// its own environment (a config entry's env).
func (c *common) recordTarget(target client.Target, envNames []string) (record.Target, []string) {
	if target.URL != "" {
		// HTTP: the wire layer redacts headers and the values it knows are secret; the
		// recorder redacts again, with the -e values and --redact patterns too.
		return record.Target{Transport: "http", URL: target.URL}, target.Secrets
	}
	names, secrets := record.EnvSecrets(target.Env)
	return record.Target{
		Transport: "stdio",
		Argv:      record.StoredArgv(target.Argv),
		Env:       append(names, envNames...),
		Dir:       target.Dir,
		Framing:   c.framing,
	}, append(secrets, target.Secrets...)
}

// startSessionRecording starts the recording of a session of several servers when
// --record asks for one; without it, the recording records nothing.
func startSessionRecording(c *common, servers []namedServer) (*sessionRecording, error) {
	r := &sessionRecording{c: c, servers: servers}
	if !c.recordSet {
		return r, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r, r.beginLocked()
}

// toggleableRecording is the workbench's recording: started now when --record asks,
// and by toggle (R) at any time.
func toggleableRecording(c *common, servers []namedServer) (*sessionRecording, error) {
	r := &sessionRecording{c: c, servers: servers, snaps: map[string]*record.Snapshot{}}
	for _, s := range servers {
		if s.err == nil {
			r.snaps[s.spec.Name] = &record.Snapshot{}
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	defer func() { r.quiet = true }() // once the screen is up, it says where
	if !c.recordSet {
		return r, nil
	}
	return r, r.beginLocked()
}

// beginLocked creates the file, writes each server's snapshot (when the recording
// starts mid-session) and records from then on; r.mu is held.
func (r *sessionRecording) beginLocked() error {
	c := r.c
	red, envNames, err := c.redactor()
	if err != nil {
		return err
	}
	if _, secrets, err := c.remote.httpHeader(); err == nil {
		for _, s := range secrets {
			red.AddSecret(s)
		}
	}
	h := record.Header{
		McpscopeVersion: client.Version,
		Client:          &record.Peer{Name: "mcpscope", Version: client.Version},
	}
	for _, s := range r.servers {
		if s.err != nil {
			continue // never started
		}
		t, secrets := c.recordTarget(s.spec.Target, envNames)
		for _, v := range secrets {
			red.AddSecret(v)
		}
		h.Servers = append(h.Servers, record.Server{Name: s.spec.Name, Target: t})
	}
	if len(h.Servers) == 0 {
		return nil
	}
	h.Target = h.Servers[0].Target
	var w *record.Writer
	path := c.record
	if path == "" {
		path = "."
	}
	if st, serr := os.Stat(path); serr == nil && st.IsDir() {
		w, err = record.CreateIn(path, h, red)
	} else {
		w, err = record.Create(path, h, red)
	}
	if err != nil {
		return &exitError{code: exitUsage, msg: fmt.Sprintf("--record: %v", err)}
	}
	for _, s := range h.Servers {
		if snap := r.snaps[s.Name]; snap != nil {
			if err := w.WriteSnapshotOf(s.Name, snap.Events()); err != nil {
				w.Close()
				return &exitError{code: exitUsage, msg: fmt.Sprintf("--record: %v", err)}
			}
		}
	}
	if w.Path() != c.record && !r.quiet {
		fmt.Fprintf(os.Stderr, "mcpscope: recording to %s\n", w.Path())
	}
	r.w = w
	r.listeners = map[string]wire.Listener{}
	for _, s := range h.Servers {
		r.listeners[s.Name] = w.ListenServer(s.Name)
	}
	return nil
}

// added takes in a server that joined the session in the workbench (:add): a
// running recording names it in a server line (its header was written before) and
// records its events; a later start has it in its header.
func (r *sessionRecording) added(spec workbench.Spec) {
	if spec.Unusable != nil {
		return // never started: nothing to record
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.servers {
		if s.err == nil && s.spec.Name == spec.Name {
			return // already named (a configured server brought back, or overridden under its name)
		}
	}
	r.servers = append(r.servers, namedServer{spec: spec})
	if r.snaps != nil {
		r.snaps[spec.Name] = &record.Snapshot{}
	}
	if r.w == nil {
		return
	}
	t, secrets := r.c.recordTarget(spec.Target, nil)
	if err := r.w.AddServer(record.Server{Name: spec.Name, Target: t}, secrets...); err != nil {
		fmt.Fprintf(os.Stderr, "mcpscope: %s is not recorded: %s\n", termsafe.Line(spec.Name), termsafe.Line(err.Error())) // os.Stderr is not the sanitized stderr
		return
	}
	r.listeners[spec.Name] = r.w.ListenServer(spec.Name)
}

// listen records one wire event of a server (and keeps what a later start needs).
func (r *sessionRecording) listen(server string, e wire.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if snap := r.snaps[server]; snap != nil {
		snap.Listen(e)
	}
	if l := r.listeners[server]; l != nil {
		l(e)
	}
}

// path is the file being written ("" when not recording).
func (r *sessionRecording) path() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.w == nil {
		return ""
	}
	return r.w.Path()
}

// toggle starts a recording (returning its file) or stops the running one
// (returning ""): the workbench's R.
func (r *sessionRecording) toggle() (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return "", errors.New("the session is ending; nothing more is recorded")
	}
	if r.w != nil {
		r.closeLocked()
		r.c.record = nextRecordPlace(r.c.record)
		return "", nil
	}
	r.c.recordSet = true
	if err := r.beginLocked(); err != nil {
		return "", err
	}
	if r.w == nil {
		return "", errors.New("no server of the session can be recorded")
	}
	return r.w.Path(), nil
}

// stop finishes the file, after every server has closed.
func (r *sessionRecording) stop() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.done = true
	r.closeLocked()
}

func (r *sessionRecording) closeLocked() {
	if r.w == nil {
		return
	}
	if err := r.w.Close(); err != nil {
		fmt.Fprintf(os.Stderr, "mcpscope: the recording %s is incomplete: %v\n", r.w.Path(), err)
	}
	r.w, r.listeners = nil, nil
}
