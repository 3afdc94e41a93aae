package record

import (
	"os"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/target"
)

// TestTargetOfDescribesWithoutSecrets: a stdio server is described by its stored
// command, the names (never the values) of its own environment then of -e, its
// directory and framing; an HTTP server by its URL alone; both return every secret
// they carry (a secret-looking environment value, a header value) for the redactor.
func TestTargetOfDescribesWithoutSecrets(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	got, secrets := TargetOf(target.Target{Argv: []string{self, "host"}, Env: []string{"API_TOKEN=tok-123456789", "MODE=fast"},
		Dir: "/srv", Secrets: []string{"hdr-secret-1"}}, "ndjson", []string{"FROM_E"})
	if got.Transport != "stdio" || strings.Join(got.Argv, " ") != "mcpscope host" || strings.Join(got.Env, " ") != "API_TOKEN MODE FROM_E" ||
		got.Dir != "/srv" || got.Framing != "ndjson" || got.URL != "" {
		t.Errorf("stdio target %+v", got)
	}
	if strings.Join(secrets, " ") != "tok-123456789 hdr-secret-1" {
		t.Errorf("stdio secrets %q", secrets)
	}
	got, secrets = TargetOf(target.Target{URL: "https://example.test/mcp", Secrets: []string{"hdr-secret-1"}}, "ndjson", []string{"FROM_E"})
	if got.Transport != "http" || got.URL != "https://example.test/mcp" || got.Argv != nil || got.Env != nil || strings.Join(secrets, " ") != "hdr-secret-1" {
		t.Errorf("http target %+v, secrets %q", got, secrets)
	}
}
