package export

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/mcpscope/mcpscope/record"
)

// exportFile is the export of a recording's file in format.
func exportFile(t *testing.T, path, format string) string {
	t.Helper()
	rec, err := record.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Write(&out, format, rec, Options{Name: "mcpscope", Version: "test"}); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// The bytes of every format, for recordings that hold what exports must get right:
// over stdio, notifications owned by progress token and by time, a tool error, a
// JSON-RPC error, a cancelled request, a server-to-client request, a request still
// pending at the end, a traceparent; over HTTP, a long GET stream whose events
// interleave with POSTs', SSE ids, a 202, a failed exchange, a session id; with
// several servers, a subscriptions/listen whose notifications come after later
// exchanges, and a server added in the middle. The goldens were written by the
// export that loaded the whole recording; the streaming one must give the same bytes.
func TestExportGoldens(t *testing.T) {
	for _, name := range []string{"stdio", "http", "several"} {
		for _, format := range Formats {
			t.Run(name+"-"+format, func(t *testing.T) {
				out := exportFile(t, filepath.Join("testdata", name+".jsonl"), format)
				if !strings.HasSuffix(out, "\n") {
					t.Errorf("the %s export does not end with a newline", format)
				}
				golden.RequireEqual(t, out)
			})
		}
	}
}
