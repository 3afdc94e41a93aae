package validate

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"a":{"type":"number","minimum":0},"tags":{"type":"array","items":{"type":"string"}},"when":{"type":"string","format":"date"}},"required":["a"]}`)
	cases := []struct {
		value string
		want  []string // path: substring of message
	}{
		{`{"a":1,"tags":["x"]}`, nil},
		{`{}`, []string{"(root): missing property 'a'"}},
		{`{"a":-1}`, []string{"/a: minimum"}},
		{`{"a":"x","tags":[1]}`, []string{"/a: got string, want number", "/tags/0: got number, want string"}},
	}
	for _, tc := range cases {
		got, err := Check(schema, json.RawMessage(tc.value))
		if err != nil {
			t.Fatalf("%s: %v", tc.value, err)
		}
		if len(got) != len(tc.want) {
			t.Errorf("%s: got %v, want %v", tc.value, got, tc.want)
			continue
		}
		for i, w := range tc.want {
			path, msg, _ := strings.Cut(w, ": ")
			if !strings.HasPrefix(got[i].String(), path+": ") || !strings.Contains(got[i].Message, msg) {
				t.Errorf("%s: violation %d = %q, want %q", tc.value, i, got[i], w)
			}
		}
	}
}

func TestRemoteRefIsRefused(t *testing.T) {
	_, err := Check(json.RawMessage(`{"$ref":"https://example.com/s.json"}`), json.RawMessage(`1`))
	if err == nil || !strings.Contains(err.Error(), "self-contained") {
		t.Fatalf("err = %v", err)
	}
}

func TestLocalRefsAndOlderDrafts(t *testing.T) {
	schema := json.RawMessage(`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"n":{"type":"integer"}},"properties":{"x":{"$ref":"#/definitions/n"}}}`)
	got, err := Check(schema, json.RawMessage(`{"x":1.5}`))
	if err != nil || len(got) != 1 || got[0].Path != "/x" {
		t.Fatalf("got %v, %v", got, err)
	}
}

func TestBadSchema(t *testing.T) {
	if _, err := Check(json.RawMessage(`{"type":"objekt"}`), json.RawMessage(`{}`)); err == nil {
		t.Error("an invalid schema compiled")
	}
	if _, err := Check(json.RawMessage(`not json`), json.RawMessage(`{}`)); err == nil {
		t.Error("non-JSON schema accepted")
	}
}
