package wire

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// An event's bytes come back as they were added, whatever the sizes of the pieces
// they came in; one past pieceSize comes back in a buffer of exactly its size (the
// event's data, held with the result, keeps nothing to spare).
func TestEventBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, total := range []int{0, 1, 100, pieceSize - 1, pieceSize, pieceSize + 1, 3*pieceSize + 12345} {
		want := make([]byte, total)
		for i := range want {
			want[i] = byte(r.IntN(256))
		}
		var e eventBytes
		for p := want; len(p) > 0; {
			k := min(len(p), 1+r.IntN(70<<10))
			e.add(p[:k])
			p = p[k:]
		}
		got := e.bytes()
		if !bytes.Equal(got, want) {
			t.Fatalf("%d bytes: got back %d bytes, not the same", total, len(got))
		}
		if total > pieceSize && cap(got) != len(got) {
			t.Errorf("%d bytes: kept in a buffer of %d", total, cap(got))
		}
	}
}
