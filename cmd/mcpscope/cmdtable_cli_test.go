package main_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// Global flags come before any command, not only before the nine words the CLI once
// listed: these ran the workbench ("needs a terminal"), and on a terminal `--trace diff
// a b` started /usr/bin/diff as a server.
func TestGlobalFlagsBeforeAnyCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	saved := filepath.Join(dir, "a.json")
	r := mcpscope(t, nil, "--inspect", "--format", "json")
	expect(t, r, 0, nil, nil)
	writeFile(t, saved, r.stdout)
	expect(t, mcpscope(t, nil, "--format", "json", "diff", saved, saved), 0, []string{`"breaking": 0`}, nil)
	expect(t, mcpscope(t, nil, "--format", "json", "prompts"), 0, []string{`"formatVersion": 1`}, nil)
	expect(t, mcpscope(t, nil, "--protocol", "2025-11-25", "ping"), 0, []string{"pong: ping answered in "}, nil)
	expect(t, mcpscope(t, nil, "--trace", "ping"), 0, []string{"pong: server/discover answered in "}, []string{"server/discover"})

	// A program named diff first on $PATH: --trace diff is the diff command, and that
	// program never runs.
	bin := t.TempDir()
	marker := filepath.Join(dir, "ran")
	testutil.WriteExecutable(t, filepath.Join(bin, "diff"), "#!/bin/sh\ntouch "+marker+"\nexit 0\n")
	env := []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")}
	expect(t, mcpscope(t, env, "--trace", "diff", saved, saved), 0, []string{"no changes"}, nil)
	if _, err := os.Stat(marker); err == nil {
		t.Error("mcpscope --trace diff started the program diff")
	}
}

// Every command's typo gets "did you mean", exit 2 (resorces, difff and pnig got
// nothing, and on a terminal tried to start a program of that name).
func TestTyposOfEveryCommandSuggest(t *testing.T) {
	t.Parallel()
	for word, want := range map[string]string{"resorces": "resources", "difff": "diff", "pnig": "ping", "inpsect": "inspect", "compleet": "complete", "templats": "templates"} {
		expect(t, mcpscope(t, []string{"HOME=" + t.TempDir()}, word), 2, nil,
			[]string{`unknown command "` + word + `" (did you mean ` + want + `?); to run a program: mcpscope -- ` + word})
	}
}

// A bare word that is neither a command nor a configured server is an error, even when
// a program of that name is on $PATH (it was started); after -- it is a program, and a
// configured name, a URL or a path keeps its meaning as a target.
func TestABareWordIsNeverAProgram(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	bin := t.TempDir()
	marker := filepath.Join(home, "ran")
	testutil.WriteExecutable(t, filepath.Join(bin, "hots"), "#!/bin/sh\ntouch "+marker+"\nexit 0\n")
	testutil.WriteExecutable(t, filepath.Join(bin, "zebrafish"), "#!/bin/sh\ntouch "+marker+"\nexit 0\n")
	env := []string{"HOME=" + home, "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")}
	expect(t, mcpscope(t, env, "hots"), 2, nil, []string{`unknown command "hots" (did you mean host?); to run a program: mcpscope -- hots`})
	expect(t, mcpscope(t, env, "--trace", "zebrafish", "--flag"), 2, nil, []string{`unknown command "zebrafish"`, "mcpscope --help", "to run a program: mcpscope -- zebrafish"})
	if _, err := os.Stat(marker); err == nil {
		t.Error("a bare word started the program of that name")
	}
	// After --, a program (here: not a terminal, so the workbench says so).
	for _, args := range [][]string{{"--", "hots"}, {"./server.py"}, {"http://127.0.0.1:9/mcp"}} {
		r := mcpscope(t, env, args...)
		expect(t, r, 2, nil, []string{"needs a terminal"})
	}
	// A configured name is a server, even one spelled like a command's typo.
	cfg := filepath.Join(home, "mcp.json")
	writeFile(t, cfg, `{"mcpServers":{"hots":{"command":"hots"}}}`)
	expect(t, mcpscope(t, env, "--config", cfg, "hots"), 2, nil, []string{"needs a terminal"})
}

// mcpscope version names the commit and build date the binary carries.
func TestVersionNamesTheCommit(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{"version", "--version"} {
		r := mcpscope(t, nil, arg)
		expect(t, r, 0, []string{"mcpscope ", "commit "}, nil)
	}
}

// A bare word that is a flag's name without its dashes (mcpscope record, mcpscope
// subscribe) is pointed at that flag: it was answered "see mcpscope --help", and
// recording is a flag, not a command, which the help's command list does not show.
func TestAFlagTypedAsACommandIsPointedAtTheFlag(t *testing.T) {
	t.Parallel()
	home := []string{"HOME=" + t.TempDir()} // no config of the user's names a server "record"
	expect(t, mcpscope(t, home, "record"), 2, nil, []string{`unknown command "record" (did you mean the flag --record?)`})
	expect(t, mcpscope(t, home, "subscribe"), 2, nil, []string{`unknown command "subscribe" (did you mean the flag --subscribe of mcpscope read?)`})
	expect(t, mcpscope(t, home, "inpsect"), 2, nil, []string{"did you mean inspect?"}) // a command's typo still wins
}

// A bad flag is said as the user typed it (--timeout, not Go's -timeout), an unknown
// one with the defined flag it is closest to, and a value of the wrong kind with the
// kind the flag takes (Go's flag package says only "parse error").
func TestABadFlagIsSaidAsTyped(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--inspect", "--timeot", "3s"}, "mcpscope: unknown flag --timeot; did you mean --timeout? (see mcpscope inspect --help)"},
		{[]string{"--inspect", "--bogus"}, "mcpscope: unknown flag --bogus (see mcpscope inspect --help)"},
		{[]string{"--inspect", "-x"}, "mcpscope: unknown flag -x (see mcpscope inspect --help)"},
		{[]string{"call", "echo", "--args"}, "mcpscope: --args needs a value (see mcpscope call --help)"},
		{[]string{"--inspect", "--timeout", "soon"}, `mcpscope: invalid value "soon" for --timeout: want a duration such as 30s, 2m or 1h30m`},
		{[]string{"--inspect", "--trace=maybe"}, `mcpscope: invalid boolean value "maybe" for --trace: want true or false`},
		{[]string{"lint", "--top=many", "host"}, `mcpscope: invalid value "many" for --top: want a whole number`},
		{[]string{"host", "--htp"}, "mcpscope: unknown flag --htp; did you mean --http? (see mcpscope host --help)"},
		{[]string{"servers", "--fromat", "json"}, "mcpscope: unknown flag --fromat; did you mean --format?"},
		{[]string{"--inspect", "--protocol", "2099-01-01", "--", "true"}, `mcpscope: unknown protocol version "2099-01-01"; mcpscope speaks 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05`},
	}
	for _, c := range cases {
		expect(t, mcpscope(t, nil, c.args...), 2, nil, []string{c.want})
	}
}
