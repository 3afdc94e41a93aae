package host

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/internal/testutil"
	"golang.org/x/sys/unix"
)

// stdinReaders looks at the threads of process pid: it returns those that wait in
// read(2) on fd 0, and whether every thread was asleep (so that no read was about to
// start or under way where it looked).
func stdinReaders(pid int) (tids []string, settled bool) {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*", pid))
	settled = len(tasks) > 0
	for _, task := range tasks {
		stat, err1 := os.ReadFile(task + "/stat")
		sc, err2 := os.ReadFile(task + "/syscall")
		if err1 != nil || err2 != nil {
			settled = false // a thread came or went
			continue
		}
		if f := strings.Fields(string(sc)); len(f) >= 2 && f[0] == fmt.Sprint(unix.SYS_READ) && f[1] == "0x0" {
			tids = append(tids, filepath.Base(task))
		}
		s := string(stat) // the state follows the command name, which is in parentheses
		if i := strings.LastIndexByte(s, ')'); i < 0 || i+2 >= len(s) || s[i+2] != 'S' {
			settled = false
		}
	}
	return tids, settled
}

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
			// The host now waits for the next request. Look until every thread is
			// asleep, or one waits in read(2) on stdin.
			deadline := time.Now().Add(testutil.Patience)
			for {
				tids, settled := stdinReaders(cmd.Process.Pid)
				if len(tids) > 0 {
					t.Fatalf("thread %v of the host waits for the next request in read(2) on its stdin: a garbage collection that starts as it enters the call stops the host until the client writes again", tids)
				}
				if settled {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the host's threads never all slept after answering")
				}
				time.Sleep(time.Millisecond)
			}
			// And it still answers.
			send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"again"}}}`)
			if got := receive(); !strings.Contains(got, `"again"`) {
				t.Fatalf("echo answered %s", got)
			}
		})
	}
}
