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
	"fmt"
	"io"
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

// Write writes rec in format to w.
func Write(w io.Writer, format string, rec *record.Recording, o Options) error {
	if o.Name == "" {
		o.Name = "mcpscope"
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	var err error
	switch format {
	case "har":
		err = HAR(bw, rec, o)
	case "otlp":
		err = OTLP(bw, rec, o)
	case "json":
		err = JSON(bw, rec)
	default:
		return fmt.Errorf("unknown format %q: use %s", format, strings.Join(Formats, ", "))
	}
	if err != nil {
		return err
	}
	return bw.Flush()
}

// at is the wall time of a recording's event.
func at(rec *record.Recording, t float64) time.Time {
	return rec.Header.Started.Add(time.Duration(t * float64(time.Second)))
}

// exchange is one request with what the recording says about it.
type exchange struct {
	x          *record.Exchange
	start, end time.Time
	answered   bool
	name       string // a tools/call's tool, a prompts/get's prompt
	uri        string // a resource's uri
	errCode    *int64
	errMsg     string
	toolError  bool
}

// exchanges pairs the recording's requests and responses (record.Exchanges) and
// reads what every format needs of each.
func exchanges(rec *record.Recording) []exchange {
	var out []exchange
	last := 0.0
	if n := len(rec.Events); n > 0 {
		last = rec.Events[n-1].T
	}
	for _, x := range rec.Exchanges() {
		e := exchange{x: x, start: at(rec, rec.Events[x.RequestEvent].T)}
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
		if x.ResponseEvent >= 0 {
			e.answered, e.end = true, at(rec, rec.Events[x.ResponseEvent].T)
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
			e.end = at(rec, last)
		}
		out = append(out, e)
	}
	return out
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

// JSON writes the exchanges as a JSON array, one exchange a line.
func JSON(w io.Writer, rec *record.Recording) error {
	if _, err := io.WriteString(w, "["); err != nil {
		return err
	}
	for i, e := range exchanges(rec) {
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
		sep := ",\n"
		if i == 0 {
			sep = "\n"
		}
		if _, err := io.WriteString(w, sep+string(b)); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, "\n]\n")
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
