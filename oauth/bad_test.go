package oauth_test

import (
	"os"
	"path/filepath"
)

func writeBad(dir string) error {
	return os.WriteFile(filepath.Join(dir, "tokens", "bad.json"), []byte("{oops"), 0o600)
}
