package toolfile

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// A tool that leaves a background process behind gets its output back as soon as the
// command exits, with a note, and the background process is ended with the call:
// whether it keeps the command's stdout (which used to fail the call after 2 s with
// "WaitDelay expired") or not, and whether it stays in the process group or moves to a
// session of its own.
func TestBackgroundChildEndsWithTheCall(t *testing.T) {
	for _, tc := range []struct{ name, child string }{
		{"keeps-stdout", `sleep 1000 &`},
		{"stdout-closed", `sleep 1000 >/dev/null 2>&1 </dev/null &`},
		{"setsid", `setsid sleep 1000 >/dev/null 2>&1 </dev/null &`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			pidfile := filepath.Join(dir, "pid")
			script := tc.child + ` echo $! > "$PIDFILE"; echo done`
			file := fmt.Sprintf(`{"tools":[{"name":"bg","run":["env","PIDFILE=%s","sh","-c",%q]}]}`, pidfile, script)
			f, err := Parse(filepath.Join(dir, "tools.json"), []byte(file))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if pid := readPID(pidfile); pid > 0 && testutil.Alive(pid) {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			res, _, err := f.Tools[0].Call(t.Context(), json.RawMessage(`{}`))
			if err != nil {
				t.Fatal(err)
			}
			text := resultText(res)
			if res.IsError || !strings.HasPrefix(text, "done\n") {
				t.Fatalf("result (isError %v): %q", res.IsError, text)
			}
			pid := readPID(pidfile)
			if pid <= 0 {
				t.Fatal("no PID recorded")
			}
			if want := fmt.Sprintf("left PID %d (", pid); !strings.Contains(text, want) || !strings.Contains(text, "running when it exited; ended with the call") {
				t.Errorf("result does not say %q… running when it exited; ended with the call:\n%s", want, text)
			}
			deadline := time.Now().Add(30 * time.Second)
			for testutil.Alive(pid) && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
			if testutil.Alive(pid) {
				t.Errorf("the background sleep (PID %d) outlived the call", pid)
			}
		})
	}
}

func readPID(path string) int {
	b, _ := os.ReadFile(path)
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	return n
}
