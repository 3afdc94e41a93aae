package check

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/plural"
	"github.com/mcpscope/mcpscope/oauth"
)

// speak: the handshake, auth metadata, every list followed to its end, and what
// 2026-07-28 asks of lists (a deterministic order, ttlMs and cacheScope).
func (r *runner) speak(ctx context.Context) {
	s := r.conn.Session
	info := r.info
	var details []string
	if info.Name != "" {
		details = append(details, "server: "+strings.TrimSpace(info.Name+" "+info.Version))
	}
	if info.Era == client.EraModern {
		var d struct {
			Supported []string `json:"supportedVersions"`
		}
		_ = json.Unmarshal(info.Discover, &d)
		details = append(details, "versions offered (server/discover): "+strings.Join(d.Supported, ", "))
	} else {
		details = append(details, "version agreed (initialize): "+info.ProtocolVersion)
	}
	details = append(details, "capabilities: "+strings.Join(capNames(info.Capabilities), ", "))
	how := "initialize"
	if info.Era == client.EraModern {
		how = "server/discover"
	}
	r.add(StepSpeak, "handshake", Pass, how+" answered: "+info.ProtocolVersion, details...)

	r.auth(ctx)

	tl, err := s.RefreshTools(ctx)
	switch {
	case err != nil:
		r.failed = StepSpeak + "/tools"
		why, details := reason(err)
		r.add(StepSpeak, "tools", Fail, "tools/list failed: "+why, details...)
	case len(tl.Problems) > 0:
		r.tools = tl.Tools
		r.add(StepSpeak, "tools", Warn, fmt.Sprintf("%s in %s, with problems", plural.Count(len(tl.Tools), "tool"), plural.Count(tl.Pages, "page")), tl.Problems...)
	default:
		r.tools = tl.Tools
		r.add(StepSpeak, "tools", Pass, fmt.Sprintf("%s in %s", plural.Count(len(tl.Tools), "tool"), plural.Count(tl.Pages, "page")))
	}
	list := func(name, capability string, run func() (int, int, []string, error)) {
		if !s.HasCapability(capability) {
			r.add(StepSpeak, name, Skip, "the server declares no "+capability+" capability")
			return
		}
		n, pages, problems, err := run()
		switch {
		case err != nil:
			why, details := reason(err)
			r.add(StepSpeak, name, Fail, why, details...)
		case len(problems) > 0:
			r.add(StepSpeak, name, Warn, fmt.Sprintf("%d in %s, with problems", n, plural.Count(pages, "page")), problems...)
		default:
			r.add(StepSpeak, name, Pass, fmt.Sprintf("%d in %s", n, plural.Count(pages, "page")))
		}
	}
	list("resources", "resources", func() (int, int, []string, error) {
		l, err := s.Resources(ctx)
		if err != nil {
			return 0, 0, nil, err
		}
		return len(l.Items), l.Pages, l.Problems, nil
	})
	list("templates", "resources", func() (int, int, []string, error) {
		l, err := s.ResourceTemplates(ctx)
		if err != nil {
			return 0, 0, nil, err
		}
		return len(l.Items), l.Pages, l.Problems, nil
	})
	list("prompts", "prompts", func() (int, int, []string, error) {
		l, err := s.Prompts(ctx)
		if err != nil {
			return 0, 0, nil, err
		}
		return len(l.Items), l.Pages, l.Problems, nil
	})

	if info.Era != client.EraModern {
		r.add(StepSpeak, "order", Skip, "the "+info.ProtocolVersion+" era asks for no list order")
		r.add(StepSpeak, "cache", Skip, "ttlMs and cacheScope are 2026-07-28's")
		return
	}
	r.order(ctx, tl)
	r.cache(ctx)
}

// capNames is the top-level capabilities, sorted.
func capNames(raw json.RawMessage) []string {
	var caps map[string]json.RawMessage
	_ = json.Unmarshal(raw, &caps)
	var out []string
	for k := range caps {
		out = append(out, k)
	}
	sort.Strings(out)
	if len(out) == 0 {
		return []string{"(none)"}
	}
	return out
}

// auth says what a host would find to log in with: the protected resource and
// authorization server metadata, or that none is needed.
func (r *runner) auth(ctx context.Context) {
	if r.o.Target.URL == "" {
		r.add(StepSpeak, "auth", Skip, "stdio: no HTTP authorization")
		return
	}
	status := 200
	if r.needsLogin || r.o.Target.Header.Get("Authorization") != "" || r.o.Target.OAuth != nil {
		status = 401 // connected with credentials: a login is expected
	}
	m, err := oauth.Discover(ctx, r.o.Target.URL, status, r.o.HTTP)
	switch {
	case err != nil:
		r.add(StepSpeak, "auth", Fail, err.Error())
	case m.None:
		r.add(StepSpeak, "auth", Pass, "none needed: the server answered without credentials and publishes no OAuth metadata")
	case m.Resource == nil:
		r.add(StepSpeak, "auth", Warn, "no protected resource metadata (RFC 9728): a 2025-06-18 or later host cannot find the authorization server", m.Issuer.Text())
	default:
		r.add(StepSpeak, "auth", Pass, "protected resource and authorization server metadata found", m.Resource.Text(), m.Issuer.Text())
	}
}

// order lists the tools again: 2026-07-28 asks for the same order each time.
func (r *runner) order(ctx context.Context, first *client.ToolList) {
	if first == nil {
		r.add(StepSpeak, "order", Skip, "not run: tools/list failed")
		return
	}
	again, err := r.conn.Session.RefreshTools(ctx)
	if err != nil {
		why, details := reason(err)
		r.add(StepSpeak, "order", Fail, "the second tools/list failed: "+why, details...)
		return
	}
	names := func(l *client.ToolList) []string {
		var out []string
		for _, t := range l.Tools {
			out = append(out, t.Name)
		}
		return out
	}
	a, b := names(first), names(again)
	if slices.Equal(a, b) {
		r.add(StepSpeak, "order", Pass, "two listings of "+plural.Count(len(a), "tool")+" came in the same order")
		return
	}
	r.add(StepSpeak, "order", Fail, "two listings came in different orders (2026-07-28: tools should come in a deterministic order, so that caches and prompts stay stable)",
		"first:  "+strings.Join(a, ", "), "second: "+strings.Join(b, ", "))
}

// cache checks ttlMs and cacheScope on the results 2026-07-28 requires them on.
func (r *runner) cache(ctx context.Context) {
	s := r.conn.Session
	var bad, good []string
	look := func(method string, result json.RawMessage) {
		var c struct {
			ResultType string          `json:"resultType"`
			TTL        json.RawMessage `json:"ttlMs"`
			Scope      *string         `json:"cacheScope"`
		}
		if err := json.Unmarshal(result, &c); err != nil {
			bad = append(bad, method+": the result is not an object")
			return
		}
		if c.ResultType != "" && c.ResultType != "complete" {
			return
		}
		var ttl int64
		switch {
		case c.TTL == nil:
			bad = append(bad, method+": no ttlMs")
		case json.Unmarshal(c.TTL, &ttl) != nil || ttl < 0:
			bad = append(bad, method+": ttlMs is "+string(c.TTL)+", not an integer of 0 or more")
		case c.Scope == nil:
			bad = append(bad, method+": no cacheScope")
		case *c.Scope != "public" && *c.Scope != "private":
			bad = append(bad, fmt.Sprintf("%s: cacheScope is %q, not public or private", method, *c.Scope))
		default:
			good = append(good, fmt.Sprintf("%s: ttlMs %d, cacheScope %s", method, ttl, *c.Scope))
		}
	}
	if r.info.Discover != nil {
		look("server/discover", r.info.Discover)
	}
	methods := []string{"tools/list"}
	if s.HasCapability("prompts") {
		methods = append(methods, "prompts/list")
	}
	if s.HasCapability("resources") {
		methods = append(methods, "resources/list", "resources/templates/list")
	}
	for _, m := range methods {
		raw, err := s.Raw(ctx, m, json.RawMessage(`{}`))
		if err != nil {
			bad = append(bad, m+": "+err.Error())
			continue
		}
		var resp struct {
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code    int64  `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(raw, &resp) != nil || resp.Error != nil || resp.Result == nil {
			bad = append(bad, m+": no result")
			continue
		}
		look(m, resp.Result)
	}
	if len(bad) > 0 {
		r.add(StepSpeak, "cache", Fail, "2026-07-28 requires ttlMs and cacheScope on these results", append(bad, good...)...)
		return
	}
	r.add(StepSpeak, "cache", Pass, "ttlMs and cacheScope on "+plural.Count(len(good), "result"), good...)
}
