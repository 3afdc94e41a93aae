package live

import (
	"bytes"
	"io"
	"net"
	"testing"
)

// BenchmarkPublisherWrite is what publishing costs the tap per recording line of
// about 1 KiB: with no reader, with one reading as fast as it can, and with one that
// never reads (cut off after its queue; the tap's cost must not grow with it).
func BenchmarkPublisherWrite(b *testing.B) {
	line := append(bytes.Repeat([]byte("x"), 1000), '\n')
	for _, c := range []struct {
		name    string
		readers int
		read    bool
	}{{"none", 0, false}, {"reading", 1, true}, {"stuck", 1, false}} {
		b.Run(c.name, func(b *testing.B) {
			b.Setenv("XDG_RUNTIME_DIR", b.TempDir())
			p, err := Publish(Info{Name: "bench"})
			if err != nil {
				b.Fatal(err)
			}
			p.MaxBacklog = 1 << 20 // the backlog is not what is measured
			for range c.readers {
				conn, err := net.Dial("unix", p.Info().Socket)
				if err != nil {
					b.Fatal(err)
				}
				defer conn.Close()
				if c.read {
					go io.Copy(io.Discard, conn)
				}
			}
			b.SetBytes(int64(len(line)))
			b.ResetTimer()
			for range b.N {
				if _, err := p.Write(line); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			p.Close()
		})
	}
}
