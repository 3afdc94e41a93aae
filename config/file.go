package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Size caps for the files mcpscope reads on a user's behalf. A config file of other
// clients can be large (~/.claude.json keeps history), but not without bound: a file
// at the limit still parses in well under a second.
const (
	MaxConfigSize  = 64 << 20
	MaxEnvFileSize = 1 << 20
)

// FileError is a path that names something mcpscope will not read as a file: a FIFO,
// a device (/dev/zero), a directory, a socket, or a file above the size cap.
type FileError struct {
	Path string
	Msg  string
}

func (e *FileError) Error() string { return e.Path + ": " + e.Msg }

// readRegular reads the whole of a regular file of at most max bytes. It never blocks
// on what is not a regular file: the open is non-blocking (a FIFO with no writer opens
// at once), and the kind is checked on the open descriptor, so a file swapped for a
// FIFO between a stat and the open cannot hang the read either.
func readRegular(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &FileError{Path: path, Msg: fmt.Sprintf("not a regular file (%s); mcpscope reads only regular files here", kindOf(fi.Mode()))}
	}
	if fi.Size() > max {
		return nil, tooBig(path, fi.Size(), max)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, tooBig(path, int64(len(data)), max)
	}
	return data, nil
}

func tooBig(path string, size, max int64) error {
	return &FileError{Path: path, Msg: fmt.Sprintf("%s is larger than the %s mcpscope reads from such a file", humanSize(size), humanSize(max))}
}

func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	}
	return "not a plain file"
}

func humanSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// IsNotExist reports whether err says the file does not exist.
func IsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
