package history

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sync"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/record"
)

// SaveCollection writes entries as a recording at path: one tools/call exchange per
// entry, each with the answer the server gave then, so that `mcpscope replay PATH`
// runs them as a golden test against the server. Each exchange is named (its
// JSON-RPC id) TOOL-N, N counting that tool's calls in the collection, which is what
// `replay --only` takes. Entries without a result (a transport or JSON-RPC error, a
// result too big to keep) are left out; skipped says which. surface, when known, is
// what the server offered when the collection was saved: it goes in the header, so
// that `mcpscope diff PATH -- SERVER` shows whether the surface changed underneath
// (the exchanges hold no tools/list, and replay does not compare one).
func (l *Log) SaveCollection(path string, entries []Entry, surface *record.Surface) (names, skipped []string, err error) {
	if len(entries) == 0 {
		return nil, nil, fmt.Errorf("a collection needs at least one call")
	}
	w, err := record.Create(path, record.Header{
		McpscopeVersion: client.Version, // which mcpscope wrote it, as a recording says
		Target:          l.hdr.Target,
		Client:          &record.Peer{Name: "mcpscope", Version: client.Version},
		Surface:         surface,
	}, l.red)
	if err != nil {
		return nil, nil, err
	}
	count := map[string]int{}
	t := 0.0
	for _, e := range entries {
		if len(e.Result) == 0 {
			skipped = append(skipped, fmt.Sprintf("%s (%s): no result kept", e.Tool, e.ID))
			continue
		}
		count[e.Tool]++
		id := fmt.Sprintf("%s-%d", exchangeName(e.Tool), count[e.Tool])
		args := e.Arguments
		if len(args) == 0 {
			args = json.RawMessage(`{}`)
		}
		params, _ := json.Marshal(map[string]json.RawMessage{"name": mustString(e.Tool), "arguments": args})
		req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": json.RawMessage(params)})
		resp, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "result": e.Result})
		t += 0.001
		if err := w.Write(record.Event{T: t, Dir: record.Send, Msg: req}); err != nil {
			w.Close()
			return nil, nil, err
		}
		t += max(e.DurationMS/1000, 0.001)
		if err := w.Write(record.Event{T: t, Dir: record.Recv, Msg: resp}); err != nil {
			w.Close()
			return nil, nil, err
		}
		names = append(names, id)
	}
	if err := w.Close(); err != nil {
		return nil, nil, err
	}
	if len(names) == 0 {
		return nil, skipped, fmt.Errorf("none of the calls has a result to compare against")
	}
	return names, skipped, nil
}

// Compiled on first use, not at start: every command links this package (issue 23).
var unsafeName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9_.:-]+`) })

// exchangeName makes a tool name usable as a word on a command line.
func exchangeName(tool string) string {
	s := unsafeName().ReplaceAllString(tool, "_")
	if s == "" {
		s = "call"
	}
	return s
}

func mustString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}
