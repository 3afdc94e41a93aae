// Package readfile is the one way mcpscope reads a file it is given: a config file, an
// env file, an answers or sampling-reply file (@FILE), a recording, a saved --inspect
// document, a host's tool file. Such a path may name anything: a FIFO with no writer
// (an open for reading blocks, unkillable by SIGTERM while in the kernel), /dev/zero
// (never ends), a directory, or a sparse file of many GiB. Only a regular file of at
// most a cap is read; everything else is refused with a message naming the path, what
// it is and what mcpscope reads.
package readfile

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// The caps. A file a person writes (a client's config, which can be large since
// ~/.claude.json keeps history; answers, a sampling reply, a tool file) is at most
// MaxConfig: at the limit it still parses in well under a second. A file mcpscope
// saved (a recording, an --inspect document) is at most MaxSaved: it holds frames of
// up to the 256 MiB --max-frame default, and is loaded into memory whole.
const (
	MaxConfig  = 64 << 20
	MaxEnvFile = 1 << 20 // an env file, a JWT assertion, a private key
	MaxSaved   = 1 << 30
)

// Error is a path that names something mcpscope will not read as a file: a FIFO, a
// device (/dev/zero), a directory, a socket, or a file above the cap.
type Error struct {
	Path string
	Msg  string
}

func (e *Error) Error() string { return e.Path + ": " + e.Msg }

// Open opens the regular file at path for reading, when it is at most max bytes. It
// never opens what is not a regular file for reading: the kind is checked before the
// open (a FIFO's writer is not even woken), the open is non-blocking, and the kind and
// size are checked again on the open descriptor, so a file swapped for a FIFO or a
// device between the two cannot hang or flood the read either. The caller reads at most
// max bytes from it (Read does).
func Open(path string, max int64) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := check(path, st, max); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err = f.Stat()
	if err == nil {
		err = check(path, st, max)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Read reads the whole of the regular file at path, of at most max bytes (see Open). A
// file that grew past max while it was read is refused too.
func Read(path string, max int64) ([]byte, error) {
	f, err := Open(path, max)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// One buffer of the file's size (as os.ReadFile does): io.ReadAll's doubling
	// from 512 bytes allocated and cleared about twice the file, a quarter of a
	// diff's CPU at 1.4 MB (scripts/bench-diff). Its size was checked by Open; a
	// file that grows only makes ReadFrom grow the buffer.
	size := int64(0)
	if st, err := f.Stat(); err == nil {
		size = min(st.Size(), max)
	}
	buf := bytes.NewBuffer(make([]byte, 0, size+bytes.MinRead+1))
	_, err = buf.ReadFrom(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	data := buf.Bytes()
	if int64(len(data)) > max {
		return nil, TooBig(path, int64(len(data)), max)
	}
	return data, nil
}

func check(path string, st fs.FileInfo, max int64) error {
	if !st.Mode().IsRegular() {
		return &Error{Path: path, Msg: fmt.Sprintf("not a regular file (%s); mcpscope reads only regular files here", Kind(st.Mode()))}
	}
	if st.Size() > max {
		return TooBig(path, st.Size(), max)
	}
	return nil
}

// TooBig is the error for a file of size bytes, above max.
func TooBig(path string, size, max int64) error {
	return &Error{Path: path, Msg: fmt.Sprintf("%s is larger than the %s mcpscope reads from such a file", HumanSize(size), HumanSize(max))}
}

// Kind names what a non-regular file is, for messages.
func Kind(m fs.FileMode) string {
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

// HumanSize is n bytes in GiB, MiB, KiB or bytes.
func HumanSize(n int64) string {
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
