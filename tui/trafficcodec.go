package tui

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"time"

	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/spool"
)

// trafficCodec spills traffic entries in a compact binary form (a flood of stderr
// lines spills fast); the rare HTTP details go as JSON.
var trafficCodec = spool.Codec[trafficEntry]{
	Size: func(en trafficEntry) int {
		n := len(en.e.Data) + len(en.e.Text) + len(en.summary) + 24 + len(en.e.ID) + len(en.e.Method) + len(en.e.Name)
		if en.e.Exit != nil {
			n += 32 + len(en.e.Exit.Signal)
		}
		if h := en.e.HTTP; h != nil {
			n += 128 + len(h.Method) + len(h.URL) + len(h.Error)
			for k, vs := range h.Header {
				n += len(k) + 16
				for _, v := range vs {
					n += len(v) + 16
				}
			}
			if h.SSE != nil {
				n += 128
			}
		}
		return n
	},
	Encode: encodeEntry,
	Decode: decodeEntry,
}

func encodeEntry(en trafficEntry) ([]byte, error) {
	e := en.e
	b := make([]byte, 0, 64+len(e.Data)+len(e.Text)+len(en.summary))
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	b = binary.AppendVarint(b, e.Time.UnixNano())
	str(string(e.Kind))
	str(string(e.Dir))
	b = binary.AppendUvarint(b, uint64(len(e.Data)))
	b = append(b, e.Data...)
	str(string(e.Framing))
	b = binary.AppendVarint(b, int64(e.Size))
	str(e.Text)
	str(en.summary)
	if e.Exit != nil {
		b = append(b, 1)
		b = binary.AppendVarint(b, int64(e.Exit.Code))
		str(e.Exit.Signal)
	} else {
		b = append(b, 0)
	}
	var h []byte
	if e.HTTP != nil {
		var err error
		if h, err = json.Marshal(e.HTTP); err != nil {
			return nil, err
		}
	}
	b = binary.AppendUvarint(b, uint64(len(h)))
	b = append(b, h...)
	// The head the wire layer read, so that a frame read back from the spill file
	// is what it was when it arrived.
	b = append(b, byte(e.Shape))
	str(e.ID)
	str(e.Method)
	str(e.Name)
	b = binary.AppendVarint(b, e.ErrorCode)
	b = binary.AppendUvarint(b, uint64(en.srv)) // the server filter reads it back
	return b, nil
}

var errShort = errors.New("a spilled traffic entry is cut short")

func decodeEntry(b []byte) (trafficEntry, error) {
	var en trafficEntry
	bad := false
	uv := func() uint64 {
		v, n := binary.Uvarint(b)
		if n <= 0 {
			bad = true
			return 0
		}
		b = b[n:]
		return v
	}
	sv := func() int64 {
		v, n := binary.Varint(b)
		if n <= 0 {
			bad = true
			return 0
		}
		b = b[n:]
		return v
	}
	bytes := func() []byte {
		n := uv()
		if bad || n > uint64(len(b)) {
			bad = true
			return nil
		}
		out := b[:n:n]
		b = b[n:]
		return out
	}
	str := func() string { return string(bytes()) }
	e := &en.e
	e.Time = time.Unix(0, sv())
	e.Kind = wire.Kind(str())
	e.Dir = wire.Dir(str())
	if d := bytes(); len(d) > 0 {
		e.Data = d
	}
	e.Framing = wire.Framing(str())
	e.Size = int(sv())
	e.Text = str()
	en.summary = str()
	if len(b) == 0 {
		return en, errShort
	}
	hasExit := b[0] == 1
	b = b[1:]
	if hasExit {
		e.Exit = &wire.Exit{Code: int(sv()), Signal: str()}
	}
	if h := bytes(); len(h) > 0 {
		e.HTTP = &wire.HTTPInfo{}
		if err := json.Unmarshal(h, e.HTTP); err != nil {
			return en, err
		}
	}
	if len(b) == 0 {
		return en, errShort
	}
	e.Shape = wire.Shape(b[0])
	b = b[1:]
	e.ID = str()
	e.Method = str()
	e.Name = str()
	e.ErrorCode = sv()
	en.srv = uint16(uv())
	if bad {
		return en, errShort
	}
	return en, nil
}
