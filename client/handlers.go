//lint:file-ignore SA1019 sampling and roots are deprecated by protocol 2026-07-28 (SEP-2577) but still spoken by servers of earlier revisions, which the client must serve; the SDK keeps them functional for the deprecation window.

package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SamplingRequest is a server asking for a model reply (sampling/createMessage, or
// the same inside a 2026-07-28 input_required result).
type SamplingRequest struct {
	Messages         []SamplingMessage
	SystemPrompt     string
	MaxTokens        int64
	Temperature      float64
	StopSequences    []string
	IncludeContext   string
	ModelPreferences json.RawMessage
	Tools            json.RawMessage
	ToolChoice       json.RawMessage
	Raw              json.RawMessage // the params as the SDK decoded them
}

// SamplingMessage is one message the server wants a reply to.
type SamplingMessage struct {
	Role    string
	Content []Content
}

// SamplingResponse is the reply: the assistant's text and the model that wrote it.
// Reject refuses the request (the server gets a JSON-RPC error).
type SamplingResponse struct {
	Reject     bool
	Text       string
	Model      string
	StopReason string
}

// ErrSamplingRejected is what the server is told when the user rejects a request:
// the spec's code for it, -1 (as a plain error the SDK sent code 0).
var ErrSamplingRejected error = &jsonrpc.Error{Code: -1, Message: "the user rejected the sampling request"}

// Root is one root the client offers the server (roots/list).
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// RootFromDir makes a file:// root of a directory (made absolute).
func RootFromDir(dir string) (Root, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Root{}, err
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	return Root{URI: u.String(), Name: filepath.Base(abs)}, nil
}

// configureHandlers sets the SDK's handlers and capabilities for what the caller
// asked for. Nothing is declared unless asked: see the comment in Connect.
func (s *Session) configureHandlers(copts *mcp.ClientOptions) {
	opts := s.opts
	caps := copts.Capabilities
	if opts.Elicit != nil {
		caps.Elicitation = &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}}
	}
	if opts.Sample != nil {
		caps.Sampling = &mcp.SamplingCapabilities{}
		copts.CreateMessageWithToolsHandler = func(ctx context.Context, req *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
			sr := samplingRequest(req.Params)
			// The SDK answers 2026-07-28's input_required sampling here too, where
			// no request crosses the wire: note it as the wire's requests are.
			if raw, err := json.Marshal(req.Params); err == nil {
				s.noteServerRequest("sampling/createMessage", raw)
			}
			resp, err := opts.Sample(ctx, sr)
			if err != nil {
				return nil, err
			}
			if resp.Reject {
				return nil, ErrSamplingRejected
			}
			model := resp.Model
			if model == "" {
				model = "mcpscope-human"
			}
			stop := resp.StopReason
			if stop == "" {
				stop = "endTurn"
			}
			return &mcp.CreateMessageWithToolsResult{Role: "assistant", Model: model, StopReason: stop, Content: []mcp.Content{&mcp.TextContent{Text: resp.Text}}}, nil
		}
	}
	if opts.Roots != nil {
		caps.RootsV2 = &mcp.RootCapabilities{ListChanged: true}
	}
	if opts.OnResourceUpdated != nil {
		copts.ResourceUpdatedHandler = func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			if req.Params != nil {
				opts.OnResourceUpdated(req.Params.URI)
			}
		}
	}
	if opts.OnResourcesChanged != nil {
		copts.ResourceListChangedHandler = func(context.Context, *mcp.ResourceListChangedRequest) { opts.OnResourcesChanged() }
	}
	if opts.OnPromptsChanged != nil {
		copts.PromptListChangedHandler = func(context.Context, *mcp.PromptListChangedRequest) { opts.OnPromptsChanged() }
	}
	// What the raw path declares in a 2026-07-28 request's _meta: the same as the SDK.
	decl := map[string]any{}
	if caps.Elicitation != nil {
		decl["elicitation"] = map[string]any{"form": map[string]any{}, "url": map[string]any{}}
	}
	if caps.Sampling != nil {
		decl["sampling"] = map[string]any{}
	}
	if caps.RootsV2 != nil {
		decl["roots"] = map[string]any{}
	}
	s.declared = decl
}

// addRoots gives the SDK client its initial roots.
func (s *Session) addRoots() {
	if len(s.opts.Roots) == 0 {
		return
	}
	roots := make([]*mcp.Root, 0, len(s.opts.Roots))
	for _, r := range s.opts.Roots {
		roots = append(roots, &mcp.Root{URI: r.URI, Name: r.Name})
	}
	s.client.AddRoots(roots...)
}

// SetRoots replaces the roots; the server is told with
// notifications/roots/list_changed (2025 era) when it has a session.
func (s *Session) SetRoots(roots []Root) error {
	if s.opts.Roots == nil {
		return &UsageError{Msg: "roots were not declared for this session (--root)"}
	}
	want := map[string]Root{}
	for _, r := range roots {
		if !strings.HasPrefix(r.URI, "file://") {
			return &UsageError{Msg: fmt.Sprintf("root %q is not a file:// URI", r.URI)}
		}
		want[r.URI] = r
	}
	s.mu.Lock()
	old := s.roots
	s.roots = append([]Root(nil), roots...)
	s.mu.Unlock()
	var gone []string
	for _, r := range old {
		if _, ok := want[r.URI]; !ok {
			gone = append(gone, r.URI)
		}
	}
	if len(gone) > 0 {
		s.client.RemoveRoots(gone...)
	}
	add := make([]*mcp.Root, 0, len(roots))
	for _, r := range roots {
		add = append(add, &mcp.Root{URI: r.URI, Name: r.Name})
	}
	if len(add) > 0 {
		s.client.AddRoots(add...)
	}
	return nil
}

// Roots returns the roots offered now.
func (s *Session) Roots() []Root {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Root(nil), s.roots...)
}

func samplingRequest(p *mcp.CreateMessageWithToolsParams) SamplingRequest {
	var sr SamplingRequest
	if p == nil {
		return sr
	}
	sr.Raw, _ = json.Marshal(p)
	sr.SystemPrompt, sr.MaxTokens, sr.Temperature = p.SystemPrompt, p.MaxTokens, p.Temperature
	sr.StopSequences, sr.IncludeContext = p.StopSequences, p.IncludeContext
	if p.ModelPreferences != nil {
		sr.ModelPreferences, _ = json.Marshal(p.ModelPreferences)
	}
	if len(p.Tools) > 0 {
		sr.Tools, _ = json.Marshal(p.Tools)
	}
	if p.ToolChoice != nil {
		sr.ToolChoice, _ = json.Marshal(p.ToolChoice)
	}
	for _, m := range p.Messages {
		if m == nil {
			continue
		}
		sm := SamplingMessage{Role: string(m.Role)}
		for _, c := range m.Content {
			raw, err := json.Marshal(c)
			if err != nil {
				sm.Content = append(sm.Content, Content{Problem: err.Error()})
				continue
			}
			sm.Content = append(sm.Content, decodeContent(raw))
		}
		sr.Messages = append(sr.Messages, sm)
	}
	return sr
}
