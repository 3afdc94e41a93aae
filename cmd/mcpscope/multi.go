package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/inspect"
	"github.com/mcpscope/mcpscope/internal/plural"
	"github.com/mcpscope/mcpscope/workbench"
)

// withTimeout applies a server's own request timeout (from its config entry) over
// --timeout.
func (c *common) withTimeout(spec workbench.Spec) *common {
	cc := *c
	if spec.Timeout > 0 {
		cc.remote.timeout, cc.remote.timeoutCap = spec.Timeout, 0
		cc.remote.timeoutFrom = "the timeout of " + spec.Name + "'s config entry"
	}
	return &cc
}

// prefixWriter starts every line with a prefix (the server's name in --trace and in
// notes of a session of several servers).
type prefixWriter struct {
	mu     *sync.Mutex
	w      io.Writer
	prefix string
}

func (p prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out bytes.Buffer
	for _, line := range bytes.SplitAfter(b, []byte("\n")) {
		if len(line) > 0 {
			out.WriteString(p.prefix)
			out.Write(line)
		}
	}
	if _, err := p.w.Write(out.Bytes()); err != nil {
		return 0, err
	}
	return len(b), nil
}

// openWorkbench connects every server at once for a one-shot command, with what the
// common flags ask for (tracing, recording) and answers (what the command answers
// servers, as with one server: --elicit, --sampling, --root). done closes every
// server, finishes the recording and prints the notes about skipped stdout lines.
func openWorkbench(ctx context.Context, c *common, servers []namedServer, stderr io.Writer, answers ...func(*client.Options) error) (*workbench.Workbench, func(), error) {
	cc := *c
	cc.trace = false // traced per server below, with its name
	sess, err := cc.session(stderr, answers...)
	if err != nil {
		return nil, nil, err
	}
	opts := sess.Client
	if len(opts.Header) > 0 || opts.Transport != "" {
		http := false
		for _, s := range servers {
			http = http || s.spec.Target.URL != ""
		}
		if !http {
			return nil, nil, usageErr("headers, tokens and --transport apply to HTTP servers; none of the servers named is one")
		}
	}
	var mu sync.Mutex
	notes := map[string]*noiseNote{}
	traces := map[string]wire.Listener{}
	for _, s := range servers {
		notes[s.spec.Name] = &noiseNote{}
		if c.trace {
			traces[s.spec.Name] = traceListener(prefixWriter{&mu, stderr, "[" + s.spec.Name + "] "})
		}
	}
	rec, err := startSessionRecording(c, servers)
	if err != nil {
		return nil, nil, err
	}
	onWire := func(server string, e wire.Event) {
		if n := notes[server]; n != nil {
			n.listen(e)
		}
		if t := traces[server]; t != nil {
			t(e)
		}
		rec.listen(server, e)
	}
	wb := sess.Workbench(onWire)
	for _, s := range servers {
		if s.err != nil {
			continue // reported as failed, never started
		}
		if err := wb.Add(s.spec); err != nil {
			wb.Close()
			rec.stop()
			return nil, nil, usageErr("%v", err)
		}
	}
	return wb, func() {
		wb.Close()
		rec.stop()
		for _, s := range servers {
			notes[s.spec.Name].report(prefixWriter{&mu, stderr, "[" + s.spec.Name + "] "})
		}
	}, nil
}

// inspectMany is --inspect with several servers: they connect at once; one section a
// server, in the order named, each with its status. The exit code is 1 only when
// every server failed (--strict: when any did).
func inspectMany(ctx context.Context, c *common, servers []namedServer, tokens bool, pf *pinFlags, stdout, stderr io.Writer, answers ...func(*client.Options) error) error {
	wb, done, err := openWorkbench(ctx, c, servers, stderr, answers...)
	if err != nil {
		return err
	}
	defer done()
	sections := make([]inspect.Section, len(servers))
	store := pf.store(stderr)
	notes := make([]string, len(servers))
	differs := make([]bool, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sections[i] = inspectOne(ctx, wb, s)
			sections[i].CountTokens = tokens
			if store == nil || sections[i].Tools == nil {
				return
			}
			// Each server its own pin file: the checks run side by side.
			surf, err := sectionSurface(ctx, wb, s.spec.Name, sections[i].Tools) // pinfirst.go
			var drift []string
			if err != nil {
				drift = []string{"pin: not compared: " + err.Error()}
			} else {
				drift, differs[i], notes[i] = pinCheck(store, s, surf)
			}
			sections[i].Tools = withProblems(sections[i].Tools, drift)
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	var drifted []string
	for i, n := range notes {
		fmt.Fprint(stderr, n) // in the order named, after the goroutines
		if differs[i] {
			drifted = append(drifted, servers[i].spec.Name)
		}
	}
	if err := inspect.WriteServers(stdout, c.format, sections); err != nil {
		return err
	}
	failed := 0
	for _, s := range sections {
		if s.Failed() {
			failed++
			fmt.Fprintf(stderr, "mcpscope: server %q %s: %s\n", s.Name, s.Status, firstLineOf(s.Error))
		}
	}
	switch {
	case failed == len(sections):
		return &exitError{code: exitServer, msg: fmt.Sprintf("every server failed (%d of %d)", failed, len(sections))}
	case failed > 0 && c.naming.strict:
		return &exitError{code: exitServer, msg: fmt.Sprintf("%d of %s failed (--strict)", failed, plural.Count(len(sections), "server"))}
	case pf.strict:
		return strictPins(drifted)
	}
	return nil
}

func firstLineOf(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// inspectOne waits for one server and lists its tools.
func inspectOne(ctx context.Context, wb *workbench.Workbench, s namedServer) inspect.Section {
	sec := inspect.Section{Name: s.spec.Name, Target: s.desc}
	if s.err != nil {
		sec.Status, sec.Error = string(workbench.StateFailed), s.err.Error()
		return sec
	}
	st, err := wb.Wait(ctx, s.spec.Name)
	if err != nil {
		sec.Status, sec.Error = "failed", err.Error()
		return sec
	}
	sec.Status, sec.Info = string(st.State), st.Info
	if st.State != workbench.StateConnected {
		sec.Error, sec.Stderr = st.Reason, st.Stderr
		if st.Exit != nil {
			sec.Exit = st.Exit.String()
		}
		return sec
	}
	list, err := wb.Tools(ctx, s.spec.Name)
	if err != nil {
		sec.Status, sec.Error = string(workbench.StateFailed), "tools/list: "+err.Error()
		var se *client.ServerError
		if errors.As(err, &se) {
			sec.Stderr = se.Stderr
		}
		return sec
	}
	sec.Tools = list
	return sec
}
