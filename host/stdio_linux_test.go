package host

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// TestHostWaitsForRequestsInThePoller is issue 14 item 9: the bundled host stalled for
// about 60 s, a few times in 2 million sequential calls, having read a request and
// written nothing. A child gets its stdin pipe in blocking mode, so the host waited
// for each request in read(2); a garbage collection's stop-the-world that began as the
// reading goroutine entered read(2) waited for that goroutine, with every other one
// stopped, until the client wrote again or the runtime's sysmon woke from its 60 s
// sleep (see package pollread). Between two requests, no thread of the host may wait
// in read(2) on its stdin.
func TestHostWaitsForRequestsInThePoller(t *testing.T) {
	bin := testutil.Mcpscope(t)
	for _, framing := range []string{FramingNDJSON, FramingContentLength} {
		t.Run(framing, func(t *testing.T) {
			cmd := exec.Command(bin, "host", "--framing", framing)
			stdin, err := cmd.StdinPipe() // the child's end is a blocking pipe, as any client gives it
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				stdin.Close()
				done := make(chan struct{})
				go func() { cmd.Wait(); close(done) }()
				select {
				case <-done:
				case <-time.After(testutil.Patience):
					cmd.Process.Kill()
					<-done
				}
			})
			out := bufio.NewReader(stdout)
			send := func(msg string) {
				t.Helper()
				if framing == FramingContentLength {
					msg = fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(msg), msg)
				} else {
					msg += "\n"
				}
				if _, err := io.WriteString(stdin, msg); err != nil {
					t.Fatal(err)
				}
			}
			receive := func() string {
				t.Helper()
				var line string
				testutil.Within(t, "reading the host's answer", func() {
					if framing == FramingContentLength {
						body, err := readFrame(out, MaxFrameBytes)
						if err != nil {
							t.Error(err)
						}
						line = string(body)
						return
					}
					var err error
					line, err = out.ReadString('\n')
					if err != nil {
						t.Error(err)
					}
				})
				return line
			}
			send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
			receive()
			send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello"}}}`)
			if got := receive(); !strings.Contains(got, `"hello"`) {
				t.Fatalf("echo answered %s", got)
			}
			// The host now waits for the next request.
			testutil.AssertWaitsForStdinInPoller(t, cmd.Process.Pid)
			// And it still answers.
			send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"again"}}}`)
			if got := receive(); !strings.Contains(got, `"again"`) {
				t.Fatalf("echo answered %s", got)
			}
		})
	}
}
