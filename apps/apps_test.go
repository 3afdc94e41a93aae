package apps

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestFromToolMeta(t *testing.T) {
	for _, tc := range []struct {
		meta, uri string
		vis       []string
		problem   string // a substring of the one problem, or ""
	}{
		{``, "", nil, ""},
		{`{"other":1}`, "", nil, ""},
		{`{"ui":{"resourceUri":"ui://w/v.html","visibility":["model","app"]},"ui/resourceUri":"ui://w/v.html"}`, "ui://w/v.html", []string{"model", "app"}, ""},
		{`{"ui/resourceUri":"ui://w/v.html"}`, "ui://w/v.html", nil, "draft key"},
		{`{"ui":{"resourceUri":"ui://a"},"ui/resourceUri":"ui://b"}`, "ui://a", nil, "name different views"},
		{`{"ui":{"resourceUri":"https://x/v.html"}}`, "https://x/v.html", nil, "not a ui:// URI"},
		{`{"ui":{"resourceUri":"ui://a","visibility":["robots"]}}`, "ui://a", []string{"robots"}, `"robots"`},
		{`{"ui":"ui://a"}`, "", nil, "not an object"},
	} {
		u, problems := FromToolMeta(json.RawMessage(tc.meta))
		if u.ResourceURI != tc.uri || !slices.Equal(u.Visibility, tc.vis) {
			t.Errorf("%s: %+v", tc.meta, u)
		}
		switch {
		case tc.problem == "" && len(problems) > 0:
			t.Errorf("%s: problems %q", tc.meta, problems)
		case tc.problem != "" && (len(problems) != 1 || !strings.Contains(problems[0], tc.problem)):
			t.Errorf("%s: problems %q; want one with %q", tc.meta, problems, tc.problem)
		}
	}
	if u, _ := FromToolMeta(json.RawMessage(`{"ui":{"resourceUri":"ui://a","visibility":["app"]}}`)); !u.ModelHidden() {
		t.Error("a tool only the view calls is not hidden from the model")
	}
}

func TestCheckView(t *testing.T) {
	good := Content{URI: "ui://w", MIMEType: "text/html; profile=mcp-app", Text: "<html></html>", HasText: true,
		Meta: json.RawMessage(`{"ui":{"csp":{"connectDomains":["https://api.example.com","http://localhost:3000"],"resourceDomains":[]},"permissions":{"camera":{}},"domain":"x.example"}}`)}
	v := CheckView("ui://w", []Content{good}, nil)
	if len(v.Problems) != 0 || v.Size != 13 || !slices.Equal(v.Permissions, []string{"camera"}) || len(v.CSP["connectDomains"]) != 2 {
		t.Fatalf("a good view: %+v", v)
	}
	if s := v.Summary(); s != "text/html; profile=mcp-app; 13 bytes of HTML; connect: https://api.example.com http://localhost:3000; resource: none; permissions: camera; domain: x.example" {
		t.Errorf("Summary() = %q", s)
	}
	for _, tc := range []struct {
		name     string
		contents []Content
		err      error
		want     []string
	}{
		{"unreadable", nil, errors.New("Resource not found"), []string{"cannot be read: Resource not found"}},
		{"empty", nil, nil, []string{"no contents"}},
		{"plain html", []Content{{URI: "ui://w", MIMEType: "text/html", Text: "<p>", HasText: true}}, nil, []string{`mimeType is "text/html"`}},
		{"blob", []Content{{URI: "ui://w", MIMEType: MIMEType}}, nil, []string{"no HTML text"}},
		{"other uri", []Content{{URI: "ui://x", MIMEType: MIMEType, Text: "<p>", HasText: true}}, nil, []string{`returned "ui://x"`}},
		{"broad csp", []Content{{URI: "ui://w", MIMEType: MIMEType, Text: "<p>", HasText: true,
			Meta: json.RawMessage(`{"ui":{"csp":{"connectDomains":["*","http://api.example.com","https://*.com"],"scriptDomains":["a"],"frameDomains":"x"},"permissions":{"telepathy":{}}}}`)}}, nil,
			[]string{`connectDomains allows "*": any origin`, `allows "http://api.example.com": an unencrypted origin`, `allows "https://*.com": a whole top-level domain`,
				`csp.frameDomains is not an array`, `"scriptDomains", which the extension does not define`, `permission "telepathy"`}},
	} {
		v := CheckView("ui://w", tc.contents, tc.err)
		all := strings.Join(v.Problems, "\n")
		if len(v.Problems) != len(tc.want) {
			t.Errorf("%s: problems\n%s\nwant %d", tc.name, all, len(tc.want))
		}
		for _, w := range tc.want {
			if !strings.Contains(all, w) {
				t.Errorf("%s: no problem with %q in\n%s", tc.name, w, all)
			}
		}
	}
}
