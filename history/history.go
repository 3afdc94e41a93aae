// Package history keeps every tool call across sessions, per server, under the user's
// state directory ($XDG_STATE_HOME/mcpscope/history, or ~/.local/state/mcpscope/history):
// bounded (the last 1,000 calls per server by default), redacted with the same rules
// as recordings before anything reaches the disk, and tolerant of a damaged file (a
// corrupt or future-version file is set aside with a message and a new one started).
// Entries can be marked and saved as a named collection: a recording file that
// `mcpscope replay` runs as a golden test. No UI here.
//
// A server's file is history/<hash of its key>.jsonl: a header line, then one entry
// per line, appended. The key is the server's name and its command line or URL,
// redacted; so the same server under the same name shares its history across runs.
package history

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/internal/ownfiles"
	"github.com/mcpscope/mcpscope/internal/readfile"
	"github.com/mcpscope/mcpscope/internal/statedir"
	"github.com/mcpscope/mcpscope/record"
	"github.com/mcpscope/mcpscope/target"
)

// Format and Version identify a history file.
const (
	Format  = "history"
	Version = 1
)

// DefaultLimit is how many calls per server are kept.
const DefaultLimit = 1000

// maxResult bounds a stored result; a bigger one is kept as a note only.
const maxResult = 256 << 10

// Entry is one call.
type Entry struct {
	ID        string          `json:"id"` // unique in the server's history
	Time      time.Time       `json:"time"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Result is the whole tools/call result as the server sent it (redacted); nil when
	// the call failed without one or it was larger than 256 KiB (ResultSize says).
	Result     json.RawMessage `json:"result,omitempty"`
	ResultSize int             `json:"resultSize,omitempty"`
	IsError    bool            `json:"isError,omitempty"`
	Error      string          `json:"error,omitempty"` // a JSON-RPC or transport error
	// Cancelled: the user cancelled the call before its answer (notifications/cancelled
	// was sent); Error then holds nothing, as the cancel is no failure of the server.
	Cancelled  bool    `json:"cancelled,omitempty"`
	DurationMS float64 `json:"durationMs,omitempty"`
	Marked     bool    `json:"marked,omitempty"`
}

// header is a history file's first line.
type header struct {
	Format  string        `json:"mcpscope"`
	Version int           `json:"version"`
	Server  string        `json:"server"`
	Key     string        `json:"key"`
	Target  record.Target `json:"target"`
}

// Server names whose history a Log holds.
type Server struct {
	Name   string
	Target target.Target
}

// Key is the server's identity in the store: its name and command line or URL, with
// secrets redacted (so a token in the URL does not end up in a file name or header).
func (s Server) Key(red *record.Redactor) string {
	if s.Target.URL != "" {
		return s.Name + "\n" + red.URL(s.Target.URL)
	}
	return s.Name + "\n" + strings.Join(red.Argv(s.Target.Argv), "\x00")
}

// DefaultDir is $XDG_STATE_HOME/mcpscope/history, or ~/.local/state/mcpscope/history.
func DefaultDir() (string, error) { return statedir.Path("history", "the history") }

// Options configure Open.
type Options struct {
	Dir    string           // "" is DefaultDir
	Limit  int              // calls kept per server; 0 is DefaultLimit
	Redact *record.Redactor // secrets of this session (-e, --bearer, --redact); nil: the built-in rules only
}

// Log is the history of one server, open for appending.
type Log struct {
	path  string
	limit int
	red   *record.Redactor
	hdr   header

	mu      sync.Mutex
	entries []Entry
	lines   int // lines in the file after the header
	seq     int
	// Warnings say what was wrong with the file when it was opened (set aside, lines
	// skipped).
	Warnings []string
}

// Open opens (or starts) the history of a server.
func Open(srv Server, opts Options) (*Log, error) {
	dir := opts.Dir
	if dir == "" {
		var err error
		if dir, err = DefaultDir(); err != nil {
			return nil, err
		}
	}
	if opts.Limit <= 0 {
		opts.Limit = DefaultLimit
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	if opts.Redact == nil {
		opts.Redact = &record.Redactor{}
	}
	opts.Redact.AddArgv(srv.Target.Argv) // --api-key X on the command line is a secret too
	key := srv.Key(opts.Redact)
	sum := sha256.Sum256([]byte(key))
	l := &Log{
		path: filepath.Join(dir, hex.EncodeToString(sum[:12])+".jsonl"), limit: opts.Limit, red: opts.Redact,
		hdr: header{Format: Format, Version: Version, Server: srv.Name, Key: key, Target: recordTarget(srv.Target, opts.Redact)},
	}
	// The history may sit in a watched directory (XDG_STATE_HOME inside a project):
	// writing it is no edit.
	ownfiles.Expect(l.path)
	ownfiles.Expect(l.path + ".tmp")
	if err := l.load(); err != nil {
		return nil, err
	}
	return l, nil
}

func recordTarget(t target.Target, red *record.Redactor) record.Target {
	if t.URL != "" {
		return record.Target{Transport: "http", URL: red.URL(t.URL)}
	}
	// The bundled host as `mcpscope host`, as a recording names it: a collection saved
	// from this header must run on another machine, and with another build.
	return record.Target{Transport: "stdio", Argv: red.Argv(record.StoredArgv(t.Argv)), Dir: t.Dir}
}

// Path is the file of this history.
func (l *Log) Path() string { return l.path }

// load reads the file; a damaged one is set aside.
func (l *Log) load() error {
	data, err := readfile.Read(l.path, readfile.MaxSaved) // the one capped reader: a FIFO planted here is refused
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), maxResult*4)
	n := 0
	var entries []Entry
	setAside := func(why string) error {
		aside := fmt.Sprintf("%s.%s.%s", l.path, why, time.Now().UTC().Format("20060102T150405"))
		if err := os.Rename(l.path, aside); err != nil {
			return fmt.Errorf("history: %s is %s and cannot be set aside: %w", l.path, why, err)
		}
		l.Warnings = append(l.Warnings, fmt.Sprintf("the history file %s was %s; it is kept as %s and a new history starts", l.path, describeWhy(why), aside))
		l.entries, l.lines = nil, 0
		return nil
	}
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		n++
		if n == 1 {
			var h header
			if json.Unmarshal(line, &h) != nil || h.Format != Format {
				return setAside("corrupt")
			}
			if h.Version > Version {
				return setAside(fmt.Sprintf("v%d", h.Version))
			}
			continue
		}
		var e Entry
		if json.Unmarshal(line, &e) != nil || e.ID == "" {
			l.Warnings = append(l.Warnings, fmt.Sprintf("%s: line %d is not a history entry; skipped", l.path, n))
			continue
		}
		entries = append(entries, e)
	}
	if err := sc.Err(); err != nil {
		return setAside("corrupt")
	}
	if n == 0 {
		return nil
	}
	l.lines = len(entries)
	// Marks are appended as entries of the same id: the last one wins.
	byID := map[string]int{}
	for _, e := range entries {
		if i, ok := byID[e.ID]; ok {
			l.entries[i] = e
			continue
		}
		byID[e.ID] = len(l.entries)
		l.entries = append(l.entries, e)
	}
	if len(l.entries) > l.limit {
		l.entries = append([]Entry(nil), l.entries[len(l.entries)-l.limit:]...)
	}
	return nil
}

func describeWhy(why string) string {
	if why == "corrupt" {
		return "not a history file (corrupt)"
	}
	return "written by a newer mcpscope (format " + why + ")"
}

// Add appends a call (redacted) and returns it with its id.
func (l *Log) Add(e Entry) (Entry, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	l.seq++
	e.ID = fmt.Sprintf("%s-%d", e.Time.UTC().Format("20060102T150405.000000"), l.seq)
	e.Tool = l.red.Text(e.Tool)
	e.Error = l.red.Text(e.Error)
	if len(e.Arguments) > 0 {
		e.Arguments = l.red.JSON(e.Arguments)
	}
	if len(e.Result) > maxResult {
		e.ResultSize, e.Result = len(e.Result), nil
	} else if len(e.Result) > 0 {
		e.Result = l.red.JSON(e.Result)
	}
	l.entries = append(l.entries, e)
	if len(l.entries) > l.limit {
		l.entries = append([]Entry(nil), l.entries[len(l.entries)-l.limit:]...)
	}
	if l.lines+1 > 2*l.limit {
		return e, l.rewriteLocked()
	}
	return e, l.appendLocked(e)
}

func (l *Log) headerLine() []byte {
	b, _ := json.Marshal(l.hdr)
	return append(b, '\n')
}

func (l *Log) appendLocked(e Entry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if _, err := os.Lstat(l.path); errors.Is(err, fs.ErrNotExist) {
		b = append(l.headerLine(), b...)
	}
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	defer f.Close()
	if _, err := f.Write(b); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	l.lines++
	return nil
}

// rewriteLocked writes the kept entries to a new file and renames it over the old.
func (l *Log) rewriteLocked() error {
	var buf bytes.Buffer
	buf.Write(l.headerLine())
	for _, e := range l.entries {
		b, err := json.Marshal(e)
		if err != nil {
			return err
		}
		buf.Write(b)
		buf.WriteByte('\n')
	}
	tmp := l.path + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o600); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	if err := os.Rename(tmp, l.path); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	l.lines = len(l.entries)
	return nil
}

// Entries returns the kept calls, oldest first.
func (l *Log) Entries() []Entry {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]Entry(nil), l.entries...)
}

// Get returns the entry of an id.
func (l *Log) Get(id string) (Entry, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, e := range l.entries {
		if e.ID == id {
			return e, true
		}
	}
	return Entry{}, false
}

// Search returns the calls whose tool, arguments, result or error contain every word
// of query (case-insensitive), newest first. An empty query returns them all.
func (l *Log) Search(query string) []Entry {
	words := strings.Fields(strings.ToLower(query))
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []Entry
	for i := len(l.entries) - 1; i >= 0; i-- {
		e := l.entries[i]
		hay := strings.ToLower(e.Tool + "\n" + string(e.Arguments) + "\n" + string(e.Result) + "\n" + e.Error)
		ok := true
		for _, w := range words {
			if !strings.Contains(hay, w) {
				ok = false
				break
			}
		}
		if ok {
			out = append(out, e)
		}
	}
	return out
}

// Mark sets or clears the mark of entries (kept across sessions).
func (l *Log) Mark(marked bool, ids ...string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	found := 0
	for i := range l.entries {
		if want[l.entries[i].ID] {
			found++
			l.entries[i].Marked = marked
		}
	}
	if found != len(want) {
		return fmt.Errorf("history: %d of %d entries not found", len(want)-found, len(want))
	}
	return l.rewriteLocked()
}

// Marked returns the marked entries, oldest first.
func (l *Log) Marked() []Entry {
	var out []Entry
	for _, e := range l.Entries() {
		if e.Marked {
			out = append(out, e)
		}
	}
	return out
}
