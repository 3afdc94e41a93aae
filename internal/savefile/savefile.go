// Package savefile writes files whose names a server may have chosen into a directory
// the user chose: never through a symbolic link, never outside the directory, never
// over an existing file.
package savefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/mcpscope/mcpscope/internal/ownfiles"
)

// Name makes s a safe file name: one path element, no separators, NUL or control
// characters, no leading dot (so never "." or ".." or a hidden file), at most 100
// bytes; "file" when nothing is left.
func Name(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '/' || r == '\\' || r == ':' || r == 0 || unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r):
			b.WriteByte('_')
		case b.Len() == 0 && r == '.':
			b.WriteByte('_')
		default:
			b.WriteRune(r)
		}
		if b.Len() >= 100 {
			break
		}
	}
	if b.Len() == 0 {
		return "file"
	}
	return b.String()
}

// Create makes a new file in dir, named name (made safe with Name), with mode perm
// (less the umask). When that name is taken (by a file, a directory or a link) it
// tries NAME-2.EXT, NAME-3.EXT…. The file is opened inside dir through os.Root, so
// neither the name nor a link planted in dir can lead it elsewhere. It returns the
// open file and its path.
func Create(dir, name string, perm fs.FileMode) (*os.File, string, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, "", err
	}
	defer root.Close()
	name = Name(name)
	ext := filepath.Ext(name)
	stem := strings.TrimSuffix(name, ext)
	for n := 1; n <= 1000; n++ {
		try := name
		if n > 1 {
			try = fmt.Sprintf("%s-%d%s", stem, n, ext)
		}
		// Known as mcpscope's own before it exists, so that a watch of dir knows it
		// from its first event: a saved file is no edit (issue 20).
		path := filepath.Join(dir, try)
		ownfiles.Expect(path)
		// O_EXCL: an existing file, or a link (dangling or not), is never opened.
		f, err := root.OpenFile(try, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
		if err != nil {
			ownfiles.Forget(path) // someone else's file (a source, maybe)
		}
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, "", err
		}
		ownfiles.Add(path)
		return f, path, nil
	}
	return nil, "", fmt.Errorf("too many files named %s-*%s in %s", stem, ext, dir)
}

// Write is Create, then writes data and closes the file.
func Write(dir, name string, data []byte, perm fs.FileMode) (string, error) {
	f, path, err := Create(dir, name, perm)
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return "", err
	}
	return path, nil
}
