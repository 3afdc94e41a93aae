//go:build !unix

package host

import (
	"os"
	"testing"
)

func blockingPipe(b *testing.B) (r, w *os.File) {
	r, w, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}
