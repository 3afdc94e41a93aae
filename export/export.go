// Package export turns an mcpscope recording (any version, tapped or not) into what
// other tools read: HAR 1.2 for browser-style HTTP tools, OTLP JSON spans for tracing
// back ends, and the paired exchanges as a JSON array for scripts.
//
// It only reads: what it writes is what the recording holds, and secrets stay as the
// recorder redacted them (it never had them). Ids and times come from the recording,
// never from the clock, so exporting a file twice gives the same bytes.
package export

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/record"
)

// Formats are the formats Write knows.
var Formats = []string{"har", "otlp", "json"}

// Options name the program that exports (HAR's creator, OTLP's scope).
type Options struct {
	Name, Version string
}

// Source opens a recording for one pass over its events, from its start. An export
// reads the recording twice (Open's survey, then Write) instead of holding it: a
// file is opened again, as replay does.
type Source func() (*record.Reader, error)

// File is the Source of the recording at path (record.Open, with Load's limits).
func File(path string) Source { return func() (*record.Reader, error) { return record.Open(path) } }

// Recording is a recording surveyed for export: what every format needs before it
// writes its first byte, and nothing of the events themselves, so that memory stays
// flat in the size of the recording (the events are read again as Write goes).
type Recording struct {
	src Source
	// Header is the recording's header, with the servers added in the session
	// (KindServer lines) among its Servers.
	Header record.Header
	// Warnings say what was wrong with the file but tolerated (record.Reader's).
	Warnings []string

	events   int     // how many events the survey read: Write reads no more
	last     float64 // the time of the last event
	protocol string  // the protocol version of the first handshake (record.Era)
	session  string  // the first Mcp-Session-Id the server gave
	// listens are the subscriptions/listen exchanges, complete: a listen stays
	// pending for the whole session, and the pairer hands it out when it is sent,
	// before the response and notifications the survey has seen.
	listens map[int]*record.Exchange // by RequestEvent
	times   map[int]float64          // the times of the listens' events
	// httpLast is the index of each HTTP exchange's last event, by httpKey: its
	// HAR entry is complete there.
	httpLast map[string]int
}

func httpKey(ev *record.Event) string { return ev.Server + "\x00" + strconv.Itoa(ev.Exchange) }

// ring keeps the times of the last events the pairer may still pair: it pairs an
// event a few events after it is added (record's repair window, 8), far fewer than
// ringLen.
const ringLen = 256

type ringTime struct {
	i int
	t float64
}

// Open reads the recording of src once through, keeping only the survey.
func Open(src Source) (*Recording, error) {
	r, err := src()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	rec := &Recording{src: src, listens: map[int]*record.Exchange{}, times: map[int]float64{}, httpLast: map[string]int{}}
	var (
		p       record.Pairer
		ring    [ringLen]ringTime
		open    []*record.Exchange // the listens, with how many of their events were timed
		timed   []int
		eraDone bool
	)
	timeOf := func(i int) (float64, error) {
		if rt := ring[i%ringLen]; rt.i == i {
			return rt.t, nil
		}
		return 0, fmt.Errorf("export: event %d was paired more than %d events after it was read", i, ringLen)
	}
	take := func() error {
		for x := p.Next(); x != nil; x = p.Next() {
			if !eraDone {
				if era, v := record.Era([]*record.Exchange{x}); era != "" {
					rec.protocol, eraDone = v, true
				}
			}
			if x.Method == "subscriptions/listen" {
				rec.listens[x.RequestEvent] = x
				open, timed = append(open, x), append(timed, 0)
			}
		}
		for k, x := range open {
			events := x.NotificationEvents
			if x.ResponseEvent >= 0 {
				events = append(events[:len(events):len(events)], x.ResponseEvent)
			}
			for _, i := range events[timed[k]:] {
				if _, ok := rec.times[i]; ok {
					continue
				}
				t, err := timeOf(i)
				if err != nil {
					return err
				}
				rec.times[i] = t
			}
			timed[k] = len(x.NotificationEvents)
		}
		return nil
	}
	for i := 0; ; i++ {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		ring[i%ringLen] = ringTime{i, ev.T}
		rec.events, rec.last = i+1, ev.T
		if ev.Exchange != 0 {
			rec.httpLast[httpKey(ev)] = i
		}
		if rec.session == "" && ev.Kind == record.KindHTTP && ev.Dir == record.Recv {
			rec.session = sessionID(ev.Headers)
		}
		p.Add(i, ev)
		if err := take(); err != nil {
			return nil, err
		}
	}
	p.End()
	if err := take(); err != nil {
		return nil, err
	}
	rec.Header, rec.Warnings = r.Header, r.Warnings
	return rec, nil
}

// Write writes the recording in format to w, reading its events again.
func (rec *Recording) Write(w io.Writer, format string, o Options) error {
	if o.Name == "" {
		o.Name = "mcpscope"
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	var err error
	switch format {
	case "har":
		err = rec.har(bw, o)
	case "otlp":
		err = rec.otlp(bw, o)
	case "json":
		err = rec.json(bw)
	default:
		return fmt.Errorf("unknown format %q: use %s", format, strings.Join(Formats, ", "))
	}
	if err != nil {
		return err
	}
	return bw.Flush()
}

// at is the wall time of a recording's event.
func (rec *Recording) at(t float64) time.Time {
	return rec.Header.Started.Add(time.Duration(t * float64(time.Second)))
}

// exchange is one request with what the recording says about it.
type exchange struct {
	x          *record.Exchange
	start, end time.Time
	notes      []time.Time // when each notification came
	answered   bool
	name       string // a tools/call's tool, a prompts/get's prompt
	uri        string // a resource's uri
	errCode    *int64
	errMsg     string
	toolError  bool
}

// times holds the times of the events from base on: those the exchanges not yet
// handed out may refer to.
type times struct {
	base int
	t    []float64
}

func (ts *times) get(i int) float64 { return ts.t[i-ts.base] }

// drop forgets the times of the events before i.
func (ts *times) drop(i int) {
	if k := min(i-ts.base, len(ts.t)); k > 0 {
		ts.t, ts.base = ts.t[k:], ts.base+k
	}
}

// each reads the recording's events again: every event goes to event (when not
// nil), and every exchange (record.Pairer) to f, in the order its requests were
// sent, once it can change no more. Only the pending exchanges, and the times of
// the events since the oldest of them, are held.
func (rec *Recording) each(event func(i int, ev *record.Event) error, f func(e *exchange) error) error {
	r, err := rec.src()
	if err != nil {
		return err
	}
	defer r.Close()
	var p record.Pairer
	var ts times
	take := func() error {
		for x := p.Next(); x != nil; x = p.Next() {
			at := func(i int) time.Time { return rec.at(ts.get(i)) }
			if full := rec.listens[x.RequestEvent]; x.Method == "subscriptions/listen" && full != nil {
				x = full
				at = func(i int) time.Time {
					if t, ok := rec.times[i]; ok {
						return rec.at(t)
					}
					return rec.at(ts.get(i)) // its request: read just now
				}
			}
			if err := f(rec.exchange(x, at)); err != nil {
				return err
			}
			// The exchanges after this one were sent after it, and what they are
			// answered with comes after them.
			ts.drop(x.RequestEvent + 1)
		}
		return nil
	}
	// No further than the survey read: a recording still being written (a session
	// that goes on) is exported as it was then, whole, not with half of what came
	// since.
	for i := 0; i < rec.events; i++ {
		ev, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		ts.t = append(ts.t, ev.T)
		if event != nil {
			if err := event(i, ev); err != nil {
				return err
			}
		}
		p.Add(i, ev)
		if err := take(); err != nil {
			return err
		}
	}
	p.End()
	return take()
}

// exchange reads what every format needs of x; at is the time of one of its events.
func (rec *Recording) exchange(x *record.Exchange, at func(i int) time.Time) *exchange {
	e := &exchange{x: x, start: at(x.RequestEvent)}
	var p struct {
		Name string `json:"name"`
		URI  string `json:"uri"`
	}
	_ = json.Unmarshal(x.Params, &p)
	switch x.Method {
	case "tools/call", "prompts/get":
		e.name = p.Name
	case "resources/read", "resources/subscribe", "resources/unsubscribe":
		e.uri = p.URI
	}
	for _, i := range x.NotificationEvents {
		e.notes = append(e.notes, at(i))
	}
	if x.ResponseEvent >= 0 {
		e.answered, e.end = true, at(x.ResponseEvent)
		var r struct {
			Error *struct {
				Code    int64  `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
			Result struct {
				IsError bool `json:"isError"`
			} `json:"result"`
		}
		if json.Unmarshal(x.Response, &r) == nil {
			if r.Error != nil {
				e.errCode, e.errMsg = &r.Error.Code, r.Error.Message
			}
			e.toolError = r.Result.IsError
		}
	} else {
		// Still pending when the recording ended: the span lasts to its end.
		e.end = rec.at(rec.last)
	}
	return e
}

// outcome is how an exchange ended, in one word for scripts.
func (e *exchange) outcome() string {
	switch {
	case !e.answered && e.x.Method == "subscriptions/listen":
		return "open" // a listen stays open for the session by design
	case !e.answered:
		return "no response"
	case e.errCode != nil:
		return "error"
	case e.toolError:
		return "tool error"
	}
	return "result"
}

// jsonExchange is one exchange of the json format.
type jsonExchange struct {
	Server        string            `json:"server,omitempty"`
	Method        string            `json:"method"`
	Name          string            `json:"name,omitempty"`
	URI           string            `json:"uri,omitempty"`
	ID            json.RawMessage   `json:"id"`
	Start         time.Time         `json:"start"`
	End           *time.Time        `json:"end,omitempty"`
	DurationMs    *float64          `json:"durationMs,omitempty"`
	Outcome       string            `json:"outcome"`
	Request       json.RawMessage   `json:"request"`
	Response      json.RawMessage   `json:"response,omitempty"`
	Notifications []json.RawMessage `json:"notifications,omitempty"`
	Line          int               `json:"line,omitempty"`
}

// json writes the exchanges as a JSON array, one exchange a line.
func (rec *Recording) json(w io.Writer) error {
	if _, err := io.WriteString(w, "["); err != nil {
		return err
	}
	sep := "\n"
	err := rec.each(nil, func(e *exchange) error {
		j := jsonExchange{Server: e.x.Server, Method: e.x.Method, Name: e.name, URI: e.uri, ID: json.RawMessage(e.x.ID),
			Start: e.start, Outcome: e.outcome(), Request: e.x.Request, Response: e.x.Response, Notifications: e.x.Notifications, Line: e.x.Line}
		if e.answered {
			end, d := e.end, float64(e.end.Sub(e.start).Microseconds())/1000
			j.End, j.DurationMs = &end, &d
		}
		b, err := marshal(j)
		if err != nil {
			return err
		}
		if _, err := io.WriteString(w, sep); err != nil {
			return err
		}
		sep = ",\n"
		_, err = w.Write(b)
		return err
	})
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, "\n]\n")
	return err
}

// marshal is json.Marshal without HTML escaping (a recorded "<" stays "<").
func marshal(v any) ([]byte, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return []byte(strings.TrimSuffix(b.String(), "\n")), nil
}

// hash is the first n bytes of sha256 of parts, as hex: ids derived from the
// recording, the same on every export.
func hash(n int, parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		io.WriteString(h, p)
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:n])
}
