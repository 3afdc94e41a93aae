package live

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mcpscope/mcpscope/record"
)

// The bounds of a Publisher.
const (
	// DefaultMaxQueue is what may wait for one reader: past it, the reader is cut
	// off (CutLine), and the tap goes on as if it had never attached.
	DefaultMaxQueue = 8 << 20
	// DefaultMaxBacklog is the recording kept in memory for readers that attach
	// later; past it, they get the backlog from the recording file (the tee writes
	// the file before the Publisher, so the file holds every line published).
	DefaultMaxBacklog = 32 << 20
	// closeGrace is how long Close lets each reader take the lines still queued for
	// it (the end of the session) before it drops it.
	closeGrace = 2 * time.Second
)

// Publisher serves a tap's recording on its socket: an io.Writer of whole recording
// lines (the tee's second half). Write never blocks on a reader and never fails
// because of one: each reader has its own bounded queue and goroutine.
type Publisher struct {
	info     Info
	infoPath string
	ln       *net.UnixListener

	// MaxQueue and MaxBacklog are the bounds (set before the first reader attaches;
	// tests make them small).
	MaxQueue, MaxBacklog int

	mu      sync.Mutex
	partial []byte   // a line not ended yet (Write is given whole lines; a tee may split one)
	lines   [][]byte // the backlog, while it fits MaxBacklog
	kept    int      // bytes in lines
	spilled bool     // lines no longer holds the whole backlog: the file does
	n       int      // lines published
	readers map[*reader]struct{}
	closed  bool
	wg      sync.WaitGroup
	infoMu  sync.Mutex // one info file write at a time
}

// reader is one attached watcher.
type reader struct {
	conn   net.Conn
	queue  [][]byte
	bytes  int
	sent   int // lines this reader was given (backlog and queue) before a cut
	cut    bool
	closed bool
	wake   chan struct{}
}

// Publish makes the tap's socket and info file and starts serving readers. info's
// Name must be free (no live tap of that name); PID and Started default to this
// process and now. The socket is mode 0600 in a 0700 directory (Dir).
func Publish(info Info) (*Publisher, error) {
	dir, err := Dir()
	if err != nil {
		return nil, err
	}
	// A live tap of that name where List also looks would make attach NAME ambiguous.
	if other := otherDir(); other != "" {
		if all, err := list(other); err == nil {
			for _, i := range all {
				if i.Name == info.Name && i.Live() {
					return nil, fmt.Errorf("a tap named %q is running (pid %d): give this one another --name", i.Name, i.PID)
				}
			}
		}
	}
	return publish(dir, info)
}

func publish(dir string, info Info) (*Publisher, error) {
	if err := CheckName(info.Name); err != nil {
		return nil, err
	}
	if err := ensureDir(dir); err != nil {
		return nil, err
	}
	all, err := list(dir)
	if err != nil {
		return nil, err
	}
	finished := 0
	for k := len(all) - 1; k >= 0; k-- {
		i := all[k]
		if i.Name == info.Name && i.Live() {
			return nil, fmt.Errorf("a tap named %q is running (pid %d): give this one another --name", i.Name, i.PID)
		}
		if !i.Live() {
			if finished++; finished >= keepFinished && i.Name != info.Name {
				_ = os.Remove(filepath.Join(dir, i.Name+".json"))
			}
		}
	}
	sock := filepath.Join(dir, info.Name+".sock")
	if len(sock) > maxSocketPath {
		return nil, fmt.Errorf("the tap's socket path %s is longer than a Unix socket may be (%d bytes): set XDG_RUNTIME_DIR to a shorter directory", sock, maxSocketPath)
	}
	_ = os.Remove(sock) // a finished tap's of that name (the listing removed a crashed one's)
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		return nil, fmt.Errorf("cannot make the tap's socket: %v", err)
	}
	// The directory is 0700, so no one else could reach the socket before this.
	if err := os.Chmod(sock, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	if info.PID == 0 {
		info.PID = os.Getpid()
	}
	if info.Started.IsZero() {
		info.Started = time.Now()
	}
	info.Started = info.Started.UTC()
	// The info file outlives the tap: no secret of the command line or URL goes in it.
	red := &record.Redactor{}
	red.AddArgv(info.Argv)
	info.Argv, info.URL = red.Argv(info.Argv), red.URL(info.URL)
	info.Socket, info.Finished, info.Crashed = sock, nil, false
	p := &Publisher{info: info, infoPath: filepath.Join(dir, info.Name+".json"), ln: ln,
		MaxQueue: DefaultMaxQueue, MaxBacklog: DefaultMaxBacklog, readers: map[*reader]struct{}{}}
	if err := p.saveInfo(); err != nil {
		ln.Close()
		return nil, fmt.Errorf("cannot write the tap's info: %v", err)
	}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Info is the tap as its info file says it now.
func (p *Publisher) Info() Info {
	p.infoMu.Lock()
	defer p.infoMu.Unlock()
	return p.info
}

func (p *Publisher) saveInfo() error {
	p.infoMu.Lock()
	defer p.infoMu.Unlock()
	return writeInfo(p.infoPath, &p.info)
}

// Write publishes whole recording lines: into the backlog and every reader's queue.
// It does no I/O but the info file's update when the host's clientInfo is first seen.
func (p *Publisher) Write(b []byte) (int, error) {
	var client *record.Peer
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return 0, fmt.Errorf("the tap's live stream is closed")
	}
	data := b
	if len(p.partial) > 0 {
		data = append(p.partial, b...)
		p.partial = nil
	}
	for len(data) > 0 {
		k := bytes.IndexByte(data, '\n')
		if k < 0 {
			p.partial = append([]byte(nil), data...)
			break
		}
		line := bytes.Clone(data[:k+1])
		data = data[k+1:]
		if client == nil && p.n < 64 && p.info.Client == nil {
			client = hostClient(line)
		}
		p.publish(line)
	}
	p.mu.Unlock()
	if client != nil {
		p.infoMu.Lock()
		if p.info.Client == nil {
			p.info.Client = client
			_ = writeInfo(p.infoPath, &p.info) // a listing without it only lacks the host's name
		}
		p.infoMu.Unlock()
	}
	return len(b), nil
}

// publish adds one line (p.mu held).
func (p *Publisher) publish(line []byte) {
	p.n++
	if !p.spilled {
		if p.kept+len(line) <= p.MaxBacklog || p.n == 1 {
			p.lines = append(p.lines, line)
			p.kept += len(line)
		} else if p.info.Recording != "" {
			// From now on a reader attaching reads the backlog from the file.
			p.spilled, p.lines, p.kept = true, nil, 0
		} else {
			// No file to read it from: the header, a line saying how many were
			// not kept, and what comes after (never a silent gap).
			p.lines = append(p.lines[:1:1], droppedLine(p.n-1))
			p.kept = len(p.lines[0]) + len(p.lines[1])
			p.lines = append(p.lines, line)
			p.kept += len(line)
		}
	}
	for r := range p.readers {
		if r.cut || r.closed {
			continue
		}
		if r.bytes+len(line) > p.MaxQueue && r.bytes > 0 {
			r.cut, r.queue, r.bytes = true, nil, 0
		} else {
			r.queue = append(r.queue, line)
			r.bytes += len(line)
		}
		poke(r.wake)
	}
}

func poke(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

func (p *Publisher) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return // closed
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			c.Close()
			return
		}
		r := &reader{conn: c, wake: make(chan struct{}, 1)}
		backlog, n, spilled := p.lines, p.n, p.spilled
		if spilled {
			backlog = nil
		}
		r.sent = n
		p.readers[r] = struct{}{}
		p.wg.Add(1)
		p.mu.Unlock()
		go p.serve(r, backlog, n, spilled)
	}
}

// serve writes the backlog, then the reader's queue as it fills, until the tap closes
// or the reader is cut off or goes away.
func (p *Publisher) serve(r *reader, backlog [][]byte, n int, spilled bool) {
	defer p.wg.Done()
	defer func() {
		p.mu.Lock()
		delete(p.readers, r)
		p.mu.Unlock()
		r.conn.Close()
	}()
	var err error
	if spilled {
		err = copyLines(r.conn, p.info.Recording, n)
	} else {
		// A copy of the slice: WriteTo consumes the one it is given, and the
		// backlog's array is the Publisher's.
		bufs := append(net.Buffers(nil), backlog...)
		_, err = bufs.WriteTo(r.conn)
	}
	for err == nil {
		<-r.wake
		p.mu.Lock()
		q, cut, closed := r.queue, r.cut, r.closed
		r.queue, r.bytes = nil, 0
		sent := r.sent
		r.sent += len(q)
		p.mu.Unlock()
		if cut {
			p.writeCut(r.conn, sent)
			return
		}
		if len(q) > 0 {
			bufs := net.Buffers(q)
			_, err = bufs.WriteTo(r.conn)
		}
		if closed {
			p.mu.Lock()
			rest := len(r.queue)
			p.mu.Unlock()
			if rest == 0 {
				return
			}
			poke(r.wake)
		}
	}
}

// writeCut tells a reader why its stream ends here and where the rest is.
func (p *Publisher) writeCut(c net.Conn, sent int) {
	m := CutLine{Format: "cut", Line: sent, Recording: p.info.Recording,
		Text: fmt.Sprintf("this reader fell more than %s behind the tap and was cut off after line %d", size(p.MaxQueue), sent)}
	if p.info.Recording != "" {
		m.Text += "; the recording " + p.info.Recording + " has every line"
	}
	b, _ := jsonLine(m)
	_ = c.SetWriteDeadline(time.Now().Add(closeGrace))
	_, _ = c.Write(b)
}

// Close ends the stream: each reader gets what is queued for it (within closeGrace),
// the socket is removed, and the info file says the tap finished.
func (p *Publisher) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	if len(p.partial) > 0 { // a last line without its newline still reaches the readers
		p.publish(append(p.partial, '\n'))
		p.partial = nil
	}
	deadline := time.Now().Add(closeGrace)
	for r := range p.readers {
		r.closed = true
		_ = r.conn.SetWriteDeadline(deadline) // a stuck reader cannot hold Close
		poke(r.wake)
	}
	p.mu.Unlock()
	err := p.ln.Close() // removes the socket
	p.wg.Wait()
	now := time.Now().UTC()
	p.infoMu.Lock()
	p.info.Finished = &now
	werr := writeInfo(p.infoPath, &p.info)
	p.infoMu.Unlock()
	if err == nil {
		err = werr
	}
	return err
}

// droppedLine is a recording line (a synthetic event) that says the n lines before it
// were not kept for readers that attach later.
func droppedLine(n int) []byte {
	b, _ := jsonLine(record.Event{Kind: record.KindSynthetic,
		Text: fmt.Sprintf("the first %d lines of this session were not kept for watchers (the tap has no recording file)", n)})
	return b
}

func jsonLine(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	return append(b, '\n'), err
}

// size says n bytes as people read it (8 MiB).
func size(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
