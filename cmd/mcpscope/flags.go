package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/config"
)

// common holds the flags every command that talks to a server takes.
type common struct {
	format         string
	protocol       string
	framing        string
	repair         bool
	env            multiFlag
	envFiles       multiFlag
	grace          time.Duration
	probeTimeout   time.Duration
	connectTimeout time.Duration
	maxFrame       sizeFlag
	trace          bool
	record         string // --record FILE (see record.go)
	recordSet      bool   // --record was given (an empty value or a directory picks a dated name)
	redact         multiFlag

	// remote: HTTP headers and tokens, --transport, --timeout, --config (see remote.go).
	remote remoteFlags
	// naming: --server, --all, --strict (see named.go).
	naming naming
	// oauthF: the OAuth login flags (see auth.go).
	oauthF oauthFlags
	// traceCtx: --traceparent and --tracestate (see traceparent.go).
	traceCtx traceFlags
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

// sizeFlag reads sizes like 512MiB, 1GiB, 300MB or plain bytes.
type sizeFlag int

// String prints the size in the largest binary unit that holds it whole (256MiB), as
// help shows a default and as parseSize reads it back.
func (s *sizeFlag) String() string { return sizeString(int64(*s)) }

// sizeString is n bytes in the largest of GiB, MiB and KiB that divides it, else bytes.
func sizeString(n int64) string {
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.mult && n%u.mult == 0 {
			return strconv.FormatInt(n/u.mult, 10) + u.suffix
		}
	}
	return strconv.FormatInt(n, 10)
}
func (s *sizeFlag) Set(v string) error {
	n, err := parseSize(v)
	if err != nil {
		return err
	}
	*s = sizeFlag(n)
	return nil
}

func parseSize(v string) (int, error) {
	units := []struct {
		suffix string
		mult   int
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"G", 1 << 30}, {"M", 1 << 20}, {"K", 1 << 10}, {"B", 1}}
	s := strings.TrimSpace(v)
	mult := 1
	for _, u := range units {
		if strings.HasSuffix(strings.ToUpper(s), strings.ToUpper(u.suffix)) {
			s, mult = strings.TrimSpace(s[:len(s)-len(u.suffix)]), u.mult
			break
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 {
		return 0, fmt.Errorf("%q is not a size like 512MiB", v)
	}
	return int(f * float64(mult)), nil
}

func (c *common) register(fs *flag.FlagSet, defaultFormat string) {
	fs.StringVar(&c.format, "format", defaultFormat, "output format")
	fs.StringVar(&c.protocol, "protocol", "", "force a protocol version")
	fs.StringVar(&c.framing, "framing", "auto", "stdio framing: auto, ndjson, content-length")
	fs.BoolVar(&c.repair, "repair", false, "repair a missing jsonrpc tag and string-echoed ids")
	fs.Var(&c.env, "e", "K=V for the server's environment (repeatable)")
	fs.Var(&c.env, "env", "K=V for the server's environment (repeatable)")
	fs.Var(&c.envFiles, "env-file", "file of K=V lines for the server's environment")
	fs.DurationVar(&c.grace, "grace", wire.DefaultGrace, "time to exit after stdin closes, and after SIGTERM")
	fs.DurationVar(&c.probeTimeout, "probe-timeout", wire.DefaultProbeTimeout, "silence that counts as no answer to a probe")
	fs.DurationVar(&c.connectTimeout, "connect-timeout", 30*time.Second, "bound on the handshake")
	c.maxFrame = sizeFlag(wire.DefaultMaxFrame)
	fs.Var(&c.maxFrame, "max-frame", "largest message accepted")
	fs.BoolVar(&c.trace, "trace", false, "print every wire event to stderr")
	c.registerRemote(fs)
	c.registerOAuth(fs)
	c.registerNaming(fs)
	registerRecordFlags(fs, c)
	c.traceCtx.register(fs)
}

// parse reads flags and positionals in any order up to "--"; what follows "--" is
// the server command. Without "--", stopAt decides which positional starts it.
func parse(fs *flag.FlagSet, args []string, stopAt func(positionals []string, arg string) bool) (positionals, argv []string, err error) {
	fs.SetOutput(io.Discard)
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, nil, &helpError{fs}
			}
			return nil, nil, usageErr("%s (see %s)", flagError(fs, err), helpCommand(fs))
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		// flag stops at "--" only when it is the next arg; it consumed it then.
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return positionals, rest, nil
		}
		if rest[0] == "--" {
			return positionals, rest[1:], nil
		}
		if stopAt(positionals, rest[0]) {
			argv, err := targetTail(fs, rest)
			return positionals, argv, err
		}
		positionals = append(positionals, rest[0])
		args = rest[1:]
	}
	return positionals, nil, nil
}

// helpCommand is the command that shows a flag set's help.
// flagError words the flag package's error as the user typed the flag: it says
// "-timeout" of a flag everyone writes "--timeout", and names no flag that was
// meant. An unknown flag gets the defined one closest to it.
func flagError(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	dashes := func(name string) string {
		if len(name) > 1 {
			return "--" + name
		}
		return "-" + name
	}
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		var defined []string
		fs.VisitAll(func(f *flag.Flag) { defined = append(defined, f.Name) })
		msg = "unknown flag " + dashes(name)
		if best := closest(name, defined); best != "" && len(name) > 1 {
			msg += "; did you mean " + dashes(best) + "?"
		}
		return msg
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return dashes(name) + " needs a value"
	}
	// invalid value "x" for flag -timeout: parse error; invalid boolean value "x" for -trace: parse error
	before, after, ok := strings.Cut(msg, " for flag -")
	if !ok {
		before, after, ok = strings.Cut(msg, " for -")
	}
	if ok {
		name, reason, _ := strings.Cut(after, ": ")
		if want := flagWants(fs.Lookup(name)); want != "" && (reason == "parse error" || reason == "value out of range") {
			reason = want
		}
		if reason != "" {
			reason = ": " + reason
		}
		return before + " for " + dashes(name) + reason
	}
	return msg
}

// flagWants says what a flag of a basic type takes, for the flag package's bare
// "parse error".
func flagWants(f *flag.Flag) string {
	if f == nil {
		return ""
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return ""
	}
	switch g.Get().(type) {
	case time.Duration:
		return "want a duration such as 30s, 2m or 1h30m"
	case int, int64, uint, uint64:
		return "want a whole number"
	case float64:
		return "want a number"
	case bool:
		return "want true or false"
	}
	return ""
}

func helpCommand(fs *flag.FlagSet) string {
	if fs.Name() == "mcpscope" {
		return "mcpscope --help"
	}
	return "mcpscope " + fs.Name() + " --help"
}

func (c *common) options(tap *wire.Tap, stderr io.Writer) (client.Options, error) {
	framing, ok := wire.ParseFraming(c.framing)
	if !ok {
		return client.Options{}, usageErr("--framing %q: use auto, ndjson or content-length", c.framing)
	}
	var env []string
	for _, f := range c.envFiles {
		kv, err := readEnvFile(f)
		if err != nil {
			return client.Options{}, err
		}
		env = append(env, kv...)
	}
	for _, kv := range c.env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return client.Options{}, usageErr("-e %q: give K=V", kv)
		}
		env = append(env, kv)
	}
	if c.trace {
		tap.Listen(traceListener(stderr))
	}
	opts := client.Options{
		Env: env, Framing: framing, Repair: c.repair, Grace: c.grace,
		ProbeTimeout: c.probeTimeout, MaxFrame: int(c.maxFrame), Protocol: c.protocol,
		ConnectTimeout: c.connectTimeout, Tap: tap,
	}
	if err := c.applyRemote(&opts); err != nil {
		return client.Options{}, err
	}
	if err := c.applyOAuth(&opts, stderr); err != nil {
		return client.Options{}, err
	}
	if err := c.traceCtx.apply(&opts, stderr); err != nil {
		return client.Options{}, err
	}
	return opts, nil
}

// readEnvFile reads --env-file (see config.ReadEnvFile: regular files only, capped).
func readEnvFile(path string) ([]string, error) { return config.ReadEnvFile(path) }

func traceListener(w io.Writer) wire.Listener {
	start := time.Now()
	return func(e wire.Event) {
		t := e.Time.Sub(start).Seconds()
		switch e.Kind {
		case wire.KindMessage, wire.KindNoise:
			fmt.Fprintf(w, "%8.3f %-7s %-4s %s\n", t, e.Kind, e.Dir, clip(string(e.Data[:min(len(e.Data), 401)]), 400, e.Size))
			if e.Kind == wire.KindMessage && e.Text != "" {
				fmt.Fprintf(w, "%8.3f note         %s\n", t, e.Text)
			}
		case wire.KindStderr:
			fmt.Fprintf(w, "%8.3f stderr       %s\n", t, clip(string(e.Data), 400, e.Size))
		case wire.KindHTTP:
			traceHTTP(w, t, e)
		default:
			fmt.Fprintf(w, "%8.3f %-7s      %s\n", t, e.Kind, e.Text)
		}
	}
}

func clip(s string, n, size int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + fmt.Sprintf("… (%s)", wire.HumanBytes(int64(size)))
}
