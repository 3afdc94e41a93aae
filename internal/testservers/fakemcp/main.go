// Command fakemcp is an MCP server for tests that misbehaves on purpose. Each scenario,
// named by the first argument, adds exactly one quirk to an otherwise ordinary
// JSON-RPC 2.0 server over stdio, so that a client's handling of that quirk can be
// tested against a real process. It uses only the standard library: an SDK would
// refuse to produce most of these faults.
//
// Usage:
//
//	fakemcp SCENARIO
//
// If FAKEMCP_PIDFILE is set, the process appends its PID and "\n" to that file before
// anything else, so a test can later check that every process it caused is gone.
package main

import (
	"github.com/mcpscope/mcpscope/internal/pollread"

	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"sort"
	"syscall"
	"time"
)

// scenarios lists every known scenario with a one-line description for the usage text.
var scenarios = map[string]string{
	"ndjson":          "the normal server (newline-delimited JSON)",
	"content-length":  "LSP-style Content-Length framing only, 2024-11-05 tools",
	"banner":          "prints a non-JSON banner line on stdout first",
	"midnoise":        "prints a non-JSON debug line before every tools/call reply",
	"discover-silent": "never answers server/discover",
	"stubborn":        "ignores stdin EOF and SIGTERM",
	"stubborn-slow":   "the progress scenario (a 'slow' tool), ignoring stdin EOF and SIGTERM",
	"wrapper":         "runs 'fakemcp stubborn' as a child sharing its stdio, like npx",
	"no-jsonrpc":      "responses lack the \"jsonrpc\" member",
	"string-id":       "numeric request ids come back as strings",
	"exit-at-once":    "prints a fatal error and exits 1 without reading",
	"exit-verbose":    "prints the cause first, then 60 lines of a stack trace, to stderr, and exits 1",
	"garbage":         "prints non-JSON lines every 20 ms and never answers",
	"huge-line":       "the first tools/list is preceded by a 500 MiB non-JSON line",
	"empty-lines":     "an empty line precedes every message",
	"slow-start":      "sleeps 1.5 s before reading stdin",
	"progress":        "adds a 'slow' tool that reports progress and can be cancelled",
	"unknown-content": "echo returns an unknown content type",
	"bad-tool-types":  "tools/list has a numeric tool name and a mistyped annotation",
	"images":          "adds a 'pic' tool returning image, audio and resource blocks",
	"paged":           "tools/list is paginated in pages of 2, 2 and 1",
	"deep":            "tools/call results hold a million nested '['",
	"endless":         "tools/list pages of 1 MiB, each with a new nextCursor, forever",
	"deaf":            "at the first tools/call, stops reading stdin for good; ignores SIGTERM",
	"crash-list":      "answers the handshake, then dies at tools/list (exit 3) with a two-line panic on stderr",
	"crash-call":      "answers two tools/call requests, then dies at the third (exit 139), saying so on stderr",
	"hang":            "never reads stdin and ignores SIGTERM",
	"stray":           "a response to id 424242 (never sent) before every tools/call reply, and the reply twice",
	"mute":            "reads every request and never answers; exits at stdin EOF",
	"flood":           "after initialize, sends notifications/message about every millisecond, forever",
	"log-burst":       "before answering initialize, sends $FAKEMCP_LOGS (default 1000) notifications/message as fast as it can, the last one saying \"log burst done\"",
	"hostile":         "names, descriptions, results, errors, logs, stdout noise and stderr carry terminal escapes",
	"leaky":           "echo answers, and stderr repeats, the message in base64, hex, URL escaping and upper case; startup prints the argv and $API_TOKEN so",
	"bad-names":       "echo returns blocks whose types are paths (../../../escaped, /tmp/…)",
	"hostile-exit":    "prints terminal escapes on stderr and exits 1 without reading",
}

func main() {
	if len(os.Args) < 2 {
		usage()
		os.Exit(2)
	}
	scenario := os.Args[1]
	if _, ok := scenarios[scenario]; !ok {
		fmt.Fprintf(os.Stderr, "fakemcp: unknown scenario %q\n", scenario)
		usage()
		os.Exit(2)
	}
	// The PID is recorded before the "starting" line so that a test which has seen
	// that line can rely on the PID being in the file already.
	if err := recordPID(); err != nil {
		fmt.Fprintf(os.Stderr, "fakemcp: %v\n", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "fakemcp: %s starting\n", scenario)
	if scenario == "leaky" {
		leakStartup()
	}
	if scenario == "hostile" {
		fmt.Fprintln(os.Stderr, "fakemcp: "+hostilePayload)
	}

	switch scenario {
	case "exit-at-once":
		fmt.Fprintln(os.Stderr, "fakemcp: fatal: missing configuration FOO_TOKEN")
		os.Exit(1)
	case "exit-verbose":
		fmt.Fprintln(os.Stderr, "fakemcp: the cause: cannot open database notes.db")
		for i := 1; i <= 60; i++ {
			fmt.Fprintf(os.Stderr, "    at frame %d (trace.go:%d)\n", i, i)
		}
		fmt.Fprintln(os.Stderr, "fakemcp: giving up")
		os.Exit(1)
	case "hostile-exit":
		fmt.Fprintln(os.Stderr, "fakemcp: fatal: "+hostilePayload)
		os.Exit(1)
	case "wrapper":
		os.Exit(runWrapper())
	case "garbage":
		runGarbage()
	case "mute":
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	case "stubborn", "stubborn-slow", "deaf":
		signal.Ignore(syscall.SIGTERM)
	case "hang":
		signal.Ignore(syscall.SIGTERM)
		for {
			time.Sleep(time.Hour)
		}
	case "slow-start":
		time.Sleep(1500 * time.Millisecond)
	}

	serveAs := scenario
	if scenario == "stubborn-slow" {
		serveAs = "progress"
	}
	// Wait for requests in the runtime's poller, as the host does: a blocking read(2)
	// can freeze a Go server for 60 s (package pollread), a slow test for no reason.
	in, undo := pollread.Stdin(os.Stdin)
	defer undo()
	s := newServer(serveAs, in, os.Stdout)
	if err := s.serve(); err != nil {
		fmt.Fprintf(os.Stderr, "fakemcp: %v\n", err)
		os.Exit(1)
	}
	if scenario == "stubborn" || scenario == "stubborn-slow" {
		// A sleeping loop rather than select{}: with no other goroutine alive, the
		// runtime would report select{} as a deadlock and crash.
		for {
			time.Sleep(time.Hour)
		}
	}
	os.Exit(0)
}

func usage() {
	names := make([]string, 0, len(scenarios))
	for name := range scenarios {
		names = append(names, name)
	}
	sort.Strings(names)
	fmt.Fprintln(os.Stderr, "usage: fakemcp SCENARIO\n\nscenarios:")
	for _, name := range names {
		fmt.Fprintf(os.Stderr, "  %-16s %s\n", name, scenarios[name])
	}
}

// recordPID appends this process's PID to $FAKEMCP_PIDFILE when it is set. O_APPEND
// keeps the lines of a wrapper and its child from overwriting each other.
func recordPID() error {
	path := os.Getenv("FAKEMCP_PIDFILE")
	if path == "" {
		return nil
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("pidfile: %w", err)
	}
	if _, err := fmt.Fprintf(f, "%d\n", os.Getpid()); err != nil {
		f.Close()
		return fmt.Errorf("pidfile: %w", err)
	}
	return f.Close()
}

// runWrapper reproduces an npx-style launcher: the real server is a grandchild of the
// client that shares the wrapper's stdio and process group, and neither process goes
// away on SIGTERM. It returns the exit code to use.
func runWrapper() int {
	// Ignored before the child starts; the child inherits SIG_IGN, which is what a
	// stubborn server does anyway.
	signal.Ignore(syscall.SIGTERM)
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(os.Stderr, "fakemcp: wrapper: %v\n", err)
		return 1
	}
	cmd := exec.Command(exe, "stubborn")
	// *os.File values are handed to the child as the same file descriptors (no copying
	// goroutines), so the client talks to the grandchild directly. cmd.Env is nil, so
	// FAKEMCP_PIDFILE is inherited and the child records its PID too.
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "fakemcp: wrapper: %v\n", err)
		return 1
	}
	err = cmd.Wait()
	var exitErr *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exitErr):
		// Like a shell: a child killed by signal N yields 128+N.
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return exitErr.ExitCode()
	default:
		fmt.Fprintf(os.Stderr, "fakemcp: wrapper: %v\n", err)
		return 1
	}
}

// runGarbage floods stdout with non-JSON lines and never answers; it returns only by
// exiting the process when stdin reaches EOF, so a client can still stop it politely.
func runGarbage() {
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}()
	for n := 1; ; n++ {
		if _, err := fmt.Fprintf(os.Stdout, "garbage line %d\n", n); err != nil {
			os.Exit(1)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
