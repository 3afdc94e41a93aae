package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// Bytes is the item's content: a text's bytes, or a blob decoded as a block's data is
// (Content.Bytes: unpadded and URL-safe base64 too). An item that is neither is an
// error.
func (c ResourceContents) Bytes() ([]byte, error) {
	switch {
	case c.HasText:
		return []byte(c.Text), nil
	case c.HasBlob:
		b, err := decodeBase64(c.Blob)
		if err != nil {
			return nil, fmt.Errorf("the blob is not valid base64: %v", err)
		}
		return b, nil
	}
	return nil, errors.New("the item is neither text nor blob")
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
