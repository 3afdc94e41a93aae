package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// command is one entry of the command table. Everything the CLI says about a command
// comes from here: dispatch (run), hoisting of global flags before it, "did you mean",
// the top-level command list, CMD --help and help CMD, and the shell completions. Its
// flags are the flag set its run func builds: run(["--help"]) returns it in a
// *helpError before anything starts (flagSet), so a flag a command does not honour is
// one it does not register, and help and completion never list it.
type command struct {
	name    string
	args    string   // the argument syntax after the name: "A B [flags]"
	more    []string // further usage forms, each after "mcpscope "
	summary string   // one line, for the command list
	long    string   // what CMD --help says about it
	exits   string   // the exit codes it can return; "" is exitsServer
	run     commandFunc
	subs    []*command
	formats []string // the values of its --format, for help and completion
	// failOn is the words of its --fail-on, for completion (each command its own:
	// diff's breaking|any|none, lint's severities, check's statuses; bench's takes
	// conditions, no word).
	failOn []string
	// complete is what its positional arguments complete to: "server" (configured
	// names), "file", "command" (the table), "shell", or "" (nothing).
	complete string

	parent *command
}

const (
	exitsServer = `Exit codes: 0 ok, 1 connection or server failure, 2 usage error,
3 JSON-RPC error from the server, 4 the tool returned isError: true.`
	exitsPlain = `Exit codes: 0 ok, 1 failure, 2 usage error.`
)

// serverArgs is how a one-server command names its server.
const serverArgs = "[-- CMD ARGS... | URL | NAME]"

// commandFunc runs one subcommand.
type commandFunc func(ctx context.Context, args []string, stdout, stderr io.Writer) error

// rootCommand is the command without a command word: the workbench on a target.
var rootCommand *command

// commandTable is every command. It is built in init: the run funcs refer back to it
// (help, completion, auth), which a package-level initializer may not.
var commandTable []*command

func init() {
	rootCommand = &command{
		name: "", args: "[flags] " + serverArgs, run: runTUI, formats: []string{"table", "json", "markdown"},
		complete: "server",
		long: `Opens the workbench (a terminal UI) on a server: a command after --, a URL, or a NAME
from a client config (mcpscope servers lists them). With none, the bundled host.`,
	}
	oneServer := func(name, args, summary, long string, run commandFunc) *command {
		return &command{name: name, args: args + " [flags] " + serverArgs, summary: summary, long: long, run: run,
			formats: []string{"text", "json"}, complete: "server"}
	}
	prefix := "\n\nThe server is named as for call: -- CMD ARGS..., a URL, a config NAME, --server,\nor a SERVER/ prefix."
	commandTable = []*command{
		{name: "inspect", args: "[flags] " + serverArgs, summary: "list a server's tools, resources and prompts (also: --inspect)",
			more:    []string{"--inspect [flags] " + serverArgs, "inspect NAME NAME... | --server NAME=TARGET... | --all"},
			long:    "Lists a server's tools with their annotations and parameters, and its resources, templates,\nprompts and skills (table, json, markdown). Several servers: names, --server or --all.",
			run:     runInspect,
			formats: []string{"table", "json", "markdown"}, complete: "server"},
		{name: "call", args: "TOOL [--args JSON | key=value ...] [flags] " + serverArgs, summary: "call one tool and print its result",
			more:    []string{"call SERVER/TOOL (or mcp__SERVER__TOOL) [key=value ...] [--server NAME=TARGET...]"},
			long:    "Calls one tool and prints its result (text or json). key=value is coerced by the tool's\ninput schema; key:=JSON takes JSON as written. A missing required argument, a value of\nthe wrong type or anything else the input schema forbids in the arguments (--args too)\nis refused before anything is sent (exit 2) unless --no-validate.",
			run:     runCall,
			formats: []string{"text", "json"}, complete: "server"},
		{name: "diff", args: "A B [flags]", summary: "compare two tool surfaces and classify every change (for CI)",
			more: []string{"diff A [flags] -- CMD ARGS..."},
			long: `Compares two tool surfaces and classifies every change (breaking, risky, safe).
A and B: a saved "mcpscope --inspect --format json" file, a recording (FILE, or
FILE#SERVER for a recording of several), a URL, a configured server NAME, host (the
bundled host), or, for B only, a command after "--":
  mcpscope diff testdata/tools.json -- ./my-server
Formats: text, json, markdown, junit.`,
			exits: `Exit codes: 0 nothing that --fail-on counts changed, 1 breaking changes (or with
--fail-on any: any change; with budget:+10% or budget:+N: B's definitions over the
budget, in tokens) or a server failed, 2 usage error (including two things without a
tool surface, and a file that holds none).`,
			run:     runDiff,
			formats: []string{"text", "json", "markdown", "junit"}, failOn: diffFailOn, complete: "file"},
		{name: "lint", args: "TARGET|FILE... [flags] [-- CMD ARGS...]", summary: "judge a tool surface: its cost in tokens, what LLM providers reject, what it hides",
			long: `Judges each server's tools, prompts and templates as a model host sees them: what each
definition costs in the model's context (bytes, and tokens in o200k_base: an estimate
for other model families), which providers reject its names or schemas (Gemini, OpenAI
strict mode, Anthropic, Claude Code's mcp__SERVER__TOOL, the MCP naming rules), and what
it hides (invisible characters, instructions to the model, names shadowing another
server's). Every finding names its rule and the documentation it comes from
(--rules lists them). Targets: saved --inspect JSON files, recordings, URLs, configured
NAMEs, host, --server/--all, or a command after --.
  mcpscope lint --profile gemini,openai --budget 4000 -- node server.js`,
			exits: `Exit codes: 0 no finding at --fail-on's level (default error), 1 one or more (or a
server failed), 2 usage error (a named file that holds no tool surface too).`,
			run:     runLint,
			formats: []string{"text", "json", "sarif", "junit"}, failOn: lintFailOn, complete: "file"},
		{name: "pin", args: "accept TARGET|NAME [flags] [-- CMD ARGS...]", summary: "take a server's surface as it is now as its pin (the first connection pins)",
			long: `The first connection to a server (the workbench, --inspect, lint) pins its surface (a
hash of each tool, prompt and template, in $XDG_STATE_HOME/mcpscope/pins), and every
later one reports each definition changed since (lint and --inspect --strict-pins: as
a failure; --no-pins: neither). pin accept takes the surface as it is now.`,
			exits: `Exit codes: 0 pinned, 1 the server failed, 2 usage error.`,
			run:   runPin, complete: "server"},
		{name: "check", args: "TARGET... [flags] [-- CMD ARGS...]", summary: "a server's health in one CI step: reach, speak, hygiene, inputs",
			long: `Checks each server in order, each check pass, warn, fail or skipped with why (a
failure skips the checks that depend on it): reach (DNS, TCP, TLS, the endpoint's
answer; or the process's start, stdout and stderr; the framing and era), speak
(handshake, auth metadata, every list to its end, 2026-07-28's order and caching),
hygiene (a foreign Origin or Host, a wrong Content-Type, mismatched Mcp-Method/Mcp-Name,
an unknown session refused; unknown tools, missing resources and tool failures
reported as the spec says; structured content that honours the output schema) and
inputs (negative cases from each tool's input schema, which a server must refuse
and survive). Only tools marked read-only are called, unless --include TOOL or
--all-tools; --dry-run sends no tools/call and lists what would be sent.
Targets: URLs, configured NAMEs, host, --server/--all, or a command after --.
  mcpscope check --format junit -- node server.js > check.xml`,
			exits: `Exit codes: 0 no check failed (with --fail-on warn: none warned either), 1 one or
more did (a server that cannot be reached fails its reach check), 2 usage error.`,
			run:     runCheck,
			formats: []string{"text", "json", "junit"}, failOn: checkFailOn, complete: "server"},
		{name: "bench", args: "TOOL [key=value ... | --args JSON] [flags] " + serverArgs, summary: "one read-only tool under load: throughput, latency percentiles, errors, CPU, RSS",
			long: `Calls one tool many times through mcpscope's client and reports throughput, latency
p50/p90/p99/max, time to the first progress notification against the total, errors by
kind (isError, JSON-RPC code, timeout, transport), the server's process tree's CPU and
RSS (a server command; an HTTP server with --pid), a latency histogram and a throughput
line. -c N calls in flight (stdio: on one process, or over --processes N; HTTP: N clients),
-n COUNT or --duration D, --rate R for an open loop (latency from the scheduled send
time), --warmup N|D. Only a tool marked readOnlyHint: true, unless --allow-write.
  mcpscope bench echo text=hi -c 8 -n 5000 --fail-on 'p99>200ms,errors>0' -- node server.js`,
			exits: `Exit codes: 0 ok, 1 connection or server failure (a server process that exits
during the run ends it: the report has the calls made before), 2 usage error (a tool
not marked read-only without --allow-write, before any call), 6 a --fail-on condition held.`,
			run:     runBench,
			formats: []string{"text", "json"}, complete: "server"},
		oneServer("resources", "", "list a server's resources (every page of resources/list)",
			"Lists the server's resources: URI, name, MIME type, size and description."+prefix, runResources),
		oneServer("templates", "", "list resource templates and their variables",
			"Lists the server's resource templates (resources/templates/list) with the variables of\neach URI template."+prefix, runTemplates),
		oneServer("prompts", "", "list prompts and their arguments (* required)",
			"Lists the server's prompts (prompts/list) with their arguments; * marks a required one."+prefix, runPrompts),
		oneServer("prompt", "NAME [key=value ...]", "get a prompt (prompts/get): its messages by role",
			"Gets one prompt with the arguments given as key=value and prints its messages by role."+prefix, runPrompt),
		oneServer("read", "URI [--subscribe [--updates N]]", "read a resource (resources/read); --subscribe re-reads on each update",
			"Reads one resource and prints its contents (text, or a description of a blob). With\n--subscribe it subscribes and prints the resource again on each update."+prefix, runRead),
		oneServer("complete", "--prompt NAME | --template URI-TEMPLATE ARG[=PREFIX] [earlier=value ...]", "ask for completions of a prompt argument or template variable",
			"Asks the server for completions (completion/complete) of one prompt argument or\nresource template variable, after PREFIX, with the earlier arguments as context."+prefix, runComplete),
		oneServer("skills", "", "list skills (skills/list, SEP-2640); reads no skill file",
			"Lists the skills the server offers (skills/list, SEP-2640). No skill file is read."+prefix, runSkills),
		func() *command {
			c := oneServer("skill", "skill://NAME/SKILL.md | NAME", "load a skill: SKILL.md and its files, each verified",
				"Loads one skill: its SKILL.md and the files it lists, each checked against its digest,\nsize and frontmatter before anything of it is printed. A skill listed as \"dynamic\" has\nits files found with resources/directory/read (when the server declares directoryRead)\nand read unchecked: no listing gives their digests."+prefix, runSkill)
			c.exits = exitsServer[:len(exitsServer)-1] + ",\n5 a skill file failed its digest, size or frontmatter check."
			return c
		}(),
		oneServer("tasks", "[--get ID | --cancel ID]", "list tasks (tasks/list), or show or cancel one",
			"Lists the server's tasks (tasks/list, 2025-11-25), or shows (--get) or cancels (--cancel)\none. On 2026-07-28, which has no tasks/list, it says how to follow a task instead."+prefix, runTasks),
		oneServer("ping", "", "a round trip: ping, or server/discover on 2026-07-28",
			"Makes one round trip and says which method answered and how fast: ping, or\nserver/discover on 2026-07-28 (which has no ping)."+prefix, runPing),
		{name: "replay", args: "FILE [--ignore PATH] [--update] [flags] [-- CMD ARGS... | -- URL]", summary: "replay a recording against a live server (golden test)",
			long: `Replays a recording against a live server as a golden test: starts the recorded
command or reaches the recorded URL (or the one given), negotiates the era afresh,
sends every recorded request that was answered, and compares each response (and the
notifications that came with it) with the recorded one as JSON. Differences are
printed per exchange.

--ignore PATH ignores a JSON pointer in responses and notifications; * matches any key
or index (or part of one), ** any number of levels; a METHOD: or TOOL: prefix limits it
to those exchanges (repeatable), e.g. --ignore now:/result/content/0/text --ignore
"**/timestamp". Always ignored: /id, **/progressToken, subscription ids, _meta members
about time, and list_changed notifications (they race with responses).`,
			exits: `Exit codes: 0 every exchange equal, 1 a difference (or the server failed),
2 usage error.`,
			run: runReplay, formats: []string{"text", "json"}, complete: "file"},
		{name: "serve", args: "FILE [--framing auto|ndjson|content-length]", summary: "serve a recording as a mock server",
			more: []string{"serve FILE --http [ADDR]"},
			long: `Serves a recording as a mock MCP server: each request gets the recorded response of
the best-matching recorded request (same method and params ignoring _meta; then the
same tool, prompt or resource; then recorded order), after the notifications recorded
with it. An unmatched request gets a JSON-RPC error listing the recorded ones.`,
			exits: exitsPlain, run: runServe, complete: "file"},
		{name: "open", args: "[--theme THEME] FILE", summary: "browse a recording in the workbench",
			long:  "Browses a recording in the workbench: its traffic and calls, with the recording served\nas a mock server.",
			exits: exitsPlain, run: runOpen, complete: "file"},
		{name: "export", args: "FILE --format har|otlp|json [-o OUT]", summary: "export a recording as HAR, OTLP JSON spans or JSON exchanges",
			long: `Exports a recording (any version, tapped or not) for other tools: har (HAR 1.2, one entry
per HTTP exchange; over stdio one per JSON-RPC request, on a synthetic stdio:// URL),
otlp (OTLP JSON: one span per request, named and attributed as the OpenTelemetry MCP
conventions say; a request's _meta.traceparent puts its span in that trace, under that
parent), or json (the requests paired with their responses, for scripts). Secrets stay
redacted as the recording has them.`,
			exits: exitsPlain, run: runExport, formats: []string{"har", "otlp", "json"}, complete: "file"},
		{name: "tap", args: "[--name NAME] [--record FILE|DIR] -- CMD ARGS...", summary: "run a server for a host (Claude, Cursor...), recording what the host sends",
			long: `A host runs this in place of a server command: it starts the server (ended with the
tap, even when the host kills it), forwards every byte both ways unchanged (NDJSON or
Content-Length), passes the server's stderr on, and records the session as a recording
whose client is the host: replay it against a new build, serve it as a mock, open it.
The recording goes to --record, or to a dated file in $XDG_STATE_HOME/mcpscope/taps.
In a host's config: "command": "mcpscope", "args": ["tap", "--", "node", "server.js"].
Whatever fails in the recording, the forwarding goes on (said once on stderr).

tap --listen ADDR URL does the same for a remote server: a reverse proxy on loopback
(ADDR; 127.0.0.1:0 picks a free port) forwards every request and response unchanged,
streams as they arrive (Streamable HTTP in both eras; legacy HTTP+SSE, its endpoint
event rewritten to the tap; 401/403 with their WWW-Authenticate as sent); Authorization
and cookies go to the server and are recorded as [redacted]. Point the host at the URL
it prints on stderr; interrupt to stop.
  mcpscope tap --listen 127.0.0.1:0 https://example.com/mcp`,
			exits: `Exit codes: the server's exit code (128+N when signal N ended it), 1 the server could
not be started (--listen: could not listen), 2 usage error (--listen: an ADDR that is
not loopback, a --record that cannot be created); --listen exits 0 when interrupted.`,
			run: runTap, complete: "server",
			more: []string{"tap --listen ADDR [--name NAME] [--record FILE|DIR] URL", "tap wrap|unwrap NAME [flags]"},
			subs: []*command{
				{name: "wrap", args: "NAME [--client claude-desktop|claude-code|cursor|vscode] [--config FILE] [--yes] [--record DIR] [--listen ADDR]",
					summary: "run a configured server through mcpscope tap (rewrites that one entry)",
					long: `Rewrites the one entry NAME of a host's config file so that the host runs it through
mcpscope tap (a stdio entry: command is this mcpscope, args "tap --name NAME -- CMD
ARGS...", everything else kept), or, for an HTTP entry, points its url at a tap proxy on
loopback (mcpscope tap --listen ADDR URL, which it prints). It shows the change as a diff
and asks; without a terminal it refuses unless --yes. It keeps the file as it was beside
it (FILE.mcpscope-backup-STAMP, same mode), writes atomically, refuses when the file
changed meanwhile, and changes nothing when the entry is already wrapped.`,
					run: runTapWrap, complete: "server"},
				{name: "unwrap", args: "NAME [--client claude-desktop|claude-code|cursor|vscode] [--config FILE] [--yes]",
					summary: "put a wrapped entry back as it was",
					long: `Puts the entry NAME back as it was before tap wrap: byte for byte from the backup wrap
kept when one matches (the rest of the file stays as it is now), else from the command
line the wrapped entry keeps after "--".`,
					run: runTapUnwrap, complete: "server"},
			}},
		{name: "taps", args: "[--format table|json]", summary: "list the live and finished taps",
			long:  "Lists the taps (mcpscope tap): live ones with their pid, finished ones with the recording\nthey left. A tap whose process died without closing is listed as crashed.",
			exits: exitsPlain, run: runTaps, formats: []string{"table", "json"}},
		{name: "attach", args: "[NAME] [--theme THEME] [--keep SIZE]", summary: "watch a tap's session live in the workbench (read-only)",
			long: `Opens a tap's session in the workbench, read-only: the host's requests and the server's
answers in Traffic, its calls in History and Result, Logs and Stderr, live as they come.
Without NAME: the only live tap, or a list to choose from. A finished tap opens as its
recording. e on a tapped call in History opens the tool's form with the host's
arguments on mcpscope's own session to the same server (asked first; started only then).`,
			exits: exitsPlain, run: runAttach},
		{name: "registry", args: "search|show [flags]", summary: "find servers in the MCP Registry and see what each would run",
			long: `Reads the MCP Registry (the official one, https://registry.modelcontextprotocol.io,
or a sub-registry: --registry URL or $MCPSCOPE_REGISTRY). registry search QUERY lists
the servers whose name or description holds QUERY (only active ones unless --all):
name, version, status, package types, remotes. registry show NAME says what each
package or remote would run and what it asks for. Run one in any command with
--server NAME=registry:NAME[@VERSION][#TYPE] (npm: npx -y ID@VERSION, pypi: uvx
ID==VERSION, oci: docker run -i --rm IMAGE, nuget: dnx, a remote: its URL); its
required environment variables come from the environment (refused, with their names,
when unset), arguments from --input LABEL=VALUE, a remote's headers from -H. A server.json file is checked against its
published schema before it runs: mcpscope --inspect ./server.json, and
mcpscope diff server.json -- CMD compares what it declares with what the server says.`,
			exits: exitsPlain, run: runRegistry,
			subs: []*command{
				{name: "search", args: "[QUERY] [--all] [--registry URL] [--format table|json]", summary: "list the registry's servers matching QUERY (active only unless --all)",
					long:    "Lists the latest version of each server whose name or description holds QUERY (the\nregistry's own search; none: every server): name, version, status, package types and\nremotes. Only active servers unless --all (deprecated and deleted too).",
					run:     runRegistrySearch,
					formats: []string{"table", "json"}},
				{name: "show", args: "NAME[@VERSION] [--registry URL] [--format text|json]", summary: "what each package or remote of a server would run, and what it asks for",
					long:    "Shows one server of the registry (its latest version, or @VERSION): for each package\nand remote, the command line or URL mcpscope would run and the inputs it asks for\n(environment variables, headers, arguments). It runs nothing and reads no value of the\nenvironment.",
					run:     runRegistryShow,
					formats: []string{"text", "json"}},
			}},
		{name: "host", args: "[--tools FILE [--demo] | --conformance] [--faults] [--framing ndjson|content-length]", summary: "the bundled tool host, an MCP server",
			more:  []string{"host --http [ADDR] [--allow-remote] [--tools FILE [--demo] | --conformance] [--faults]"},
			long:  "Serves mcpscope's bundled MCP server: demo tools, resources and prompts, or the tools\nof a tool file (watched: an edit reloads it). --conformance adds the fixtures the official\nconformance suite's server scenarios call (conformance server --url http://ADDR/mcp).\n--faults serves deliberate protocol faults as fixtures for clients: bad_output\n(structuredContent that breaks its own outputSchema). Without it the host is spec-clean.",
			exits: exitsPlain, run: runHost},
		{name: "servers", args: "[--config FILE] [--format table|json]", summary: "list the servers configured for Claude, Cursor, VS Code",
			long:  "Lists the servers configured for Claude, Cursor and VS Code (it runs none of them).",
			exits: exitsPlain, run: runServers, formats: []string{"table", "json"}},
		{name: "auth", args: "login|status|logout|token [URL|NAME]", summary: "OAuth logins: log in, show, log out, print a token",
			long:  "Manages the OAuth logins mcpscope stores for HTTP servers (mode 0600, in\n$XDG_CONFIG_HOME/mcpscope/oauth).",
			exits: exitsPlain, run: runAuth,
			subs: []*command{
				{name: "login", args: "URL|NAME [-v] [flags]", summary: "log in to a server (-v: every step)",
					long: "Runs the OAuth login for a server (its URL, or a config NAME with a url) and stores\nthe tokens; -v prints every step.\n" +
						"Grants (--oauth-grant): authorization-code (a browser), client-credentials (--client-id with\n" +
						"--client-secret or --client-key), jwt-bearer (the workload's JWT: --assertion-file), and id-jag:\n" +
						"enterprise-managed authorization (cross-app access), where your ID token from the enterprise\n" +
						"identity provider (--id-token-file or --id-token-env) is exchanged at its token endpoint\n" +
						"(--idp-token-endpoint, as --idp-client-id) for an ID-JAG (RFC 8693), which the client\n" +
						"registered with the server's authorization server (--client-id, --client-secret) presents\n" +
						"as a jwt-bearer assertion (RFC 7523). Neither the ID token nor the ID-JAG is ever shown.", run: runAuthSub("login"), complete: "server"},
				{name: "status", args: "[URL|NAME] [--format table|json]", summary: "show the stored logins",
					long: "Shows the stored logins (of one server, or all): issuer, scopes, expiry.", run: runAuthSub("status"),
					formats: []string{"table", "json"}, complete: "server"},
				{name: "logout", args: "URL|NAME | --all", summary: "revoke and remove a server's stored login (--all: every one)",
					long: "Revokes the stored login's tokens at the authorization server's advertised revocation endpoint (RFC 7009; a failure is warned about), removes the login, and forgets the client registered with its issuer unless another login uses it (--all: every login and every registration; the next login registers again).", run: runAuthSub("logout"), complete: "server"},
				{name: "token", args: "URL|NAME", summary: "print a server's access token (refreshed if needed)",
					long: "Prints the access token of a stored login, refreshed if it expired; never logs in.", run: runAuthSub("token"), complete: "server"},
			}},
		{name: "completion", args: "bash|zsh|fish", summary: "print a shell completion script",
			long: `Prints a completion script for the shell: commands, subcommands, each command's flags
and the values of --format, --framing, --transport, --theme and the like.
  bash: source <(mcpscope completion bash)        (in ~/.bashrc)
  zsh:  mcpscope completion zsh > "${fpath[1]}/_mcpscope"
  fish: mcpscope completion fish > ~/.config/fish/completions/mcpscope.fish`,
			exits: exitsPlain, run: runCompletion, complete: "shell"},
		{name: "version", args: "", summary: "print the version, commit and build date",
			long:  "Prints mcpscope's version, the commit it was built from and the build date (also: --version).",
			exits: exitsPlain, run: runVersion},
		{name: "help", args: "[COMMAND [SUBCOMMAND]]", summary: "help on a command (the same as COMMAND --help)",
			long:  "Prints the usage of mcpscope, or of a command: mcpscope help CMD is mcpscope CMD --help.",
			exits: exitsPlain, run: runHelp, complete: "command"},
	}
	for _, c := range commandTable {
		for _, s := range c.subs {
			s.parent = c
			if s.exits == "" {
				s.exits = c.exits
			}
		}
	}
}

// path is the command as typed: "diff", "auth login".
func (c *command) path() string {
	if c.parent != nil {
		return c.parent.path() + " " + c.name
	}
	return c.name
}

// lookup finds a command of the table by name.
func lookup(list []*command, name string) *command {
	for _, c := range list {
		if c.name == name {
			return c
		}
	}
	return nil
}

// resolve finds the command that args start with, descending into subcommands, and
// returns it with the args that follow.
func resolve(args []string) (*command, []string) {
	if len(args) == 0 {
		return nil, args
	}
	c := lookup(commandTable, args[0])
	if c == nil {
		return nil, args
	}
	args = args[1:]
	for len(args) > 0 {
		s := lookup(c.subs, args[0])
		if s == nil {
			break
		}
		c, args = s, args[1:]
	}
	return c, args
}

// flagSet is the command's flag set, as its run func builds it: asked for --help, run
// returns it in a *helpError before it starts, reads or connects anything.
func (c *command) flagSet() *flag.FlagSet {
	// A command with subcommands may take flags of its own too (tap's).
	if c.run == nil {
		return flag.NewFlagSet(c.path(), flag.ContinueOnError)
	}
	var he *helpError
	if err := c.run(context.Background(), []string{"--help"}, io.Discard, io.Discard); errors.As(err, &he) && he.fs != nil {
		return he.fs
	}
	return flag.NewFlagSet(c.path(), flag.ContinueOnError)
}

// names are the names of a list of commands.
func names(list []*command) []string {
	out := make([]string, len(list))
	for i, c := range list {
		out[i] = c.name
	}
	return out
}

// closest is the name within two edits of word (or that word starts, from three
// letters on), or "".
func closest(word string, candidates []string) string {
	w := strings.ToLower(word)
	best, bestD := "", 3
	for _, c := range candidates {
		d := editDistance(w, c)
		if len(w) >= 3 && strings.HasPrefix(c, w) {
			d = min(d, 1)
		}
		if d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// closestCommand is the command of the table closest to word, or "".
func closestCommand(word string) string { return closest(word, names(commandTable)) }

// usageLines are the command's usage forms.
func (c *command) usageLines() []string {
	first := "mcpscope " + c.path()
	if c.args != "" {
		first += " " + c.args
	}
	if c == rootCommand {
		first = "mcpscope " + c.args
	}
	lines := []string{first}
	for _, m := range c.more {
		lines = append(lines, "mcpscope "+m)
	}
	return lines
}

// writeHelp prints a command's usage, description, subcommands, every flag its flag
// set holds and its exit codes: CMD --help and help CMD alike.
func writeHelp(w io.Writer, c *command, fs *flag.FlagSet) {
	for i, l := range c.usageLines() {
		if i == 0 {
			fmt.Fprintln(w, "Usage: "+l)
		} else {
			fmt.Fprintln(w, "       "+l)
		}
	}
	if c.long != "" {
		fmt.Fprintln(w, "\n"+c.long)
	}
	if len(c.subs) > 0 {
		fmt.Fprintln(w, "\nCommands:")
		writeList(w, c.subs)
		fmt.Fprintf(w, "\nEach command's flags: mcpscope %s COMMAND --help.\n", c.path())
	}
	type row struct{ left, usage string }
	var rows []row
	width := 0
	if fs != nil {
		fs.VisitAll(func(f *flag.Flag) {
			if f.Name == "help" || f.Name == "h" {
				return
			}
			kind, usage := flag.UnquoteUsage(f)
			if f.Name == "format" && len(c.formats) > 0 {
				kind, usage = "FORMAT", "output format: "+strings.Join(c.formats, ", ")
			}
			dash := "--"
			if len(f.Name) == 1 {
				dash = "-"
			}
			left := dash + f.Name
			if kind != "" {
				left += " " + strings.ToUpper(kind)
			}
			switch f.DefValue {
			case "", "0", "false", "0s", "[]":
			default:
				usage += " (default " + f.DefValue + ")"
			}
			rows = append(rows, row{left, usage})
			width = max(width, len(left))
		})
	}
	if len(rows) > 0 {
		fmt.Fprintln(w, "\nFlags:")
		for _, r := range rows {
			fmt.Fprintf(w, "  %-*s  %s\n", width, r.left, r.usage)
		}
	}
	exits := c.exits
	if exits == "" {
		exits = exitsServer
	}
	fmt.Fprintln(w, "\n"+exits)
}

// writeList prints commands one a line with their summaries.
func writeList(w io.Writer, list []*command) {
	width := 0
	for _, c := range list {
		width = max(width, len(c.name))
	}
	for _, c := range list {
		fmt.Fprintf(w, "  %-*s  %s\n", width, c.name, c.summary)
	}
}

// commandList is the top-level command list (mcpscope --help; README.md has it too).
func commandList() string {
	var b strings.Builder
	writeList(&b, commandTable)
	return b.String()
}

// runHelp is mcpscope help [CMD [SUB]]: CMD --help, from the same writeHelp.
func runHelp(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("help", flag.ContinueOnError)
	pos, _, err := parse(fs, args, func([]string, string) bool { return false })
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		fmt.Fprint(stdout, topUsage())
		return nil
	}
	c, rest := resolve(pos)
	if c == nil {
		msg := fmt.Sprintf("help: no command %q; the commands: %s", pos[0], strings.Join(names(commandTable), ", "))
		if best := closestCommand(pos[0]); best != "" {
			msg = fmt.Sprintf("help: no command %q, did you mean %s?", pos[0], best)
		}
		return usageErr("%s", msg)
	}
	if len(rest) > 0 {
		return unknownSub(c, rest[0], "help")
	}
	writeHelp(stdout, c, c.flagSet())
	return nil
}

// unknownSub is the error for a word that is none of c's subcommands.
func unknownSub(c *command, word, context string) error {
	subs := names(c.subs)
	if len(subs) == 0 {
		return usageErr("%s: %s has no subcommand %q (see mcpscope %s --help)", context, c.path(), word, c.path())
	}
	hint := ""
	if best := closest(word, subs); best != "" {
		hint = fmt.Sprintf(" (did you mean %s?)", best)
	}
	return usageErr("%s %s: unknown subcommand %q%s; use %s (see mcpscope %s --help)", context, c.path(), word, hint, strings.Join(subs, ", "), c.path())
}

// isHelp reports whether a word asks for help.
func isHelp(a string) bool { return a == "--help" || a == "-help" || a == "-h" }

// topUsage is mcpscope --help.
func topUsage() string {
	var b strings.Builder
	b.WriteString("mcpscope: a workbench for MCP servers\n\nUsage:\n")
	fmt.Fprintf(&b, "  mcpscope %s   the workbench (TUI); no server: the bundled host\n", rootCommand.args)
	b.WriteString("  mcpscope COMMAND [ARGS...] [flags]\n\nCommands:\n")
	b.WriteString(commandList())
	b.WriteString(globalFlagsHelp)
	return b.String()
}

// sortedFlags are the names of a flag set's flags, with their dashes.
func sortedFlags(fs *flag.FlagSet) []string {
	var out []string
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name == "help" || f.Name == "h" {
			return
		}
		dash := "--"
		if len(f.Name) == 1 {
			dash = "-"
		}
		out = append(out, dash+f.Name)
	})
	sort.Strings(out)
	return out
}
