package inspect

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/client"
)

// files is every file in dir, by name, with its contents.
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}

func names(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Every kind of block, saved by the text output (call --save-dir) and by
// SaveBlocks (call --format json --save-dir): the same blocks make the same files,
// because one function (classify) says what a block is for both. An embedded
// resource with neither text nor blob has nothing to save (the text output wrote
// an empty file for it, SaveBlocks nothing); blocks whose base64 is broken are said
// in the text and saved by neither.
func TestTextOutputAndSaveBlocksSaveTheSameBlocks(t *testing.T) {
	var pngBuf bytes.Buffer
	if err := png.Encode(&pngBuf, image.NewRGBA(image.Rect(0, 0, 3, 2))); err != nil {
		t.Fatal(err)
	}
	b64 := base64.StdEncoding.EncodeToString
	r := &client.CallResult{Content: []client.Content{
		{Type: "text", Text: "hello"},
		{Type: "image", MIMEType: "image/png", Data: b64(pngBuf.Bytes())},
		{Type: "image", MIMEType: "image/png", Data: "%%% not base64"},
		{Type: "audio", MIMEType: "audio/wav", Data: b64([]byte("RIFF-sound"))},
		{Type: "resource_link", URI: "file:///r.txt", Name: "r", MIMEType: "text/plain"},
		{Type: "resource", Resource: &client.ResourceContent{URI: "file:///notes.md", MIMEType: "text/markdown", Text: "# notes", HasText: true}},
		{Type: "resource", Resource: &client.ResourceContent{URI: "file:///b.bin", MIMEType: "application/octet-stream", Blob: b64([]byte{0, 1, 2}), HasBlob: true}},
		{Type: "resource", Resource: &client.ResourceContent{URI: "file:///bad.bin", Blob: "%%%", HasBlob: true}},
		{Type: "resource", Resource: &client.ResourceContent{URI: "file:///empty"}},
		{Type: "resource"},
		{Type: "video", Raw: []byte(`{"type":"video"}`)},
	}}
	textDir, jsonDir := filepath.Join(t.TempDir(), "text"), filepath.Join(t.TempDir(), "json")
	var text bytes.Buffer
	if err := WriteResult(&text, CallOutput{SaveDir: textDir, Tool: "t"}, r); err != nil {
		t.Fatal(err)
	}
	saved, err := SaveBlocks(CallOutput{Format: FormatJSON, SaveDir: jsonDir, Tool: "t"}, r)
	if err != nil {
		t.Fatal(err)
	}
	byText, byJSON := files(t, textDir), files(t, jsonDir)
	if got, want := strings.Join(names(byText), " "), strings.Join(names(byJSON), " "); got != want {
		t.Errorf("the text output saved %s; SaveBlocks saved %s", got, want)
	}
	for name, b := range byText {
		if byJSON[name] != b {
			t.Errorf("%s: %q from the text output, %q from SaveBlocks", name, b, byJSON[name])
		}
	}
	var blocks []int
	for _, s := range saved {
		blocks = append(blocks, s.Block)
	}
	if len(blocks) != 4 || blocks[0] != 2 || blocks[1] != 4 || blocks[2] != 6 || blocks[3] != 7 {
		t.Errorf("SaveBlocks saved blocks %v, want the image, the audio and the two embedded resources with contents (2 4 6 7)", blocks)
	}
	out := text.String()
	for _, want := range []string{"hello\n", "[image image/png, ", ", 3×2, saved to ", "not valid base64", "[audio audio/wav, 10 B, saved to ",
		"[resource link file:///r.txt \"r\", text/plain]", "[embedded resource file:///notes.md, text/markdown, text, 7 B, saved to ",
		"[embedded resource file:///b.bin, application/octet-stream, binary, 3 B, saved to ", "[embedded resource file:///empty, (no MIME type), neither text nor blob]",
		"[embedded resource without a resource member]", `[content of type "video": {"type":"video"}]`} {
		if !strings.Contains(out, want) {
			t.Errorf("the text output lacks %q:\n%s", want, out)
		}
	}
}
