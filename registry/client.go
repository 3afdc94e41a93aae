package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"
)

// MaxResponse caps one response of a registry: the official registry's pages are
// tens of KiB, so 8 MiB is room for any honest page and a bound on a hostile one.
const MaxResponse = 8 << 20

// MaxPages bounds how many pages one search follows (100 entries a page): a registry
// whose cursor never ends cannot keep mcpscope reading.
const MaxPages = 20

// Client reads one registry.
type Client struct {
	Base string // the registry's base URL, without /v0.1
	HTTP *http.Client
	// UserAgent names mcpscope to the registry.
	UserAgent string
}

// BaseURL is the registry to use: flag (--registry) when given, else the setting
// (MCPSCOPE_REGISTRY), else the official registry. It must be an http(s) URL.
func BaseURL(flag string) (string, error) {
	base, from := flag, "--registry"
	if base == "" {
		base, from = os.Getenv(EnvRegistry), EnvRegistry
	}
	if base == "" {
		return Official, nil
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%s %q: give the registry's base URL, e.g. %s", from, base, Official)
	}
	return strings.TrimRight(base, "/"), nil
}

func (c *Client) http() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return &http.Client{Timeout: 30 * time.Second}
}

// get fetches one document of the registry's API into v.
func (c *Client) get(ctx context.Context, path string, q url.Values, v any) error {
	u := c.Base + "/v0.1" + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	if c.UserAgent != "" {
		req.Header.Set("User-Agent", c.UserAgent)
	}
	resp, err := c.http().Do(req)
	if err != nil {
		return fmt.Errorf("the registry %s cannot be reached: %w", c.Base, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponse+1))
	if err != nil {
		return fmt.Errorf("the registry %s: reading its answer: %w", c.Base, err)
	}
	if len(body) > MaxResponse {
		return fmt.Errorf("the registry %s answered more than %d MiB for %s: refused", c.Base, MaxResponse>>20, path)
	}
	if resp.StatusCode == http.StatusNotFound {
		return ErrNotFound
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error  string `json:"error"`
			Detail string `json:"detail"`
		}
		json.Unmarshal(body, &e)
		msg := e.Error + e.Detail
		if msg == "" {
			msg = http.StatusText(resp.StatusCode)
		}
		if r := []rune(msg); len(r) > 300 {
			msg = string(r[:300]) + "…" // a registry's words, bounded: one line of an error
		}
		return fmt.Errorf("the registry %s answered %d for %s: %s", c.Base, resp.StatusCode, path, msg)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("the registry %s sent no registry answer for %s (%v): is %s an MCP registry?", c.Base, path, err, c.Base)
	}
	return nil
}

// ErrNotFound is a server (or version) the registry does not have.
var ErrNotFound = errors.New("not found")

type serverList struct {
	Servers  []serverResponse `json:"servers"`
	Metadata struct {
		NextCursor string `json:"nextCursor"`
	} `json:"metadata"`
}

// Search lists the latest version of each server whose name or description holds
// query (the registry's own search; "" lists all), following pages up to MaxPages.
// Deleted servers are asked for only when all is set; entries that are not active
// are left out unless all is set (a sub-registry may not filter as the official one
// does). It returns the entries and whether pages were left unread.
func (c *Client) Search(ctx context.Context, query string, all bool) ([]Entry, bool, error) {
	q := url.Values{"version": {"latest"}, "limit": {"100"}}
	if query != "" {
		q.Set("search", query)
	}
	if all {
		q.Set("include_deleted", "true")
	}
	var out []Entry
	for page := 0; page < MaxPages; page++ {
		var l serverList
		if err := c.get(ctx, "/servers", q, &l); err != nil {
			if errors.Is(err, ErrNotFound) {
				return nil, false, fmt.Errorf("the registry %s has no /v0.1/servers: is it an MCP registry?", c.Base)
			}
			return nil, false, err
		}
		for _, r := range l.Servers {
			e, err := r.entry()
			if err != nil {
				continue // one broken entry costs only itself
			}
			if all || e.Active() {
				out = append(out, e)
			}
		}
		if l.Metadata.NextCursor == "" || len(l.Servers) == 0 {
			return out, false, nil
		}
		q.Set("cursor", l.Metadata.NextCursor)
	}
	return out, true, nil
}

// Get is one version of a server ("" or "latest": the latest).
func (c *Client) Get(ctx context.Context, name, version string) (Entry, error) {
	if version == "" {
		version = "latest"
	}
	var r serverResponse
	err := c.get(ctx, "/servers/"+url.PathEscape(name)+"/versions/"+url.PathEscape(version), nil, &r)
	if errors.Is(err, ErrNotFound) {
		if version == "latest" {
			return Entry{}, fmt.Errorf("the registry %s has no server %q (mcpscope registry search finds names)", c.Base, name)
		}
		return Entry{}, fmt.Errorf("the registry %s has no version %s of %q", c.Base, version, name)
	}
	if err != nil {
		return Entry{}, err
	}
	e, err := r.entry()
	if err != nil {
		return Entry{}, fmt.Errorf("the registry %s: %s: %v", c.Base, name, err)
	}
	return e, nil
}
