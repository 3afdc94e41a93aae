package workbench

import (
	"context"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/client"
)

// Snapshot is what the workbench knows of one server at one moment. It is a copy:
// the reader keeps it, renders it, compares it with the next; nothing in it changes
// under the reader. The workbench is the one holder of a server's state; a view
// renders snapshots (and the events that say when to take a new one) instead of
// keeping a parallel copy with a generation counter of its own.
type Snapshot struct {
	Name   string
	Spec   Spec
	Status Status // Status.Gen is the server's generation
	// LastActivity is when a request last ended (or the server connected).
	LastActivity time.Time
	// Overrides: this session-added server hides a configured one of the same name.
	Overrides bool
	// Tools is the last tool list fetched through ListTools, on attempt ToolsGen
	// (nil: none yet). A server that went down keeps its last one; ToolsGen !=
	// Status.Gen says it is from an earlier connection.
	Tools    *client.ToolList
	ToolsGen int
	// Stderr is the current attempt's last stderr lines (Options.StderrLines), as
	// the server wrote them: untrusted, to be made safe before a terminal shows them.
	Stderr []string
	// Info is the last handshake's outcome, kept while the server is down or
	// restarting (Status.Info is the current connection's only).
	Info client.Info
	// EverConnected: some attempt connected.
	EverConnected bool
	// Heard is when the current attempt last sent or received a frame, or its
	// status changed.
	Heard time.Time
	// Unreachable, for a connected HTTP server, says why it no longer answers (a
	// request could not reach it, its event stream broke); "" once a response came
	// back. It is a server's own words (e.Text of the wire event): untrusted.
	Unreachable string
	// Counts are the resources and prompts the server lists, as CountLists last
	// counted them (nil: never); Counts.Gen says on which attempt.
	Counts *Counts
}

// Counts are how many resources and prompts a server lists, on attempt Gen
// (Status.Gen). -1: the server does not declare the capability.
type Counts struct {
	Gen                int
	Resources, Prompts int
	// Err says why a list failed (its count is then -1).
	Err string
}

// Snapshot is the named server's state now.
func (w *Workbench) Snapshot(name string) (Snapshot, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s, ok := w.servers[name]
	if !ok {
		return Snapshot{}, false
	}
	return s.snapshotLocked(), true
}

// Snapshots is every server's state now, in the session's order.
func (w *Workbench) Snapshots() []Snapshot {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := make([]Snapshot, 0, len(w.order))
	for _, n := range w.order {
		out = append(out, w.servers[n].snapshotLocked())
	}
	return out
}

func (s *server) snapshotLocked() Snapshot {
	return Snapshot{Name: s.spec.Name, Spec: s.spec, Status: s.status, LastActivity: s.lastUse,
		Overrides: s.replaced != nil, Tools: s.tools, ToolsGen: s.toolsGen, Stderr: s.stderr.get(),
		Info: s.info, EverConnected: s.everConnected, Heard: s.heard, Unreachable: s.unreachable, Counts: s.counts}
}

// List describes every server, in order.
func (w *Workbench) List() []Server {
	snaps := w.Snapshots()
	out := make([]Server, 0, len(snaps))
	for _, s := range snaps {
		out = append(out, Server{Spec: s.Spec, Status: s.Status, LastActivity: s.LastActivity, Overrides: s.Overrides})
	}
	return out
}

// CountLists counts the server's resources and prompts (each only when it declares
// the capability) and keeps them for Snapshot, with the attempt whose session
// answered. An idle server is reconnected, as by a call. A count from an attempt
// older than the one kept is not kept. It is how a view shows what a server offers
// without keeping a count of its own.
func (w *Workbench) CountLists(ctx context.Context, name string) (Counts, error) {
	sess, gen, release, err := w.session(ctx, name)
	if err != nil {
		// Nothing could be counted: kept as such, with why, for the attempt that
		// could not answer (a view shows "-" and the reason rather than waiting).
		w.keepCounts(name, Counts{Gen: -1, Resources: -1, Prompts: -1, Err: err.Error()})
		return Counts{}, err
	}
	defer release()
	c := countLists(ctx, sess, gen)
	w.keepCounts(name, c)
	return c, nil
}

// countLists counts what the session declares, on attempt gen.
func countLists(ctx context.Context, sess *client.Session, gen int) Counts {
	c := Counts{Gen: gen, Resources: -1, Prompts: -1}
	var errs []string
	if sess.HasCapability("resources") {
		if l, err := sess.Resources(ctx); err != nil {
			errs = append(errs, "resources/list: "+err.Error())
		} else {
			c.Resources = len(l.Items)
		}
	}
	if sess.HasCapability("prompts") {
		if l, err := sess.Prompts(ctx); err != nil {
			errs = append(errs, "prompts/list: "+err.Error())
		} else {
			c.Prompts = len(l.Items)
		}
	}
	c.Err = strings.Join(errs, "; ")
	return c
}

// keepCounts keeps counts made on the server's current attempt (Gen -1: the
// current one, which could not answer); a restart since makes them stale.
func (w *Workbench) keepCounts(name string, c Counts) {
	w.mu.Lock()
	defer w.mu.Unlock()
	s := w.servers[name]
	if s == nil {
		return
	}
	if c.Gen < 0 {
		c.Gen = s.attempts
	}
	if c.Gen == s.attempts {
		s.counts = &c
	}
}
