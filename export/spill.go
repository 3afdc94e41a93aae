package export

import (
	"bufio"
	"cmp"
	"io"
	"os"
	"slices"
	"time"
)

// spill holds the items of a document that must be written in another order than
// they are made (HAR's entries), in a private temporary file instead of memory:
// only their keys and places stay in memory.
type spill struct {
	f     *os.File
	bw    *bufio.Writer
	off   int64
	items []spilled
}

// spillKey orders the items: by time, then group, then place in the group (what a
// stable sort of the groups one after the other gives).
type spillKey struct {
	at    time.Time
	group int
	seq   int
}

type spilled struct {
	key spillKey
	off int64
	n   int
}

func newSpill() (*spill, error) {
	f, err := os.CreateTemp("", "mcpscope-export-*")
	if err != nil {
		return nil, err
	}
	// Unlinked at once where the system allows it: nothing is left behind even if
	// the export is killed. (Elsewhere close removes it.)
	os.Remove(f.Name())
	return &spill{f: f, bw: bufio.NewWriterSize(f, 64<<10)}, nil
}

// add writes v, marshalled, under key.
func (s *spill) add(key spillKey, v any) error {
	b, err := marshal(v)
	if err != nil {
		return err
	}
	if _, err := s.bw.Write(b); err != nil {
		return err
	}
	s.items = append(s.items, spilled{key, s.off, len(b)})
	s.off += int64(len(b))
	return nil
}

// writeSorted writes the items to w in key order, sep between them.
func (s *spill) writeSorted(w io.Writer, sep string) error {
	if err := s.bw.Flush(); err != nil {
		return err
	}
	slices.SortFunc(s.items, func(a, b spilled) int {
		return cmp.Or(a.key.at.Compare(b.key.at), cmp.Compare(a.key.group, b.key.group), cmp.Compare(a.key.seq, b.key.seq))
	})
	for i, it := range s.items {
		if i > 0 {
			if _, err := io.WriteString(w, sep); err != nil {
				return err
			}
		}
		if _, err := io.Copy(w, io.NewSectionReader(s.f, it.off, int64(it.n))); err != nil {
			return err
		}
	}
	return nil
}

func (s *spill) close() {
	s.f.Close()
	os.Remove(s.f.Name())
}
