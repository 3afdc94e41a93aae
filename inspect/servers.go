package inspect

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/termsafe"
)

// Section is one server of a session of several, for --inspect: its name, what it
// is, its status, and what it offered when it connected (Tools nil when it did not).
type Section struct {
	Name   string
	Target string // what the user named: a URL, a command, a config entry
	Status string // connected, failed, needs login, exited…
	Error  string // why it failed
	Exit   string // how its process ended, when it did
	Stderr []string
	Info   client.Info
	Tools  *client.ToolList
	// CountTokens counts the tools' tokens beside their bytes (--tokens).
	CountTokens bool
}

// Failed reports whether the section has no tool list.
func (s Section) Failed() bool { return s.Tools == nil }

// ServersReport is the --inspect JSON document for several servers.
type ServersReport struct {
	FormatVersion int           `json:"formatVersion"`
	Servers       []ServerEntry `json:"servers"`
}

// ServerEntry is one server in ServersReport: the single-server Report in report when
// it connected, the reason in error when it did not.
type ServerEntry struct {
	Name   string   `json:"name"`
	Target string   `json:"target"`
	Status string   `json:"status"`
	Error  string   `json:"error,omitempty"`
	Exit   string   `json:"exit,omitempty"`
	Stderr []string `json:"stderr,omitempty"`
	Report *Report  `json:"report,omitempty"`
}

// WriteServers renders one section per server, in order: for table and Markdown a
// heading with the server's name and status, then what Write shows for one server
// (or why it failed); for JSON a ServersReport.
func WriteServers(w io.Writer, format string, sections []Section) error {
	return buffered(w, func(w io.Writer) error { return writeServers(w, format, sections) })
}

func writeServers(w io.Writer, format string, sections []Section) error {
	switch format {
	case FormatJSON:
		doc := ServersReport{FormatVersion: FormatVersion, Servers: []ServerEntry{}}
		for _, s := range sections {
			e := ServerEntry{Name: s.Name, Target: s.Target, Status: s.Status, Error: s.Error, Exit: s.Exit, Stderr: s.Stderr}
			if !s.Failed() {
				r := NewReport(s.Info, s.Tools)
				addCosts(&r, s.Tools, nil, s.CountTokens)
				e.Report = &r
			}
			doc.Servers = append(doc.Servers, e)
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	case FormatMarkdown:
		fmt.Fprintf(w, "# %s\n", count(len(sections), "server"))
		for _, s := range sections {
			// A name may come from a config file read from the working directory:
			// shown, never interpreted.
			fmt.Fprintf(w, "\n## `%s`: %s\n\n", termsafe.Line(s.Name), s.Status)
			fmt.Fprintf(w, "- **Target:** %s\n", mdEscape(termsafe.Line(s.Target)))
			if s.Failed() {
				writeFailureMarkdown(w, s)
				continue
			}
			var buf bytes.Buffer
			if err := writeMarkdown(&buf, s.Info, s.Tools, serverCost(s.Tools, nil, s.CountTokens)); err != nil {
				return err
			}
			// Two levels down: the server's own headings sit under its section.
			fmt.Fprintln(w)
			sc := bufio.NewScanner(&buf)
			sc.Buffer(make([]byte, 64<<10), 1<<30)
			for sc.Scan() {
				line := sc.Text()
				if strings.HasPrefix(line, "#") {
					line = "##" + line
				}
				fmt.Fprintln(w, line)
			}
		}
		return nil
	default:
		for i, s := range sections {
			if i > 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "== %s: %s ==\n", termsafe.Line(s.Name), s.Status) // shown, never interpreted
			fmt.Fprintf(w, "target        %s\n", termsafe.Line(s.Target))
			if s.Failed() {
				writeFailure(w, s)
				continue
			}
			if err := writeTable(w, s.Info, s.Tools, serverCost(s.Tools, nil, s.CountTokens)); err != nil {
				return err
			}
		}
		return nil
	}
}

func writeFailure(w io.Writer, s Section) {
	const indent = "              "
	if s.Error != "" {
		lines := strings.Split(strings.TrimSpace(s.Error), "\n")
		fmt.Fprintf(w, "error         %s\n", termsafe.Line(lines[0]))
		for _, l := range lines[1:] {
			fmt.Fprintf(w, "%s%s\n", indent, termsafe.Line(l))
		}
	}
	if s.Exit != "" {
		fmt.Fprintf(w, "exit          %s\n", s.Exit)
	}
	if len(s.Stderr) > 0 && !strings.Contains(s.Error, "last stderr lines") {
		fmt.Fprintf(w, "stderr        %s\n", termsafe.Line(s.Stderr[0]))
		for _, l := range s.Stderr[1:] {
			fmt.Fprintf(w, "%s%s\n", indent, termsafe.Line(l))
		}
	}
}

func writeFailureMarkdown(w io.Writer, s Section) {
	if s.Error != "" {
		fmt.Fprintf(w, "- **Error:** %s\n", mdEscape(termsafe.Line(s.Error)))
	}
	if s.Exit != "" {
		fmt.Fprintf(w, "- **Exit:** %s\n", s.Exit)
	}
	if len(s.Stderr) > 0 && !strings.Contains(s.Error, "last stderr lines") {
		fmt.Fprintln(w, "- **Last stderr lines:**")
		fmt.Fprintln(w, "\n```")
		for _, l := range s.Stderr {
			fmt.Fprintln(w, strings.ReplaceAll(termsafe.Line(l), "```", "`\u200b``"))
		}
		fmt.Fprintln(w, "```")
	}
}
