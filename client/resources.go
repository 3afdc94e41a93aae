package client

import (
	"context"
	"encoding/json"
)

// ResourceContents is one item of a resources/read result.
type ResourceContents struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     string `json:"blob,omitempty"` // base64
	HasText  bool   `json:"-"`
	HasBlob  bool   `json:"-"`
	// Meta is the item's _meta as sent (an MCP Apps view's CSP and permissions).
	Meta json.RawMessage `json:"-"`
	// Problem says what is wrong with the item (neither text nor blob); Raw is the item.
	Problem string          `json:"-"`
	Raw     json.RawMessage `json:"-"`
}

// ReadResource reads a resource (a resource_link's target, say), from the raw answer so
// that nothing the server sent is lost.
func (s *Session) ReadResource(ctx context.Context, uri string) ([]ResourceContents, error) {
	r, err := s.Read(ctx, uri)
	if err != nil {
		return nil, err
	}
	return r.Contents, nil
}
