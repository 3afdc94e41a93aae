package inspect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	_ "image/gif" // image.DecodeConfig learns these formats
	_ "image/jpeg"
	_ "image/png"
	"io"
	"io/fs"
	"mime"
	"net/url"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/savefile"
	"github.com/mcpscope/mcpscope/internal/termsafe"
)

// CallOutput says how to print a call's result.
type CallOutput struct {
	Format  string // table (text) or json
	SaveDir string // write binary and resource blocks here
	Tool    string // for file names
	// Terminal says that a person reads w: every server string then goes through
	// termsafe, so that its escapes are shown, not interpreted. Otherwise (a pipe, a
	// file) the text and the JSON are written exactly as the server sent them.
	Terminal bool
}

// WriteResult prints a result: text blocks as text, other blocks described (and saved
// with SaveDir), structuredContent as JSON.
func WriteResult(w io.Writer, out CallOutput, r *client.CallResult) error {
	if out.Terminal {
		w = termsafe.NewWriter(w)
	}
	if out.Format == FormatJSON {
		var buf bytes.Buffer
		if err := json.Indent(&buf, r.Raw, "", "  "); err != nil {
			buf.Reset()
			buf.Write(r.Raw)
		}
		buf.WriteByte('\n')
		_, err := w.Write(buf.Bytes())
		return err
	}
	for i, c := range r.Content {
		if c.Type == "text" {
			// Written as it is, not joined with its newline: a 100 MiB block is not
			// copied to be printed.
			if err := writeText(w, c.Text); err != nil {
				return err
			}
			continue
		}
		line, err := describe(out, i, c)
		if err != nil {
			return err
		}
		if _, err := io.WriteString(w, line); err != nil {
			return err
		}
	}
	if r.Structured != nil {
		var buf bytes.Buffer
		if json.Indent(&buf, r.Structured, "", "  ") != nil {
			buf.Write(r.Structured)
		}
		fmt.Fprintf(w, "structuredContent:\n%s\n", buf.String())
	}
	if len(r.Content) == 0 && r.Structured == nil {
		fmt.Fprintln(w, "(the result has no content)")
	}
	return nil
}

func writeText(w io.Writer, text string) error {
	if _, err := io.WriteString(w, text); err != nil {
		return err
	}
	if !strings.HasSuffix(text, "\n") {
		_, err := io.WriteString(w, "\n")
		return err
	}
	return nil
}

// describe is the text line for a block that is not printed as text, saving its
// contents into SaveDir when it has any (what it is: classify).
func describe(out CallOutput, i int, c client.Content) (string, error) {
	b := classify(c)
	var desc string
	switch b.kind {
	case blockText:
		if strings.HasSuffix(c.Text, "\n") {
			return c.Text, nil
		}
		return c.Text + "\n", nil
	case blockMedia:
		if b.err != nil {
			return fmt.Sprintf("[%s %s: %v]\n", c.Type, c.MIMEType, b.err), nil
		}
		desc = fmt.Sprintf("[%s %s, %s", c.Type, orUnknown(c.MIMEType), wire.HumanBytes(int64(len(b.data))))
		if c.Type == "image" {
			if cfg, _, err := image.DecodeConfig(bytes.NewReader(b.data)); err == nil {
				desc += fmt.Sprintf(", %d×%d", cfg.Width, cfg.Height)
			}
		}
	case blockLink:
		desc := "[resource link " + c.URI
		if c.Name != "" {
			desc += " " + strconv.Quote(c.Name)
		}
		if c.MIMEType != "" {
			desc += ", " + c.MIMEType
		}
		if c.Size != nil {
			desc += ", " + wire.HumanBytes(*c.Size)
		}
		if c.Description != "" {
			desc += ": " + c.Description
		}
		return desc + "]\n", nil
	case blockEmbeddedNone:
		return "[embedded resource without a resource member]\n", nil
	case blockEmbedded:
		desc = "[embedded resource " + c.Resource.URI + ", " + orUnknown(b.mimeType)
		switch {
		case b.err != nil:
			return desc + ": " + b.err.Error() + "]\n", nil
		case b.data == nil:
			return desc + ", neither text nor blob]\n", nil
		case b.binary:
			desc += ", binary, " + wire.HumanBytes(int64(len(b.data)))
		default:
			desc += ", text, " + wire.HumanBytes(int64(len(b.data)))
		}
	default:
		return fmt.Sprintf("[%s: %s]\n", orUnknownType(c), string(c.Raw)), nil
	}
	if path, err := save(out, i, b.mimeType, b.data); err != nil {
		return "", err
	} else if path != "" {
		desc += ", saved to " + path
	}
	return desc + "]\n", nil
}

func orUnknown(s string) string {
	if s == "" {
		return "(no MIME type)"
	}
	return s
}

func orUnknownType(c client.Content) string {
	if c.Problem != "" {
		return c.Problem
	}
	return "content of type " + strconv.Quote(c.Type)
}

// CheckSaveDir says before a call whether dir can take its blocks: it must be a
// directory, or not exist yet (it is made when a block is saved). "" is no --save-dir.
func CheckSaveDir(dir string) error {
	if dir == "" {
		return nil
	}
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return fmt.Errorf("--save-dir: %w", err)
	case !st.IsDir():
		return fmt.Errorf("--save-dir %s is not a directory", dir)
	}
	return nil
}

// Saved is one block that SaveBlocks wrote.
type Saved struct {
	Block int    // 1-based, as in the file name
	What  string // the block's type and MIME type
	Path  string
}

// SaveBlocks writes the result's image, audio and embedded resource blocks into
// out.SaveDir, named as the text output names them, for --format json, which prints
// the result as sent and so describes no block. It returns what it saved, up to the
// first error.
func SaveBlocks(out CallOutput, r *client.CallResult) ([]Saved, error) {
	if out.SaveDir == "" {
		return nil, nil
	}
	var saved []Saved
	for i, c := range r.Content {
		b := classify(c)
		if !b.saves() {
			continue // a decoding failure is said in the text; nothing to save
		}
		path, err := save(out, i, b.mimeType, b.data)
		if err != nil {
			return saved, err
		}
		saved = append(saved, Saved{Block: i + 1, What: strings.TrimSpace(c.Type + " " + b.mimeType), Path: path})
	}
	return saved, nil
}

// SaveContents writes the i-th (0-based) contents item of a read resource into dir,
// as NAME-N.EXT (NAME from the URI's last segment, EXT from the MIME type), and
// returns the path: read --save-dir.
func SaveContents(dir, uri string, i int, mimeType string, data []byte) (string, error) {
	name := uri
	if u, err := url.Parse(uri); err == nil && u.Opaque == "" {
		name = u.Host + u.Path
	}
	name = path.Base(strings.TrimRight(name, "/"))
	ext := path.Ext(name)
	name = strings.TrimSuffix(name, ext)
	if name == "" || name == "." || name == "/" {
		name = "resource"
	}
	// The URI's own extension unless the MIME type says another type: readme.md, not
	// the .markdown the MIME table lists first for text/markdown; hello.sh, not .bin
	// for a text/x-shellscript the table does not know.
	base := func(t string) string { t, _, _ = strings.Cut(t, ";"); return strings.TrimSpace(strings.ToLower(t)) }
	if exts, _ := mime.ExtensionsByType(mimeType); ext == "" || mimeType != "" && len(exts) > 0 && base(mime.TypeByExtension(ext)) != base(mimeType) {
		ext = extFor(mimeType) // a .txt URI served as image/png is saved as .png
	}
	return saveAs(CallOutput{SaveDir: dir, Tool: name}, i, ext, data)
}

// save writes one block's bytes into SaveDir as TOOL-N.EXT, EXT from the MIME type,
// and returns the path.
func save(out CallOutput, i int, mimeType string, data []byte) (string, error) {
	return saveAs(out, i, extFor(mimeType), data)
}

// saveAs writes the i-th block as TOOL-N.EXT in SaveDir and returns the path.
func saveAs(out CallOutput, i int, ext string, data []byte) (string, error) {
	if out.SaveDir == "" {
		return "", nil
	}
	if err := os.MkdirAll(out.SaveDir, 0o755); err != nil {
		return "", fmt.Errorf("--save-dir: %w", err)
	}
	name := out.Tool
	if name == "" {
		name = "result"
	}
	// Never through a link, never outside the directory, never over a file (a taken
	// name gets -2, -3…).
	path, err := savefile.Write(out.SaveDir, fmt.Sprintf("%s-%d%s", savefile.Name(name), i+1, ext), data, 0o644)
	if err != nil {
		return "", fmt.Errorf("--save-dir: %w", err)
	}
	return path, nil
}

// extFor is a saved file's extension for a MIME type (.bin when none is known).
func extFor(mimeType string) string {
	switch mimeType {
	case "image/png":
		return ".png"
	case "image/jpeg":
		return ".jpg"
	case "audio/wav", "audio/x-wav", "audio/wave":
		return ".wav"
	case "text/plain":
		return ".txt"
	}
	if exts, _ := mime.ExtensionsByType(mimeType); len(exts) > 0 {
		return exts[0]
	}
	return ".bin"
}
