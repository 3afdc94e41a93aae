package tui

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/plural"
	"github.com/mcpscope/mcpscope/internal/savefile"
	"github.com/mcpscope/mcpscope/tui/form"
)

// The screen's work with files and other unbounded work, each as a command whose
// message comes back to Update: saving a result (s), the $EDITOR round trip
// (ctrl+e), decoding a result's pictures. Update itself never touches a file.

// saveResult saves the shown result's blocks and result.json into a new directory,
// in a command; the notice says where.
func (m *model) saveResult() tea.Cmd {
	o := m.current
	if o == nil || o.result == nil {
		return nil
	}
	base := m.opts.SaveDir
	if base == "" {
		base = "."
	}
	// What is saved is taken now: a later answer (or linked read) does not change it.
	result, linked := o.result, o.linked
	m.notice = "saving the result…"
	return func() tea.Msg { return noticeMsg{text: saveFiles(base, result, linked, writeFile)} }
}

// writeFile writes one file of a save (savefile.Write: inside dir, never over a file).
func writeFile(dir, name string, data []byte) (string, error) {
	return savefile.Write(dir, name, data, 0o644)
}

// savedFiles is what a save wrote and what it could not: every failure is said, so
// a save that wrote nothing never reads as a success.
type savedFiles struct {
	dir    string
	blocks int      // blocks written
	failed []string // "NAME: why", blocks and result.json alike
	raw    bool     // result.json written
}

// put writes one block through write, counting it or its failure.
func (sv *savedFiles) put(write func(dir, name string, data []byte) (string, error), name string, data []byte) {
	if _, err := write(sv.dir, name, data); err != nil {
		sv.failed = append(sv.failed, name+": "+err.Error())
		return
	}
	sv.blocks++
}

// putRaw writes result.json.
func (sv *savedFiles) putRaw(write func(dir, name string, data []byte) (string, error), data []byte) {
	if _, err := write(sv.dir, "result.json", data); err != nil {
		sv.failed = append(sv.failed, "result.json: "+err.Error())
		return
	}
	sv.raw = true
}

// String says what was saved where, then what was not and why.
func (sv *savedFiles) String() string {
	what := plural.Count(sv.blocks, "block")
	if sv.raw {
		what += " and result.json"
	}
	if len(sv.failed) == 0 {
		return "saved " + what + " to " + sv.dir
	}
	return fmt.Sprintf("save failed for %s in %s: %s (saved %s)", plural.Count(len(sv.failed), "file"), sv.dir, strings.Join(sv.failed, "; "), what)
}

// saveFiles writes a result into a new directory under base (each file through
// write) and says what it did.
func saveFiles(base string, result *client.CallResult, linked []linkedResource, write func(dir, name string, data []byte) (string, error)) string {
	dir, err := os.MkdirTemp(base, "mcpscope-result-")
	if err != nil {
		return "save failed: " + err.Error()
	}
	sv := &savedFiles{dir: dir}
	for i, c := range result.Content {
		var data []byte
		ext := ".txt"
		switch c.Type {
		case "text":
			data = []byte(c.Text)
		case "image", "audio", "resource":
			if c.Resource != nil && c.Resource.HasText {
				data = []byte(c.Resource.Text)
			} else if b, err := c.Bytes(); err == nil {
				data, ext = b, extFor(c.MIMEType, c.Resource)
			}
		case "resource_link":
			data, ext = linkData(linked, c)
		default:
			data, ext = c.Raw, ".json"
		}
		// The type is the server's: savefile keeps it one name inside dir.
		sv.put(write, fmt.Sprintf("%d-%s%s", i+1, c.Type, ext), data)
	}
	sv.putRaw(write, result.Raw)
	return safe(sv.String())
}

// linkData is what s saves for a resource_link: the resource itself when it has
// been read (linked), else the link (its URI, name, type and size) as JSON.
func linkData(linked []linkedResource, c client.Content) ([]byte, string) {
	for _, l := range linked {
		if l.uri != c.URI || l.err != nil || len(l.contents) == 0 {
			continue
		}
		rc := l.contents[0]
		if rc.HasText {
			return []byte(rc.Text), ".txt"
		}
		if b, err := base64.StdEncoding.DecodeString(rc.Blob); err == nil {
			return b, extFor(rc.MIMEType, nil)
		}
	}
	if len(c.Raw) > 0 {
		return c.Raw, ".json"
	}
	b, _ := json.MarshalIndent(struct {
		Type        string `json:"type"`
		URI         string `json:"uri"`
		Name        string `json:"name,omitempty"`
		Title       string `json:"title,omitempty"`
		Description string `json:"description,omitempty"`
		MIMEType    string `json:"mimeType,omitempty"`
		Size        *int64 `json:"size,omitempty"`
	}{c.Type, c.URI, c.Name, c.Title, c.Description, c.MIMEType, c.Size}, "", "  ")
	return b, ".json"
}

func extFor(mime string, rc *client.ResourceContent) string {
	if rc != nil && mime == "" {
		mime = rc.MIMEType
	}
	switch mime {
	case "image/png":
		return ".png"
	case "image/jpeg":
		return ".jpg"
	case "image/gif":
		return ".gif"
	case "audio/wav", "audio/x-wav", "audio/wave":
		return ".wav"
	case "audio/mpeg":
		return ".mp3"
	}
	return ".bin"
}

// The $EDITOR round trip (ctrl+e), in three steps, none of them in Update: a
// command writes the arguments to a temp file (editorFileMsg), the editor runs on
// it with the terminal (editorDoneMsg), a command reads the edit back and removes the
// file (editorReadMsg), which goes into the form it came from.
type (
	editorFileMsg struct {
		form *form.Form
		path string
		err  error
	}
	editorDoneMsg struct {
		form *form.Form
		path string
		err  error
	}
	editorReadMsg struct {
		form *form.Form
		data []byte
		err  error
	}
)

func (msg editorFileMsg) handle(m *model) tea.Cmd { return m.onEditorFile(msg) }
func (msg editorDoneMsg) handle(m *model) tea.Cmd { return m.onEditorDone(msg) }
func (msg editorReadMsg) handle(m *model) tea.Cmd { return m.onEditorRead(msg) }

// openEditor writes the current arguments to a temp file (in a command); the
// editor opens on it when the file is there.
func (m *model) openEditor() tea.Cmd {
	f := m.form
	if f == nil {
		return nil
	}
	args, err := f.Value()
	if err != nil {
		args = json.RawMessage(`{}`)
	}
	return func() tea.Msg {
		// An editor that cannot be found is said with the screen kept: giving up the
		// terminal for a program that never starts is where Bubble Tea's restart race
		// bites most (terminalexec.go).
		if _, err := exec.LookPath(editorArgv()[0]); err != nil {
			return editorFileMsg{form: f, err: fmt.Errorf("%w (set $VISUAL or $EDITOR to an editor that runs in a terminal)", err)}
		}
		pretty, _ := json.MarshalIndent(json.RawMessage(args), "", "  ")
		tmp, err := os.CreateTemp("", "mcpscope-args-*.json")
		if err != nil {
			return editorFileMsg{form: f, err: err}
		}
		_, err = tmp.Write(pretty)
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(tmp.Name())
			return editorFileMsg{form: f, err: err}
		}
		return editorFileMsg{form: f, path: tmp.Name()}
	}
}

// onEditorFile runs the editor on the written file; it has the terminal until it
// exits.
func (m *model) onEditorFile(msg editorFileMsg) tea.Cmd {
	if msg.err != nil {
		m.notice = "editor: " + msg.err.Error()
		return nil
	}
	parts := editorArgv()
	c := exec.Command(parts[0], append(parts[1:], msg.path)...)
	f, path := msg.form, msg.path
	return tea.Exec(&terminalRun{cmd: c}, func(err error) tea.Msg { return editorDoneMsg{form: f, path: path, err: err} })
}

// onEditorDone reads the edit back and removes the file, in a command.
func (m *model) onEditorDone(msg editorDoneMsg) tea.Cmd {
	f := msg.form
	if f == nil {
		f = m.form
	}
	return func() tea.Msg {
		defer os.Remove(msg.path)
		if msg.err != nil {
			return editorReadMsg{form: f, err: msg.err}
		}
		b, err := os.ReadFile(msg.path)
		return editorReadMsg{form: f, data: b, err: err}
	}
}

// onEditorRead loads the edited JSON into the form. Its notice changes the screen,
// which the terminal must then show (checkRendered, terminalexec.go).
func (m *model) onEditorRead(msg editorReadMsg) tea.Cmd {
	m.notice = "arguments loaded from the editor"
	if msg.err != nil {
		m.notice = "editor: " + msg.err.Error()
	} else if f := msg.form; f != nil {
		if err := f.SetValue(msg.data); err != nil {
			// Keep the edit: it goes to the raw JSON editor, with why it did not fit.
			f.SetRawText(string(msg.data), err.Error())
			m.notice = "the edited arguments are kept as raw JSON: " + err.Error() + " (ctrl+j returns to the fields once they fit)"
		}
	}
	return m.checkRendered(0)
}

// picturesMsg brings a result's decoded pictures, by content index.
type picturesMsg struct {
	id   int // the outcome's
	pics map[int]*inlineImage
}

func (msg picturesMsg) handle(m *model) tea.Cmd { return m.onPictures(msg) }

// sendPictures decodes a result's images (in a command: a server's picture can be
// big, or a decompression bomb) for a terminal that shows them inline; onPictures
// sends them to the terminal.
func (m *model) sendPictures(o *outcome) tea.Cmd {
	if !m.inline || o.result == nil {
		return nil
	}
	type job struct {
		at, id int
		c      client.Content
	}
	var jobs []job
	for i, c := range o.result.Content {
		if c.Type == "image" {
			m.nextImage++
			jobs = append(jobs, job{at: i, id: m.nextImage, c: c})
		}
	}
	if len(jobs) == 0 {
		return nil
	}
	id, maxCols := o.id, max(m.width*2/3-4, 8)
	return func() tea.Msg {
		pics := map[int]*inlineImage{}
		for _, j := range jobs {
			data, err := j.c.Bytes()
			if err != nil {
				continue
			}
			pic, err := newInlineImage(data, j.id, maxCols)
			if err != nil {
				continue // not a format Go decodes: the description stays
			}
			pics[j.at] = pic
		}
		return picturesMsg{id: id, pics: pics}
	}
}

// onPictures puts the decoded pictures in their outcome and transmits them.
func (m *model) onPictures(msg picturesMsg) tea.Cmd {
	if len(msg.pics) == 0 {
		return nil
	}
	for _, o := range m.calls {
		if o.id != msg.id {
			continue
		}
		o.pictures = msg.pics
		m.resultVer++
		at := make([]int, 0, len(msg.pics))
		for i := range msg.pics {
			at = append(at, i)
		}
		sort.Ints(at)
		var seqs []string
		for _, i := range at {
			seqs = append(seqs, msg.pics[i].seq)
		}
		return tea.Raw(strings.Join(seqs, ""))
	}
	return nil
}
