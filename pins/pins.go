// Package pins remembers the surface a server had the first time mcpscope listed it,
// as a hash per definition (a tool, a prompt, a resource template), and tells when a
// later connection shows another: a description or a schema that changed behind the
// user's back is how a trusted tool turns into a poisoned one (issue 25, pinned
// surfaces). A server is known by its name and its target as given (a config entry
// unexpanded, a URL, a command line), never by a secret.
//
// The pins live in $XDG_STATE_HOME/mcpscope/pins (or ~/.local/state/mcpscope/pins),
// one small JSON file per server, read capped and only when a regular file, written
// through a temporary file renamed over it inside that directory.
package pins

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/internal/ownfiles"
	"github.com/mcpscope/mcpscope/internal/readfile"
	"github.com/mcpscope/mcpscope/internal/redact"
	"github.com/mcpscope/mcpscope/internal/statedir"
	"github.com/mcpscope/mcpscope/surface"
)

// maxPin caps a pin file: 100,000 definitions' hashes fit in a few MiB.
const maxPin = 16 << 20

// Pin is what was pinned for one server.
type Pin struct {
	Server string            `json:"server"`
	Target string            `json:"target"`
	Pinned time.Time         `json:"pinned"`
	Defs   map[string]string `json:"definitions"` // "tool NAME" → sha256 of the definition
	// Client lists the optional capabilities the client that pinned declared
	// (surface.Surface.Client): a surface listed by a client that declared others is
	// compared for changed definitions only (see compare).
	Client []string `json:"client,omitempty"`
}

// Drift is how a surface differs from its pin: definitions changed, added and
// removed ("tool NAME", "prompt NAME", "template URI"), each sorted.
type Drift struct {
	Pinned                  time.Time
	Changed, Added, Removed []string
}

// Empty reports whether nothing differs.
func (d Drift) Empty() bool { return len(d.Changed)+len(d.Added)+len(d.Removed) == 0 }

// DefaultDir is $XDG_STATE_HOME/mcpscope/pins, or ~/.local/state/mcpscope/pins.
func DefaultDir() (string, error) { return statedir.Path("pins", "the pins") }

// Store is a directory of pins.
type Store struct{ dir string }

// Open is the store in dir ("": DefaultDir), created when missing.
func Open(dir string) (*Store, error) {
	if dir == "" {
		d, err := DefaultDir()
		if err != nil {
			return nil, err
		}
		dir = d
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("the pins' directory: %w", err)
	}
	return &Store{dir: dir}, nil
}

// Find is the store in dir ("": DefaultDir) for reading only: nothing is created,
// so that a command that only compares (--inspect, the workbench) leaves no
// directory behind where nothing was ever pinned.
func Find(dir string) (*Store, error) {
	if dir == "" {
		d, err := DefaultDir()
		if err != nil {
			return nil, err
		}
		dir = d
	}
	return &Store{dir: dir}, nil
}

// Compare compares s with the server's pin, if it has one (pinned false: it has
// none, and nothing is written). Only the kinds s knows are compared (a surface
// without prompts does not report the pinned prompts as removed).
func (st *Store) Compare(server, target string, s *surface.Surface) (d Drift, pinned bool, err error) {
	target = identity(target)
	p, err := st.load(server, target)
	if errors.Is(err, fs.ErrNotExist) {
		return Drift{}, false, nil
	}
	if err != nil {
		return Drift{}, false, err
	}
	return compare(p, s), true, nil
}

// identity is a target as a pin knows it: with the secrets a command line or a URL
// may carry (--api-key X, TOKEN=X, a token-shaped word; a URL's user info and its
// secret query values) replaced by [redacted], so that none reaches the pin file,
// and a rotated key keeps its server's pin.
func identity(target string) string {
	set := redact.NewSet(redact.ArgvSecrets(strings.Fields(target))...)
	if strings.HasPrefix(target, "http://") || strings.HasPrefix(target, "https://") {
		return redact.URL(target, set)
	}
	return set.String(target)
}

// file is the pin file's name for a server: a hash of its name and target, so that
// neither reaches the file system as a path.
func file(server, target string) string {
	sum := sha256.Sum256([]byte(server + "\n" + target))
	return hex.EncodeToString(sum[:12]) + ".json"
}

// Check compares s with the server's pin. The first time, it pins s and reports
// first; otherwise the drift (empty when nothing changed). A pin is never replaced
// by Check: only Accept does that.
func (st *Store) Check(server, target string, s *surface.Surface, now time.Time) (d Drift, first bool, err error) {
	target = identity(target)
	p, err := st.load(server, target)
	if errors.Is(err, fs.ErrNotExist) {
		return Drift{}, true, st.write(Pin{Server: server, Target: target, Pinned: now.UTC(), Defs: Hashes(s), Client: s.Client})
	}
	if err != nil {
		return Drift{}, false, err
	}
	return compare(p, s), false, nil
}

// Accept pins s as the server's surface, replacing what was pinned.
func (st *Store) Accept(server, target string, s *surface.Surface, now time.Time) error {
	target = identity(target)
	return st.write(Pin{Server: server, Target: target, Pinned: now.UTC(), Defs: Hashes(s), Client: s.Client})
}

func (st *Store) load(server, target string) (Pin, error) {
	var p Pin
	path := filepath.Join(st.dir, file(server, target))
	if _, err := os.Lstat(path); err != nil {
		return p, err
	}
	b, err := readfile.Read(path, maxPin)
	if err != nil {
		return p, err
	}
	if err := json.Unmarshal(b, &p); err != nil || p.Defs == nil {
		return p, fmt.Errorf("%s is not a pin file (%v): remove it, or run mcpscope pin accept to pin the server again", path, err)
	}
	return p, nil
}

func (st *Store) write(p Pin) error {
	b, err := json.MarshalIndent(p, "", " ")
	if err != nil {
		return err
	}
	root, err := os.OpenRoot(st.dir)
	if err != nil {
		return err
	}
	defer root.Close()
	name := file(p.Server, p.Target)
	tmp := fmt.Sprintf(".%s.%d.tmp", name, os.Getpid())
	// Known as mcpscope's own before they exist: a watch of a directory holding the
	// state directory does not take them for edits.
	ownfiles.Expect(filepath.Join(st.dir, tmp))
	ownfiles.Expect(filepath.Join(st.dir, name))
	f, err := root.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, name) // a link named name is replaced, never followed
	}
	if err != nil {
		root.Remove(tmp)
	}
	return err
}

// compare is how s differs from p. Only the kinds s knows are compared: a surface
// whose prompts could not be listed (or a listing without them) does not report the
// pinned prompts as removed.
//
// A surface listed by a client that declared other optional capabilities than the
// one that pinned (the workbench declares elicitation, lint nothing) is compared for
// changed definitions only: a server may offer some tools only to a client that
// declares a capability (server-everything's elicitation tools), so what one
// client's listing lacks or adds says nothing of the server. A changed definition
// is the poisoning case, and it is compared whoever lists.
func compare(p Pin, s *surface.Surface) Drift {
	now := Hashes(s)
	known := map[string]bool{surface.ObjTool: s.HasTools, surface.ObjPrompt: s.HasPrompts, surface.ObjTemplate: s.HasTemplates}
	sameClient := slices.Equal(p.Client, s.Client)
	d := Drift{Pinned: p.Pinned}
	for k, h := range now {
		switch old, ok := p.Defs[k]; {
		case !ok && sameClient:
			d.Added = append(d.Added, k)
		case ok && old != h:
			d.Changed = append(d.Changed, k)
		}
	}
	for k := range p.Defs {
		if !sameClient {
			break
		}
		if kind, _, _ := strings.Cut(k, " "); !known[kind] {
			continue
		}
		if _, ok := now[k]; !ok {
			d.Removed = append(d.Removed, k)
		}
	}
	sort.Strings(d.Changed)
	sort.Strings(d.Added)
	sort.Strings(d.Removed)
	return d
}

// Hashes are a surface's definitions, each hashed as canonical JSON (members sorted,
// numbers as written) without _meta, which servers fill with what changes between
// listings (timestamps, request ids) and no model reads.
func Hashes(s *surface.Surface) map[string]string {
	out := map[string]string{}
	if s == nil {
		return out
	}
	for _, t := range s.Tools {
		out[surface.ObjTool+" "+t.Name] = hash(t.Raw)
	}
	for _, p := range s.Prompts {
		out[surface.ObjPrompt+" "+p.Key] = hash(p.Raw)
	}
	for _, t := range s.Templates {
		out[surface.ObjTemplate+" "+t.Key] = hash(t.Raw)
	}
	return out
}

func hash(raw json.RawMessage) string {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) == nil {
		if m, ok := v.(map[string]any); ok {
			delete(m, "_meta")
		}
		if b, err := json.Marshal(v); err == nil {
			raw = b
		}
	}
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}
