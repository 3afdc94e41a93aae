package client

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/mcpscope/mcpscope/internal/jsonscan"
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
	b, err := decodeBase64(data)
	if err != nil {
		return nil, fmt.Errorf("the %s block's data is not valid base64: %v", c.Type, err)
	}
	return b, nil
}

// decodeBase64 decodes standard base64, and what some servers send instead: unpadded
// or URL-safe base64.
func decodeBase64(data string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		if b2, err2 := base64.RawStdEncoding.DecodeString(data); err2 == nil {
			return b2, nil
		}
		if b2, err2 := base64.URLEncoding.DecodeString(data); err2 == nil {
			return b2, nil
		}
		return nil, err
	}
	return b, nil
}

func decodeCallResult(raw json.RawMessage) *CallResult {
	if r, ok := decodeCallResultFast(raw, false, false); ok {
		return r
	}
	return decodeCallResultTolerant(raw)
}

// decodeCallResultFast reads an ordinary, well-formed result in one validating pass
// over the bytes (none when validated says the caller has checked them) and walks of
// the members that skip strings by a vectorised search, which matters for a 100 MiB
// result. With shared, strings without escapes share raw's memory instead of being
// copied: the caller promises raw never changes (a captured frame). Anything unusual
// (an unknown member, a wrong type, an unknown block type, an escaped key) falls back
// to the tolerant decoder, which keeps every member and notes every problem.
func decodeCallResultFast(raw json.RawMessage, validated, shared bool) (*CallResult, bool) {
	if !validated && jsonscan.Valid(raw) != nil {
		return nil, false
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	str := jsonscan.String
	if shared {
		str = jsonscan.SharedStringTrusted
	}
	r := &CallResult{Raw: raw, ResultType: "complete"}
	ok := true
	jsonscan.MembersTrusted(raw, func(key, v []byte) bool {
		switch string(key) {
		case "content":
			r.Content, ok = fastContentList(v, str)
		case "structuredContent":
			r.Structured = nil
			if string(v) != "null" {
				r.Structured = v
			}
		case "isError":
			switch string(v) {
			case "true":
				r.IsError = true
			case "false", "null":
				r.IsError = false
			default:
				ok = false
			}
		case "resultType":
			if string(v) != "null" {
				r.ResultType, ok = str(v)
			}
		case "_meta":
			r.Meta = v
		default:
			ok = false
		}
		return ok
	})
	if !ok {
		return nil, false
	}
	if r.ResultType == "" {
		r.ResultType = "complete"
	}
	if r.Content == nil {
		r.Content = []Content{}
	}
	return r, true
}

func fastContentList(v []byte, str func([]byte) (string, bool)) ([]Content, bool) {
	if string(v) == "null" {
		return []Content{}, true
	}
	if v[0] != '[' {
		return nil, false
	}
	list := []Content{}
	ok := true
	jsonscan.ElementsTrusted(v, func(e []byte) bool {
		var c Content
		if c, ok = fastContent(e, str); ok {
			list = append(list, c)
		}
		return ok
	})
	return list, ok
}

// fastContent reads one content block of a known type with members of the right types.
func fastContent(e []byte, str func([]byte) (string, bool)) (Content, bool) {
	var c Content
	if e[0] != '{' {
		return c, false
	}
	ok := true
	strField := func(dst *string, v []byte) {
		if string(v) == "null" {
			*dst = ""
			return
		}
		if v[0] != '"' {
			ok = false
			return
		}
		*dst, ok = str(v)
	}
	jsonscan.MembersTrusted(e, func(key, v []byte) bool {
		switch string(key) {
		case "type":
			strField(&c.Type, v)
		case "text":
			strField(&c.Text, v)
		case "mimeType":
			strField(&c.MIMEType, v)
		case "data":
			strField(&c.Data, v)
		case "uri":
			strField(&c.URI, v)
		case "name":
			strField(&c.Name, v)
		case "title":
			strField(&c.Title, v)
		case "description":
			strField(&c.Description, v)
		case "size":
			c.Size = nil
			if string(v) != "null" {
				n, err := strconv.ParseInt(string(v), 10, 64)
				if err != nil {
					ok = false
					break
				}
				c.Size = &n
			}
		case "annotations":
			c.Annotations = nil
			if string(v) != "null" {
				c.Annotations = v
			}
		case "_meta":
		case "resource":
			c.Resource = nil
			if string(v) != "null" {
				c.Resource, ok = fastResource(v, str)
			}
		default:
			ok = false
		}
		return ok
	})
	if !ok {
		return c, false
	}
	switch c.Type {
	case "text", "image", "audio", "resource_link":
	case "resource":
		if c.Resource == nil {
			return c, false
		}
	default:
		return c, false
	}
	return c, true
}

func fastResource(v []byte, str func([]byte) (string, bool)) (*ResourceContent, bool) {
	if v[0] != '{' {
		return nil, false
	}
	rc := &ResourceContent{}
	ok := true
	get := func(v []byte) string {
		if string(v) == "null" {
			return ""
		}
		if v[0] != '"' {
			ok = false
			return ""
		}
		s, good := str(v)
		ok = ok && good
		return s
	}
	jsonscan.MembersTrusted(v, func(key, v []byte) bool {
		switch string(key) {
		case "uri":
			rc.URI = get(v)
		case "mimeType":
			rc.MIMEType = get(v)
		case "text":
			rc.Text, rc.HasText = get(v), string(v) != "null"
		case "blob":
			rc.Blob, rc.HasBlob = get(v), string(v) != "null"
		case "_meta":
		default:
			ok = false
		}
		return ok
	})
	return rc, ok
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
