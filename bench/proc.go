package bench

import (
	"bytes"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Tree names the server's processes: Root's descendants, and Root itself when
// WithRoot. For a stdio server mcpscope started, Root is mcpscope (os.Getpid()):
// its descendants are the servers it started, under their supervisors, which are
// left out (internal/proctree names them mcpscope-supervisor; they only wait). For a
// server given by its PID (--pid), Root is that PID, WithRoot set.
type Tree struct {
	Root     int
	WithRoot bool
}

// ProcStats is the tree over a run, read from /proc every SampleEvery.
type ProcStats struct {
	Pids    int           // the most processes seen at once
	CPU     time.Duration // user + system time the tree used during the run
	Wall    time.Duration // the time it was sampled over
	RSSPeak int64         // bytes, summed over the tree (shared pages count in each)
	RSSMean int64
	Samples int
}

// CPUPercent is CPU time over wall time: 100 is one core busy.
func (p *ProcStats) CPUPercent() float64 {
	if p.Wall <= 0 {
		return 0
	}
	return 100 * p.CPU.Seconds() / p.Wall.Seconds()
}

// SampleEvery is how often the tree is read: often enough for a peak in a run of a
// few seconds, seldom enough that reading /proc is not a load of its own.
const SampleEvery = 200 * time.Millisecond

// clockTicks is USER_HZ, the unit of /proc's times: 100 on every Linux ABI Go runs on
// (the kernel fixes it for user space whatever CONFIG_HZ is).
const clockTicks = 100

type procSample struct {
	cpu  map[int]time.Duration
	rss  int64
	pids int
}

// sample reads the tree once.
func (t Tree) sample() procSample {
	s := procSample{cpu: map[int]time.Duration{}}
	page := int64(os.Getpagesize())
	for _, pid := range t.pids() {
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 22 {
			continue
		}
		// Fields after the name, from 0: state ppid pgrp session tty tpgid flags
		// minflt cminflt majflt cmajflt utime(11) stime(12) ... rss(21) in pages.
		ut, _ := strconv.ParseInt(f[11], 10, 64)
		stt, _ := strconv.ParseInt(f[12], 10, 64)
		rss, _ := strconv.ParseInt(f[21], 10, 64)
		s.cpu[pid] = time.Duration(ut+stt) * time.Second / clockTicks
		s.rss += rss * page
		s.pids++
	}
	return s
}

// pids lists the tree now.
func (t Tree) pids() []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(b[i+1:]))
		if len(f) < 2 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		children[ppid] = append(children[ppid], pid)
	}
	var out []int
	if t.WithRoot {
		out = append(out, t.Root)
	}
	queue := []int{t.Root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			queue = append(queue, c)
			if !supervisor(c) {
				out = append(out, c)
			}
		}
	}
	sort.Ints(out)
	return slices.Compact(out)
}

// supervisor says whether pid is one of internal/proctree's supervisors, by the
// argv[0] it gives them.
func supervisor(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return false
	}
	argv0, _, _ := bytes.Cut(b, []byte{0})
	return string(argv0) == "mcpscope-supervisor"
}

// sampler reads a tree every SampleEvery until stopped.
type sampler struct {
	tree  Tree
	done  chan struct{}
	wg    sync.WaitGroup
	start time.Time
	first procSample
	mu    sync.Mutex
	stats ProcStats
	cpu   map[int]time.Duration // the last CPU time seen of each process
	rssN  int64
}

func startSampler(t Tree) *sampler {
	s := &sampler{tree: t, done: make(chan struct{}), start: time.Now(), cpu: map[int]time.Duration{}}
	s.first = t.sample()
	s.take(s.first)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		tk := time.NewTicker(SampleEvery)
		defer tk.Stop()
		for {
			select {
			case <-s.done:
				return
			case <-tk.C:
				s.take(t.sample())
			}
		}
	}()
	return s
}

func (s *sampler) take(p procSample) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for pid, c := range p.cpu {
		s.cpu[pid] = c // a process that exits keeps the time it was last seen with
	}
	s.stats.Pids = max(s.stats.Pids, p.pids)
	s.stats.RSSPeak = max(s.stats.RSSPeak, p.rss)
	s.rssN += p.rss
	s.stats.Samples++
}

// stop takes a last sample and returns the tree's figures over the run: CPU is what
// each process used since the first sample (or since it started, for one started
// during the run).
func (s *sampler) stop() *ProcStats {
	close(s.done)
	s.wg.Wait()
	s.take(s.tree.sample())
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	for pid, c := range s.cpu {
		st.CPU += c - s.first.cpu[pid]
	}
	st.Wall = time.Since(s.start)
	if st.Samples > 0 {
		st.RSSMean = s.rssN / int64(st.Samples)
	}
	return &st
}

func sortErrors(m map[string]*ErrorCount) []ErrorCount {
	out := make([]ErrorCount, 0, len(m))
	for _, e := range m {
		out = append(out, *e)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Kind < out[j].Kind
	})
	return out
}
