package replay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/plural"
	"github.com/mcpscope/mcpscope/record"
	"github.com/mcpscope/mcpscope/target"
)

// The replay of a recording of several servers: each server's part (record's
// ForServer) replayed against its own target, one after the other, and one report
// whose every line names its server. The command line only picks the servers and
// builds each one's target and options; what runs and what the report says is here.

// ErrUnusableURL and ErrNoCommand say why a recording's header names no target that
// can be started again; the caller says how to give one.
var (
	ErrUnusableURL = errors.New("recorded over HTTP and its URL is not usable")
	ErrNoCommand   = errors.New("no server command")
)

// RecordedTarget is the live target a recording's header names: its URL, or its
// command (a recorded mcpscope itself becomes this binary: record.LiveArgv).
// redacted reports an argument the recorder replaced with record.Redacted: the
// server may need it given again.
func RecordedTarget(t record.Target) (target client.Target, redacted bool, err error) {
	if t.Transport == "http" {
		if t.URL == "" || strings.Contains(t.URL, record.Redacted) {
			return client.Target{}, false, ErrUnusableURL
		}
		return client.Target{URL: t.URL}, false, nil
	}
	if len(t.Argv) == 0 {
		return client.Target{}, false, ErrNoCommand
	}
	for _, a := range t.Argv {
		if strings.Contains(a, record.Redacted) {
			redacted = true
			break
		}
	}
	return client.Target{Argv: record.LiveArgv(t.Argv), Dir: t.Dir}, redacted, nil
}

// OnlyByServer splits --only among the servers replayed: each name goes to the
// servers whose exchanges it picks (SERVER/NAME to that one only). A name that picks
// no exchange of any of them is a usage error that lists what each server has; a
// server that no name picks is left out, said in skipped.
func OnlyByServer(rec *record.Recording, names, only []string) (picked map[string][]string, skipped []string, err error) {
	subs := map[string]*record.Recording{}
	for _, n := range names {
		sub, err := rec.ForServer(n)
		if err != nil {
			return nil, nil, &client.UsageError{Msg: err.Error()}
		}
		subs[n] = sub
	}
	picked = map[string][]string{}
	var missing []string
	for _, o := range only {
		if !pickOnly(subs, names, o, picked) {
			missing = append(missing, o)
		}
	}
	if len(missing) > 0 {
		var has []string
		for _, n := range names {
			list := OnlyNames(subs[n])
			if len(list) > 20 {
				list = append(list[:20], "…")
			}
			has = append(has, fmt.Sprintf("%s: %s", n, strings.Join(list, ", ")))
		}
		return nil, nil, &client.UsageError{Msg: fmt.Sprintf("--only %s: no exchange of the servers replayed has that id or names that tool (SERVER/NAME picks one server's); they have: %s", strings.Join(missing, ", "), strings.Join(has, "; "))}
	}
	for _, n := range names {
		if len(picked[n]) == 0 {
			skipped = append(skipped, n)
		}
	}
	return picked, skipped, nil
}

// pickOnly adds one name of --only to the servers it picks, and reports whether any.
func pickOnly(subs map[string]*record.Recording, names []string, o string, picked map[string][]string) bool {
	server, name, qualified := strings.Cut(o, "/")
	found := false
	for _, n := range names {
		look := o
		if qualified {
			if n != server {
				continue
			}
			look = name
		}
		if MatchesOnly(subs[n], look) {
			picked[n] = append(picked[n], look)
			found = true
		}
	}
	return found
}

// ServerRun is one server of a recording of several, ready to replay.
type ServerRun struct {
	Name    string
	Target  client.Target
	Options Options
}

// ServerReport is one server's part of a replay of several.
type ServerReport struct {
	Server string  `json:"server"`
	Report *Report `json:"report"`
}

// ServersReport is the outcome of RunServers; its JSON is {"servers": [...]}.
type ServersReport struct {
	Servers []ServerReport `json:"servers"`
}

// RunServers replays each server of rec named in runs against its target, one after
// the other (their stderr and any login question do not mix). Like Run, it returns
// an error only when a replay could not start; that error names its server.
func RunServers(ctx context.Context, rec *record.Recording, runs []ServerRun) (*ServersReport, error) {
	out := &ServersReport{}
	for _, r := range runs {
		sub, err := rec.ForServer(r.Name)
		if err != nil {
			return nil, &client.UsageError{Msg: err.Error()}
		}
		report, err := Run(ctx, sub, r.Target, r.Options)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("server %q: %w", r.Name, err)
		}
		out.Servers = append(out.Servers, ServerReport{Server: r.Name, Report: report})
	}
	return out, nil
}

// OK reports whether every exchange of every server matched.
func (r *ServersReport) OK() bool {
	for _, s := range r.Servers {
		if !s.Report.OK() {
			return false
		}
	}
	return true
}

// Differs names the servers that differ and in how many exchanges: `server "a" in
// 1 of 3 exchanges; …` ("" when none does).
func (r *ServersReport) Differs() string {
	var parts []string
	for _, s := range r.Servers {
		if f := s.Report; !f.OK() {
			parts = append(parts, fmt.Sprintf("server %q in %d of %s", s.Server, len(f.Failures), plural.Count(f.Replayed, "exchange")))
		}
	}
	return strings.Join(parts, "; ")
}

// WriteText writes each server's report (Report.WriteText) with every line
// starting with the server's name, so that a difference names its server.
func (r *ServersReport) WriteText(w io.Writer) error {
	var b bytes.Buffer
	for _, s := range r.Servers {
		var one bytes.Buffer
		s.Report.WriteText(&one)
		for _, line := range bytes.SplitAfter(one.Bytes(), []byte("\n")) {
			if len(line) > 0 {
				b.WriteString(s.Server + ": ")
				b.Write(line)
			}
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

// Several is what the command line asks of a replay of a recording of several
// servers (or of --server on any recording).
type Several struct {
	// File is the recording's path, for messages.
	File string
	// Servers are --server's names, in order; none replays every server.
	Servers []string
	// Argv is the command or URL after --.
	Argv []string
	// Only is --only's names: NAME (an exchange id or a tool name, in whichever
	// server has it) or SERVER/NAME (in that server only).
	Only []string
	// Update and Record are --update and --record, which a replay of several does
	// not support yet.
	Update, Record bool
	// Options are what every server replays with (--ignore, --strict-order, the
	// redaction, --timeout); Client and Only are each server's.
	Options Options
}

// ServerSetup gives a server's live target and client options: recorded is the
// target its part of the recording names. It is the command line's (config names,
// the trace, what it says of a redacted argument or a missing variable).
type ServerSetup func(name string, recorded record.Target) (target.Target, client.Options, error)

// PlanServers checks what sev asks of rec and makes the run of each server replayed
// (its exchanges that --only picks, its target and options from setup), before any
// of them runs: a server that cannot be replayed is said before the others take
// their time. notes are what the user should read (--only picks nothing of a
// server, which is left out).
func PlanServers(rec *record.Recording, sev Several, setup ServerSetup) (runs []ServerRun, notes []string, err error) {
	names := sev.Servers
	switch {
	case !rec.Several():
		return nil, nil, usage("%s records one server; --server picks one of a recording of several (replay it without --server)", sev.File)
	case len(names) == 0:
		names = rec.ServerNames()
	}
	if len(sev.Argv) > 0 && len(names) != 1 {
		return nil, nil, usage("%s records %d servers (%s); a command or URL after -- replaces one: add --server NAME", sev.File, len(rec.Header.Servers), strings.Join(rec.ServerNames(), ", "))
	}
	if sev.Update {
		return nil, nil, usage("--update is not supported yet for a recording of several servers")
	}
	if sev.Record {
		return nil, nil, usage("--record is not supported yet when replaying a recording of several servers")
	}
	var only map[string][]string
	if len(sev.Only) > 0 {
		var skipped []string
		if only, skipped, err = OnlyByServer(rec, names, sev.Only); err != nil {
			return nil, nil, err
		}
		if len(skipped) > 0 {
			notes = append(notes, fmt.Sprintf("--only names no exchange of %s; not replayed", strings.Join(skipped, ", ")))
			var kept []string
			for _, n := range names {
				if len(only[n]) > 0 {
					kept = append(kept, n)
				}
			}
			names = kept
		}
	}
	for _, name := range names {
		sub, err := rec.ForServer(name)
		if err != nil {
			return nil, nil, usage("%s: %v", sev.File, err)
		}
		t, opts, err := setup(name, sub.Header.Target)
		if err != nil {
			return nil, nil, err
		}
		o := sev.Options
		o.Client, o.Only = opts, only[name]
		runs = append(runs, ServerRun{Name: name, Target: t, Options: o})
	}
	return runs, notes, nil
}

// SaveIgnored adds ignore's paths to the recording's header (--save-ignore) and
// writes it to path.
func SaveIgnored(rec *record.Recording, path string, ignore []string) error {
	rec.AddIgnore(ignore)
	if err := rec.Save(path); err != nil {
		return fmt.Errorf("replay: writing %s: %w", path, err)
	}
	return nil
}

// ServeOne is the recording serve answers from: of a recording of several, the one
// server named (server "" for a recording of one).
func ServeOne(rec *record.Recording, file, server string) (*record.Recording, error) {
	if !rec.Several() {
		if server != "" {
			return nil, usage("%s records one server; drop --server", file)
		}
		return rec, nil
	}
	if server == "" {
		return nil, usage("%s records %d servers; serve one: mcpscope serve %s --server NAME (%s)", file, len(rec.Header.Servers), file, strings.Join(rec.ServerNames(), ", "))
	}
	sub, err := rec.ForServer(server)
	if err != nil {
		return nil, usage("%s: %v", file, err)
	}
	return sub, nil
}

// usage is an error in what the user asked (exit code 2 on the command line).
func usage(format string, a ...any) error {
	return &client.UsageError{Msg: fmt.Sprintf(format, a...)}
}
