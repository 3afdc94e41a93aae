package main

import (
	"errors"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/record"
	"github.com/mcpscope/mcpscope/workbench"
)

// sessionRecording is the recording of a session of several servers (package
// record's Session: one file, each event naming its server), fed from the flags:
// --record's path, the redaction of -e, --redact and the HTTP credentials, each
// server's target as the header describes it.
type sessionRecording struct {
	c   *common
	rec *record.Session
}

// recordTarget is a target as the header describes it (record.TargetOf), with the
// names of -e and --env-file, and the secrets it carries.
func (c *common) recordTarget(t client.Target, envNames []string) (record.Target, []string) {
	return record.TargetOf(t, c.framing, envNames)
}

// newSessionRecording describes the servers that started (one that never did has
// nothing to record) and how each file is redacted.
func newSessionRecording(c *common, servers []namedServer, snapshots bool) (*sessionRecording, error) {
	// A bad --redact or --env-file matters once a file is written: now with --record,
	// else at the first toggle (the redactor is made again for each file).
	_, envNames, err := c.redactor()
	if err != nil && c.recordSet {
		return nil, err
	}
	var ss []record.SessionServer
	for _, s := range servers {
		if s.err == nil {
			t, secrets := c.recordTarget(s.spec.Target, envNames)
			ss = append(ss, record.SessionServer{Name: s.spec.Name, Target: t, Secrets: secrets})
		}
	}
	redactor := func() (*record.Redactor, error) {
		red, _, err := c.redactor()
		if err != nil {
			return nil, err
		}
		if _, secrets, err := c.remote.httpHeader(); err == nil {
			for _, s := range secrets {
				red.AddSecret(s)
			}
		}
		return red, nil
	}
	rec := record.NewSession(ss, record.SessionOptions{
		Path: c.record, Redactor: redactor, Snapshots: snapshots,
		Version: client.Version, Client: &record.Peer{Name: "mcpscope", Version: client.Version},
	})
	return &sessionRecording{c: c, rec: rec}, nil
}

// startSessionRecording starts the recording of a session of several servers when
// --record asks for one; without it, the recording records nothing.
func startSessionRecording(c *common, servers []namedServer) (*sessionRecording, error) {
	r, err := newSessionRecording(c, servers, false)
	if err != nil || !c.recordSet {
		return r, err
	}
	return r, r.start()
}

// toggleableRecording is the workbench's recording: started now when --record asks,
// and by toggle (R) at any time, each later file beginning with a snapshot.
func toggleableRecording(c *common, servers []namedServer) (*sessionRecording, error) {
	r, err := newSessionRecording(c, servers, true)
	if err != nil {
		return nil, err
	}
	defer r.rec.Quiet() // once the screen is up, it says where
	if !c.recordSet {
		return r, nil
	}
	return r, r.start()
}

// start begins the first file; a file that cannot be created is a usage error.
func (r *sessionRecording) start() error {
	err := r.rec.Start()
	var ee *exitError
	if err != nil && !errors.As(err, &ee) {
		return &exitError{code: exitUsage, msg: err.Error()}
	}
	return err
}

// added takes in a server that joined the session in the workbench (:add).
func (r *sessionRecording) added(spec workbench.Spec) {
	if spec.Unusable != nil {
		return // never started: nothing to record
	}
	t, secrets := r.c.recordTarget(spec.Target, nil)
	r.rec.Add(record.SessionServer{Name: spec.Name, Target: t, Secrets: secrets})
}

func (r *sessionRecording) listen(server string, e wire.Event) { r.rec.Listen(server, e) }
func (r *sessionRecording) path() string                       { return r.rec.Path() }
func (r *sessionRecording) toggle() (string, error)            { return r.rec.Toggle() }
func (r *sessionRecording) stop()                              { r.rec.Stop() }
