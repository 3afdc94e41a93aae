package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// MCP Apps at the metadata level, against a server built with the official ext-apps
// helpers: each tool's view is named in --inspect, read and checked (its MIME type,
// its CSP and permissions); a broken or missing view is a problem of its tool; and
// mcpscope never declares the UI extension itself.
func TestInspectAppsViews(t *testing.T) {
	t.Parallel()
	rec := filepath.Join(t.TempDir(), "apps.jsonl")
	argv := append([]string{"--inspect", "--format", "json", "--record", rec, "--"}, testutil.NodeStdio(t, "apps-server.mjs")...)
	r := mcpscope(t, nil, argv...)
	expect(t, r, 0, nil, nil)
	var report struct {
		Tools []struct {
			Name     string
			Problems []string
			App      *struct {
				ResourceURI string   `json:"resourceUri"`
				Visibility  []string `json:"visibility"`
				View        *struct {
					MIMEType    string              `json:"mimeType"`
					CSP         map[string][]string `json:"csp"`
					Permissions []string            `json:"permissions"`
					Problems    []string            `json:"problems"`
				} `json:"view"`
			} `json:"app"`
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &report); err != nil {
		t.Fatal(err)
	}
	tools := map[string]int{}
	for i, tl := range report.Tools {
		tools[tl.Name] = i
	}
	weather := report.Tools[tools["weather"]]
	if a := weather.App; a == nil || a.ResourceURI != "ui://weather/view.html" || a.View == nil || a.View.MIMEType != "text/html;profile=mcp-app" ||
		strings.Join(a.View.CSP["connectDomains"], " ") != "https://api.weather.example" || strings.Join(a.View.Permissions, " ") != "geolocation" ||
		len(a.View.Problems) != 0 || len(weather.Problems) != 0 {
		t.Errorf("weather's view: %+v, problems %q", a, weather.Problems)
	}
	if p := report.Tools[tools["plain"]]; p.App != nil {
		t.Errorf("a tool without a view has one: %+v", p.App)
	}
	broken := strings.Join(report.Tools[tools["broken_app"]].Problems, "\n")
	for _, want := range []string{`view ui://broken/view.html: the view's mimeType is "text/html"`, `connectDomains allows "*": any origin`, `permission "telepathy"`} {
		if !strings.Contains(broken, want) {
			t.Errorf("broken_app's problems lack %q:\n%s", want, broken)
		}
	}
	if missing := strings.Join(report.Tools[tools["missing_app"]].Problems, "\n"); !strings.Contains(missing, "view ui://missing/view.html: the view cannot be read") {
		t.Errorf("missing_app's problems: %s", missing)
	}
	b, err := os.ReadFile(rec)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `"io.modelcontextprotocol/ui"`) {
		t.Error("mcpscope declared the UI extension (or the server sent its name): the recording holds io.modelcontextprotocol/ui")
	}
	// The table names each app tool and what its view says of itself.
	r = mcpscope(t, nil, append([]string{"--inspect", "--"}, testutil.NodeStdio(t, "apps-server.mjs")...)...)
	expect(t, r, 0, []string{"app           weather → ui://weather/view.html (text/html;profile=mcp-app; 83 bytes of HTML; connect: https://api.weather.example; resource: https://cdn.weather.example; permissions: geolocation)",
		`problem in tool "missing_app": view ui://missing/view.html: the view cannot be read`}, nil)
}
