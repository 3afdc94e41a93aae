package main

import (
	"fmt"
	"os"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/record"
)

// sessionRecording records every server of a session into one file (format version
// 2): the header names each server with its target, each event its server.
type sessionRecording struct {
	w         *record.Writer
	listeners map[string]wire.Listener
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
		Argv:      recordedArgv(target.Argv),
		Env:       append(names, envNames...),
		Dir:       target.Dir,
		Framing:   c.framing,
	}, append(secrets, target.Secrets...)
}

// startSessionRecording starts the recording of a session of several servers when
// --record asks for one; without it, the recording records nothing.
func startSessionRecording(c *common, servers []namedServer) (*sessionRecording, error) {
	if !c.recordSet {
		return &sessionRecording{}, nil
	}
	red, envNames, err := c.redactor()
	if err != nil {
		return nil, err
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
	for _, s := range servers {
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
		return &sessionRecording{}, nil
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
		return nil, &exitError{code: exitUsage, msg: fmt.Sprintf("--record: %v", err)}
	}
	if w.Path() != c.record {
		fmt.Fprintf(os.Stderr, "mcpscope: recording to %s\n", w.Path())
	}
	r := &sessionRecording{w: w, listeners: map[string]wire.Listener{}}
	for _, s := range servers {
		r.listeners[s.spec.Name] = w.ListenServer(s.spec.Name)
	}
	return r, nil
}

// listen records one wire event of a server.
func (r *sessionRecording) listen(server string, e wire.Event) {
	if l := r.listeners[server]; l != nil {
		l(e)
	}
}

// stop finishes the file, after every server has closed.
func (r *sessionRecording) stop() {
	if r.w == nil {
		return
	}
	if err := r.w.Close(); err != nil {
		fmt.Fprintf(os.Stderr, "mcpscope: the recording %s is incomplete: %v\n", r.w.Path(), err)
	}
}
