package live

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/record"
)

func TestMain(m *testing.M) { testutil.Main(m) }

// runtimeDir gives the test a runtime directory of its own (the registry lives there).
func runtimeDir(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", d)
	return filepath.Join(d, "mcpscope", "taps")
}

// tapSession is what a tap does with a Publisher: a recording written through the
// tee of its file and the Publisher (record.NewWriter, as the tap's is).
type tapSession struct {
	pub  *Publisher
	rec  *record.Writer
	file string
}

func startTap(t *testing.T, name string) *tapSession {
	t.Helper()
	file := filepath.Join(t.TempDir(), name+".jsonl")
	f, err := os.Create(file)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	pub, err := Publish(Info{Name: name, Argv: []string{"mcpscope", "host", "--api-key", "sk-0123456789abcdef"}, Recording: file})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pub.Close() })
	w, err := record.NewWriter(io.MultiWriter(f, pub), record.Header{
		Target: record.Target{Transport: "stdio", Argv: []string{"mcpscope", "host"}},
		Client: &record.Peer{Name: "claude-ai", Version: "0.1.0"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &tapSession{pub: pub, rec: w, file: file}
}

// call records one tools/call and its answer, as a host and a server sent them.
func (s *tapSession) call(t *testing.T, id int, text string) {
	t.Helper()
	req := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"text":%q}}}`, id, text)
	res := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":%q}]}}`, id, text)
	for _, e := range []record.Event{{Dir: record.Send, Msg: json.RawMessage(req)}, {Dir: record.Recv, Msg: json.RawMessage(res)}} {
		if err := s.rec.Write(e); err != nil {
			t.Fatal(err)
		}
	}
}

func attach(t *testing.T, name string) (io.Closer, *bufio.Reader) {
	t.Helper()
	i, err := Find(name)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Open(i)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, bufio.NewReader(c)
}

func readLine(t *testing.T, br *bufio.Reader) string {
	t.Helper()
	var line string
	testutil.Within(t, "reading a line of the stream", func() {
		b, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("the stream ended: %v (read %q)", err, b)
		}
		line = b
	})
	return line
}

// A reader that attaches mid-session gets the recording from its header, then every
// line as it is written, in order and once each; the stream ends when the tap does.
func TestAttachGetsTheBacklogThenLive(t *testing.T) {
	runtimeDir(t)
	s := startTap(t, "weather")
	s.call(t, 1, "before")
	_, br := attach(t, "weather")
	if h := readLine(t, br); !strings.HasPrefix(h, `{"mcpscope":"recording"`) || !strings.Contains(h, `"claude-ai"`) {
		t.Fatalf("the first line is not the recording's header: %s", h)
	}
	for _, want := range []string{`"before"`, `"before"`} {
		if l := readLine(t, br); !strings.Contains(l, want) {
			t.Fatalf("backlog line %q lacks %s", l, want)
		}
	}
	s.call(t, 2, "live")
	for range 2 {
		if l := readLine(t, br); !strings.Contains(l, `"live"`) {
			t.Fatalf("the live line %q lacks the call made after attaching", l)
		}
	}
	s.pub.Close()
	if rest, err := io.ReadAll(br); err != nil || len(rest) != 0 {
		t.Fatalf("after the tap closed: %q, %v; want the end of the stream", rest, err)
	}
	// The recording and the stream are the same bytes.
	b, _ := os.ReadFile(s.file)
	if n := bytes.Count(b, []byte("\n")); n != 5 {
		t.Fatalf("the recording holds %d lines, want 5", n)
	}
}

// Past MaxBacklog, the backlog comes from the recording file, whole and in order.
func TestBacklogBeyondMemoryComesFromTheFile(t *testing.T) {
	runtimeDir(t)
	s := startTap(t, "big")
	s.pub.MaxBacklog = 1 << 10
	for i := range 50 {
		s.call(t, i, strings.Repeat("x", 100))
	}
	_, br := attach(t, "big")
	want, _ := os.ReadFile(s.file)
	lines := bytes.Count(want, []byte("\n"))
	var got strings.Builder
	for range lines {
		got.WriteString(readLine(t, br))
	}
	if got.String() != string(want) {
		t.Fatalf("the backlog differs from the recording:\n got %d bytes\nwant %d bytes", got.Len(), len(want))
	}
}

// A reader that stops reading never slows or blocks the tap: past its queue it is cut
// off with a marker naming the recording, while another reader gets everything.
func TestStuckReaderDoesNotBlockTheTap(t *testing.T) {
	runtimeDir(t)
	s := startTap(t, "flood")
	s.pub.MaxQueue = 64 << 10
	stuck, stuckR := attach(t, "flood")
	_ = stuck
	// 4 MiB through the tap while the stuck reader reads nothing: far beyond its
	// queue and the socket's buffers.
	big := strings.Repeat("y", 64<<10)
	testutil.Within(t, "writing 4 MiB with a reader that reads nothing", func() {
		for i := range 64 {
			s.call(t, i, big)
		}
	})
	_, fastR := attach(t, "flood")
	want, _ := os.ReadFile(s.file)
	n := bytes.Count(want, []byte("\n"))
	for range n {
		readLine(t, fastR)
	}
	// The stuck reader, reading at last: what was queued before the cut, then the marker.
	var cut CutLine
	for k := 0; ; k++ {
		l := readLine(t, stuckR)
		if c, ok := ParseCut([]byte(l)); ok {
			cut = c
			break
		}
		if k > n {
			t.Fatal("the stuck reader was never cut off")
		}
	}
	if cut.Recording != s.file || !strings.Contains(cut.Text, "fell more than 64 KiB behind") || !strings.Contains(cut.Text, s.file) {
		t.Fatalf("the cut marker does not say why and where the rest is: %+v", cut)
	}
	if _, err := stuckR.ReadString('\n'); err != io.EOF {
		t.Fatalf("the stream went on after the cut: %v", err)
	}
}

// mcpscope taps lists live and finished taps: a closed one with its recording, one
// whose process died without closing as crashed (its stale socket removed).
func TestListLiveFinishedAndCrashed(t *testing.T) {
	dir := runtimeDir(t)
	live := startTap(t, "live")
	done := startTap(t, "done")
	done.call(t, 1, "x")
	if err := done.pub.Close(); err != nil {
		t.Fatal(err)
	}
	// A tap killed with SIGKILL: its info says live, its socket is left, its pid gone.
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	crashSock := filepath.Join(dir, "crashed.sock")
	ln, err := net.Listen("unix", crashSock)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	if err := writeInfo(filepath.Join(dir, "crashed.json"), &Info{Name: "crashed", PID: dead.Process.Pid, Socket: crashSock, Recording: "/tmp/r.jsonl"}); err != nil {
		t.Fatal(err)
	}

	all, err := List()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Info{}
	for _, i := range all {
		got[i.Name] = i
	}
	if i := got["live"]; !i.Live() || i.PID != os.Getpid() || i.Client == nil || i.Client.Name != "claude-ai" {
		t.Fatalf("the live tap: %+v (want live, this pid, the host's clientInfo)", i)
	}
	if i := got["done"]; i.Live() || i.Crashed || i.Recording != done.file {
		t.Fatalf("the finished tap: %+v (want finished with its recording)", i)
	}
	if i := got["crashed"]; i.Live() || !i.Crashed {
		t.Fatalf("the crashed tap: %+v (want finished, crashed)", i)
	}
	if _, err := os.Lstat(crashSock); !os.IsNotExist(err) {
		t.Fatalf("the crashed tap's stale socket is still there: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "done.sock")); !os.IsNotExist(err) {
		t.Fatalf("the finished tap's socket is still there: %v", err)
	}
	// The command line's secret never reached the info file.
	b, _ := os.ReadFile(filepath.Join(dir, "live.json"))
	if bytes.Contains(b, []byte("sk-0123456789abcdef")) {
		t.Fatalf("the info file holds the --api-key value:\n%s", b)
	}
	// A finished tap attaches as its recording.
	_, br := attach(t, "done")
	if h := readLine(t, br); !strings.HasPrefix(h, `{"mcpscope":"recording"`) {
		t.Fatalf("a finished tap's stream does not start with its recording's header: %s", h)
	}
	// A second live tap of the same name is refused; no name with two live is a choice.
	if _, err := Publish(Info{Name: "live"}); err == nil || !strings.Contains(err.Error(), `a tap named "live" is running`) {
		t.Fatalf("a second tap named live: %v", err)
	}
	startTap(t, "other")
	if _, err := Find(""); err != ErrChoose {
		t.Fatalf("Find without a name with two live taps: %v", err)
	}
	_ = live
}

func TestSocketAndDirectoryModes(t *testing.T) {
	dir := runtimeDir(t)
	startTap(t, "modes")
	for path, want := range map[string]os.FileMode{dir: 0o700, filepath.Join(dir, "modes.sock"): 0o600, filepath.Join(dir, "modes.json"): 0o600} {
		st, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != want {
			t.Errorf("%s is mode %04o, want %04o", path, st.Mode().Perm(), want)
		}
	}

	// A directory open to others is refused, not used and not chmod-ed.
	open := filepath.Join(t.TempDir(), "taps")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := publish(open, Info{Name: "x"})
	if err == nil || !strings.Contains(err.Error(), "is mode 0755, open to other users") {
		t.Fatalf("publishing into a 0755 directory: %v", err)
	}
	if _, err := list(open); err == nil {
		t.Fatal("listing a 0755 directory was not refused")
	}
	// A socket that is not one (a regular file in its place) is refused on attach.
	fake := filepath.Join(dir, "fake.sock")
	if err := os.WriteFile(fake, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Open(Info{Name: "fake", PID: os.Getpid(), Socket: fake})
	if err == nil || !strings.Contains(err.Error(), "is a regular file, not a socket") {
		t.Fatalf("attaching to a regular file: %v", err)
	}
	// A socket open to others is refused too.
	if err := os.Chmod(filepath.Join(dir, "modes.sock"), 0o666); err != nil {
		t.Fatal(err)
	}
	i, _ := Find("modes")
	if _, err := Open(i); err == nil || !strings.Contains(err.Error(), "is mode 0666") {
		t.Fatalf("attaching to a 0666 socket: %v", err)
	}
	// A name that would leave the directory is refused.
	if _, err := Publish(Info{Name: "../x"}); err == nil || !strings.Contains(err.Error(), "cannot name a tap") {
		t.Fatalf("a tap named ../x: %v", err)
	}
}

// Without a recording file to read the backlog from, a late reader is told how many
// lines were not kept: never a silent gap.
func TestBacklogWithoutAFileSaysWhatWasDropped(t *testing.T) {
	runtimeDir(t)
	pub, err := Publish(Info{Name: "nofile"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pub.Close() })
	pub.MaxBacklog = 1 << 10
	w, err := record.NewWriter(pub, record.Header{Target: record.Target{Transport: "stdio", Argv: []string{"srv"}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := &tapSession{pub: pub, rec: w}
	for i := range 20 {
		s.call(t, i, strings.Repeat("z", 100))
	}
	_, br := attach(t, "nofile")
	if h := readLine(t, br); !strings.HasPrefix(h, `{"mcpscope":"recording"`) {
		t.Fatalf("first line: %s", h)
	}
	if l := readLine(t, br); !strings.Contains(l, `"kind":"synthetic"`) || !strings.Contains(l, "lines of this session were not kept") {
		t.Fatalf("the second line does not say what was dropped: %s", l)
	}
	if l := readLine(t, br); !strings.Contains(l, `"id":`) {
		t.Fatalf("after the gap, not a message: %s", l)
	}
}
