// Package wrap rewrites one server entry of a host's MCP config file (Claude Desktop,
// Claude Code, Cursor, VS Code) so that the host runs it through `mcpscope tap`, and
// puts it back. It is the only code of mcpscope that writes another program's file,
// so it changes as little as it can:
//
//   - only the named entry, and inside it only the members it must change (a stdio
//     entry's command and args, an HTTP entry's url): every other byte of the file,
//     comments, order and formatting included, stays as it was;
//   - the new file is checked by reading it back with package config's parser (the
//     one `mcpscope servers` uses) before anything is written;
//   - a byte-exact backup is written beside the file first, then the new file is
//     written to a temporary file in the same directory and renamed over it (same
//     mode), after checking that nobody wrote the file since it was read.
//
// A wrapped stdio entry keeps its original command line after "--" in its args, so
// it can always be unwrapped. Unwrap restores the entry's exact bytes from the newest
// backup whose entry wraps to what the file holds now; without one it rebuilds the
// command and args from the wrapped args.
package wrap

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/config"
	"github.com/mcpscope/mcpscope/internal/readfile"
)

// Clients are the values of --client, each the hosts' names config gives its files.
var Clients = []string{"claude-desktop", "claude-code", "cursor", "vscode"}

// clientNames are the hosts' names, for a question about a file named with --config.
var clientNames = map[string]string{"claude-desktop": "Claude Desktop", "claude-code": "Claude Code", "cursor": "Cursor", "vscode": "VS Code"}

// ClientOf is the --client value of a config location's client ("Claude Desktop",
// "VS Code (workspace)", …), or "".
func ClientOf(locClient string) string {
	switch {
	case strings.HasPrefix(locClient, "Claude Desktop"):
		return "claude-desktop"
	case strings.HasPrefix(locClient, "Claude Code"):
		return "claude-code"
	case strings.HasPrefix(locClient, "Cursor"):
		return "cursor"
	case strings.HasPrefix(locClient, "VS Code"):
		return "vscode"
	}
	return ""
}

// UsageError is a refusal the user can fix by asking differently (exit 2).
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usage(format string, a ...any) error { return &UsageError{Msg: fmt.Sprintf(format, a...)} }

// Find is the one config file that holds the entry name: file when given (its client
// is the one named, or guessed from where it is), else among the usual places of the
// client named (every client's when ""). Several files holding the name is a
// refusal that lists them: wrap changes one entry of one file.
func Find(name, client, file string) (config.Location, error) {
	if client != "" && !slices.Contains(Clients, client) {
		return config.Location{}, usage("--client %q: use %s", client, strings.Join(Clients, ", "))
	}
	if file != "" {
		loc := config.Location{Path: file, Client: clientNames[client]}
		for _, l := range config.DefaultLocations() {
			if sameFile(l.Path, file) && (client == "" || ClientOf(l.Client) == client) {
				loc.Client = l.Client
			}
		}
		return loc, nil
	}
	var found, looked []config.Location
	for _, l := range config.DefaultLocations() {
		if client != "" && ClientOf(l.Client) != client {
			continue
		}
		looked = append(looked, l)
		data, err := readfile.Read(l.Path, readfile.MaxConfig)
		if err != nil {
			continue
		}
		if spans, err := config.Locate(data, name); err == nil && len(spans) > 0 {
			found = append(found, l)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		var paths []string
		for _, l := range looked {
			paths = append(paths, config.TildePath(l.Path))
		}
		return config.Location{}, usage("no server %q in the config files looked at (%s); name the file with --config FILE (mcpscope servers lists what is configured)", name, strings.Join(paths, ", "))
	}
	var list []string
	for _, l := range found {
		list = append(list, l.Client+": "+config.TildePath(l.Path))
	}
	return config.Location{}, usage("server %q is in %d config files (%s); name one with --client or --config FILE", name, len(found), strings.Join(list, "; "))
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// Options say what a wrapped entry runs.
type Options struct {
	Self   string // the absolute path of the mcpscope the host will run
	Name   string // the entry's name (the tap's --name)
	Record string // the tap's --record DIR ("": the state directory)
	// Listen is the loopback address of the tap proxy an HTTP entry is pointed at
	// ("": a free port is picked).
	Listen string
}

// Plan is one change of one entry of one file, ready to be shown and written.
type Plan struct {
	Loc  config.Location
	File string // the file written: Loc.Path with its symlinks resolved
	Name string
	Kind string // "stdio" or "http"
	// Before and After are the whole file; Old and New the entry's value in each.
	Before, After []byte
	Old, New      []byte
	Start         int // where the entry's value starts in both
	// Already says there is nothing to do (wrap of a wrapped entry, unwrap of an
	// entry that is not wrapped); Note says why, or how the entry was restored.
	Already bool
	Note    string
	// Upstream and Listen: an HTTP entry's original URL and the tap proxy's address
	// (the `mcpscope tap --listen` the user must keep running).
	Upstream, Listen string
	mode             os.FileMode
}

// Load reads a config file to change: a regular file within readfile.MaxConfig, with
// its symlinks resolved (a dotfiles repository often links it: the link stays, the
// file it points at is written).
func Load(loc config.Location) (file string, data []byte, mode os.FileMode, err error) {
	file, err = filepath.EvalSymlinks(loc.Path)
	if err != nil {
		return "", nil, 0, err
	}
	data, err = readfile.Read(file, readfile.MaxConfig)
	if err != nil {
		return "", nil, 0, err
	}
	st, err := os.Stat(file)
	if err != nil {
		return "", nil, 0, err
	}
	return file, data, st.Mode().Perm(), nil
}

// entry is the one entry named in data: its span and what config reads of it.
func entry(ctx context.Context, loc config.Location, data []byte, name string) (config.Span, config.Entry, error) {
	spans, err := config.Locate(data, name)
	if err != nil {
		return config.Span{}, config.Entry{}, fmt.Errorf("%s: %v", config.TildePath(loc.Path), err)
	}
	switch len(spans) {
	case 0:
		return config.Span{}, config.Entry{}, usage("%s has no server %q", config.TildePath(loc.Path), name)
	case 1:
	default:
		return config.Span{}, config.Entry{}, usage("%s has %d servers named %q (in %s and %s); edit it by hand", config.TildePath(loc.Path), len(spans), name, spans[0].In, spans[1].In)
	}
	entries, err := config.Parse(ctx, data, loc)
	if err != nil {
		return config.Span{}, config.Entry{}, err
	}
	for _, e := range entries {
		if e.Name == name {
			return spans[0], e, nil
		}
	}
	return config.Span{}, config.Entry{}, usage("%s has no server %q", config.TildePath(loc.Path), name)
}

// PlanWrap plans wrapping the entry named opts.Name of the file read as data.
func PlanWrap(ctx context.Context, loc config.Location, file string, data []byte, mode os.FileMode, opts Options) (*Plan, error) {
	if err := config.CheckName(opts.Name); err != nil {
		return nil, usage("%v", err)
	}
	span, e, err := entry(ctx, loc, data, opts.Name)
	if err != nil {
		return nil, err
	}
	p := &Plan{Loc: loc, File: file, Name: opts.Name, Before: data, Old: data[span.Start:span.End], Start: span.Start, mode: mode}
	if e.Problem != "" && e.Command == "" && e.URL == "" {
		return nil, usage("%s", e.Problem)
	}
	if e.Type == "stdio" {
		p.Kind = "stdio"
		if Wrapped(e) {
			p.Already, p.Note, p.After, p.New = true, fmt.Sprintf("server %q is already wrapped (it runs %s tap); nothing changed", opts.Name, e.Command), data, p.Old
			return p, nil
		}
		p.New, err = wrapStdio(data, span, e, opts)
	} else {
		p.Kind = "http"
		if b := wrappedBy(ctx, loc, file, data, span, opts.Name); b != "" {
			p.Already, p.Note, p.After, p.New = true, fmt.Sprintf("server %q is already wrapped (its url is the tap proxy's, as %s shows); nothing changed", opts.Name, config.TildePath(b)), data, p.Old
			return p, nil
		}
		p.New, p.Upstream, p.Listen, err = wrapHTTP(data, span, e, opts)
	}
	if err != nil {
		return nil, err
	}
	return p.finish(ctx)
}

// Wrapped reports whether a stdio entry already runs through a tap: its command is
// an mcpscope (by its name, or the very binary running now, whatever it is called)
// and its args are "tap … -- CMD …".
func Wrapped(e config.Entry) bool {
	return isMcpscope(e.Command) && len(e.Args) > 0 && e.Args[0] == "tap" && slices.Contains(e.Args, "--")
}

// isMcpscope reports whether command names mcpscope: a file whose name starts so, or
// this process's own executable (wrap writes its absolute path, which a renamed
// binary keeps).
func isMcpscope(command string) bool {
	if strings.HasPrefix(filepath.Base(command), "mcpscope") {
		return true
	}
	self, err := os.Executable()
	if err != nil || !filepath.IsAbs(command) {
		return false
	}
	a, err1 := os.Stat(self)
	b, err2 := os.Stat(command)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// TapArgs are the args of a wrapped stdio entry: the tap, then the original command
// line after "--" (so that unwrap never needs anything else).
func TapArgs(opts Options, command string, args []string) []string {
	out := []string{"tap", "--name", opts.Name}
	if opts.Record != "" {
		out = append(out, "--record", opts.Record)
	}
	out = append(out, "--", command)
	return append(out, args...)
}

// jsonText is v as JSON, without HTML escaping (a path with & stays readable).
func jsonText(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return bytes.TrimRight(b.Bytes(), "\n")
}

// stringArray is a JSON array of strings on one line, as the hosts' examples write
// args: ["a", "b"].
func stringArray(items []string) []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, s := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		b.Write(jsonText(s))
	}
	b.WriteByte(']')
	return b.Bytes()
}

// edit replaces data[start:end] with text.
type edit struct {
	start, end int
	text       []byte
}

// splice applies edits (of disjoint spans) to the entry's value data[span], and
// returns the entry's new value.
func splice(data []byte, span config.Span, edits []edit) []byte {
	sort.Slice(edits, func(i, j int) bool { return edits[i].start > edits[j].start })
	v := append([]byte(nil), data[span.Start:span.End]...)
	for _, e := range edits {
		s, t := e.start-span.Start, e.end-span.Start
		v = append(v[:s], append(append([]byte(nil), e.text...), v[t:]...)...)
	}
	return v
}

func memberSpans(data []byte, span config.Span) (map[string]config.Span, error) {
	ms, err := config.Members(data, span)
	if err != nil {
		return nil, err
	}
	out := map[string]config.Span{}
	for _, m := range ms {
		out[m.Key] = m
	}
	return out, nil
}

func wrapStdio(data []byte, span config.Span, e config.Entry, opts Options) ([]byte, error) {
	if opts.Self == "" || !filepath.IsAbs(opts.Self) {
		return nil, fmt.Errorf("the path of mcpscope %q is not absolute", opts.Self)
	}
	ms, err := memberSpans(data, span)
	if err != nil {
		return nil, err
	}
	cmd, ok := ms["command"]
	if !ok {
		return nil, usage("server %q has no command to wrap", e.Name)
	}
	edits := []edit{{cmd.Start, cmd.End, jsonText(opts.Self)}}
	args := stringArray(TapArgs(opts, e.Command, e.Args))
	if a, ok := ms["args"]; ok {
		edits = append(edits, edit{a.Start, a.End, args})
	} else {
		edits = append(edits, edit{cmd.End, cmd.End, append([]byte(`, "args": `), args...)})
	}
	return splice(data, span, edits), nil
}

// loopback says whether a URL's host is this machine's loopback.
func loopback(host string) bool {
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return host == "localhost" || ip != nil && ip.IsLoopback()
}

func wrapHTTP(data []byte, span config.Span, e config.Entry, opts Options) (newVal []byte, upstream, listen string, err error) {
	if strings.Contains(e.URL, "${") {
		return nil, "", "", usage("server %q: its url %q holds a placeholder, which only the host expands; give the tap proxy the real URL: mcpscope tap --listen 127.0.0.1:PORT URL, and set the entry's url to http://127.0.0.1:PORT/… by hand", e.Name, e.URL)
	}
	u, perr := url.Parse(e.URL)
	if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, "", "", usage("server %q: its url %q is not an http(s) URL", e.Name, e.URL)
	}
	listen = opts.Listen
	if listen == "" {
		if listen, err = freePort(); err != nil {
			return nil, "", "", err
		}
	}
	host, _, serr := net.SplitHostPort(listen)
	if serr != nil || !loopback(host) {
		return nil, "", "", usage("--listen %q: give a loopback address, 127.0.0.1:PORT (the tap proxy binds loopback only)", listen)
	}
	ms, err := memberSpans(data, span)
	if err != nil {
		return nil, "", "", err
	}
	key := "url"
	if _, ok := ms[key]; !ok {
		key = "serverUrl"
	}
	m, ok := ms[key]
	if !ok {
		return nil, "", "", usage("server %q has no url to wrap", e.Name)
	}
	proxied := url.URL{Scheme: "http", Host: listen, Path: u.Path, RawPath: u.RawPath, RawQuery: u.RawQuery}
	return splice(data, span, []edit{{m.Start, m.End, jsonText(proxied.String())}}), e.URL, listen, nil
}

// freePort is a loopback address with a port free now (the proxy binds it later;
// --listen names one when that matters).
func freePort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("no free loopback port for the tap proxy: %v (give --listen 127.0.0.1:PORT)", err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr, nil
}

// finish builds the new file from the entry's new value and checks it: config reads
// it, the entry is the one meant, and every byte outside the entry is unchanged.
func (p *Plan) finish(ctx context.Context) (*Plan, error) {
	end := p.Start + len(p.Old)
	after := make([]byte, 0, len(p.Before)-len(p.Old)+len(p.New))
	after = append(append(append(after, p.Before[:p.Start]...), p.New...), p.Before[end:]...)
	p.After = after
	if _, err := config.Parse(ctx, after, p.Loc); err != nil {
		return nil, fmt.Errorf("the rewritten %s would not read back (%v); nothing written", config.TildePath(p.Loc.Path), err)
	}
	spans, err := config.Locate(after, p.Name)
	if err != nil || len(spans) != 1 || !bytes.Equal(after[spans[0].Start:spans[0].End], p.New) {
		return nil, fmt.Errorf("the rewritten %s does not hold the entry %q where it was; nothing written", config.TildePath(p.Loc.Path), p.Name)
	}
	return p, nil
}

// BackupSuffix starts the name of a backup beside the file: FILE.mcpscope-backup-STAMP.
const BackupSuffix = ".mcpscope-backup-"

// backups are the backups beside file, newest first (the stamp sorts by time).
func backups(file string) []string {
	list, _ := filepath.Glob(globEscape(file) + BackupSuffix + "*")
	sort.Sort(sort.Reverse(sort.StringSlice(list)))
	return list
}

func globEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `*`, `\*`, `?`, `\?`, `[`, `\[`)
	return r.Replace(s)
}

// original finds the entry's bytes before it was wrapped: in the newest backup whose
// entry, wrapped with opts, is what the file holds now. It returns the backup's path
// and the entry's bytes there, or "" when no backup matches.
func original(ctx context.Context, loc config.Location, file string, current []byte, name string, opts func(config.Entry) Options) (string, []byte) {
	for _, b := range backups(file) {
		data, err := readfile.Read(b, readfile.MaxConfig)
		if err != nil {
			continue
		}
		bloc := loc
		bloc.Path = b
		span, e, err := entry(ctx, bloc, data, name)
		if err != nil {
			continue
		}
		o := opts(e)
		var wrapped []byte
		if e.Type == "stdio" {
			wrapped, err = wrapStdio(data, span, e, o)
		} else {
			wrapped, _, _, err = wrapHTTP(data, span, e, o)
		}
		if err == nil && bytes.Equal(wrapped, current) {
			return b, data[span.Start:span.End]
		}
	}
	return "", nil
}

// wrappedBy is the backup that shows an HTTP entry's url is a tap proxy's (wrap
// wrote it), or "".
func wrappedBy(ctx context.Context, loc config.Location, file string, data []byte, span config.Span, name string) string {
	_, e, err := entry(ctx, loc, data, name)
	if err != nil {
		return ""
	}
	u, err := url.Parse(e.URL)
	if err != nil || !loopback(u.Hostname()) {
		return ""
	}
	b, _ := original(ctx, loc, file, data[span.Start:span.End], name, func(config.Entry) Options {
		return Options{Name: name, Listen: u.Host}
	})
	return b
}

// PlanUnwrap plans putting a wrapped entry back as it was.
func PlanUnwrap(ctx context.Context, loc config.Location, file string, data []byte, mode os.FileMode, name string) (*Plan, error) {
	if err := config.CheckName(name); err != nil {
		return nil, usage("%v", err)
	}
	span, e, err := entry(ctx, loc, data, name)
	if err != nil {
		return nil, err
	}
	p := &Plan{Loc: loc, File: file, Name: name, Kind: "stdio", Before: data, Old: data[span.Start:span.End], Start: span.Start, mode: mode}
	if e.Type != "stdio" {
		p.Kind = "http"
		b := wrappedBy(ctx, loc, file, data, span, name)
		if b == "" {
			p.Already, p.Note, p.After, p.New = true, fmt.Sprintf("server %q is not wrapped (no backup beside the file shows its url as wrap wrote it); nothing changed", name), data, p.Old
			return p, nil
		}
		u, _ := url.Parse(e.URL)
		_, p.New = original(ctx, loc, file, p.Old, name, func(config.Entry) Options { return Options{Name: name, Listen: u.Host} })
		p.Note = "restored as it was before wrap (from " + config.TildePath(b) + ")"
		return p.finish(ctx)
	}
	if !Wrapped(e) {
		p.Already, p.Note, p.After, p.New = true, fmt.Sprintf("server %q is not wrapped; nothing changed", name), data, p.Old
		return p, nil
	}
	cur := tapOptions(e)
	if b, orig := original(ctx, loc, file, p.Old, name, func(config.Entry) Options { return cur }); b != "" {
		p.New, p.Note = orig, "restored byte for byte as it was before wrap (from "+config.TildePath(b)+")"
		return p.finish(ctx)
	}
	// No backup holds it (removed, or the entry was edited since): the command line
	// after "--" is the original one.
	i := slices.Index(e.Args, "--")
	if i+1 >= len(e.Args) {
		return nil, fmt.Errorf("server %q runs a tap with no command after \"--\"; edit %s by hand", name, config.TildePath(loc.Path))
	}
	ms, err := memberSpans(data, span)
	if err != nil {
		return nil, err
	}
	cmd, okc := ms["command"]
	args, oka := ms["args"]
	if !okc || !oka {
		return nil, fmt.Errorf("server %q: no command or args to restore; edit %s by hand", name, config.TildePath(loc.Path))
	}
	p.New = splice(data, span, []edit{
		{cmd.Start, cmd.End, jsonText(e.Args[i+1])},
		{args.Start, args.End, stringArray(e.Args[i+2:])},
	})
	p.Note = "restored from the command line the wrapped entry kept (no backup beside the file matched it, so the args are written on one line)"
	return p.finish(ctx)
}

// tapOptions reads the options a wrapped stdio entry was wrapped with.
func tapOptions(e config.Entry) Options {
	o := Options{Self: e.Command}
	for i := 1; i+1 < len(e.Args) && e.Args[i] != "--"; i++ {
		switch e.Args[i] {
		case "--name":
			o.Name = e.Args[i+1]
			i++
		case "--record":
			o.Record = e.Args[i+1]
			i++
		}
	}
	return o
}

// ErrChanged is a file that changed between reading it and writing it.
var ErrChanged = errors.New("changed since it was read")

// Write writes the plan: it checks that the file still holds what was read, writes
// a byte-exact backup beside it (same mode), then the new file to a temporary file
// in the same directory (same mode), renamed over the file. It returns the backup's
// path.
func (p *Plan) Write(now time.Time) (string, error) {
	cur, err := readfile.Read(p.File, readfile.MaxConfig)
	if err != nil {
		return "", err
	}
	if !bytes.Equal(cur, p.Before) {
		return "", fmt.Errorf("%s %w (another program wrote it); nothing written: run the command again", config.TildePath(p.File), ErrChanged)
	}
	backup, err := p.writeBackup(now)
	if err != nil {
		return "", fmt.Errorf("backup of %s: %v; nothing written", config.TildePath(p.File), err)
	}
	dir, base := filepath.Split(p.File)
	tmp, err := os.CreateTemp(dir, "."+base+".mcpscope-*")
	if err != nil {
		return backup, err
	}
	defer os.Remove(tmp.Name()) // after the rename there is nothing there
	if _, err := tmp.Write(p.After); err != nil {
		tmp.Close()
		return backup, err
	}
	if err := tmp.Chmod(p.mode); err != nil {
		tmp.Close()
		return backup, err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return backup, err
	}
	if err := tmp.Close(); err != nil {
		return backup, err
	}
	// The last look before the rename: the window left is the rename's own.
	if cur, err := readfile.Read(p.File, readfile.MaxConfig); err != nil || !bytes.Equal(cur, p.Before) {
		return backup, fmt.Errorf("%s %w (another program wrote it); nothing written: run the command again", config.TildePath(p.File), ErrChanged)
	}
	if err := os.Rename(tmp.Name(), p.File); err != nil {
		return backup, err
	}
	return backup, nil
}

func (p *Plan) writeBackup(now time.Time) (string, error) {
	stamp := now.UTC().Format("20060102T150405.000000000Z")
	for i := 0; ; i++ {
		name := p.File + BackupSuffix + stamp
		if i > 0 {
			name += fmt.Sprintf("-%d", i)
		}
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, p.mode)
		if errors.Is(err, os.ErrExist) && i < 100 {
			continue
		}
		if err != nil {
			return "", err
		}
		_, werr := f.Write(p.Before)
		if werr == nil {
			werr = f.Chmod(p.mode) // the umask may have narrowed it
		}
		if werr == nil {
			werr = f.Sync()
		}
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			os.Remove(name)
			return "", werr
		}
		return name, nil
	}
}

// Diff is the change as a unified diff: the lines of the entry that differ, with
// the entry's unchanged lines and a line on each side as context.
func (p *Plan) Diff() string {
	oldFirst, oldLast := lineRange(p.Before, p.Start, p.Start+len(p.Old))
	newFirst, newLast := lineRange(p.After, p.Start, p.Start+len(p.New))
	ob, nb := lines(p.Before), lines(p.After)
	from, to := max(oldFirst-1, 0), min(oldLast+1, len(ob)-1) // the old lines shown
	oldL, newL := ob[oldFirst:oldLast+1], nb[newFirst:newLast+1]
	head := 0 // lines the entry starts with that did not change
	for head < len(oldL) && head < len(newL) && oldL[head] == newL[head] {
		head++
	}
	tail := 0
	for tail < len(oldL)-head && tail < len(newL)-head && oldL[len(oldL)-1-tail] == newL[len(newL)-1-tail] {
		tail++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", config.TildePath(p.Loc.Path), config.TildePath(p.Loc.Path))
	fmt.Fprintf(&b, "@@ -%d,%d +%d,%d @@\n", from+1, to-from+1, from+1, to-from+1+len(newL)-len(oldL))
	for i := from; i < oldFirst+head; i++ {
		b.WriteString(" " + ob[i] + "\n")
	}
	for _, l := range oldL[head : len(oldL)-tail] {
		b.WriteString("-" + l + "\n")
	}
	for _, l := range newL[head : len(newL)-tail] {
		b.WriteString("+" + l + "\n")
	}
	for i := oldLast + 1 - tail; i <= to; i++ {
		b.WriteString(" " + ob[i] + "\n")
	}
	return b.String()
}

// lineRange is the 0-based lines of data that bytes [start, end) are on.
func lineRange(data []byte, start, end int) (int, int) {
	first := bytes.Count(data[:start], []byte("\n"))
	last := first + bytes.Count(data[start:max(end-1, start)], []byte("\n"))
	return first, last
}

func lines(data []byte) []string {
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}
