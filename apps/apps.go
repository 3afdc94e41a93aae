// Package apps reads the metadata of MCP Apps (the io.modelcontextprotocol/ui
// extension, SEP-1865) at the level a terminal can honour: which tools have a view,
// and whether that view's ui:// resource is served as hosts expect (issue 27 part 4).
//
// mcpscope never declares the extension itself: a server that believes its client
// renders views may send results meant for them, which a terminal cannot show.
// Nothing here runs or renders a view; the HTML is shown as source elsewhere.
package apps

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
)

// Extension is the extension's identifier, and MIMEType the type of a view's HTML.
const (
	Extension = "io.modelcontextprotocol/ui"
	MIMEType  = "text/html;profile=mcp-app"
)

// ToolUI is what a tool's _meta says of its view.
type ToolUI struct {
	// ResourceURI is the view's ui:// resource; "" for a tool without a view.
	ResourceURI string `json:"resourceUri"`
	// Visibility is who may call the tool ("model", "app"); empty means both.
	Visibility []string `json:"visibility,omitempty"`
}

// ModelHidden reports whether only the view may call the tool: hosts that render
// views keep it from the model.
func (u ToolUI) ModelHidden() bool {
	return len(u.Visibility) > 0 && !slices.Contains(u.Visibility, "model")
}

// FromToolMeta reads a tool's _meta. problems say what is wrong with it; a tool
// without a view has a zero ToolUI and no problems.
func FromToolMeta(meta json.RawMessage) (u ToolUI, problems []string) {
	if len(meta) == 0 || !strings.Contains(string(meta), `"ui`) { // "ui" or legacyKey
		return ToolUI{}, nil
	}
	var m struct {
		UI json.RawMessage `json:"ui"`
		// The flat key of the extension's first drafts, which the official server
		// helpers still write beside _meta.ui.resourceUri.
		Legacy *string `json:"ui/resourceUri"`
	}
	if json.Unmarshal(meta, &m) != nil {
		return ToolUI{}, nil // not an object: the tool decoder says so
	}
	if len(m.UI) > 0 && string(m.UI) != "null" {
		var ui struct {
			ResourceURI *string         `json:"resourceUri"`
			Visibility  json.RawMessage `json:"visibility"`
		}
		if err := json.Unmarshal(m.UI, &ui); err != nil {
			problems = append(problems, "_meta.ui is not an object of the MCP Apps extension")
		} else {
			if ui.ResourceURI != nil {
				u.ResourceURI = *ui.ResourceURI
			}
			if len(ui.Visibility) > 0 {
				if json.Unmarshal(ui.Visibility, &u.Visibility) != nil {
					problems = append(problems, "_meta.ui.visibility is not an array of strings")
				}
				for _, v := range u.Visibility {
					if v != "model" && v != "app" {
						problems = append(problems, fmt.Sprintf("_meta.ui.visibility has %q; the extension knows model and app", v))
					}
				}
			}
		}
	}
	if m.Legacy != nil {
		switch {
		case u.ResourceURI == "":
			u.ResourceURI = *m.Legacy
			problems = append(problems, `the view is named only by the draft key _meta["ui/resourceUri"]; current hosts read _meta.ui.resourceUri`)
		case *m.Legacy != u.ResourceURI:
			problems = append(problems, fmt.Sprintf(`_meta["ui/resourceUri"] (%q) and _meta.ui.resourceUri (%q) name different views`, *m.Legacy, u.ResourceURI))
		}
	}
	if u.ResourceURI != "" && !strings.HasPrefix(u.ResourceURI, "ui://") {
		problems = append(problems, fmt.Sprintf("_meta.ui.resourceUri %q is not a ui:// URI, which hosts require of a view", u.ResourceURI))
	}
	return u, problems
}

// Content is one item of a resources/read result as the check needs it.
type Content struct {
	URI, MIMEType, Text string
	HasText             bool
	// Meta is the item's _meta: its ui member holds the view's CSP and permissions.
	Meta json.RawMessage
}

// View is what a view's resource says of itself, and what is wrong with it.
type View struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	// Size is the HTML's length in bytes.
	Size int `json:"size"`
	// CSP are the origins the view may reach, by directive (connectDomains,
	// resourceDomains, frameDomains, baseUriDomains).
	CSP map[string][]string `json:"csp,omitempty"`
	// Permissions are the browser features it asks for (camera, microphone,
	// geolocation, clipboardWrite).
	Permissions   []string `json:"permissions,omitempty"`
	Domain        string   `json:"domain,omitempty"`
	PrefersBorder *bool    `json:"prefersBorder,omitempty"`
	Problems      []string `json:"problems,omitempty"`
}

// The CSP directives and permissions the extension defines.
var (
	cspKeys        = []string{"connectDomains", "resourceDomains", "frameDomains", "baseUriDomains"}
	permissionKeys = []string{"camera", "microphone", "geolocation", "clipboardWrite"}
)

// CheckView judges a view's resources/read result (readErr: the read failed).
func CheckView(uri string, contents []Content, readErr error) View {
	v := View{URI: uri}
	if readErr != nil {
		v.Problems = append(v.Problems, "the view cannot be read: "+readErr.Error())
		return v
	}
	i := slices.IndexFunc(contents, func(c Content) bool { return c.URI == uri })
	if i < 0 {
		if len(contents) == 0 {
			v.Problems = append(v.Problems, "the view's read returned no contents")
			return v
		}
		i = 0
		v.Problems = append(v.Problems, fmt.Sprintf("the view's read returned %q, not the URI asked for", contents[0].URI))
	}
	c := contents[i]
	v.MIMEType, v.Size = c.MIMEType, len(c.Text)
	if !sameMIME(c.MIMEType, MIMEType) {
		v.Problems = append(v.Problems, fmt.Sprintf("the view's mimeType is %q; hosts render only %q", c.MIMEType, MIMEType))
	}
	if !c.HasText || strings.TrimSpace(c.Text) == "" {
		v.Problems = append(v.Problems, "the view has no HTML text")
	}
	var meta struct {
		UI json.RawMessage `json:"ui"`
	}
	_ = json.Unmarshal(c.Meta, &meta)
	if len(meta.UI) > 0 && string(meta.UI) != "null" {
		v.meta(meta.UI)
	}
	return v
}

// meta reads a view's _meta.ui: its CSP, permissions, domain and border.
func (v *View) meta(raw json.RawMessage) {
	var ui struct {
		CSP           map[string]json.RawMessage `json:"csp"`
		Permissions   map[string]json.RawMessage `json:"permissions"`
		Domain        string                     `json:"domain"`
		PrefersBorder *bool                      `json:"prefersBorder"`
	}
	if err := json.Unmarshal(raw, &ui); err != nil {
		v.Problems = append(v.Problems, "the view's _meta.ui is not an object of the MCP Apps extension")
		return
	}
	v.Domain, v.PrefersBorder = ui.Domain, ui.PrefersBorder
	keys := make([]string, 0, len(ui.CSP))
	for k := range ui.CSP {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !slices.Contains(cspKeys, k) {
			v.Problems = append(v.Problems, fmt.Sprintf("the view's csp has %q, which the extension does not define (hosts ignore it)", k))
			continue
		}
		var origins []string
		if json.Unmarshal(ui.CSP[k], &origins) != nil {
			v.Problems = append(v.Problems, fmt.Sprintf("the view's csp.%s is not an array of origins", k))
			continue
		}
		if v.CSP == nil {
			v.CSP = map[string][]string{}
		}
		v.CSP[k] = origins
		for _, o := range origins {
			if why := broadOrigin(o); why != "" {
				v.Problems = append(v.Problems, fmt.Sprintf("the view's csp.%s allows %q: %s", k, o, why))
			}
		}
	}
	for k := range ui.Permissions {
		v.Permissions = append(v.Permissions, k)
	}
	sort.Strings(v.Permissions)
	for _, p := range v.Permissions {
		if !slices.Contains(permissionKeys, p) {
			v.Problems = append(v.Problems, fmt.Sprintf("the view asks for permission %q, which the extension does not define", p))
		}
	}
}

// broadOrigin says why an allowed origin is broader than a view should need, or "".
func broadOrigin(o string) string {
	switch {
	case o == "*" || o == "https:" || o == "http:" || o == "https://*" || o == "http://*":
		return "any origin"
	case strings.HasPrefix(o, "data:") || strings.HasPrefix(o, "blob:"):
		return "inline content of any origin"
	}
	u, err := url.Parse(o)
	if err != nil || u.Host == "" {
		return "not an origin (scheme://host)"
	}
	host := u.Hostname()
	if u.Scheme == "http" || u.Scheme == "ws" {
		if host != "localhost" && host != "127.0.0.1" && host != "[::1]" && host != "::1" {
			return "an unencrypted origin"
		}
	}
	if strings.HasPrefix(host, "*.") && !strings.Contains(host[2:], ".") {
		return "a whole top-level domain"
	}
	return ""
}

// sameMIME compares media types as hosts do: case-insensitive, spaces around ';'
// ignored.
func sameMIME(a, b string) bool {
	norm := func(s string) string {
		parts := strings.Split(strings.ToLower(s), ";")
		for i, p := range parts {
			parts[i] = strings.TrimSpace(p)
		}
		return strings.Join(parts, ";")
	}
	return norm(a) == norm(b)
}

// Summary is one line about a view for a detail pane or a table: its type, size, CSP
// and permissions.
func (v View) Summary() string {
	var parts []string
	if v.MIMEType != "" {
		parts = append(parts, v.MIMEType)
	}
	parts = append(parts, fmt.Sprintf("%d bytes of HTML", v.Size))
	for _, k := range cspKeys {
		if o, ok := v.CSP[k]; ok {
			name := strings.TrimSuffix(k, "Domains")
			if len(o) == 0 {
				parts = append(parts, name+": none")
			} else {
				parts = append(parts, name+": "+strings.Join(o, " "))
			}
		}
	}
	if len(v.Permissions) > 0 {
		parts = append(parts, "permissions: "+strings.Join(v.Permissions, " "))
	}
	if v.Domain != "" {
		parts = append(parts, "domain: "+v.Domain)
	}
	return strings.Join(parts, "; ")
}
