package tap

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

func TestMain(m *testing.M) { testutil.Main(m) }

// liveWriter is slice C's live stream as the tap sees it: an io.Writer, that may fail.
type liveWriter struct {
	buf      bytes.Buffer
	failFrom int // writes from this one on fail (0: never)
	n        int
}

func (l *liveWriter) Write(p []byte) (int, error) {
	l.n++
	if l.failFrom > 0 && l.n >= l.failFrom {
		return 0, errors.New("the attach socket is gone")
	}
	return l.buf.Write(p)
}

// Live gets exactly the recording's bytes, header first; a Live that fails is dropped
// (said once) and the recording and the forwarding go on.
func TestLiveIsTheRecording(t *testing.T) {
	bin := testutil.Mcpscope(t)
	requests := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"live-host","version":"3"}}}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n"
	for _, failFrom := range []int{0, 2} {
		var file, stdout, stderr bytes.Buffer
		live := &liveWriter{failFrom: failFrom}
		res, err := Run(testutil.Context(t), Options{Argv: []string{bin, "host"}, Stdin: strings.NewReader(requests),
			Stdout: &stdout, Stderr: &stderr, Record: &file, Live: live})
		if err != nil || res.ExitCode() != 0 {
			t.Fatalf("%v %+v\n%s", err, res, stderr.String())
		}
		if !strings.Contains(file.String(), `"client":{"name":"live-host","version":"3"}`) || !strings.Contains(file.String(), `"kind":"end"`) {
			t.Errorf("the recording:\n%s", file.String())
		}
		switch failFrom {
		case 0:
			if live.buf.String() != file.String() || stderr.Len() != 0 {
				t.Errorf("live got\n%s\nthe recording is\n%s\nstderr: %s", live.buf.String(), file.String(), stderr.String())
			}
		default:
			if !strings.HasPrefix(file.String(), live.buf.String()) || live.buf.Len() == 0 ||
				strings.Count(stderr.String(), "mcpscope tap: live stream stopped: the attach socket is gone") != 1 {
				t.Errorf("live got\n%s\nstderr: %s", live.buf.String(), stderr.String())
			}
		}
	}
}

// The context's end (SIGTERM to the tap) ends the server too; Result says so.
func TestCancelStopsTheServer(t *testing.T) {
	bin := testutil.Mcpscope(t)
	ctx, cancel := context.WithCancel(testutil.Context(t))
	var file bytes.Buffer
	r, w := ioPipe(t)
	done := make(chan Result, 1)
	go func() {
		res, _ := Run(ctx, Options{Argv: []string{bin, "host"}, Stdin: r, Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}, Record: &file})
		done <- res
	}()
	w.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"h","version":"1"}}}` + "\n"))
	cancel()
	var res Result
	testutil.Within(t, "the tap's end after cancel", func() { res = <-done })
	if !res.Stopped || !strings.Contains(file.String(), `"kind":"closed"`) {
		t.Errorf("%+v\n%s", res, file.String())
	}
}

func ioPipe(t *testing.T) (*os.File, *os.File) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	return r, w
}
