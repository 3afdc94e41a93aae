package workbench_test

import (
	"os"
	"path/filepath"
	"testing"
)

// corruptTokenFile overwrites the one token file of the store with bad JSON.
func corruptTokenFile(t *testing.T, dir string) string {
	files, _ := filepath.Glob(filepath.Join(dir, "tokens", "*.json"))
	if len(files) != 1 {
		t.Fatalf("token files %v", files)
	}
	if err := os.WriteFile(files[0], []byte("{not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	return files[0]
}
