package surface

import (
	"context"
	"strings"
	"sync"

	"github.com/mcpscope/mcpscope/client"
)

// Live lists the surface of a live server named on the command line (spec: a URL,
// a config name, host; "" for the command after "--"), labelled label. The command
// line connects it with its own flags.
type Live func(ctx context.Context, spec, label string) (*Surface, error)

// LoadSides loads the two sides of a diff. A saved file (ParseFile) loads beside the
// other side (a CI diff of a file against a server costs the server's start, not the
// sum); two live servers connect one after the other, so that their stderr and any
// login question do not mix. A side that looks like a path but names no file is a
// usage error, not a server to connect to. Each side has its surface or its error
// (a file or server without a tool surface wraps ErrNoSurface). labels[i] names side
// i ("": the spec itself).
func LoadSides(ctx context.Context, specs, labels [2]string, live Live) ([2]*Surface, [2]error) {
	var surfaces [2]*Surface
	var errs [2]error
	var wg sync.WaitGroup
	for i, spec := range specs {
		label := labels[i]
		if label == "" {
			label = spec
		}
		switch f, ok := ParseFile(spec); {
		case ok:
			wg.Go(func() { surfaces[i], errs[i] = f.Load(spec) })
		case spec != "" && looksLikeFile(spec):
			errs[i] = usage("%s: no such file", spec)
		default:
			surfaces[i], errs[i] = live(ctx, spec, label)
		}
	}
	wg.Wait()
	return surfaces, errs
}

// looksLikeFile says a side that is no existing file was meant as one: a path (not
// a URL), or a name of a saved document or recording.
func looksLikeFile(spec string) bool {
	return strings.ContainsAny(spec, "/\\") && !client.IsURL(spec) || strings.HasSuffix(spec, ".json") || strings.HasSuffix(spec, ".jsonl")
}
