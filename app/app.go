// Package app builds a session from what the command line said, once, for every
// front end: the workbench screen (a target, several servers, a recording), --inspect,
// call, replay and open. cmd/mcpscope parses flags into a Session and hands it on;
// each front end takes its options from the Session's methods, so that a setting
// given on the command line reaches every front end that has it, with any number of
// servers. Three hand-written builders of tui.Options once let a session of several
// servers run without --keep, and --inspect of several servers without --root,
// --sampling or --elicit.
package app

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/history"
	"github.com/mcpscope/mcpscope/internal/spool"
	"github.com/mcpscope/mcpscope/oauth"
	"github.com/mcpscope/mcpscope/record"
	"github.com/mcpscope/mcpscope/target"
	"github.com/mcpscope/mcpscope/tui"
	"github.com/mcpscope/mcpscope/workbench"
)

// Screen is what the command line says about the workbench's screen. Every field
// has a field of the same name in tui.Options, which TUI fills
// (TestScreenReachesEveryWorkbench keeps the two in step).
type Screen struct {
	// Theme is auto, dark, light or high-contrast (CheckTheme).
	Theme string
	// NoConfirm calls destructive tools without asking.
	NoConfirm bool
	// Keep is the memory of Traffic, Logs and Stderr together, for every server of
	// the session (0: spool.DefaultKeep).
	Keep int64
	// IdleDisconnect stops a server idle this long (0: never).
	IdleDisconnect time.Duration
	// Sampling, SamplingReply and Roots are the workbench's answers to what servers
	// ask (a dialog per sampling request, a fixed reply, the declared roots).
	Sampling      bool
	SamplingReply string
	Roots         []client.Root
	// History keeps calls across sessions; nil keeps them for this session only.
	History *history.Options
	// Configured are the config files' servers (":add NAME"); Refused the entries
	// that cannot be used, each with why.
	Configured []workbench.Spec
	Refused    []tui.Refused
}

// Session is one session's settings, built once from the command line.
type Session struct {
	// Client is the client options of every server (framing, environment, HTTP
	// headers, timeouts, OAuth of a one-shot command, the answers to what servers
	// ask): the same for one server or several. Its Tap is set per use.
	Client client.Options
	// OAuth gives the workbench each HTTP server's login options (nil: --no-oauth).
	OAuth func(target.Target) oauth.Options
	// Trace, when set, gets every wire event of a one-shot command's session
	// (--trace), added to each tap ClientFor hands out; never the screen's, which it
	// would write over.
	Trace wire.Listener
	// Screen is the workbench's.
	Screen Screen
}

// ClientFor is the client options of one server of a one-shot command: its config
// entry's timeout over --timeout (the workbench applies it on its own), tap as the
// tap of its wire events.
func (s *Session) ClientFor(spec workbench.Spec, tap *wire.Tap) client.Options {
	o := s.Client
	o.Tap = tap
	if s.Trace != nil {
		tap.Listen(s.Trace)
	}
	if spec.Timeout > 0 {
		o.Timeout, o.TimeoutCap = spec.Timeout, 0
		o.TimeoutFrom = "the timeout of " + spec.Name + "'s config entry"
	}
	return o
}

// Connect opens a one-shot command's session on one server.
func (s *Session) Connect(ctx context.Context, spec workbench.Spec, tap *wire.Tap) (*client.Session, error) {
	return client.Connect(ctx, spec.Target, s.ClientFor(spec, tap))
}

// Workbench is a one-shot command's workbench (--inspect, replay of several
// servers), with every server's wire events to onWire. The caller adds the servers.
func (s *Session) Workbench(onWire func(server string, e wire.Event)) *workbench.Workbench {
	o := s.Client
	o.Tap = &wire.Tap{} // a trace names each server: the caller's onWire does it
	return workbench.New(workbench.Options{Client: o, OnWire: onWire})
}

// TUI is the screen's options for servers: every setting of the session, whichever
// front end opens the screen (a target, several servers, a recording). tap gets the
// wire events of a session of one server (its recording); the caller adds what
// belongs to its kind of session (Target and Name, Browse, the recording).
func (s *Session) TUI(servers []workbench.Spec, tap *wire.Tap) tui.Options {
	f := s.Screen
	c := s.Client
	c.Tap = tap // no Trace: it would write over the screen
	return tui.Options{
		Servers: servers, Client: c, OAuth: s.OAuth,
		Theme: f.Theme, NoConfirm: f.NoConfirm, Keep: f.Keep, IdleDisconnect: f.IdleDisconnect,
		Sampling: f.Sampling, SamplingReply: f.SamplingReply, Roots: f.Roots,
		History: f.History, Configured: f.Configured, Refused: f.Refused,
	}
}

// CheckTheme refuses a theme the workbench does not have.
func CheckTheme(theme string) error {
	switch theme {
	case "auto", "dark", "light", "high-contrast":
		return nil
	}
	return &target.UsageError{Msg: fmt.Sprintf("--theme %q: use auto, dark, light or high-contrast", theme)}
}

// DefaultKeep is --keep's default.
const DefaultKeep = spool.DefaultKeep

// History is the lasting history's options: red (the session's redaction: -e,
// --env-file, --redact) with every secret of the servers added (a config entry's
// environment and tokens) and secrets (--bearer, credential -H), so that none
// reaches the file.
func History(red *record.Redactor, secrets []string, servers []workbench.Spec) *history.Options {
	for _, s := range secrets {
		red.AddSecret(s)
	}
	for _, s := range servers {
		for _, sec := range s.Target.Secrets {
			red.AddSecret(sec)
		}
		_, envSecrets := record.EnvSecrets(s.Target.Env)
		for _, sec := range envSecrets {
			red.AddSecret(sec)
		}
	}
	return &history.Options{Redact: red}
}
