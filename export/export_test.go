package export

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/mcpscope/mcpscope/internal/testservers/exportrec"
	"github.com/mcpscope/mcpscope/record"
)

// exportFile is the export of a recording's file in format.
func exportFile(t *testing.T, path, format string) string {
	t.Helper()
	rec, err := Open(File(path))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := rec.Write(&out, format, Options{Name: "mcpscope", Version: "test"}); err != nil {
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

// heapWatch is a writer that samples the live heap (after a collection) every few
// writes, and keeps the largest.
type heapWatch struct {
	writes, n int
	max       uint64
}

func (h *heapWatch) Write(p []byte) (int, error) {
	h.writes++
	h.n += len(p)
	if h.writes%16 == 1 {
		h.sample()
	}
	return len(p), nil
}

func (h *heapWatch) sample() {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	h.max = max(h.max, m.HeapAlloc)
}

// Every format is written while the recording is read, holding neither its events
// nor the output: the live heap stays far under the size of an 8 MiB recording
// (made as it is read, so the test does not hold it either) all through the export.
// An export that loads the recording, or builds its document before writing it
// (HAR's entries come in another order than they complete), holds more than that.
func TestExportMemoryIsFlat(t *testing.T) {
	const size = 8 << 20
	src := func() (*record.Reader, error) { return record.NewReader(exportrec.Reader("several", size)) }
	for _, format := range Formats {
		t.Run(format, func(t *testing.T) {
			rec, err := Open(src)
			if err != nil {
				t.Fatal(err)
			}
			w := &heapWatch{}
			w.sample()
			if err := rec.Write(w, format, Options{}); err != nil {
				t.Fatal(err)
			}
			w.sample()
			if w.n < size/8 {
				t.Fatalf("the %s export is only %d bytes", format, w.n)
			}
			if w.max > size/4 {
				t.Errorf("the %s export held %.1f MiB live of a %d MiB recording", format, float64(w.max)/(1<<20), size>>20)
			}
			t.Logf("%s: %.1f MiB written, at most %.1f MiB live", format, float64(w.n)/(1<<20), float64(w.max)/(1<<20))
		})
	}
}

// A recording that grows between the survey and the export (a session still being
// recorded) is exported as the survey found it: what came since is not half in it
// (a pending request's end before its start, an HTTP exchange cut short).
func TestExportOfAGrowingRecordingIsTheSurveyed(t *testing.T) {
	orig, err := os.ReadFile(filepath.Join("testdata", "stdio.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "live.jsonl")
	if err := os.WriteFile(path, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	want := exportFile(t, path, "json")
	rec, err := Open(File(path))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"t":0.300,"dir":"recv","msg":{"jsonrpc":"2.0","id":6,"result":{"messages":[]}}}` + "\n" +
		`{"t":0.310,"dir":"send","msg":{"jsonrpc":"2.0","id":7,"method":"tools/list"}}` + "\n")
	f.Close()
	var out bytes.Buffer
	if err := rec.Write(&out, "json", Options{}); err != nil {
		t.Fatal(err)
	}
	if out.String() != want {
		t.Errorf("the export after the file grew:\n%s\nwant, as surveyed:\n%s", out.String(), want)
	}
}
