//go:build unix && !linux

package proctree

import (
	"errors"
	"syscall"
)

// Supported reports whether trees are followed whole on this system.
func Supported() bool { return false }

func setPdeathsig(*syscall.SysProcAttr) {}

func startSupervised(Spec) (*Tree, error) {
	return nil, errors.New("proctree: no supervisor on this system")
}
