package tui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/workbench"
)

// One request to one server, from a command. The workbench owns the sessions; the
// screen only borrows one for as long as a request takes: wb.Session waits for a
// server that is connecting (or wakes an idle one) and hands the session out, and
// the release gives it back, so the workbench knows it is in use and does not put
// it to sleep or close it under the request. The wait is bounded by the context:
// a server that never comes up costs a timeout, not a command that never returns.
// All of it runs in the command, never in Update, and its outcome comes back as a
// message: run's when the session was had, fail's when it was not.

// sessionRun is the work done with a borrowed session; its message is the answer.
type sessionRun func(ctx context.Context, s *client.Session) tea.Msg

// useSession borrows server's session under ctx, runs run with it and releases it
// after; when there is no session (unknown, failed, stopped, not up before ctx
// ends) it answers fail's message. For a command that makes its own context (one
// the user can cancel, or one it measures from); sessionCmd is the usual way.
func useSession(ctx context.Context, wb *workbench.Workbench, server string, run sessionRun, fail func(error) tea.Msg) tea.Msg {
	sess, release, err := wb.Session(ctx, server)
	if err != nil {
		return fail(err)
	}
	defer release()
	return run(ctx, sess)
}

// sessionCmd is a command that runs run with server's session under a context of
// timeout (which bounds the wait for the session too) and answers its message, or
// fail's when there is no session.
func sessionCmd(wb *workbench.Workbench, server string, timeout time.Duration, run sessionRun, fail func(error) tea.Msg) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		return useSession(ctx, wb, server, run, fail)
	}
}
