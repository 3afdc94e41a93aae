package tui

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/testutil"
)

// R starts and stops recording in a command: while the recording's file is slow to
// open (a blocked disk, a network mount), keys still work, and the status bar says
// it is recording once the file is there.
func TestRecordingToggleDoesNotBlockKeys(t *testing.T) {
	release := make(chan struct{})
	var released bool
	free := func() {
		if !released {
			released = true
			close(release)
		}
	}
	t.Cleanup(free)
	calls := 0
	toggle := func() (string, error) {
		calls++
		if calls == 1 {
			<-release // the disk is slow
			return "/rec/session.jsonl", nil
		}
		return "", nil
	}
	h := newHarnessWith(t, Options{Target: hostTarget(t), Name: "bundled host", Theme: "dark", ToggleRecording: toggle}, 120, 40)
	h.until("the tools", func(m *model) bool { return len(m.list.tools) > 0 })

	done := make(chan struct{})
	go func() {
		defer close(done)
		h.press("R", "3") // record, then look at Traffic
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		free() // let the stuck Update finish
		<-done
		t.Fatal("R held the screen while the recording's file was opened")
	}
	if h.m.tab != tabTraffic {
		t.Errorf("3 after R did not open Traffic (tab %d)", h.m.tab)
	}
	h.contains("starting a recording")
	h.press("R")
	h.contains("still switching")
	free()
	h.until("the recording", func(m *model) bool { return m.opts.Recording == "/rec/session.jsonl" })
	h.contains("● REC", "session.jsonl")
	h.press("R")
	h.until("the stop", func(m *model) bool { return m.opts.Recording == "" })
	h.contains("recording stopped: /rec/session.jsonl")
	if calls != 2 {
		t.Errorf("ToggleRecording was called %d times, want 2 (R while switching must wait)", calls)
	}
}

// ctrl+e writes the temp file in a command, and the edit is read back (and the file
// removed) in a command: Update itself touches no file.
func TestEditorFilesAreWrittenAndReadInCommands(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	h := ready(t, 120, 40)
	h.selectTool("echo")
	h.press("enter")
	h.m.form.SetValue([]byte(`{"text":"before"}`))

	_, cmd := h.m.Update(keyMsg("ctrl+e"))
	if cmd == nil {
		t.Fatal("ctrl+e did nothing")
	}
	if files, _ := os.ReadDir(tmp); len(files) != 0 {
		t.Fatalf("Update wrote %v itself", files)
	}
	msgs := runAll(cmd)
	if len(msgs) != 1 {
		t.Fatalf("ctrl+e's command gave %v", msgs)
	}
	fm, ok := msgs[0].(editorFileMsg)
	if !ok || fm.err != nil {
		t.Fatalf("ctrl+e's command gave %#v", msgs[0])
	}
	b, err := os.ReadFile(fm.path)
	if err != nil || !strings.Contains(string(b), `"before"`) {
		t.Fatalf("the temp file holds %q (%v)", b, err)
	}
	if _, exec := h.m.Update(fm); exec == nil {
		t.Fatal("the written file did not start the editor")
	}

	// The editor changed the file and exited.
	os.WriteFile(fm.path, []byte(`{"text":"after"}`), 0o600)
	_, cmd = h.m.Update(editorDoneMsg{form: fm.form, path: fm.path})
	if _, err := os.Stat(fm.path); err != nil {
		t.Fatal("Update read (and removed) the edited file itself")
	}
	if v, _ := h.m.form.Value(); strings.Contains(string(v), "after") {
		t.Fatal("Update loaded the edit itself")
	}
	for _, msg := range runAll(cmd) {
		h.update(msg)
	}
	if v, _ := h.m.form.Value(); string(v) != `{"text":"after"}` {
		t.Errorf("the form holds %s after the edit", v)
	}
	if _, err := os.Stat(fm.path); !os.IsNotExist(err) {
		t.Errorf("the temp file is still there (%v)", err)
	}
	h.contains("arguments loaded from the editor")
}

// s saves in a command: Update creates no directory; the command does, and its notice
// says where.
func TestSaveRunsInACommand(t *testing.T) {
	dir := t.TempDir()
	m := newModel(Options{Theme: "dark", SaveDir: dir})
	defer m.closeSpools()
	m.width, m.height = 120, 40
	o := &outcome{id: 1, tool: client.Tool{Name: "x"}, result: &client.CallResult{
		Content: []client.Content{{Type: "text", Text: "hello"}}, Raw: json.RawMessage(`{"content":[]}`)}}
	m.calls, m.current, m.tab, m.focus = []*outcome{o}, o, tabResult, paneRight
	_, cmd := m.Update(keyMsg("s"))
	if files, _ := os.ReadDir(dir); len(files) != 0 || cmd == nil {
		t.Fatalf("Update saved itself (%v, cmd %v)", files, cmd != nil)
	}
	for _, msg := range runAll(cmd) {
		m.Update(msg)
	}
	if !strings.HasPrefix(m.notice, "saved 1 block and result.json to "+dir) {
		t.Fatalf("notice %q", m.notice)
	}
	got, _ := filepath.Glob(filepath.Join(dir, "*", "1-text.txt"))
	if len(got) != 1 {
		t.Fatalf("saved %v", got)
	}
	if b, _ := os.ReadFile(got[0]); string(b) != "hello" {
		t.Errorf("saved %q", b)
	}
}

// A result's pictures are decoded in a command (a big image, or a decompression
// bomb, never holds the screen), then sent to the terminal.
func TestPicturesAreDecodedInACommand(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 64, 32))
	for x := range 64 {
		img.Set(x, x/2, color.RGBA{R: 255, A: 255})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	m := newModel(Options{Theme: "dark"})
	defer m.closeSpools()
	m.width, m.height, m.inline = 120, 40, true
	setReady(m.srv)
	o := &outcome{id: 1, tool: client.Tool{Name: "pic"}, running: true}
	m.calls, m.current, m.tab = []*outcome{o}, o, tabResult
	m.cancels[1] = func() {}
	r := &client.CallResult{Content: []client.Content{
		{Type: "text", Text: "a picture:"},
		{Type: "image", MIMEType: "image/png", Data: base64.StdEncoding.EncodeToString(buf.Bytes())},
	}, Raw: json.RawMessage(`{}`)}
	_, cmd := m.Update(callDoneMsg{id: 1, result: r})
	if o.pictures != nil {
		t.Fatal("Update decoded the picture itself")
	}
	var raw tea.Cmd
	for _, msg := range runAll(cmd) {
		if pm, ok := msg.(picturesMsg); ok {
			_, raw = m.Update(pm)
		}
	}
	pic := o.pictures[1]
	if pic == nil {
		t.Fatal("the picture never arrived")
	}
	if pic.cols != 8 || pic.rows != 2 {
		t.Errorf("picture is %dx%d cells, want 8x2", pic.cols, pic.rows)
	}
	if raw == nil {
		t.Fatal("the picture was not sent to the terminal")
	}
	if s, ok := raw().(tea.RawMsg); !ok || !strings.HasPrefix(s.Msg.(string), "\x1b_G") {
		t.Errorf("sent %#v", raw())
	}
}

// End to end in a real terminal: ctrl+e opens $EDITOR on the arguments (a script
// here, which rewrites them), the edit comes back into the form, and the call sends
// it; the temp file is gone afterwards.
func TestEndToEndEditorRoundTrip(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	dir := t.TempDir()
	editor := filepath.Join(dir, "edit.sh")
	script := "#!/bin/sh\ngrep -q '\"text\"' \"$1\" && printf '{\"text\": \"from the editor\"}' > \"$1\"\n"
	if err := os.WriteFile(editor, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, "tmp")
	os.Mkdir(tmp, 0o700)
	x := newTmux(t, 120, 40, fmt.Sprintf("sh -c 'VISUAL= EDITOR=%s TMPDIR=%s %s; echo mcpscope-exited:$?; sleep 60'", editor, tmp, bin))
	x.waitFor("connected")
	x.openTool("echo")
	x.typeText("typed")
	x.keys("C-e")
	x.waitFor("arguments loaded from the editor")
	x.keys("Enter")
	x.waitFor("││from the editor") // the result, first in the right pane
	if files, _ := os.ReadDir(tmp); len(files) != 0 {
		t.Errorf("the editor's temp file was left behind: %v", files)
	}
	x.keys("Tab", "q")
	x.waitFor("mcpscope-exited:0")
}

// An editor that cannot be found is said on the screen, which stays (giving up the
// terminal for a program that never starts is where Bubble Tea's restart race bites
// most: terminalexec.go). An editor that returns at once, again and again, gets the
// screen back every time.
func TestEndToEndEditorMissingOrInstant(t *testing.T) {
	t.Parallel()
	bin := testutil.Mcpscope(t)
	dir := t.TempDir()
	x := newTmux(t, 120, 40, fmt.Sprintf("sh -c 'VISUAL= EDITOR=%s %s; echo mcpscope-exited:$?; sleep 60'", filepath.Join(dir, "no-such-editor"), bin))
	x.waitFor("connected")
	x.openTool("echo")
	x.keys("C-e")
	x.waitFor("set $VISUAL or $EDITOR")
	x.waitFor("no-such-editor")
	x.keys("C-c")
	x.waitFor("mcpscope-exited:0")

	// Each run writes the next number into the arguments, and whether its output is
	// the terminal (an editor needs it to be), and exits at once.
	counter := filepath.Join(dir, "n")
	editor := filepath.Join(dir, "instant.sh")
	script := fmt.Sprintf("#!/bin/sh\nn=$(cat %q 2>/dev/null || echo 0); n=$((n+1)); echo $n > %q\nt=notty; [ -t 1 ] && [ -t 0 ] && t=tty\nprintf '{\"text\": \"edit %%s %%s\"}' $n $t > \"$1\"\n", counter, counter)
	testutil.WriteExecutable(t, editor, script)
	y := newTmux(t, 120, 40, fmt.Sprintf("sh -c 'VISUAL= EDITOR=%s %s; echo mcpscope-exited:$?; sleep 60'", editor, bin))
	y.waitFor("connected")
	y.openTool("echo")
	for i := 1; i <= 8; i++ {
		y.keys("C-e")
		y.waitFor(fmt.Sprintf("edit %d tty", i))
	}
	y.keys("C-c")
	y.waitFor("mcpscope-exited:0")
}

// After a program had the terminal, a screen that changed while nothing reached the
// terminal gets its renderer restarted (an empty run), a few times at most; a screen
// that was drawn is left alone. (Bubble Tea's restart race is too rare to bring about
// on purpose; this is the decision, on the model.)
func TestRendererRestartedWhenNothingIsDrawn(t *testing.T) {
	h := ready(t, 120, 40)
	var writes atomic.Int64
	h.m.outWrites = writes.Load
	if h.m.checkRendered(0) == nil {
		t.Fatal("no check after a run")
	}
	if cmd := h.m.onRenderCheck(renderCheckMsg{writes: 0}); cmd == nil {
		t.Error("nothing was written since the run, and the renderer was not restarted")
	}
	writes.Add(3)
	if cmd := h.m.onRenderCheck(renderCheckMsg{writes: 0}); cmd != nil {
		t.Error("the screen was drawn, and the renderer was restarted anyway")
	}
	if cmd := h.m.onRenderCheck(renderCheckMsg{writes: 3, kicks: maxRenderKicks}); cmd != nil {
		t.Error("restarted past the limit")
	}
	h.m.outWrites = nil // no terminal (tests): no checks
	if h.m.checkRendered(0) != nil {
		t.Error("a check without a terminal")
	}
}
