//go:build unix && !linux

package proctree

import (
	"errors"
	"os"
	"syscall"
)

// Supported reports whether trees are followed whole on this system.
func Supported() bool { return false }

func setPdeathsig(*syscall.SysProcAttr) {}

func startSupervised(Spec) (*Tree, error) {
	return nil, errors.New("proctree: no supervisor on this system")
}

// WrittenByDescendant is false here: which process holds which file open is read from
// /proc, which only Linux has. A watch falls back on .gitignore and its noise rules.
func WrittenByDescendant(fi os.FileInfo) bool { return false }
