package main

import (
	"bytes"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// runCLI runs the command line in process. Only for what starts nothing: help,
// completion, version (a command that connects would start this test binary as the
// bundled host).
func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// everyCommand is every command a user can type, written out here so that the table
// cannot lose one unnoticed.
var everyCommand = []string{"inspect", "call", "diff", "lint", "pin", "check", "bench", "resources", "templates", "prompts", "prompt", "read",
	"complete", "skills", "skill", "tasks", "ping", "replay", "serve", "open", "export", "tap", "host", "servers", "auth",
	"taps", "attach", "completion", "version", "help"}

// The top-level usage lists every command (it never named diff).
func TestTopLevelHelpListsEveryCommand(t *testing.T) {
	t.Parallel()
	code, out, _ := runCLI(t, "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	_, list, ok := strings.Cut(out, "\nCommands:\n")
	if !ok {
		t.Fatalf("no Commands: section:\n%s", out)
	}
	list, _, _ = strings.Cut(list, "\n\n")
	for _, name := range everyCommand {
		if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(name) + `\b`).MatchString(list) {
			t.Errorf("the command list lacks %s:\n%s", name, list)
		}
	}
}

// diff --help shows its arguments, its formats and its own exit codes.
func TestDiffHelpIsDiffs(t *testing.T) {
	t.Parallel()
	code, out, _ := runCLI(t, "diff", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"Usage: mcpscope diff A B", "text, json, markdown, junit", "1 breaking changes", "--fail-on"} {
		if !strings.Contains(out, want) {
			t.Errorf("diff --help lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "isError") {
		t.Errorf("diff --help has the generic exit codes:\n%s", out)
	}
}

// Each command's help has its argument syntax and a description (resources, prompts,
// ... printed "Usage: mcpscope X [flags]" and nothing else).
func TestEveryCommandHelpDescribesIt(t *testing.T) {
	t.Parallel()
	for _, name := range everyCommand {
		code, out, errOut := runCLI(t, name, "--help")
		if code != 0 {
			t.Errorf("%s --help: exit %d\n%s", name, code, errOut)
			continue
		}
		first, rest, _ := strings.Cut(out, "\n")
		if !strings.HasPrefix(first, "Usage: mcpscope "+name) {
			t.Errorf("%s --help begins %q", name, first)
		}
		if first == "Usage: mcpscope "+name+" [flags]" {
			t.Errorf("%s --help has no argument syntax: %q", name, first)
		}
		// A description paragraph after the usage lines.
		paras := strings.Split(strings.TrimSpace(rest), "\n\n")
		if len(paras) < 1 || strings.HasPrefix(paras[0], "Flags:") || len(strings.TrimSpace(paras[0])) < 20 {
			t.Errorf("%s --help has no description:\n%s", name, out)
		}
		// help CMD is CMD --help.
		hcode, hout, _ := runCLI(t, "help", name)
		if hcode != 0 || hout != out {
			t.Errorf("help %s (exit %d) differs from %s --help:\n%s\n---\n%s", name, hcode, name, hout, out)
		}
	}
}

// auth --help exits 0 and lists the subcommands; each subcommand lists only the flags
// it honours (auth login --help listed --all).
func TestAuthHelp(t *testing.T) {
	t.Parallel()
	code, out, errOut := runCLI(t, "auth", "--help")
	if code != 0 {
		t.Fatalf("auth --help: exit %d %s", code, errOut)
	}
	for _, sub := range []string{"login", "status", "logout", "token"} {
		if !regexp.MustCompile(`(?m)^  ` + sub + `\b`).MatchString(out) {
			t.Errorf("auth --help lacks %s:\n%s", sub, out)
		}
	}
	code, out, _ = runCLI(t, "auth", "login", "--help")
	if code != 0 || strings.Contains(out, "--all") || !strings.Contains(out, "--client-id") || !strings.Contains(out, "Usage: mcpscope auth login URL|NAME") {
		t.Errorf("auth login --help (exit %d):\n%s", code, out)
	}
	code, out, _ = runCLI(t, "auth", "logout", "--help")
	if code != 0 || !strings.Contains(out, "--all") || strings.Contains(out, "--client-id") {
		t.Errorf("auth logout --help (exit %d):\n%s", code, out)
	}
	_, hout, _ := runCLI(t, "help", "auth", "login")
	_, lout, _ := runCLI(t, "auth", "login", "--help")
	if hout != lout {
		t.Errorf("help auth login differs from auth login --help:\n%s\n---\n%s", hout, lout)
	}
}

// Size defaults print in the units the README writes, and read back.
func TestSizeDefaultsPrintInUnits(t *testing.T) {
	t.Parallel()
	_, out, _ := runCLI(t, "--trace", "--help")
	for _, want := range []string{"(default 256MiB)", "(default 64MiB)"} {
		if !strings.Contains(out, want) {
			t.Errorf("workbench help lacks %q:\n%s", want, out)
		}
	}
	for _, n := range []int{1, 1000, 1 << 10, 3 << 20, 256 << 20, 1 << 30, 1500 << 10} {
		s := sizeFlag(n)
		back, err := parseSize(s.String())
		if err != nil || back != n {
			t.Errorf("sizeFlag(%d) prints %q, which reads back as %d (%v)", n, s.String(), back, err)
		}
	}
}

// The bash completion is generated from the command table: bash accepts it, and it
// completes commands and a command's flags.
func TestBashCompletion(t *testing.T) {
	t.Parallel()
	code, script, errOut := runCLI(t, "completion", "bash")
	if code != 0 {
		t.Fatalf("completion bash: exit %d %s", code, errOut)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	file := filepath.Join(t.TempDir(), "mcpscope.bash")
	if err := os.WriteFile(file, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bash, "-n", file).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v\n%s", err, out)
	}
	complete := func(words ...string) []string {
		t.Helper()
		q := make([]string, len(words))
		for i, w := range words {
			q[i] = "'" + w + "'"
		}
		prog := "source " + file + "; COMP_WORDS=(" + strings.Join(q, " ") + "); COMP_CWORD=" + strconv.Itoa(len(words)-1) +
			`; COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}; _mcpscope; printf '%s\n' "${COMPREPLY[@]}"`
		cmd := exec.Command(bash, "--norc", "--noprofile", "-c", prog)
		cmd.Env = append(os.Environ(), "PATH=/nonexistent")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %v\n%s", words, err, out)
		}
		return strings.Fields(string(out))
	}
	has := func(got []string, want string) bool {
		for _, g := range got {
			if g == want {
				return true
			}
		}
		return false
	}
	cases := []struct {
		words []string
		want  string
	}{
		{[]string{"mcpscope", "res"}, "resources"},
		{[]string{"mcpscope", "diff", "--fo"}, "--format"},
		{[]string{"mcpscope", "diff", "--format", "j"}, "junit"},
		{[]string{"mcpscope", "auth", "lo"}, "logout"},
		{[]string{"mcpscope", "auth", "logout", "--a"}, "--all"},
		{[]string{"mcpscope", "--theme", "hi"}, "high-contrast"},
		{[]string{"mcpscope", "--trace", "pi"}, "ping"},
		{[]string{"mcpscope", "completion", "z"}, "zsh"},
	}
	for _, tc := range cases {
		if got := complete(tc.words...); !has(got, tc.want) {
			t.Errorf("%v completes to %v, want %s among them", tc.words, got, tc.want)
		}
	}
	if got := complete("mcpscope", "auth", "login", "--a"); has(got, "--all") {
		t.Errorf("auth login --a completes to %v: login takes no --all", got)
	}
	// --fail-on takes each command's own words: diff's were offered to all of them,
	// and every one of those is refused by lint and check (exit 2).
	for cmd, want := range map[string][]string{"diff": {"breaking", "any", "none"}, "lint": {"error", "warning", "none"}, "check": {"fail", "warn"}} {
		got := complete("mcpscope", cmd, "--fail-on", "")
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s --fail-on <TAB> offers %v, want %v", cmd, got, want)
		}
	}
	if got := complete("mcpscope", "bench", "--fail-on", "b"); has(got, "breaking") {
		t.Errorf("bench --fail-on b<TAB> offers %v: bench takes conditions (p99>200ms), no word", got)
	}
}

// zsh and fish accept their scripts (skipped for a shell that is not installed).
func TestZshAndFishCompletionParse(t *testing.T) {
	t.Parallel()
	for _, sh := range []string{"zsh", "fish"} {
		t.Run(sh, func(t *testing.T) {
			code, script, errOut := runCLI(t, "completion", sh)
			if code != 0 || !strings.Contains(script, "resources") {
				t.Fatalf("completion %s: exit %d %s\n%s", sh, code, errOut, script)
			}
			path, err := exec.LookPath(sh)
			if err != nil {
				t.Skipf("%s is not installed", sh)
			}
			file := filepath.Join(t.TempDir(), "mcpscope."+sh)
			if err := os.WriteFile(file, []byte(script), 0o600); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(path, "-n", file).CombinedOutput(); err != nil {
				t.Fatalf("%s -n: %v\n%s", sh, err, out)
			}
		})
	}
}

// version names the commit (short, +dirty) and its date from the binary's VCS stamp,
// and says "commit unknown" without one.
func TestVersionLine(t *testing.T) {
	t.Parallel()
	stamp := func(kv ...string) *debug.BuildInfo {
		info := &debug.BuildInfo{}
		for i := 0; i < len(kv); i += 2 {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return info
	}
	cases := []struct {
		info *debug.BuildInfo
		want string
	}{
		{nil, "mcpscope 1.2.3 (commit unknown)"},
		{stamp("-compiler", "gc"), "mcpscope 1.2.3 (commit unknown)"},
		{stamp("vcs.revision", "0123456789abcdef0123", "vcs.time", "2026-01-02T03:04:05Z", "vcs.modified", "false"),
			"mcpscope 1.2.3 (commit 0123456789ab, built 2026-01-02T03:04:05Z)"},
		{stamp("vcs.revision", "0123456789abcdef0123", "vcs.modified", "true"), "mcpscope 1.2.3 (commit 0123456789ab+dirty)"},
	}
	for _, tc := range cases {
		if got := versionLine("1.2.3", tc.info); got != tc.want {
			t.Errorf("versionLine = %q, want %q", got, tc.want)
		}
	}
}

// README.md's command list is mcpscope --help's, and both are the table: every command
// in one is in the other.
func TestREADMECommandListIsTheTable(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(readme), "<!-- commands -->\n```text\n")
	if !ok {
		t.Fatal("README.md has no <!-- commands --> block")
	}
	block, _, _ = strings.Cut(block, "```\n<!-- /commands -->")
	if block != commandList() {
		t.Errorf("README.md's command list:\n%s\nmcpscope --help's:\n%s", block, commandList())
	}
	_, out, _ := runCLI(t, "--help")
	if !strings.Contains(out, "\nCommands:\n"+commandList()+"\n") {
		t.Errorf("mcpscope --help does not list the table's commands:\n%s", out)
	}
	for _, c := range commandTable {
		if !strings.Contains(block, "  "+c.name+" ") {
			t.Errorf("README.md's list lacks %s", c.name)
		}
	}
	for _, name := range everyCommand {
		if lookup(commandTable, name) == nil {
			t.Errorf("the table lacks %s", name)
		}
	}
}

// Walking the table: every command and subcommand's --help exits 0, names it and has
// a summary, and help CMD prints the same.
func TestEveryTableCommandHasHelp(t *testing.T) {
	t.Parallel()
	var walk func(c *command)
	walk = func(c *command) {
		path := strings.Fields(c.path())
		code, out, errOut := runCLI(t, append(path, "--help")...)
		if code != 0 || !strings.HasPrefix(out, "Usage: mcpscope "+c.path()) || c.summary == "" {
			t.Errorf("%s --help: exit %d, summary %q\n%s%s", c.path(), code, c.summary, out, errOut)
		}
		hcode, hout, _ := runCLI(t, append([]string{"help"}, path...)...)
		if hcode != 0 || hout != out {
			t.Errorf("help %s differs from %s --help:\n%s\n---\n%s", c.path(), c.path(), hout, out)
		}
		for _, s := range c.subs {
			walk(s)
		}
	}
	for _, c := range commandTable {
		walk(c)
	}
}

// The fish script completes as fish runs it: commands, a command's own flags, and
// auth's subcommands with only the flags each honours.
func TestFishCompletion(t *testing.T) {
	t.Parallel()
	fish, err := exec.LookPath("fish")
	if err != nil {
		t.Skip("fish is not installed (.ci/run installs it)")
	}
	code, script, errOut := runCLI(t, "completion", "fish")
	if code != 0 {
		t.Fatalf("completion fish: exit %d %s", code, errOut)
	}
	file := filepath.Join(t.TempDir(), "mcpscope.fish")
	if err := os.WriteFile(file, []byte(script), 0o600); err != nil {
		t.Fatal(err)
	}
	complete := func(line string) string {
		t.Helper()
		cmd := exec.Command(fish, "--no-config", "-c", "source "+file+"; complete -C '"+line+"'")
		cmd.Env = append(os.Environ(), "PATH=/usr/bin:/bin") // no mcpscope on PATH: no server lookup
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("fish complete -C %q: %v\n%s", line, err, out)
		}
		return string(out)
	}
	if got := complete("mcpscope res"); !strings.Contains(got, "resources\t") {
		t.Errorf("mcpscope res<TAB> offers:\n%s", got)
	}
	if got := complete("mcpscope diff --fo"); !strings.Contains(got, "--format") {
		t.Errorf("mcpscope diff --fo<TAB> offers:\n%s", got)
	}
	if got := complete("mcpscope auth "); !strings.Contains(got, "logout\t") || !strings.Contains(got, "login\t") {
		t.Errorf("mcpscope auth <TAB> offers:\n%s", got)
	}
	if got := complete("mcpscope auth login --a"); strings.Contains(got, "--all") {
		t.Errorf("auth login does not take --all, yet it is offered:\n%s", got)
	}
	if got := complete("mcpscope lint --fail-on "); !strings.Contains(got, "warning") || strings.Contains(got, "breaking") {
		t.Errorf("mcpscope lint --fail-on <TAB> offers:\n%s", got)
	}
}

// A flag's placeholder (the back-quoted word of its usage) reads in its sentence:
// tap's --record had been "... taps): FILE|DIR", the placeholder stuck after the text.
func TestFlagPlaceholdersReadInTheirSentence(t *testing.T) {
	t.Parallel()
	var walk func([]*command)
	walk = func(list []*command) {
		for _, c := range list {
			c.flagSet().VisitAll(func(f *flag.Flag) {
				if kind, usage := flag.UnquoteUsage(f); kind != "" && strings.HasSuffix(usage, ": "+kind) {
					t.Errorf("mcpscope %s --%s: its help ends with its placeholder: %q", c.path(), f.Name, usage)
				}
			})
			walk(c.subs)
		}
	}
	walk(commandTable)
}

// The grouped Flags section of mcpscope --help is written by hand (grouped by purpose),
// so this keeps it honest: every flag it names is one the workbench or some command
// takes, and every flag of the workbench is named there.
func TestTopLevelFlagsAreRealFlags(t *testing.T) {
	t.Parallel()
	known := map[string]bool{}
	for _, f := range sortedFlags(workbenchFlags()) {
		known[f] = true
	}
	var walk func([]*command)
	walk = func(list []*command) {
		for _, c := range list {
			for _, f := range sortedFlags(c.flagSet()) {
				known[f] = true
			}
			walk(c.subs)
		}
	}
	walk(commandTable)
	named := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?:^|[\s,(])(--?[a-zA-Z][a-zA-Z0-9-]*)`).FindAllStringSubmatch(globalFlagsHelp, -1) {
		named[m[1]] = true
	}
	delete(named, "--help") // "CMD --help" in the prose
	delete(named, "-y")     // 'npx -y pkg', an example of a command line
	for f := range named {
		if !known[f] {
			t.Errorf("mcpscope --help names %s, which no command takes", f)
		}
	}
	for _, f := range sortedFlags(workbenchFlags()) {
		if !named[f] {
			t.Errorf("the workbench takes %s, which mcpscope --help does not name", f)
		}
	}
}
