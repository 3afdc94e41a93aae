package client

import (
	"bytes"
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
	if r, ok := decodeCallResultFast(raw); ok {
		return r
	}
	return decodeCallResultTolerant(raw)
}

// fastResult is the shape of an ordinary, well-formed result. Decoding into it takes
// one pass over the bytes, which matters for a 50 MB result; anything unusual (an
// unknown member, a wrong type, an unknown block type) falls back to the tolerant
// decoder, which keeps every member and notes every problem.
type fastResult struct {
	Content           []fastContent   `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
	ResultType        string          `json:"resultType"`
	Meta              json.RawMessage `json:"_meta"`
}

type fastContent struct {
	Type        string          `json:"type"`
	Text        string          `json:"text"`
	MIMEType    string          `json:"mimeType"`
	Data        string          `json:"data"`
	URI         string          `json:"uri"`
	Name        string          `json:"name"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Size        *int64          `json:"size"`
	Annotations json.RawMessage `json:"annotations"`
	Meta        json.RawMessage `json:"_meta"`
	Resource    *struct {
		URI      string          `json:"uri"`
		MIMEType string          `json:"mimeType"`
		Text     *string         `json:"text"`
		Blob     *string         `json:"blob"`
		Meta     json.RawMessage `json:"_meta"`
	} `json:"resource"`
}

func decodeCallResultFast(raw json.RawMessage) (*CallResult, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var f fastResult
	if dec.Decode(&f) != nil || dec.More() {
		return nil, false
	}
	r := &CallResult{Raw: raw, ResultType: f.ResultType, IsError: f.IsError, Meta: f.Meta}
	if r.ResultType == "" {
		r.ResultType = "complete"
	}
	if len(f.StructuredContent) > 0 && string(f.StructuredContent) != "null" {
		r.Structured = f.StructuredContent
	}
	r.Content = make([]Content, 0, len(f.Content))
	for _, fc := range f.Content {
		c := Content{Type: fc.Type, Text: fc.Text, MIMEType: fc.MIMEType, Data: fc.Data, URI: fc.URI,
			Name: fc.Name, Title: fc.Title, Description: fc.Description, Size: fc.Size, Annotations: fc.Annotations}
		switch fc.Type {
		case "text", "image", "audio", "resource_link":
		case "resource":
			if fc.Resource == nil {
				return nil, false
			}
			rc := &ResourceContent{URI: fc.Resource.URI, MIMEType: fc.Resource.MIMEType}
			if fc.Resource.Text != nil {
				rc.Text, rc.HasText = *fc.Resource.Text, true
			}
			if fc.Resource.Blob != nil {
				rc.Blob, rc.HasBlob = *fc.Resource.Blob, true
			}
			c.Resource = rc
		default:
			return nil, false
		}
		r.Content = append(r.Content, c)
	}
	return r, true
}

func decodeCallResultTolerant(raw json.RawMessage) *CallResult {
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

// ParseCallResponse reads a recorded tools/call response message: its result, or its
// JSON-RPC error as *RPCError.
func ParseCallResponse(msg json.RawMessage) (*CallResult, error) {
	result, err := parseResponse(msg)
	if err != nil {
		return nil, err
	}
	return decodeCallResult(result), nil
}
