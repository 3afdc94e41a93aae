package surface

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/readfile"
	"github.com/mcpscope/mcpscope/record"
)

// File is a side of a diff that names a path: FILE, or FILE#SERVER for one server
// of a recording of several.
type File struct {
	Path, Server string
	Dir          bool // refused: a directory is not a surface
}

// ParseFile tells whether spec names a path (looked up once per side): the file
// itself, or, when that does not exist, FILE#SERVER with FILE existing.
func ParseFile(spec string) (File, bool) {
	if spec == "" {
		return File{}, false
	}
	if st, err := os.Stat(spec); err == nil {
		// A bare word that happens to name a directory here is a server ("host", a
		// configured NAME): `lint host` in a repository with a host/ directory means
		// the bundled host. A directory named as a path (./host, dir/) is a mistake
		// the user is told about.
		if st.IsDir() && !strings.ContainsAny(spec, "/\\") {
			return File{}, false
		}
		return File{Path: spec, Dir: st.IsDir()}, true
	}
	if i := strings.LastIndex(spec, "#"); i > 0 {
		if st, err := os.Stat(spec[:i]); err == nil {
			return File{Path: spec[:i], Server: spec[i+1:], Dir: st.IsDir()}, true
		}
	}
	return File{}, false
}

// usage is an error in what the user named (exit code 2 on the command line).
func usage(format string, a ...any) error {
	return &client.UsageError{Msg: fmt.Sprintf(format, a...)}
}

// Load reads a saved --inspect JSON document or a recording, through the one capped
// reader (readfile.MaxSaved, as replay, serve and open): a FIFO, a device or a file
// above the cap is refused before it is read. Whatever is wrong with the file the
// user named (a directory, an empty file, a recording of several without #SERVER,
// JSON that does not parse, a document of a later format, no tool surface in it) is
// a client.UsageError: a command's other failing exit (diff's breaking changes,
// lint's findings) must not be what a broken file reads as in CI.
func (f File) Load(label string) (*Surface, error) {
	if f.Dir {
		return nil, usage("%s is a directory: give a saved --inspect JSON file or a recording", f.Path)
	}
	data, err := readfile.Read(f.Path, readfile.MaxSaved)
	var fe *readfile.Error
	if errors.As(err, &fe) {
		return nil, usage("%v", err)
	}
	if err != nil {
		return nil, err
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, usage("%s is empty: %v", f.Path, ErrNoSurface)
	}
	// A recording's first line is its header: {"mcpscope":"recording",...}.
	first, _, _ := bytes.Cut(trimmed, []byte("\n"))
	if bytes.Contains(first, []byte(`"mcpscope"`)) {
		return f.recording(data, label)
	}
	if f.Server != "" {
		return nil, usage("%s is not a recording: #%s names a server of a recording of several", f.Path, f.Server)
	}
	return noSurface(FromInspect(data, label))
}

// noSurface makes the error of reading a surface out of a file's content a usage error.
func noSurface(s *Surface, err error) (*Surface, error) {
	if err != nil {
		return nil, usage("%v", err)
	}
	return s, nil
}

// recording is the surface a recording lists (of its server f.Server, for one of
// several).
func (f File) recording(data []byte, label string) (*Surface, error) {
	rec, err := record.Read(bytes.NewReader(data))
	if err != nil {
		return nil, usage("%s: %v", f.Path, err)
	}
	if f.Server != "" || rec.Several() {
		if f.Server == "" {
			return nil, usage("%s records several servers (%s): name one as %s#NAME", f.Path, strings.Join(rec.ServerNames(), ", "), f.Path)
		}
		if rec, err = rec.ForServer(f.Server); err != nil {
			return nil, usage("%s: %v", f.Path, err)
		}
	}
	return noSurface(FromRecording(rec, label))
}
