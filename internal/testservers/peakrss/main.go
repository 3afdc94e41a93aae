// Command peakrss runs a command with its output discarded and prints its wall time and
// its own peak RSS (VmHWM, polled from /proc every millisecond until it exits; the
// kernel's rusage would fold in the peak of the server it started, which is not the
// client's). scripts/bench-big measures mcpscope and its references with it.
//
//	peakrss CMD [ARGS...]     prints "SECONDS MiB" on stdout
package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: peakrss CMD [ARGS...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin = os.Stdin
	cmd.Stderr = os.Stderr // the caller decides where a failure's words go
	start := time.Now()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		os.Exit(1)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	peak := 0
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			elapsed := time.Since(start)
			if err != nil {
				fmt.Fprintf(os.Stderr, "peakrss: %v: %v\n", os.Args[1:], err)
				os.Exit(1)
			}
			fmt.Printf("%.3f %.1f\n", elapsed.Seconds(), float64(peak)/1024)
			return
		case <-tick.C:
		}
		if kb := vmHWM(status); kb > peak {
			peak = kb
		}
	}
}

// vmHWM reads a process's peak RSS in KiB (0 once it is gone).
func vmHWM(path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if v, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmHWM:")); ok {
			kb, _ := strconv.Atoi(string(bytes.TrimSpace(bytes.TrimSuffix(bytes.TrimSpace(v), []byte("kB")))))
			return kb
		}
	}
	return 0
}
