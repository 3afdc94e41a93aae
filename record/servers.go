package record

import (
	"fmt"
	"strings"
)

// ServerNames lists the servers of a recording of several, in the header's order; a
// recording of one server (version 1) has none.
func (rec *Recording) ServerNames() []string {
	var out []string
	for _, s := range rec.Header.Servers {
		out = append(out, s.Name)
	}
	return out
}

// Several reports whether the recording holds several servers.
func (rec *Recording) Several() bool { return len(rec.Header.Servers) > 0 }

// ForServer is the recording of one server of a recording of several: the header
// with that server's target (version 1, no servers), and its events only (their line
// numbers still point into the file). A recording of one server is returned as it is
// for name "".
func (rec *Recording) ForServer(name string) (*Recording, error) {
	if !rec.Several() {
		if name == "" {
			return rec, nil
		}
		return nil, fmt.Errorf("the recording holds one server, not a server named %q", name)
	}
	for _, s := range rec.Header.Servers {
		if s.Name != name {
			continue
		}
		out := &Recording{Header: rec.Header, Warnings: rec.Warnings, Complete: rec.Complete}
		out.Header.Servers = nil
		out.Header.Version = Version
		out.Header.Target = s.Target
		for _, e := range rec.Events {
			if e.Server == name {
				out.Events = append(out.Events, e)
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("the recording has no server named %q; it has: %s", name, strings.Join(rec.ServerNames(), ", "))
}
