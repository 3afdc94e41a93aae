package inspect

import "github.com/mcpscope/mcpscope/client"

// blockKind is what a content block is, for the text rendering of a result
// (describe) and for --save-dir (SaveBlocks, with --format json) alike: the two
// asked the question each in a switch of its own, and answered it differently (an
// embedded resource with neither text nor blob was saved as an empty file by one
// and not by the other).
type blockKind int

const (
	blockText         blockKind = iota
	blockMedia                  // image or audio: base64 data
	blockLink                   // resource_link: a URI, no contents
	blockEmbedded               // resource: contents inside, as text or a blob
	blockEmbeddedNone           // resource without a resource member
	blockUnknown                // a type MCP does not define, or one that failed to decode
)

// block is a content block as classify sees it: what it is and, for one with
// contents, the bytes a save writes.
type block struct {
	kind     blockKind
	mimeType string
	// binary: the contents are decoded bytes (an image, audio, an embedded blob), as
	// opposed to an embedded resource's text.
	binary bool
	// data is what a save writes; nil when the block has no contents of its own
	// (text is printed, a link names its resource, an embedded resource may hold
	// neither text nor blob) or when they failed to decode (err).
	data []byte
	err  error // the base64 of the block's contents is not valid
}

// saves says whether the block has contents to write into --save-dir.
func (b block) saves() bool { return b.data != nil }

// classify is the one place that decides what a content block is.
func classify(c client.Content) block {
	switch c.Type {
	case "text":
		return block{kind: blockText}
	case "image", "audio":
		b := block{kind: blockMedia, mimeType: c.MIMEType, binary: true}
		b.data, b.err = c.Bytes()
		return b
	case "resource_link":
		return block{kind: blockLink, mimeType: c.MIMEType}
	case "resource":
		rc := c.Resource
		if rc == nil {
			return block{kind: blockEmbeddedNone}
		}
		b := block{kind: blockEmbedded, mimeType: rc.MIMEType}
		switch {
		case rc.HasText:
			b.data = []byte(rc.Text)
		case rc.HasBlob:
			b.binary = true
			b.data, b.err = c.Bytes()
		}
		return b
	}
	return block{kind: blockUnknown}
}
