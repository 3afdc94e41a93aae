package client_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/testutil"
)

// Info keeps what the Servers view shows: serverInfo's website and icons, and on
// 2026-07-28 the server/discover result as sent.
func TestInfoServerInfoAndDiscover(t *testing.T) {
	t.Parallel()
	t.Run("host", func(t *testing.T) {
		t.Parallel()
		for _, tc := range []struct{ protocol, era string }{{"", client.EraModern}, {"2025-11-25", client.EraLegacy}} {
			s, _ := hostSession(t, client.Options{}, tc.protocol)
			info := s.Info()
			if info.Era != tc.era || info.Name != "mcpscope-host" || info.Title != "mcpscope bundled host" {
				t.Fatalf("%s: info = %+v", tc.era, info)
			}
			checkDiscover(t, info, tc.era == client.EraModern)
		}
	})
	t.Run("ts-sdk-v2", func(t *testing.T) {
		t.Parallel()
		srv := testutil.StartNode(t, "ts-server.mjs")
		for _, tc := range []struct{ protocol, era string }{{"", client.EraModern}, {"2025-11-25", client.EraLegacy}} {
			s, _ := connectURL(t, client.Target{URL: "http://" + srv.Addr + "/mcp"}, client.Options{Protocol: tc.protocol})
			info := s.Info()
			if info.Era != tc.era || info.Name != "ts-v2-interop" {
				t.Fatalf("%s: info = %+v", tc.era, info)
			}
			if info.WebsiteURL != "https://example.com/ts-v2-interop" {
				t.Errorf("%s: website %q", tc.era, info.WebsiteURL)
			}
			want := client.Icon{Src: "https://example.com/ts-v2-interop.png", MIMEType: "image/png", Sizes: []string{"48x48"}}
			if len(info.Icons) != 1 || info.Icons[0].Src != want.Src || info.Icons[0].MIMEType != want.MIMEType ||
				strings.Join(info.Icons[0].Sizes, ",") != "48x48" {
				t.Errorf("%s: icons %+v, want [%+v]", tc.era, info.Icons, want)
			}
			checkDiscover(t, info, tc.era == client.EraModern)
		}
	})
}

func checkDiscover(t *testing.T, info client.Info, modern bool) {
	t.Helper()
	if !modern {
		if info.Discover != nil {
			t.Errorf("a legacy session keeps a discover result: %s", info.Discover)
		}
		return
	}
	var d struct {
		SupportedVersions []string        `json:"supportedVersions"`
		Capabilities      json.RawMessage `json:"capabilities"`
	}
	if err := json.Unmarshal(info.Discover, &d); err != nil || len(d.SupportedVersions) == 0 || !strings.Contains(string(d.Capabilities), "tools") {
		t.Errorf("discover result %s (%v): want supportedVersions and capabilities as sent", info.Discover, err)
	}
}
