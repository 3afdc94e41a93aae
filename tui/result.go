package tui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // formats for image.DecodeConfig
	_ "image/jpeg"
	_ "image/png"
	"strings"
	"time"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/plural"
	"github.com/mcpscope/mcpscope/record"
	"github.com/mcpscope/mcpscope/validate"
)

// outcome is one call and what came of it.
type outcome struct {
	id        int
	server    string // the workbench server the call went to
	tool      client.Tool
	args      json.RawMessage
	started   time.Time
	elapsed   time.Duration
	running   bool
	progress  *client.Progress
	result    *client.CallResult
	err       error
	cancelled bool // the user cancelled it
	// named: the heading says server/tool (set by the Result view when the session has
	// several servers, as the tool list names tools then).
	named    bool
	recorded bool // loaded from a recording (mcpscope open), not made in this session
	mocked   bool // answered by a recording served as a mock, not by a live server
	late     bool // a result arrived after the cancel
	// interrupted says why the call ended without an answer: a watched file changed
	// and the server was restarted.
	interrupted string
	// stepUp is the scope the server refused the call for want of (403
	// insufficient_scope): after the step-up's login the call runs again
	// (rerun: it has been taken for that).
	stepUp    string
	rerun     bool
	checked   bool // structured content validated
	checking  bool // the check runs (a command)
	violation []validate.Violation
	schemaErr error
	linked    []linkedResource     // resource_link targets read with "o"
	pictures  map[int]*inlineImage // content index -> picture sent to the terminal
	wraps     map[wrapKey]*wrapped // big texts wrapped so far, by width
}

// linkedResource is what reading one resource_link returned.
type linkedResource struct {
	uri      string
	contents []client.ResourceContents
	err      error
}

func (o *outcome) wrapCache() map[wrapKey]*wrapped {
	if o.wraps == nil {
		o.wraps = map[wrapKey]*wrapped{}
	}
	return o.wraps
}

// status is a short word for the history list and the status bar.
func (o *outcome) status() string {
	switch {
	case o.running:
		return "running"
	case o.interrupted != "" && !o.late:
		return "interrupted"
	case o.cancelled && !o.late:
		return "cancelled"
	case o.err != nil:
		return "failed"
	case o.result != nil && o.result.IsError:
		return "tool error"
	}
	return "ok"
}

// structuredCheckedMsg is the outcome of checking structured content against the
// tool's output schema, done off the UI goroutine.
type structuredCheckedMsg struct {
	o         *outcome
	violation []validate.Violation
	err       error
}

func (msg structuredCheckedMsg) handle(m *model) tea.Cmd {
	msg.o.setChecked(msg)
	m.resultVer++
	return nil
}

// checkCmd validates structured content against the tool's output schema once, as a
// command: a costly schema never holds up the screen, and one past the validator's
// budget is reported as not validated.
func (o *outcome) checkCmd() tea.Cmd {
	if o.checked || o.checking || o.result == nil || o.result.Structured == nil || len(o.tool.OutputSchema) == 0 {
		return nil
	}
	o.checking = true
	schema, value := o.tool.OutputSchema, o.result.Structured
	return func() tea.Msg {
		v, err := validate.Check(schema, value)
		return structuredCheckedMsg{o: o, violation: v, err: err}
	}
}

func (o *outcome) setChecked(msg structuredCheckedMsg) {
	o.checking, o.checked = false, true
	o.violation, o.schemaErr = msg.violation, msg.err
}

// bigText is the size above which text is shown as is: no JSON pretty-printing or
// highlighting, only wrapping, so a 50 MB result opens at once.
const bigText = 1 << 20

// resultLines renders an outcome as lines of at most width cells.
func resultLines(st styles, o *outcome, width int) []string {
	return resultDoc(st, o, width).all()
}

// resultDoc renders an outcome as a document whose big texts are wrapped only as far
// as they are shown: a 100 MiB text block opens at the cost of one screen.
// heading is how the Result names the call: server/tool when named, else the tool.
func (o *outcome) heading() string {
	if o.named && o.server != "" {
		return o.server + "/" + o.tool.Name
	}
	return o.tool.Name
}

func resultDoc(st styles, o *outcome, width int) *doc {
	out := &doc{width: width, wraps: o.wrapCache()}
	add := out.add
	head := st.title.Render(safe(o.heading()))
	if o.elapsed > 0 {
		head += st.muted.Render("  " + o.elapsed.Round(time.Millisecond).String())
	}
	if o.result != nil && !o.running {
		head += st.muted.Render("  " + resultSize(len(o.result.Raw)) + " into the context") // cost.go
	}
	switch {
	case o.running:
		add(head + st.muted.Render("  running…"))
		return out
	case o.interrupted != "" && !o.late:
		// Why it ended is the whole message: a restart (ctrl+r, or the watch's after
		// an edit), a disconnect, a remove, a tap's stream that ended.
		add(head)
		for _, l := range wrapText("Interrupted: "+o.interrupted, width) {
			add(st.warn.Render(l))
		}
		return out
	case o.cancelled && !o.late:
		add(head, st.warn.Render("Cancelled: notifications/cancelled was sent to the server."))
		// The cancel itself comes back as an error, wrapped or (from some transport
		// paths, under load) only as text: it is what the heading already says.
		if o.err != nil && !errors.Is(o.err, context.Canceled) && !strings.Contains(o.err.Error(), context.Canceled.Error()) {
			add(st.muted.Render(safe(o.err.Error())))
		}
		return out
	}
	if o.late {
		head += st.warn.Render("  (late: arrived after you cancelled)")
	}
	switch {
	case o.isTapped():
		head += st.warn.Render("  ⇄ the host's call through " + safe(o.server) + ": read-only (History: e tries it on mcpscope's own session)")
	case o.recorded:
		head += st.warn.Render("  ▶ recorded: this call and its answer come from the recording")
	case o.mocked:
		head += st.warn.Render("  ▶ answered from the recording (a mock, not a live server)")
	}
	add(head)
	if o.mocked && o.result != nil {
		if as := mockAnsweredAs(o.result.Meta); as != "" {
			for _, l := range wrapText("▶ no recorded call has these arguments; this is the answer to "+as, width) {
				add(st.warn.Render(l))
			}
		}
	}
	if o.err != nil {
		var rpc *client.RPCError
		if asRPC(o.err, &rpc) {
			add(st.err.Render(fmt.Sprintf("JSON-RPC error %d (a protocol error, not a tool result)", rpc.Code)))
			add(wrapText(rpc.Message, width)...)
			if len(rpc.Data) > 0 {
				add(st.muted.Render("data:"))
				add(jsonLines(st, rpc.Data, width)...)
			}
		} else {
			add(st.err.Render("The call failed"))
			add(wrapText(o.err.Error(), width)...)
		}
		return out
	}
	r := o.result
	if r.IsError {
		add(st.toolErr.Render("Tool error (isError: true): the tool ran and reported a failure"))
	}
	// Wrapped, not cut: the reason is what the user needs to read.
	warn := func(text string) {
		for _, l := range wrapText(text, width) {
			add(st.warn.Render(l))
		}
	}
	for _, p := range r.Problems {
		warn("⚠ " + p)
	}
	if r.SDKError != "" {
		warn("⚠ the SDK could not decode this result (" + r.SDKError + "); shown from the raw frame")
	}
	for i, c := range r.Content {
		add("", st.accent.Render(fmt.Sprintf("── [%d] %s ", i+1, safe(orType(c.Type))))+annotationNote(st, c))
		addContent(out, st, c, width)
		if pic := o.pictures[i]; pic != nil {
			add(pic.lines()...)
		}
	}
	if r.Structured != nil {
		add("", st.accent.Render("── structuredContent ")+structuredNote(st, o))
		out.addJSON(st, r.Structured)
		for _, v := range o.violation {
			add(st.err.Render("  ✗ " + safe(v.String())))
		}
	}
	if len(r.Content) == 0 && r.Structured == nil {
		add(st.muted.Render("(no content)"))
	}
	for _, l := range o.linked {
		add("", st.accent.Render("── read "+safe(l.uri)+" "))
		if l.err != nil {
			add(st.err.Render(safe(l.err.Error())))
			continue
		}
		for _, c := range l.contents {
			add(st.muted.Render(safe(c.URI + "  " + orNone(c.MIMEType))))
			if c.HasText {
				out.addText(st, c.Text)
			} else {
				add(fmt.Sprintf("binary, %s (base64 in the raw result)", wire.HumanBytes(int64(decodedLen(c.Blob)))))
			}
		}
	}
	return out
}

// decodedLen is the size of the bytes base64 text stands for (padding and line
// breaks do not count).
func decodedLen(b64 string) int {
	n := 0
	for i := 0; i < len(b64); i++ {
		switch b64[i] {
		case '=', '\n', '\r', ' ', '\t':
		default:
			n++
		}
	}
	return n * 6 / 8
}

func asRPC(err error, target **client.RPCError) bool {
	e, ok := err.(*client.RPCError)
	if ok {
		*target = e
	}
	return ok
}

func orType(t string) string {
	if t == "" {
		return "(no type)"
	}
	return t
}

func structuredNote(st styles, o *outcome) string {
	switch {
	case len(o.tool.OutputSchema) == 0:
		return st.muted.Render("(no outputSchema to check against)")
	case !o.checked:
		return st.muted.Render("(checking against the outputSchema…)")
	case errors.Is(o.schemaErr, validate.ErrTooCostly):
		return st.warn.Render("(outputSchema: " + o.schemaErr.Error() + ")")
	case o.schemaErr != nil:
		return st.warn.Render("(outputSchema unusable: " + safe(o.schemaErr.Error()) + ")")
	case len(o.violation) > 0:
		return st.err.Render("✗ " + plural.Count(len(o.violation), "outputSchema violation"))
	}
	return st.ok.Render("✓ matches outputSchema")
}

func annotationNote(st styles, c client.Content) string {
	if len(c.Annotations) == 0 {
		return ""
	}
	var a struct {
		Audience []string `json:"audience"`
		Priority *float64 `json:"priority"`
	}
	_ = json.Unmarshal(c.Annotations, &a)
	var parts []string
	if len(a.Audience) > 0 {
		parts = append(parts, "audience "+strings.Join(a.Audience, ","))
	}
	if a.Priority != nil {
		parts = append(parts, fmt.Sprintf("priority %g", *a.Priority))
	}
	return st.muted.Render(safe(strings.Join(parts, " · ")))
}

// addContent adds a content block; a big text (or embedded text resource) is wrapped
// on demand.
func addContent(d *doc, st styles, c client.Content, width int) {
	switch {
	case c.Type == "text" && c.Problem == "" && len(c.Text) >= bigText:
		d.addText(st, c.Text)
	case c.Type == "resource" && c.Resource != nil && c.Resource.HasText && len(c.Resource.Text) >= bigText:
		d.add(safe(c.Resource.URI) + st.muted.Render("  "+safe(orNone(c.Resource.MIMEType))))
		d.addText(st, c.Resource.Text)
	default:
		d.add(contentLines(st, c, width)...)
	}
}

func contentLines(st styles, c client.Content, width int) []string {
	switch c.Type {
	case "text":
		if c.Problem != "" {
			return []string{st.warn.Render("⚠ " + safe(c.Problem))}
		}
		return textLines(st, c.Text, width)
	case "image", "audio":
		data, err := c.Bytes()
		if err != nil {
			return []string{st.warn.Render(safe(err.Error()))}
		}
		desc := fmt.Sprintf("%s, %s", safe(orNone(c.MIMEType)), wire.HumanBytes(int64(len(data))))
		if c.Type == "image" {
			if cfg, _, err := image.DecodeConfig(bytes.NewReader(data)); err == nil {
				desc += fmt.Sprintf(", %d×%d", cfg.Width, cfg.Height)
			}
		}
		return []string{desc, st.muted.Render("s saves it to a file")}
	case "resource_link":
		lines := []string{safe(c.URI)}
		meta := orNone(c.MIMEType)
		if c.Name != "" {
			meta = c.Name + ", " + meta
		}
		if c.Size != nil {
			meta += ", " + wire.HumanBytes(*c.Size)
		}
		lines = append(lines, st.muted.Render(safe(meta)))
		if c.Description != "" {
			lines = append(lines, wrapText(c.Description, width)...)
		}
		return append(lines, st.muted.Render("o reads the linked resource"))
	case "resource":
		if c.Resource == nil {
			return []string{st.warn.Render("embedded resource without a resource member")}
		}
		lines := []string{safe(c.Resource.URI) + st.muted.Render("  "+safe(orNone(c.Resource.MIMEType)))}
		if c.Resource.HasText {
			return append(lines, textLines(st, c.Resource.Text, width)...)
		}
		if data, err := c.Bytes(); err == nil {
			return append(lines, fmt.Sprintf("binary, %s", wire.HumanBytes(int64(len(data)))), st.muted.Render("s saves it to a file"))
		}
		return lines
	}
	lines := []string{st.warn.Render("⚠ " + safe(orProblem(c)))}
	return append(lines, jsonLines(st, c.Raw, width)...)
}

func orNone(s string) string {
	if s == "" {
		return "no MIME type"
	}
	return s
}

func orProblem(c client.Content) string {
	if c.Problem != "" {
		return c.Problem
	}
	return "unknown content"
}

// textLines shows text; text that is a JSON object or array is pretty-printed and
// highlighted (unless it is big).
func textLines(st styles, s string, width int) []string {
	if len(s) < bigText {
		t := strings.TrimSpace(s)
		if len(t) > 1 && (t[0] == '{' || t[0] == '[') && json.Valid([]byte(t)) {
			return jsonLines(st, json.RawMessage(t), width)
		}
		return wrapWords(safeText(s), width) // at word boundaries
	}
	return wrapHard(safeText(s), width)
}

// jsonLines pretty-prints and highlights JSON. The text is made safe before it is
// highlighted: in valid JSON that only turns raw C1 and bidi controls inside strings
// into the \u escapes JSON has for them.
func jsonLines(st styles, raw json.RawMessage, width int) []string {
	if len(raw) >= bigText {
		return wrapHard(safeText(string(raw)), width)
	}
	var buf bytes.Buffer
	if json.Indent(&buf, raw, "", "  ") != nil {
		return wrapHard(safeText(string(raw)), width)
	}
	// Long lines (a long string value) wrap, styles and all, instead of being cut.
	return wrapWords(strings.TrimRight(highlightJSON(st.palette, safeText(buf.String())), "\n"), width)
}

// wrapHard splits text into lines of at most width cells without copying: each line is
// a slice of s. ASCII is measured by bytes; other text by runes.
func wrapHard(s string, width int) []string {
	if width < 1 {
		width = 1
	}
	out := make([]string, 0, len(s)/max(width, 1)+1)
	for len(s) > 0 {
		nl := strings.IndexByte(s, '\n')
		line := s
		if nl >= 0 {
			line = s[:nl]
			s = s[nl+1:]
		} else {
			s = ""
		}
		line = strings.TrimSuffix(line, "\r")
		for {
			cut := cutAt(line, width)
			out = append(out, line[:cut])
			line = line[cut:]
			if line == "" {
				break
			}
		}
	}
	return out
}

// cutAt returns the byte offset of the first width cells of line (tabs count as one).
func cutAt(line string, width int) int {
	if len(line) <= width {
		ascii := true
		for i := 0; i < len(line); i++ {
			if line[i] >= utf8.RuneSelf {
				ascii = false
				break
			}
		}
		if ascii {
			return len(line)
		}
	}
	n := 0
	for i := range line {
		if n == width {
			return i
		}
		n++
	}
	return len(line)
}

// mockAnsweredAs is the recorded request whose answer the mock (mcpscope serve) gave
// to a call with other arguments, from the result's _meta; "" when the arguments
// matched a recorded call.
func mockAnsweredAs(meta json.RawMessage) string {
	if len(meta) == 0 || !bytes.Contains(meta, []byte(record.MockMetaKey)) {
		return ""
	}
	// Only the mock's member is decoded: another _meta member that is not an object
	// (a number, a string) must not hide the note.
	var m map[string]json.RawMessage
	var note record.MockNote
	if json.Unmarshal(meta, &m) != nil || json.Unmarshal(m[record.MockMetaKey], &note) != nil {
		return ""
	}
	return note.AnsweredAs
}
