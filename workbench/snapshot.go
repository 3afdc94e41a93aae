package workbench

import (
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
		Overrides: s.replaced != nil, Tools: s.tools, ToolsGen: s.toolsGen, Stderr: s.stderr.get()}
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
