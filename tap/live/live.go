// Package live publishes a running tap's recording on a per-user Unix socket, so that
// the workbench can watch the session as it happens (mcpscope attach), and keeps the
// registry of live and finished taps (mcpscope taps).
//
// The stream is the recording itself: the tap writes its recording through a tee whose
// second half is a Publisher, so a reader gets exactly the recording's lines (header
// first), nothing else, and reads them with package record. Only the cut marker
// (CutLine) is not a recording line.
package live

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/mcpscope/mcpscope/internal/readfile"
	"github.com/mcpscope/mcpscope/internal/statedir"
	"github.com/mcpscope/mcpscope/record"
)

// Info is what the registry knows of a tap: its info file (NAME.json beside NAME.sock).
type Info struct {
	Name    string    `json:"name"`
	PID     int       `json:"pid"`
	Started time.Time `json:"started"`
	// What is tapped: a stdio server's command (redacted as a recording's header is)
	// or an HTTP server's URL.
	Argv []string `json:"argv,omitempty"`
	URL  string   `json:"url,omitempty"`
	// Recording is the file the tap records to; it stays when the tap has finished.
	Recording string `json:"recording,omitempty"`
	Socket    string `json:"socket,omitempty"`
	// Client is the host's clientInfo, once the recording says it.
	Client *record.Peer `json:"client,omitempty"`
	// Finished is when the tap closed (or, for one that crashed, when a listing
	// found its process gone: Crashed).
	Finished *time.Time `json:"finished,omitempty"`
	Crashed  bool       `json:"crashed,omitempty"`
}

// Live reports whether the tap is running (its socket can be attached to).
func (i *Info) Live() bool { return i.Finished == nil }

// Target is what the tap taps, as one line for people.
func (i *Info) Target() string {
	if i.URL != "" {
		return i.URL
	}
	return strings.Join(i.Argv, " ")
}

// Dir is where the taps' sockets and info files are: $XDG_RUNTIME_DIR/mcpscope/taps
// (per user, gone at logout, as a socket should be), else the state directory's
// taps-run.
func Dir() (string, error) {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "mcpscope", "taps"), nil
	}
	return fallbackDir()
}

func fallbackDir() (string, error) {
	return statedir.Path("taps-run", "the live taps' sockets")
}

// otherDir is where a tap of this user publishes when its host started it without
// XDG_RUNTIME_DIR, while this process has it: hosts start servers with an environment
// of their own (the TypeScript SDK's stdio client passes only HOME, LOGNAME, PATH,
// SHELL, TERM and USER), so a tap in Claude's config lands in the state directory's
// taps-run while the shell that runs mcpscope taps looks in the runtime directory.
// "" when there is no other place to look.
func otherDir() string {
	if os.Getenv("XDG_RUNTIME_DIR") == "" {
		return ""
	}
	d, err := fallbackDir()
	if err != nil {
		return ""
	}
	if primary, _ := Dir(); d == primary {
		return ""
	}
	return d
}

// nameOK says whether name may name a tap: it names two files and is typed after
// attach, so 1 to 64 letters, digits, '_', '.' or '-', no separators, no spaces, no
// leading dot or dash. A hand check, not a regexp: the counted repetition of the
// pattern it replaced ({0,63}) made a program whose compiling cost every command
// about 1 ms of start-up.
func nameOK(name string) bool {
	if len(name) == 0 || len(name) > 64 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || i > 0 && (c == '.' || c == '-')
		if !ok {
			return false
		}
	}
	return true
}

// CheckName says why name cannot name a tap ("" when it can).
func CheckName(name string) error {
	if !nameOK(name) {
		return fmt.Errorf("%q cannot name a tap: use up to 64 letters, digits, '.', '_' or '-', not starting with '.' or '-'", name)
	}
	return nil
}

// maxSocketPath is what a Unix socket's path may hold on Linux (sun_path, 108 bytes
// with its NUL).
const maxSocketPath = 107

// ensureDir makes dir (0700) and checks it is ours: a directory owned by this user
// that no one else may enter. One that is not is refused, never chmod-ed: someone
// else made it, and a socket in it could be read or replaced by them.
func ensureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("cannot make the taps' directory: %v", err)
	}
	return checkOurs(dir, true)
}

// checkOurs refuses path when it is not this user's, or is open to others, or is not
// the kind expected (a directory, else a socket).
func checkOurs(path string, dir bool) error {
	st, err := os.Lstat(path)
	if err != nil {
		return err
	}
	want, kind := fs.ModeDir, "a directory"
	if !dir {
		want, kind = fs.ModeSocket, "a socket"
	}
	if st.Mode().Type() != want {
		return fmt.Errorf("%s is %s, not %s: mcpscope will not use it for its taps; remove it", path, kindOf(st.Mode()), kind)
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok && int(sys.Uid) != os.Getuid() {
		return fmt.Errorf("%s belongs to user %d, not to you (%d): mcpscope will not use it for its taps; remove it, or set XDG_RUNTIME_DIR to a directory of yours", path, sys.Uid, os.Getuid())
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("%s is mode %04o, open to other users: mcpscope keeps its taps only where you alone can read them (chmod %o it, or remove it)", path, perm, map[bool]int{true: 700, false: 600}[dir])
	}
	return nil
}

// maxInfo caps an info file's read: it is a few hundred bytes.
const maxInfo = 1 << 20

func readInfo(path string) (Info, error) {
	var i Info
	b, err := readfile.Read(path, maxInfo)
	if err != nil {
		return i, err
	}
	if err := json.Unmarshal(b, &i); err != nil {
		return i, fmt.Errorf("%s: not a tap's info: %v", path, err)
	}
	return i, nil
}

// writeInfo replaces the info file whole (a rename), so that a listing never reads
// half of one.
func writeInfo(path string, i *Info) error {
	b, err := json.MarshalIndent(i, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// alive reports whether a process of that pid runs (EPERM: it does, as someone else).
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// keepFinished is how many finished taps' info files a new tap leaves: the listing
// stays short; their recordings are not touched.
const keepFinished = 50

// List returns every tap the registry knows, live and finished, oldest first. A tap
// whose process is gone without closing (killed, crashed) is marked finished and
// crashed, and its stale socket removed.
//
// It lists the other place a tap may have published too (otherDir), so that a tap
// started by a host with another environment than this process's is found. That
// place is only read when it is this user's alone (checkOurs); else it is left out
// without a word, since this process did not choose it.
func List() ([]Info, error) {
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	all, err := list(dir)
	if err != nil {
		return nil, err
	}
	if other := otherDir(); other != "" {
		if more, err := list(other); err == nil && len(more) > 0 {
			all = append(all, more...)
			sort.SliceStable(all, func(a, b int) bool { return all[a].Started.Before(all[b].Started) })
		}
	}
	return all, nil
}

func list(dir string) ([]Info, error) {
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err := checkOurs(dir, true); err != nil {
		return nil, err
	}
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []Info
	for _, p := range paths {
		i, err := readInfo(p)
		if err != nil || CheckName(i.Name) != nil || filepath.Base(p) != i.Name+".json" {
			continue // a file being replaced, or not a tap's: not listed
		}
		if i.Live() && (!alive(i.PID) || !exists(i.Socket)) {
			// The tap ended without Close: its socket is stale.
			now := time.Now().UTC()
			i.Finished, i.Crashed = &now, true
			if filepath.Dir(i.Socket) == dir {
				_ = os.Remove(i.Socket)
			}
			_ = writeInfo(p, &i)
		}
		out = append(out, i)
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Started.Before(out[b].Started) })
	return out, nil
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return path != "" && err == nil
}

// Find returns the tap of that name. Without a name, the only live tap; with none or
// several, an error that says which there are (the caller may list them to choose).
func Find(name string) (Info, error) {
	all, err := List()
	if err != nil {
		return Info{}, err
	}
	return FindIn(all, name)
}

// ErrChoose is returned by Find without a name when several taps are live.
var ErrChoose = errors.New("several taps are live: name one (mcpscope attach NAME)")

// FindIn is Find over a listing already made.
func FindIn(all []Info, name string) (Info, error) {
	if name != "" {
		for _, i := range all {
			if i.Name == name {
				return i, nil
			}
		}
		var names []string
		for _, i := range all {
			names = append(names, i.Name)
		}
		if len(names) == 0 {
			return Info{}, fmt.Errorf("no tap named %q: no tap has run yet (start one with mcpscope tap -- CMD)", name)
		}
		return Info{}, fmt.Errorf("no tap named %q (taps: %s; mcpscope taps lists them)", name, strings.Join(names, ", "))
	}
	var live []Info
	for _, i := range all {
		if i.Live() {
			live = append(live, i)
		}
	}
	switch len(live) {
	case 0:
		return Info{}, errors.New("no tap is live: start one with mcpscope tap -- CMD, or attach a finished one by name (mcpscope taps lists them)")
	case 1:
		return live[0], nil
	}
	return Info{}, ErrChoose
}

// Open returns the tap's stream: a live tap's socket (the recording from its header
// on, then each line as it is written, until the tap ends), or a finished tap's
// recording file.
func Open(i Info) (io.ReadCloser, error) {
	if i.Live() {
		if err := checkOurs(filepath.Dir(i.Socket), true); err != nil {
			return nil, err
		}
		if err := checkOurs(i.Socket, false); err != nil {
			return nil, err
		}
		c, err := net.Dial("unix", i.Socket)
		if err == nil {
			return c, nil
		}
		if alive(i.PID) {
			return nil, fmt.Errorf("cannot attach to tap %q: %v", i.Name, err)
		}
		// It ended between the listing and the dial: its file has it all.
	}
	if i.Recording == "" {
		return nil, fmt.Errorf("tap %q has finished and names no recording", i.Name)
	}
	f, err := readfile.Open(i.Recording, readfile.MaxSaved)
	if err != nil {
		return nil, fmt.Errorf("tap %q has finished and its recording cannot be read: %v", i.Name, err)
	}
	return f, nil
}

// CutLine is the marker a reader gets instead of the rest of the stream when it fell
// too far behind (see Publisher): not a recording line ("mcpscope":"cut"), so a reader
// of recordings that does not know it stops there.
type CutLine struct {
	Format    string `json:"mcpscope"` // "cut"
	Line      int    `json:"line"`     // the lines this reader got before the cut
	Recording string `json:"recording,omitempty"`
	Text      string `json:"text"`
}

// ParseCut returns the marker when line is one.
func ParseCut(line []byte) (CutLine, bool) {
	var c CutLine
	if !bytes.HasPrefix(line, []byte(`{"mcpscope":"cut"`)) || json.Unmarshal(line, &c) != nil {
		return c, false
	}
	return c, true
}

// hostClient reads the host's clientInfo from a line: the header's client, or an
// initialize request's params.clientInfo (a tap whose header was written before the
// host said it).
func hostClient(line []byte) *record.Peer {
	if bytes.HasPrefix(line, []byte(`{"mcpscope":"recording"`)) {
		var h record.Header
		if json.Unmarshal(line, &h) == nil && h.Client != nil && h.Client.Name != "" {
			return h.Client
		}
		return nil
	}
	if !bytes.Contains(line, []byte(`"initialize"`)) {
		return nil
	}
	var e struct {
		Dir string `json:"dir"`
		Msg struct {
			Method string `json:"method"`
			Params struct {
				ClientInfo *record.Peer `json:"clientInfo"`
			} `json:"params"`
		} `json:"msg"`
	}
	if json.Unmarshal(line, &e) != nil || e.Dir != record.Send || e.Msg.Method != "initialize" {
		return nil
	}
	if c := e.Msg.Params.ClientInfo; c != nil && c.Name != "" {
		return c
	}
	return nil
}

// copyLines writes the first n lines of the file at path to w.
func copyLines(w io.Writer, path string, n int) error {
	f, err := readfile.Open(path, readfile.MaxSaved)
	if err != nil {
		return err
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 64<<10)
	for k := 0; k < n; k++ {
		line, err := br.ReadSlice('\n')
		for errors.Is(err, bufio.ErrBufferFull) {
			if _, werr := w.Write(line); werr != nil {
				return werr
			}
			line, err = br.ReadSlice('\n')
		}
		if _, werr := w.Write(line); werr != nil {
			return werr
		}
		if err != nil {
			return fmt.Errorf("the recording %s holds %d lines, %d were published: %v", path, k, n, err)
		}
	}
	return nil
}

// kindOf names what a path is, for a refusal.
func kindOf(m fs.FileMode) string {
	if m.IsRegular() {
		return "a regular file"
	}
	if m&fs.ModeSymlink != 0 {
		return "a symbolic link"
	}
	return readfile.Kind(m)
}
