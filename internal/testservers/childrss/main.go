// Command childrss runs a command with its output discarded and prints its wall time
// and the peak RSS (VmHWM) of the one process below it whose argv[1] is WORD: a
// process in the middle of a pipeline, such as `mcpscope tap` between a client and
// its server, whose peak peakrss (which measures the command it starts) cannot see.
// /proc is polled every millisecond; the last read before the process exits counts,
// VmHWM being a high-water mark.
//
//	childrss WORD CMD [ARGS...]     prints "SECONDS MiB" on stdout
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: childrss WORD CMD [ARGS...]")
		os.Exit(2)
	}
	word := os.Args[1]
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin = os.Stdin
	cmd.Stderr = os.Stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "childrss:", err)
		os.Exit(1)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	pid, peak := 0, 0
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			wall := time.Since(start)
			if err != nil {
				fmt.Fprintln(os.Stderr, "childrss:", err)
				os.Exit(1)
			}
			if pid == 0 {
				fmt.Fprintf(os.Stderr, "childrss: no process with argv[1] %q seen\n", word)
				os.Exit(1)
			}
			fmt.Printf("%.3f %.1f\n", wall.Seconds(), float64(peak)/1024)
			return
		case <-tick.C:
			if pid == 0 {
				pid = find(cmd.Process.Pid, word)
			}
			if pid != 0 {
				peak = max(peak, hwm(pid))
			}
		}
	}
}

// find is the descendant of root whose argv[1] is word, or 0.
func find(root int, word string) int {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == root {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		argv := bytes.Split(b, []byte{0})
		if len(argv) > 1 && string(argv[1]) == word && below(pid, root) {
			return pid
		}
	}
	return 0
}

func below(pid, root int) bool {
	for pid > 1 {
		pid = ppid(pid)
		if pid == root {
			return true
		}
	}
	return false
}

func ppid(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

// hwm is the process's VmHWM in KiB (0 once it is gone).
func hwm(pid int) int {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			n, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")))
			return n
		}
	}
	return 0
}
