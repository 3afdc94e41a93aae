package record

import (
	"time"

	"github.com/mcpscope/mcpscope/client/wire"
)

// Wire turns a recorded event back into the wire event it was written from, as far as
// the file keeps it, so that views made for live sessions can show a recording.
func (e *Event) Wire(started time.Time) wire.Event {
	at := started.Add(time.Duration(e.T * float64(time.Second)))
	w := wire.Event{Time: at, Dir: wire.Dir(e.Dir), Text: e.Text, Size: e.Size}
	switch e.Kind {
	case "", KindMessage:
		w.Kind, w.Data, w.Framing = wire.KindMessage, e.Msg, wire.Framing(e.Framing)
		w.Head = wire.ParseHead(e.Msg) // what a transport would have read of it
	case KindNoise, KindStderr:
		w.Kind, w.Data = wire.Kind(e.Kind), []byte(e.Text)
	case KindClosed:
		w.Kind = wire.KindClosed
		x := wire.Exit{Signal: e.Signal}
		if e.Exit != nil {
			x.Code = *e.Exit
		}
		w.Exit = &x
	case KindHTTP:
		w.Kind = wire.KindHTTP
		w.HTTP = &wire.HTTPInfo{Exchange: e.Exchange, Method: e.Method, URL: e.URL, Status: e.Status, Header: e.Headers, Error: e.Error}
	default:
		w.Kind, w.Data = wire.Kind(e.Kind), e.Msg
	}
	if w.Size == 0 {
		w.Size = len(w.Data)
	}
	return w
}
