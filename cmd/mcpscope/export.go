package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/export"
	"github.com/mcpscope/mcpscope/internal/termsafe"
)

// runExport is `mcpscope export FILE --format har|otlp|json [-o OUT]`.
func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("export", flag.ContinueOnError)
	format := fs.String("format", "", "har, otlp or json")
	out := fs.String("o", "", "write to this file instead of stdout (mode 0600, replaced whole)")
	pos, argv, err := parse(fs, args, func([]string, string) bool { return false })
	if err != nil {
		return err
	}
	if len(pos) != 1 || len(argv) > 0 {
		return usageErr("mcpscope export FILE --format %s [-o OUT]: name one recording", strings.Join(export.Formats, "|"))
	}
	if !slices.Contains(export.Formats, *format) {
		if *format == "" {
			return usageErr("export: give --format har (HTTP tools), otlp (tracing back ends) or json (scripts)")
		}
		return usageErr("--format %q: use %s", *format, strings.Join(export.Formats, ", "))
	}
	// The recording is read as it is written out, never held whole (a first pass
	// surveys it), as replay reads one: memory stays flat in its size.
	rec, err := export.Open(export.File(pos[0]))
	if err != nil {
		return &exitError{code: exitUsage, msg: "cannot read the recording: " + err.Error()}
	}
	for _, w := range rec.Warnings {
		fmt.Fprintln(stderr, "mcpscope: warning: "+pos[0]+": "+termsafe.Line(w))
	}
	opts := export.Options{Name: "mcpscope", Version: client.Version}
	if *out == "" {
		w := stdout
		if isTerminal(stdout) {
			w = termsafe.NewWriter(stdout) // a server's strings, for a person to read
		}
		return rec.Write(w, *format, opts)
	}
	return writeExport(*out, func(w io.Writer) error { return rec.Write(w, *format, opts) })
}

// writeExport writes a file whole: to a temporary file beside it, renamed over it, so
// that a failed export never leaves half a file where a good one was.
func writeExport(path string, write func(io.Writer) error) error {
	if st, err := os.Lstat(path); err == nil && !st.Mode().IsRegular() {
		return usageErr("-o %s: not a regular file", path)
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return usageErr("-o %s: %v", path, err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".mcpscope-*")
	if err != nil {
		return usageErr("-o %s: %v", path, err)
	}
	defer os.Remove(f.Name())
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
