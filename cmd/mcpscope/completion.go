package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/mcpscope/mcpscope/client"
)

// flagValues are the values of the flags that take one of a few words, for completion
// (--format and --fail-on are per command: command.formats, command.failOn).
var flagValues = map[string][]string{
	"framing":     {"auto", "ndjson", "content-length"},
	"transport":   {"streamable", "sse"},
	"theme":       {"auto", "dark", "light", "high-contrast"},
	"elicit":      {"accept", "decline", "cancel"},
	"oauth-grant": {"authorization-code", "client-credentials", "jwt-bearer", "id-jag"},
}

// complEntry is what completion knows of one command, from the table and its flag set.
type complEntry struct {
	c      *command
	path   string          // "" for the workbench, "diff", "auth login"
	flags  []*flag.Flag    // every flag it registers
	takes  map[string]bool // the flags that take a value
	values map[string][]string
}

func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// complEntries walks the table: the workbench, then every command and subcommand.
func complEntries() []complEntry {
	var out []complEntry
	var add func(c *command)
	add = func(c *command) {
		e := complEntry{c: c, path: c.path(), takes: map[string]bool{}, values: map[string][]string{}}
		fs := c.flagSet()
		if c == rootCommand {
			fs.Bool("inspect", false, "list the server's tools instead of opening the workbench")
			fs.Bool("version", false, "print the version")
		}
		fs.VisitAll(func(f *flag.Flag) {
			if f.Name == "help" || f.Name == "h" {
				return
			}
			e.flags = append(e.flags, f)
			if isBool(f) {
				return
			}
			e.takes[f.Name] = true
			if f.Name == "format" && len(c.formats) > 0 {
				e.values[f.Name] = c.formats
			} else if f.Name == "fail-on" {
				if len(c.failOn) > 0 {
					e.values[f.Name] = c.failOn
				}
			} else if v, ok := flagValues[f.Name]; ok {
				e.values[f.Name] = v
			}
		})
		out = append(out, e)
		for _, s := range c.subs {
			add(s)
		}
	}
	add(rootCommand)
	for _, c := range commandTable {
		add(c)
	}
	return out
}

func dashName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// positionals are the words a command's positional argument completes to, as a shell
// word list; "" when it completes to files or to nothing known.
func (e complEntry) positionals(servers string) string {
	if len(e.c.subs) > 0 {
		return strings.Join(names(e.c.subs), " ")
	}
	switch e.c.complete {
	case "command":
		return strings.Join(names(commandTable), " ")
	case "shell":
		return "bash zsh fish"
	case "server":
		if e.c == rootCommand {
			return strings.Join(names(commandTable), " ") + " " + servers
		}
		return servers
	}
	return ""
}

// shellDialect is what differs between the bash and zsh scripts; their logic is one.
type shellDialect struct {
	header, footer string
	cur, prev      string // the current and previous word
	loop           string // the for header over the words before the current one
	word           string // the word at index i
	offer          string // offer the words in $opts
	files          string // offer file names
}

var bashDialect = shellDialect{
	header: "# bash completion for mcpscope, generated from its command table by `mcpscope completion bash`.\n" +
		"# Load it with: source <(mcpscope completion bash)\n",
	footer: "complete -o default -F _mcpscope mcpscope\n",
	cur:    `${COMP_WORDS[COMP_CWORD]}`, prev: `${COMP_WORDS[COMP_CWORD-1]}`,
	loop:  `for ((i = 1; i < COMP_CWORD; i++))`,
	word:  `${COMP_WORDS[i]}`,
	offer: `COMPREPLY=($(compgen -W "$opts" -- "$cur"))`,
	files: `COMPREPLY=($(compgen -f -- "$cur"))`,
}

var zshDialect = shellDialect{
	header: "#compdef mcpscope\n# zsh completion for mcpscope, generated from its command table by `mcpscope completion zsh`.\n" +
		"# Install it as _mcpscope in a directory of $fpath.\n",
	footer: "if [ \"$funcstack[1]\" = \"_mcpscope\" ]; then\n    _mcpscope \"$@\"\nelse\n    compdef _mcpscope mcpscope\nfi\n",
	cur:    `${words[CURRENT]}`, prev: `${words[CURRENT-1]}`,
	loop:  `for ((i = 2; i < CURRENT; i++))`,
	word:  `${words[i]}`,
	offer: `compadd -- ${=opts}`,
	files: `_files`,
}

// posixScript is the bash or zsh completion script.
func posixScript(d shellDialect) string {
	entries := complEntries()
	var b strings.Builder
	b.WriteString(d.header)
	b.WriteString(`
# The configured server names, when mcpscope is on $PATH (servers runs none of them).
_mcpscope_servers() {
    command -v mcpscope >/dev/null 2>&1 || return 0
    mcpscope servers --format json 2>/dev/null | sed -n 's/^      "name": "\([^"]*\)",$/\1/p'
}

_mcpscope() {
    local cur prev cmd="" i w opts=""
`)
	fmt.Fprintf(&b, "    cur=\"%s\"\n    prev=\"%s\"\n", d.cur, d.prev)
	b.WriteString("    # The command typed so far (global flags may come first); after --, a program.\n")
	fmt.Fprintf(&b, "    %s; do\n        w=\"%s\"\n", d.loop, d.word)
	fmt.Fprintf(&b, "        if [[ $w == -- ]]; then\n            %s\n            return 0\n        fi\n", d.files)
	b.WriteString("        case \"$cmd/$w\" in\n")
	var steps []string
	for _, e := range entries[1:] {
		parent := ""
		if e.c.parent != nil {
			parent = e.c.parent.path()
		}
		steps = append(steps, shellQuote(parent+"/"+e.c.name))
	}
	fmt.Fprintf(&b, "            %s) cmd=\"${cmd:+$cmd }$w\" ;;\n        esac\n    done\n", strings.Join(steps, "|"))

	// A flag's value.
	b.WriteString("    case \"$cmd/$prev\" in\n")
	fileFlags := map[string]bool{}
	for _, e := range entries {
		keys := make([]string, 0, len(e.values))
		for k := range e.values {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(&b, "        %s) opts=%s ;;\n", shellQuote(e.path+"/"+dashName(k)), shellQuote(strings.Join(e.values[k], " ")))
		}
		for k := range e.takes {
			if _, ok := e.values[k]; !ok {
				fileFlags[dashName(k)] = true
			}
		}
	}
	var ff []string
	for k := range fileFlags {
		ff = append(ff, "*/"+k)
	}
	sort.Strings(ff)
	fmt.Fprintf(&b, "        %s)\n            %s\n            return 0 ;;\n    esac\n", strings.Join(ff, "|"), d.files)
	fmt.Fprintf(&b, "    if [[ -n $opts ]]; then\n        %s\n        return 0\n    fi\n", d.offer)

	// Flags.
	b.WriteString("    if [[ $cur == -* ]]; then\n        case \"$cmd\" in\n")
	for _, e := range entries {
		fl := []string{"--help"}
		for _, f := range e.flags {
			fl = append(fl, dashName(f.Name))
		}
		sort.Strings(fl)
		fmt.Fprintf(&b, "            %s) opts=%s ;;\n", shellQuote(e.path), shellQuote(strings.Join(fl, " ")))
	}
	fmt.Fprintf(&b, "        esac\n        %s\n        return 0\n    fi\n", d.offer)

	// Positional arguments.
	b.WriteString("    case \"$cmd\" in\n")
	for _, e := range entries {
		switch {
		case e.c.complete == "file" && len(e.c.subs) == 0:
			fmt.Fprintf(&b, "        %s)\n            %s\n            return 0 ;;\n", shellQuote(e.path), d.files)
		case e.positionals("") != "" || e.c.complete == "server":
			fmt.Fprintf(&b, "        %s) opts=\"%s\" ;;\n", shellQuote(e.path), e.positionals("$(_mcpscope_servers)"))
		}
	}
	fmt.Fprintf(&b, "    esac\n    %s\n}\n\n", d.offer)
	b.WriteString(d.footer)
	return b.String()
}

// shellQuote quotes a word for sh (case patterns and assignments alike).
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// fishQuote quotes a word for fish.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// fishScript is the fish completion script: complete lines, each under the command
// path typed so far (__mcpscope_is PATH; "root" before any command).
func fishScript() string {
	entries := complEntries()
	var b strings.Builder
	b.WriteString("# fish completion for mcpscope, generated from its command table by `mcpscope completion fish`.\n")
	b.WriteString("# Install it as ~/.config/fish/completions/mcpscope.fish\n\n")
	var steps []string
	for _, e := range entries[1:] {
		parent := ""
		if e.c.parent != nil {
			parent = e.c.parent.path()
		}
		steps = append(steps, fishQuote(parent+"/"+e.c.name))
	}
	fmt.Fprintf(&b, `function __mcpscope_cmd
    set -l cmd ''
    for w in (commandline -opc)[2..-1]
        if test "$w" = '--'
            echo -- '--'
            return
        end
        switch "$cmd/$w"
            case %s
                set cmd (string trim -- "$cmd $w")
        end
    end
    if test -z "$cmd"
        echo root
    else
        echo -- $cmd
    end
end

function __mcpscope_is
    test (__mcpscope_cmd) = "$argv[1]"
end

function __mcpscope_servers
    command -q mcpscope; or return 0
    mcpscope servers --format json 2>/dev/null | string replace -r -f '^      "name": "([^"]*)",$' '$1'
end

complete -c mcpscope -f
`, strings.Join(steps, " "))
	for _, e := range entries {
		path := e.path
		if path == "" {
			path = "root"
		}
		cond := "-n " + fishQuote("__mcpscope_is "+shellQuote(path))
		for _, f := range e.flags {
			opt := "-l " + f.Name
			if len(f.Name) == 1 {
				opt = "-s " + f.Name
			}
			line := "complete -c mcpscope " + cond + " " + opt
			switch {
			case len(e.values[f.Name]) > 0:
				line += " -x -a " + fishQuote(strings.Join(e.values[f.Name], " "))
			case e.takes[f.Name]:
				line += " -r -F"
			}
			_, usage := flag.UnquoteUsage(f)
			if u, _, _ := strings.Cut(usage, ";"); u != "" {
				line += " -d " + fishQuote(u)
			}
			b.WriteString(line + "\n")
		}
		list := e.c.subs
		if e.c == rootCommand || e.c.complete == "command" {
			list = commandTable
		}
		for _, s := range list {
			fmt.Fprintf(&b, "complete -c mcpscope %s -a %s -d %s\n", cond, fishQuote(s.name), fishQuote(s.summary))
		}
		switch {
		case len(e.c.subs) > 0:
		case e.c.complete == "file":
			fmt.Fprintf(&b, "complete -c mcpscope %s -F\n", cond)
		case e.c.complete == "server":
			fmt.Fprintf(&b, "complete -c mcpscope %s -a '(__mcpscope_servers)'\n", cond)
		case e.c.complete == "shell":
			fmt.Fprintf(&b, "complete -c mcpscope %s -a 'bash zsh fish'\n", cond)
		}
	}
	return b.String()
}

// runCompletion is mcpscope completion bash|zsh|fish.
func runCompletion(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("completion", flag.ContinueOnError)
	pos, _, err := parse(fs, args, func([]string, string) bool { return false })
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErr("completion: give one shell: mcpscope completion bash|zsh|fish")
	}
	switch pos[0] {
	case "bash":
		fmt.Fprint(stdout, posixScript(bashDialect))
	case "zsh":
		fmt.Fprint(stdout, posixScript(zshDialect))
	case "fish":
		fmt.Fprint(stdout, fishScript())
	default:
		return usageErr("completion: %q is no shell mcpscope completes for; use bash, zsh or fish", pos[0])
	}
	return nil
}

// runVersion is mcpscope version (and --version).
func runVersion(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	pos, _, err := parse(fs, args, func([]string, string) bool { return false })
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErr("version takes no arguments, got %q", pos[0])
	}
	info, _ := debug.ReadBuildInfo()
	fmt.Fprintln(stdout, versionLine(client.Version, info))
	return nil
}

// versionLine names the version, the commit the binary was built from (short, +dirty
// when the tree had changes) and that commit's date, from the VCS stamp Go writes
// into the binary; a build without one (go build -buildvcs=false, a module download)
// says "commit unknown".
func versionLine(version string, info *debug.BuildInfo) string {
	var rev, date string
	dirty := false
	if info != nil {
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				date = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	if rev == "" {
		return "mcpscope " + version + " (commit unknown)"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "+dirty"
	}
	out := "mcpscope " + version + " (commit " + rev
	if date != "" {
		out += ", built " + date
	}
	return out + ")"
}
