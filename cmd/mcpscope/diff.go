package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/readfile"
	"github.com/mcpscope/mcpscope/internal/termsafe"
	"github.com/mcpscope/mcpscope/record"
	"github.com/mcpscope/mcpscope/surface"
)

const diffUsage = `mcpscope diff A B: compare two tool surfaces and classify every change
A and B: a saved "mcpscope --inspect --format json" file, a recording (FILE, or
FILE#SERVER for a recording of several), a URL, a configured server NAME, host (the
bundled host), or, for B only, a command after "--":
  mcpscope diff testdata/tools.json -- ./my-server
Flags: --format text|json|markdown|junit, --fail-on breaking|any|none, --no-diff,
and the connection flags of --inspect (-e, --bearer, -H, --config, ...).
Exit codes: 0 nothing that --fail-on counts changed, 1 it did (or a server failed),
2 usage error (including two things without a tool surface).`

// runDiff is `mcpscope diff A B`.
func runDiff(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("diff", flag.ContinueOnError)
	var c common
	c.register(fs, surface.FormatText)
	var failOn string
	var noDiff bool
	fs.StringVar(&failOn, "fail-on", "breaking", "breaking, any or none")
	fs.BoolVar(&noDiff, "no-diff", false, "text: leave out the JSON diff of each changed object")
	pos, argv, err := parse(fs, args, func([]string, string) bool { return false })
	if err != nil {
		return err
	}
	switch c.format {
	case surface.FormatText, "table":
		c.format = surface.FormatText
	case surface.FormatJSON, surface.FormatMarkdown, surface.FormatJUnit:
	case "md":
		c.format = surface.FormatMarkdown
	default:
		return usageErr("--format %q: use text, json, markdown or junit", c.format)
	}
	switch failOn {
	case surface.FailOnBreaking, surface.FailOnAny, surface.FailOnNone:
	default:
		return usageErr("--fail-on %q: use breaking, any or none", failOn)
	}
	if c.multi() {
		return usageErr("diff compares two surfaces: name A and B as positionals (a file, a URL, a NAME) or B after --, not with --server or --all")
	}
	specs := pos
	switch {
	case len(pos) == 2 && argv == nil:
	case len(pos) == 1 && len(argv) > 0:
		specs = append(specs, "")
	default:
		return usageErr("%s", diffUsage)
	}
	// A saved file loads beside the other side (a CI diff of a file against a server
	// costs the server's start, not the sum); two live servers connect one after the
	// other, so that their stderr and any login question do not mix.
	var surfaces [2]*surface.Surface
	var errs [2]error
	var wg sync.WaitGroup
	for i, spec := range specs {
		switch f, ok := savedFile(spec); {
		case ok:
			wg.Go(func() { surfaces[i], errs[i] = f.surface(spec) })
		case spec == "":
			surfaces[i], errs[i] = liveSurface(ctx, &c, commandServer(argv), strings.Join(argv, " "), stderr)
		default:
			surfaces[i], errs[i] = loadSurface(ctx, &c, spec, stderr)
		}
	}
	wg.Wait()
	for i, s := range surfaces {
		if err := errs[i]; err != nil {
			if errors.Is(err, surface.ErrNoSurface) {
				return usageErr("%v", err)
			}
			return err
		}
		for _, p := range s.Problems {
			fmt.Fprintf(stderr, "mcpscope: note: %s: %s\n", s.Label, p)
		}
	}
	r := surface.Compare(surfaces[0], surfaces[1])
	r.FailOn = failOn
	if len(r.Compared) == 0 {
		return usageErr("nothing to compare: %s and %s have no kind of object in common (tools, resources, templates, prompts)", surfaces[0].Label, surfaces[1].Label)
	}
	if isTerminal(stdout) && c.format == surface.FormatJSON {
		stdout = termsafe.NewWriter(stdout)
	}
	if err := surface.Write(stdout, c.format, r, !noDiff); err != nil {
		return err
	}
	if r.Fails(failOn) {
		return &exitError{code: exitServer, msg: ""}
	}
	return nil
}

// loadSurface reads one side named on the command line that is not a saved file
// (savedFile): a live server (a URL, a config name, host).
func loadSurface(ctx context.Context, c *common, spec string, stderr io.Writer) (*surface.Surface, error) {
	if strings.ContainsAny(spec, "/\\") && !client.IsURL(spec) || strings.HasSuffix(spec, ".json") || strings.HasSuffix(spec, ".jsonl") {
		return nil, usageErr("%s: no such file", spec)
	}
	src, err := c.sources()
	if err != nil {
		return nil, err
	}
	srv, err := c.serverTarget(ctx, src, "server", spec)
	if err != nil {
		return nil, err
	}
	return liveSurface(ctx, c, srv, spec, stderr)
}

// saved is a side of a diff that names a path: FILE, or FILE#SERVER for a recording
// of several.
type saved struct {
	file, server string
	dir          bool // refused: a directory is not a surface
}

// savedFile tells whether spec names a path (looked up once per side).
func savedFile(spec string) (saved, bool) {
	if spec == "" {
		return saved{}, false
	}
	if st, err := os.Stat(spec); err == nil {
		return saved{file: spec, dir: st.IsDir()}, true
	}
	if i := strings.LastIndex(spec, "#"); i > 0 {
		if st, err := os.Stat(spec[:i]); err == nil {
			return saved{file: spec[:i], server: spec[i+1:], dir: st.IsDir()}, true
		}
	}
	return saved{}, false
}

func (f saved) surface(label string) (*surface.Surface, error) {
	if f.dir {
		return nil, usageErr("%s is a directory: give a saved --inspect JSON file or a recording", f.file)
	}
	return fileSurface(f.file, f.server, label)
}

// fileSurface reads a saved --inspect JSON document or a recording, through the one
// capped reader (readfile.MaxSaved, as replay, serve and open): a FIFO, a device or a
// file above the cap is a usage error, refused before it is read.
func fileSurface(file, server, label string) (*surface.Surface, error) {
	data, err := readfile.Read(file, readfile.MaxSaved)
	var fe *readfile.Error
	if errors.As(err, &fe) {
		return nil, usageErr("%v", err)
	}
	if err != nil {
		return nil, err
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, usageErr("%s is empty: %v", file, surface.ErrNoSurface)
	}
	// A recording's first line is its header: {"mcpscope":"recording",...}.
	first, _, _ := bytes.Cut(trimmed, []byte("\n"))
	if bytes.Contains(first, []byte(`"mcpscope"`)) {
		rec, err := record.Read(bytes.NewReader(data))
		if err != nil {
			return nil, usageErr("%s: %v", file, err)
		}
		if server != "" || rec.Several() {
			if server == "" {
				return nil, usageErr("%s records several servers (%s): name one as %s#NAME", file, strings.Join(rec.ServerNames(), ", "), file)
			}
			if rec, err = rec.ForServer(server); err != nil {
				return nil, usageErr("%s: %v", file, err)
			}
		}
		return surface.FromRecording(rec, label)
	}
	if server != "" {
		return nil, usageErr("%s is not a recording: #%s names a server of a recording of several", file, server)
	}
	return surface.FromInspect(data, label)
}

// liveSurface connects to a server and lists its surface.
func liveSurface(ctx context.Context, c *common, srv namedServer, label string, stderr io.Writer) (*surface.Surface, error) {
	if srv.err != nil {
		return nil, srv.err
	}
	s, done, err := connect(ctx, c.withTimeout(srv.spec), srv.spec.Target, stderr)
	if err != nil {
		return nil, err
	}
	defer done()
	return surface.FromSession(ctx, s, label)
}
