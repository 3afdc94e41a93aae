package export

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mcpscope/mcpscope/record"
)

// HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/): every member the spec
// requires is written, even when empty.
type (
	// The document: {"log":{"version":"1.2","creator":…,"entries":[…]}}, written
	// by har around the entries it streams.
	harCreator struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	harEntry struct {
		StartedDateTime string      `json:"startedDateTime"`
		Time            float64     `json:"time"`
		Request         harRequest  `json:"request"`
		Response        harResponse `json:"response"`
		Cache           struct{}    `json:"cache"`
		Timings         harTimings  `json:"timings"`
		Comment         string      `json:"comment,omitempty"`
		// Error says why an HTTP exchange has no complete response (a custom
		// field: HAR allows members that start with "_").
		Error string `json:"_error,omitempty"`
		// Notifications are, over stdio, the server's notifications that came while
		// the request was pending.
		Notifications []json.RawMessage `json:"_notifications,omitempty"`
	}
	harRequest struct {
		Method      string       `json:"method"`
		URL         string       `json:"url"`
		HTTPVersion string       `json:"httpVersion"`
		Cookies     []struct{}   `json:"cookies"`
		Headers     []harNV      `json:"headers"`
		QueryString []harNV      `json:"queryString"`
		PostData    *harPostData `json:"postData,omitempty"`
		HeadersSize int          `json:"headersSize"`
		BodySize    int          `json:"bodySize"`
	}
	harResponse struct {
		Status      int        `json:"status"`
		StatusText  string     `json:"statusText"`
		HTTPVersion string     `json:"httpVersion"`
		Cookies     []struct{} `json:"cookies"`
		Headers     []harNV    `json:"headers"`
		Content     harContent `json:"content"`
		RedirectURL string     `json:"redirectURL"`
		HeadersSize int        `json:"headersSize"`
		BodySize    int        `json:"bodySize"`
	}
	harNV struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	}
	harPostData struct {
		MimeType string  `json:"mimeType"`
		Params   []harNV `json:"params"`
		Text     string  `json:"text"`
	}
	harContent struct {
		Size     int    `json:"size"`
		MimeType string `json:"mimeType"`
		Text     string `json:"text,omitempty"`
	}
	harTimings struct {
		Blocked float64 `json:"blocked"`
		DNS     float64 `json:"dns"`
		Connect float64 `json:"connect"`
		Send    float64 `json:"send"`
		Wait    float64 `json:"wait"`
		Receive float64 `json:"receive"`
		SSL     float64 `json:"ssl"`
	}
)

// harTime is HAR's ISO 8601 date with milliseconds.
func harTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z07:00") }

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// har writes one entry per HTTP exchange of a server reached over HTTP (request and
// response headers as recorded, secrets redacted; bodies as recorded: the messages,
// compacted, an SSE stream as its events), and, for a server over stdio, one entry
// per JSON-RPC request with its response, on a synthetic stdio:// URL (the entry's
// comment says so).
//
// The entries are in the order they started, and an entry is complete only at its
// exchange's last event: a GET stream open for the whole session starts first and
// ends last. So each entry is written, as it completes, to a spill file of its own
// (never held), and the file is read back in order at the end.
func (rec *Recording) har(w io.Writer, o Options) error {
	sp, err := newSpill()
	if err != nil {
		return err
	}
	defer sp.close()
	open := map[string]*httpExchange{}
	event := func(i int, ev *record.Event) error {
		if ev.Exchange == 0 {
			return nil
		}
		key := httpKey(ev)
		h := open[key]
		if h == nil {
			h = &httpExchange{server: ev.Server, number: ev.Exchange, firstIdx: i}
			open[key] = h
		}
		h.add(ev)
		if rec.httpLast[key] != i {
			return nil
		}
		delete(open, key)
		if h.req == nil {
			return nil // a response without its request: nothing to show as an exchange
		}
		e := h.entry(rec)
		t, _ := time.Parse("2006-01-02T15:04:05.000Z07:00", e.StartedDateTime)
		return sp.add(spillKey{t, 0, h.firstIdx}, e)
	}
	err = rec.each(event, func(x *exchange) error {
		if targetOf(rec.Header, x.x.Server).Transport == "http" {
			return nil
		}
		return sp.add(spillKey{x.start, 1, x.x.RequestEvent}, stdioEntry(rec, x))
	})
	if err != nil {
		return err
	}
	creator, err := marshal(harCreator(o))
	if err != nil {
		return err
	}
	// The document as marshal would write harDoc, with the entries copied in.
	if _, err := io.WriteString(w, `{"log":{"version":"1.2","creator":`+string(creator)+`,"entries":[`); err != nil {
		return err
	}
	if err := sp.writeSorted(w, ","); err != nil {
		return err
	}
	_, err = io.WriteString(w, "]}}\n")
	return err
}

// serverLabel names a stdio server in a synthetic URL: its name in a recording of
// several, else its command's base name.
func serverLabel(h record.Header, server string) string {
	if server != "" {
		return server
	}
	if argv := h.Target.Argv; len(argv) > 0 {
		return url.PathEscape(filepath.Base(argv[0]))
	}
	return "server"
}

func stdioEntry(rec *Recording, x *exchange) harEntry {
	e := harEntry{StartedDateTime: harTime(x.start), Time: ms(x.end.Sub(x.start)),
		Comment:       "JSON-RPC over stdio: the URL, method and status are synthetic; the bodies are the messages as recorded",
		Notifications: x.x.Notifications}
	e.Request = harRequest{Method: "POST", URL: "stdio://" + serverLabel(rec.Header, x.x.Server) + "/" + x.x.Method, HTTPVersion: "JSON-RPC/2.0",
		Cookies: []struct{}{}, Headers: []harNV{}, QueryString: []harNV{}, HeadersSize: -1, BodySize: len(x.x.Request),
		PostData: &harPostData{MimeType: "application/json", Params: []harNV{}, Text: string(x.x.Request)}}
	e.Response = harResponse{HTTPVersion: "JSON-RPC/2.0", Cookies: []struct{}{}, Headers: []harNV{}, HeadersSize: -1, BodySize: len(x.x.Response),
		Content: harContent{Size: len(x.x.Response), MimeType: "application/json", Text: string(x.x.Response)}}
	switch {
	case !x.answered:
		e.Response.StatusText, e.Response.BodySize = "no response was recorded", -1
	case x.errCode != nil:
		e.Response.Status, e.Response.StatusText = 200, "JSON-RPC error "+strconv.FormatInt(*x.errCode, 10)
	default:
		e.Response.Status, e.Response.StatusText = 200, "OK"
	}
	e.Timings = harTimings{Blocked: -1, DNS: -1, Connect: -1, SSL: -1, Wait: e.Time}
	return e
}

// httpExchange gathers the events of one HTTP exchange.
type httpExchange struct {
	req, resp        *record.Event
	sent, recv       []*record.Event // bodies: the messages sent and received
	last             float64
	errText          string
	server           string
	number, firstIdx int
}

// add takes one more event of the exchange.
func (h *httpExchange) add(ev *record.Event) {
	h.last = ev.T
	if ev.Error != "" {
		h.errText = ev.Error
	}
	switch {
	case ev.Kind == record.KindHTTP && ev.Dir == record.Send:
		h.req = ev
	case ev.Kind == record.KindHTTP && ev.Dir == record.Recv && ev.Status > 0 && h.resp == nil:
		h.resp = ev
	case ev.IsMessage() && ev.Dir == record.Send:
		h.sent = append(h.sent, ev)
	case ev.IsMessage() && ev.Dir == record.Recv:
		h.recv = append(h.recv, ev)
	}
}

func headers(h map[string][]string) []harNV {
	out := []harNV{}
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, v := range h[k] {
			out = append(out, harNV{Name: k, Value: v})
		}
	}
	return out
}

func header(h map[string][]string, name string) string {
	for k, v := range h {
		if strings.EqualFold(k, name) && len(v) > 0 {
			return v[0]
		}
	}
	return ""
}

func (h *httpExchange) entry(rec *Recording) harEntry {
	start := rec.at(h.req.T)
	e := harEntry{StartedDateTime: harTime(start), Error: h.errText}
	var body strings.Builder
	for _, m := range h.sent {
		body.Write(m.Msg)
	}
	query := []harNV{}
	if u, err := url.Parse(h.req.URL); err == nil {
		for k, vs := range u.Query() {
			for _, v := range vs {
				query = append(query, harNV{Name: k, Value: v})
			}
		}
		sort.Slice(query, func(i, j int) bool { return query[i].Name < query[j].Name })
	}
	e.Request = harRequest{Method: h.req.Method, URL: h.req.URL, HTTPVersion: "HTTP/1.1", Cookies: []struct{}{},
		Headers: headers(h.req.Headers), QueryString: query, HeadersSize: -1, BodySize: body.Len()}
	if body.Len() > 0 {
		mt := header(h.req.Headers, "Content-Type")
		if mt == "" {
			mt = "application/json"
		}
		e.Request.PostData = &harPostData{MimeType: mt, Params: []harNV{}, Text: body.String()}
	}
	e.Response = harResponse{HTTPVersion: "HTTP/1.1", Cookies: []struct{}{}, Headers: []harNV{}, HeadersSize: -1, BodySize: -1}
	e.Timings = harTimings{Blocked: -1, DNS: -1, Connect: -1, SSL: -1}
	if h.resp == nil {
		e.Time = ms(rec.at(h.last).Sub(start))
		e.Timings.Wait = e.Time
		return e
	}
	var text strings.Builder
	for _, m := range h.recv {
		if m.Framing == "sse" {
			if m.SSE != nil && m.SSE.ID != "" {
				text.WriteString("id: " + m.SSE.ID + "\n")
			}
			if m.SSE != nil && m.SSE.Event != "" {
				text.WriteString("event: " + m.SSE.Event + "\n")
			}
			text.WriteString("data: " + string(m.Msg) + "\n\n")
			continue
		}
		text.Write(m.Msg)
	}
	mt := header(h.resp.Headers, "Content-Type")
	e.Response.Status, e.Response.StatusText = h.resp.Status, http.StatusText(h.resp.Status)
	e.Response.Headers = headers(h.resp.Headers)
	e.Response.RedirectURL = header(h.resp.Headers, "Location")
	e.Response.Content = harContent{Size: text.Len(), MimeType: mt, Text: text.String()}
	e.Response.BodySize = text.Len()
	wait, recv := rec.at(h.resp.T).Sub(start), rec.at(h.last).Sub(rec.at(h.resp.T))
	e.Timings.Wait, e.Timings.Receive = ms(wait), ms(recv)
	e.Time = e.Timings.Wait + e.Timings.Receive
	return e
}
