package client

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpscope/mcpscope/client/wire"
)

// ResourceContents is one item of a resources/read result.
type ResourceContents struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     string `json:"blob,omitempty"` // base64
	HasText  bool   `json:"-"`
}

// ReadResource reads a resource (a resource_link's target, say), from the raw answer so
// that nothing the server sent is lost.
func (s *Session) ReadResource(ctx context.Context, uri string) ([]ResourceContents, error) {
	cctx, capture := wire.WithCapture(ctx)
	_, err := s.session().ReadResource(cctx, &mcp.ReadResourceParams{URI: uri})
	raw, ok := capture.Last("resources/read")
	if !ok {
		if err == nil {
			err = errors.New("no response was seen for resources/read")
		}
		return nil, s.callError(ctx, err)
	}
	result, err := parseResponse(raw)
	if err != nil {
		return nil, err
	}
	var r struct {
		Contents []map[string]json.RawMessage `json:"contents"`
	}
	if err := json.Unmarshal(result, &r); err != nil {
		return nil, err
	}
	out := make([]ResourceContents, 0, len(r.Contents))
	for _, c := range r.Contents {
		var rc ResourceContents
		_ = json.Unmarshal(c["uri"], &rc.URI)
		_ = json.Unmarshal(c["mimeType"], &rc.MIMEType)
		if t, ok := c["text"]; ok {
			rc.HasText = json.Unmarshal(t, &rc.Text) == nil
		}
		_ = json.Unmarshal(c["blob"], &rc.Blob)
		out = append(out, rc)
	}
	return out, nil
}
