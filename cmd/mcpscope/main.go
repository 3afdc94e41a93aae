// Command mcpscope is a terminal workbench for MCP servers. This file only parses flags
// and wires packages together.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"sync/atomic"
	"syscall"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/termsafe"
)

// Exit codes, documented in the README.
const (
	exitOK        = 0
	exitServer    = 1 // could not connect, or the server failed
	exitUsage     = 2
	exitRPCError  = 3 // the server answered with a JSON-RPC error
	exitToolError = 4 // the tool returned isError: true
)

func main() {
	stop := cpuProfile(os.Getenv("MCPSCOPE_CPUPROFILE"), os.Stderr)
	code := run(os.Args[1:], os.Stdout, os.Stderr)
	stop()
	heapProfile(os.Getenv("MCPSCOPE_MEMPROFILE"), os.Stderr)
	os.Exit(code)
}

// cpuProfile writes a CPU profile of the whole run to file (MCPSCOPE_CPUPROFILE=FILE,
// for go tool pprof), so that what the binary really does under a load can be
// profiled, not only a benchmark's path; the returned func ends it. An empty file
// name profiles nothing.
func cpuProfile(file string, stderr io.Writer) func() {
	if file == "" {
		return func() {}
	}
	f, err := os.Create(file)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(stderr, "mcpscope: MCPSCOPE_CPUPROFILE: %v\n", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(stderr, "mcpscope: MCPSCOPE_CPUPROFILE: %v\n", err)
		}
	}
}

// heapProfile writes a heap profile at the end of the run to file
// (MCPSCOPE_MEMPROFILE=FILE, for go tool pprof -sample_index=alloc_space): what every
// allocation of the run cost, so that the copies a big result makes show on the path
// the binary runs. An empty file name writes nothing.
func heapProfile(file string, stderr io.Writer) {
	if file == "" {
		return
	}
	f, err := os.Create(file)
	if err == nil {
		err = pprof.Lookup("allocs").WriteTo(f, 0)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "mcpscope: MCPSCOPE_MEMPROFILE: %v\n", err)
	}
}

// globalFlagsHelp ends mcpscope --help: the flags of the workbench that most commands
// share, grouped by what they are for (every command's own list is CMD --help).
const globalFlagsHelp = `
Flags:
  --format table|json|markdown   output format (call: text|json)
  --protocol VERSION             force a protocol version instead of negotiating
  --framing auto|ndjson|content-length   stdio framing (default auto)
  --repair                       accept a missing "jsonrpc" tag and ids echoed as strings
  -e K=V (--env), --env-file FILE   add to the server's environment
  -H 'Name: value' (--header), --bearer TOKEN, --bearer-env VAR   HTTP headers and credentials
  --login, --no-oauth, --client-id ID, --client-secret S, --scope 'a b', --redirect-port N
                                 OAuth: log in on a 401 (see mcpscope auth); --paste reads
                                 the redirected URL from stdin
  --oauth-grant authorization-code|client-credentials|jwt-bearer|id-jag   OAuth grant; with
                                 --client-secret-env VAR, --client-key FILE (--client-key-alg),
                                 --assertion-file FILE | --assertion-env VAR,
                                 --client-metadata-url URL (see mcpscope auth login --help)
  --id-token-file FILE | --id-token-env VAR, --idp-token-endpoint URL, --idp-client-id ID,
  --idp-client-secret S | --idp-client-secret-env VAR
                                 OAuth id-jag (enterprise-managed authorization): your ID token
                                 from the identity provider, exchanged there for an ID-JAG
  --dpop                         OAuth: ask for DPoP-bound tokens (RFC 9449) even where the
                                 server does not say it wants them
  --transport streamable|sse     force an HTTP transport
  --allow-cross-origin           follow a redirect to another origin, without credentials
  --config FILE                  read server NAMEs from this client config
  --server NAME=TARGET           a server of the session (repeatable); TARGET: a URL, a config
                                 name, host (the bundled host), or a command line ('npx -y pkg')
  --all                          every server of the configs found (or of --config FILE)
  --strict                       several servers: exit 1 when any failed (default: when all did)
  --grace DURATION               time the server gets to exit after stdin closes (default 500ms)
  --probe-timeout DURATION       silence that counts as "no answer" to a probe (default 500ms)
  --connect-timeout DURATION     bound on the handshake (default 30s)
  --timeout DURATION             bound on each request, restarted by progress (default 60s)
  --timeout-cap DURATION         bound on each request however much progress it reports (default 10x --timeout)
  --input ID=VALUE               a value for ${input:ID} in a config file (repeatable)
  --max-frame SIZE               largest message accepted (default 256MiB)
  --record FILE|DIR              record the session (JSON Lines); --redact REGEX hides more
  --save-dir DIR                 call: write image, audio and resource blocks here; read: the contents
  --trace                        print every wire event to stderr
  --traceparent VALUE|new        W3C trace context in every request's _meta (new: a fresh trace,
                                 printed to stderr); --tracestate S beside it
  --theme auto|dark|light|high-contrast, --no-confirm   the workbench
  --keep SIZE                    workbench: memory for Traffic, Logs and Stderr (default 64MiB)
  --idle-disconnect DURATION     workbench: stop a server idle this long; the next call reconnects it
  --watch [PATH]                 workbench and --inspect: restart the server when a watched file changes
                                 (plain: the files of its command line; PATH: a file, directory or glob;
                                 --watch-debounce 250ms); the Changes view shows what the edit changed
  --no-history                   workbench: keep no call history across sessions ($XDG_STATE_HOME/mcpscope)
  --no-pins                      workbench and --inspect: neither pin a server's surface on its first
                                 connection nor compare it with its pin ($XDG_STATE_HOME/mcpscope/pins)
  --strict-pins                  --inspect: exit 1 when a surface differs from its pin

Every command's own flags: mcpscope CMD --help, or mcpscope help CMD. Flags may come
before any command (mcpscope --trace call echo text=hi). A word that is neither a
command nor a configured server NAME is refused; to run a program: mcpscope -- PROGRAM.

Answering the server (call, prompt, read, --inspect):
  --elicit accept|decline|cancel, --elicit-answers @FILE   elicitation (a terminal asks)
  --sampling, --sampling-reply TEXT|@FILE   sampling;  --root DIR   roots (repeatable)
  --task                         call: run the tool as a task

Exit codes: 0 ok, 1 connection or server failure, 2 usage error,
3 JSON-RPC error from the server, 4 the tool returned isError: true,
5 a skill file failed its digest, size or frontmatter check.
`

func run(args []string, stdout, stderr io.Writer) int {
	// Every message on stderr may quote a server (errors, its last stderr lines, the
	// trace): none of it drives the terminal.
	stderr = termsafe.NewWriter(stderr)
	// Global flags may come before any command: mcpscope --trace call echo text=hi.
	args = hoistCommand(args)
	switch first(args) {
	case "--version", "-version":
		args = append([]string{"version"}, args[1:]...)
	case "--help", "-help", "-h":
		fmt.Fprint(stdout, topUsage())
		return exitOK
	}
	c, rest := resolve(args)
	var err error
	if c == nil {
		c, rest = rootCommand, args
		// Flags may come before --inspect: mcpscope --format json --inspect -- cmd.
		for i, a := range args {
			if a == "--" {
				break
			}
			if a == "--inspect" || a == "-inspect" {
				c = lookup(commandTable, "inspect")
				rest = append(append([]string{}, args[:i]...), args[i+1:]...)
				break
			}
		}
	}

	// A signal cancels the context: the command stops, closes the session (which ends
	// the server's process group) and exits with 128+signal.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	var got atomic.Int32
	go func() {
		select {
		case s := <-sigs:
			got.Store(int32(s.(syscall.Signal)))
			cancel()
		case <-ctx.Done():
		}
	}()

	if c == rootCommand {
		// Anything else is the workbench on a target (mcpscope -- CMD, mcpscope URL,
		// mcpscope NAME), or on the bundled host when nothing is named; any other bare
		// word is not.
		err = unknownCommand(ctx, rest)
	}
	if err == nil {
		err = c.run(ctx, rest, stdout, stderr)
	}
	var he *helpError
	if errors.As(err, &he) {
		writeHelp(stdout, c, he.fs)
		return exitOK
	}
	code := report(ctx, err, stderr)
	if sig := got.Load(); sig != 0 && err != nil {
		code = 128 + int(sig)
	}
	return code
}

func first(args []string) string {
	if len(args) == 0 {
		return ""
	}
	return args[0]
}

// exitError carries an exit code with an already printed or printable message.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func usageErr(format string, a ...any) error {
	return &exitError{code: exitUsage, msg: fmt.Sprintf(format, a...)}
}

// report prints the one line that says what failed and returns the exit code.
func report(ctx context.Context, err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	var ee *exitError
	var ue *client.UsageError
	var re *client.RPCError
	var se *client.ServerError
	switch {
	case errors.As(err, &ee):
		if ee.msg != "" {
			fmt.Fprintln(stderr, "mcpscope: "+ee.msg)
		}
		return ee.code
	case errors.As(err, &ue):
		fmt.Fprintln(stderr, "mcpscope: "+ue.Msg)
		return exitUsage
	case errors.As(err, &re):
		fmt.Fprintln(stderr, "mcpscope: "+re.Error())
		return exitRPCError
	case errors.As(err, &se):
		fmt.Fprintln(stderr, "mcpscope: "+se.Error())
		return exitServer
	case ctx.Err() != nil:
		fmt.Fprintln(stderr, "mcpscope: interrupted; the server was stopped")
		return 128 + int(syscall.SIGINT)
	case errors.Is(err, context.DeadlineExceeded):
		fmt.Fprintln(stderr, "mcpscope: timed out (--timeout); the call was cancelled on the server")
		return exitServer
	}
	fmt.Fprintln(stderr, "mcpscope: "+err.Error())
	return exitServer
}
