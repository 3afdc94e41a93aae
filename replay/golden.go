package replay

import (
	"bytes"
	"context"
	"flag"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/record"
)

// Target is the server a golden test replays against.
type Target struct {
	argv []string
	url  string
}

// Command is a server run as a child process speaking stdio, e.g.
// replay.Command("go", "run", "./cmd/server").
func Command(name string, args ...string) Target {
	return Target{argv: append([]string{name}, args...)}
}

// URL is a server reached over Streamable HTTP (or legacy HTTP+SSE) at an http:// or
// https:// endpoint, e.g. one an httptest.Server serves.
func URL(endpoint string) Target { return Target{url: endpoint} }

// Option configures Golden.
type Option func(*goldenConfig)

type goldenConfig struct {
	opts Options
}

// Ignore adds JSON-pointer patterns to ignore, as --ignore does: "/result/content/0/text",
// "/result/tools/*/description", "**/timestamp", "now:/result/content/0/text" (only for
// calls of the tool now).
func Ignore(paths ...string) Option {
	return func(c *goldenConfig) { c.opts.Ignore = append(c.opts.Ignore, paths...) }
}

// StrictOrder compares notifications in order rather than as a multiset.
func StrictOrder() Option { return func(c *goldenConfig) { c.opts.StrictOrder = true } }

// Env adds K=V pairs to the server's environment (it inherits the test's).
func Env(kv ...string) Option {
	return func(c *goldenConfig) { c.opts.Client.Env = append(c.opts.Client.Env, kv...) }
}

// Dir sets the server's working directory (default: the test's, the package directory).
func Dir(dir string) Option { return func(c *goldenConfig) { c.opts.Client.Dir = dir } }

// Timeout bounds each exchange (default DefaultTimeout).
func Timeout(d time.Duration) Option { return func(c *goldenConfig) { c.opts.Timeout = d } }

// ClientOptions replaces how the server is started and spoken to (framing, grace…);
// options given before it are overwritten.
func ClientOptions(o client.Options) Option { return func(c *goldenConfig) { c.opts.Client = o } }

func init() {
	// -update is the golden-file convention. Another package may have defined it
	// first (charmbracelet/x/exp/golden does); Golden reads whichever exists.
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files (replay: the recorded responses) from the live server")
	}
}

// Updating reports whether -update was given (or MCPSCOPE_UPDATE is set to a true
// value, for test binaries whose -update flag is not a boolean).
func Updating() bool {
	if f := flag.Lookup("update"); f != nil {
		if g, ok := f.Value.(flag.Getter); ok {
			if b, ok := g.Get().(bool); ok && b {
				return true
			}
		}
		if b, err := strconv.ParseBool(f.Value.String()); err == nil && b {
			return true
		}
	}
	b, _ := strconv.ParseBool(os.Getenv("MCPSCOPE_UPDATE"))
	return b
}

// Golden replays the recording at path against target as part of a test. Differences
// fail the test with the same report `mcpscope replay` prints; with -update the
// recorded responses are rewritten from the live server instead. The server is
// stopped before Golden returns.
func Golden(t testing.TB, path string, target Target, opts ...Option) {
	t.Helper()
	cfg := goldenConfig{}
	for _, o := range opts {
		o(&cfg)
	}
	if len(target.argv) == 0 && target.url == "" {
		t.Fatalf("replay.Golden %s: no server (use replay.Command or replay.URL)", path)
	}
	rec, err := record.Load(path)
	if err != nil {
		t.Fatalf("replay.Golden: %v", err)
	}
	for _, w := range rec.Warnings {
		t.Logf("replay.Golden %s: %s", path, w)
	}
	update := Updating()
	cfg.opts.Update = update
	ctx := context.Background()
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if dl, ok := d.Deadline(); ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithDeadline(ctx, dl.Add(-time.Second))
			defer cancel()
		}
	}
	report, err := Run(ctx, rec, client.Target{Argv: target.argv, URL: target.url}, cfg.opts)
	if err != nil {
		t.Fatalf("replay.Golden %s: %v", path, err)
	}
	var buf bytes.Buffer
	report.WriteText(&buf)
	if update && !report.OK() {
		if err := report.Updated.Save(path); err != nil {
			t.Fatalf("replay.Golden: writing %s: %v", path, err)
		}
		t.Logf("replay.Golden: updated %s\n%s", path, buf.String())
		return
	}
	if !report.OK() {
		t.Errorf("replay.Golden %s differs from the live server (rerun with -update to accept):\n%s", path, buf.String())
		return
	}
	t.Logf("%s: %s", path, report.Summary())
}
