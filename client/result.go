package client

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
)

// CallResult is a tools/call result read from the raw response, so that content the
// SDK cannot decode (an unknown block type, a wrong JSON type) is still shown.
type CallResult struct {
	Content []Content
	// Structured is structuredContent as sent; nil when absent.
	Structured json.RawMessage
	IsError    bool
	ResultType string // 2026-07-28: "complete" (also when absent), "input_required", ...
	Meta       json.RawMessage
	Extra      map[string]json.RawMessage
	// Raw is the whole result object as received.
	Raw json.RawMessage
	// Problems lists what is wrong with the result's shape.
	Problems []string
	// SDKError is what the SDK said when it could not decode the result itself.
	SDKError string
}

// Content is one content block.
type Content struct {
	Type        string
	Text        string // text
	MIMEType    string // image, audio, resource_link, resource
	Data        string // image, audio: base64 as sent
	URI         string // resource_link, resource
	Name        string // resource_link
	Title       string
	Description string
	Size        *int64           // resource_link
	Resource    *ResourceContent // resource (embedded)
	Annotations json.RawMessage
	Raw         json.RawMessage
	Problem     string
}

// ResourceContent is the resource inside an embedded resource block.
type ResourceContent struct {
	URI      string `json:"uri"`
	MIMEType string `json:"mimeType,omitempty"`
	Text     string `json:"text,omitempty"`
	Blob     string `json:"blob,omitempty"`
	HasText  bool   `json:"-"`
	HasBlob  bool   `json:"-"`
}

// Bytes decodes the block's binary payload (image/audio data, an embedded blob).
func (c Content) Bytes() ([]byte, error) {
	data := c.Data
	if c.Resource != nil && c.Resource.HasBlob {
		data = c.Resource.Blob
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		// Some servers send unpadded or URL-safe base64.
		if b2, err2 := base64.RawStdEncoding.DecodeString(data); err2 == nil {
			return b2, nil
		}
		if b2, err2 := base64.URLEncoding.DecodeString(data); err2 == nil {
			return b2, nil
		}
		return nil, fmt.Errorf("the %s block's data is not valid base64: %v", c.Type, err)
	}
	return b, nil
}

func decodeCallResult(raw json.RawMessage) *CallResult {
	r := &CallResult{Raw: raw, ResultType: "complete"}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		r.Problems = append(r.Problems, fmt.Sprintf("the result is %s, not an object", jsonKind(raw)))
		return r
	}
	if v, ok := m["content"]; ok {
		delete(m, "content")
		var items []json.RawMessage
		if err := json.Unmarshal(v, &items); err != nil {
			r.Problems = append(r.Problems, fmt.Sprintf("content is %s, not an array", jsonKind(v)))
		}
		for _, it := range items {
			r.Content = append(r.Content, decodeContent(it))
		}
	}
	if v, ok := m["structuredContent"]; ok {
		delete(m, "structuredContent")
		if string(v) != "null" {
			r.Structured = v
		}
	}
	if v, ok := m["isError"]; ok {
		delete(m, "isError")
		if err := json.Unmarshal(v, &r.IsError); err != nil {
			r.Problems = append(r.Problems, fmt.Sprintf("isError is %s, not a boolean", jsonKind(v)))
		}
	}
	if v, ok := m["resultType"]; ok {
		delete(m, "resultType")
		_ = json.Unmarshal(v, &r.ResultType)
	}
	if v, ok := m["_meta"]; ok {
		delete(m, "_meta")
		r.Meta = v
	}
	if len(m) > 0 {
		r.Extra = m
	}
	return r
}

func decodeContent(raw json.RawMessage) Content {
	c := Content{Raw: raw}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		c.Problem = fmt.Sprintf("content block is %s, not an object", jsonKind(raw))
		return c
	}
	get := func(key string) string {
		var s string
		if v, ok := m[key]; ok {
			if json.Unmarshal(v, &s) != nil {
				c.Problem = fmt.Sprintf("%s is %s, not a string", key, jsonKind(v))
			}
		}
		return s
	}
	c.Type = get("type")
	c.Text = get("text")
	c.MIMEType = get("mimeType")
	c.Data = get("data")
	c.URI = get("uri")
	c.Name = get("name")
	c.Title = get("title")
	c.Description = get("description")
	c.Annotations = m["annotations"]
	if v, ok := m["size"]; ok {
		var n int64
		if json.Unmarshal(v, &n) == nil {
			c.Size = &n
		}
	}
	if v, ok := m["resource"]; ok {
		var rm map[string]json.RawMessage
		if json.Unmarshal(v, &rm) == nil {
			rc := &ResourceContent{}
			_ = json.Unmarshal(rm["uri"], &rc.URI)
			_ = json.Unmarshal(rm["mimeType"], &rc.MIMEType)
			if t, ok := rm["text"]; ok {
				rc.HasText = json.Unmarshal(t, &rc.Text) == nil
			}
			if b, ok := rm["blob"]; ok {
				rc.HasBlob = json.Unmarshal(b, &rc.Blob) == nil
			}
			c.Resource = rc
		} else {
			c.Problem = "resource is not an object"
		}
	}
	switch c.Type {
	case "text", "image", "audio", "resource_link", "resource":
	case "":
		if c.Problem == "" {
			c.Problem = "content block has no type"
		}
	default:
		if c.Problem == "" {
			c.Problem = fmt.Sprintf("unknown content type %q (shown raw)", c.Type)
		}
	}
	return c
}
