package main_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// --save-dir is judged before the call: a tool may act, and a path that is a file
// was found only when the first block was saved, after the call ran and half its
// output was printed (exit 1). Now: exit 2 and nothing printed or called.
func TestCallSaveDirThatIsAFileIsRefusedBeforeTheCall(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(file, []byte("keep me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := mcpscope(t, nil, "call", "image", "--save-dir", file)
	expect(t, r, 2, nil, []string{"--save-dir " + file + " is not a directory"})
	if r.stdout != "" {
		t.Errorf("the call ran and printed before --save-dir was refused:\n%s", r.stdout)
	}
}

// --save-dir with --format json saves the blocks too, and says where on stderr (stdout
// is the result as sent, for a script to parse). Before, --format json ignored
// --save-dir without a word.
func TestCallSaveDirWithJSONSavesTheBlocks(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "out") // made on the first save
	r := mcpscope(t, nil, "call", "image", "--save-dir", dir, "--format", "json")
	path := filepath.Join(dir, "image-2.png")
	expect(t, r, 0, nil, []string{"mcpscope: saved block 2 (image image/png) to " + path})
	var res map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Errorf("stdout is not the result as JSON: %v\n%s", err, r.stdout)
	}
	if b, err := os.ReadFile(path); err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("the image block was not saved: %v", err)
	}
}
