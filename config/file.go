package config

import (
	"errors"
	"io/fs"

	"github.com/mcpscope/mcpscope/internal/readfile"
)

// Size caps for the files mcpscope reads on a user's behalf (internal/readfile has the
// one reader and its caps for every file mcpscope loads).
const (
	MaxConfigSize  = readfile.MaxConfig
	MaxEnvFileSize = readfile.MaxEnvFile
)

// FileError is a path that names something mcpscope will not read as a file: a FIFO,
// a device (/dev/zero), a directory, a socket, or a file above the size cap.
type FileError = readfile.Error

// readRegular reads the whole of a regular file of at most max bytes (readfile.Read:
// it never opens a FIFO or a device for reading, and never reads past max).
func readRegular(path string, max int64) ([]byte, error) { return readfile.Read(path, max) }

// IsNotExist reports whether err says the file does not exist.
func IsNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
