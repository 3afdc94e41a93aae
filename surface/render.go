package surface

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mcpscope/mcpscope/internal/junit"
	"github.com/mcpscope/mcpscope/internal/plural"
	"github.com/mcpscope/mcpscope/internal/termsafe"
)

// Output formats.
const (
	FormatText     = "text"
	FormatJSON     = "json"
	FormatMarkdown = "markdown"
	FormatJUnit    = "junit"
)

// JSONVersion is the version of the JSON document of a report.
const JSONVersion = 1

// Write renders a report. Text and Markdown are for people: every server string is
// made safe for a terminal. JSON and JUnit keep the strings (their encoders escape).
func Write(w io.Writer, format string, r *Report, showDiff bool) error {
	switch format {
	case FormatJSON:
		doc := struct {
			FormatVersion int      `json:"formatVersion"`
			Old           string   `json:"old"`
			New           string   `json:"new"`
			Breaking      int      `json:"breaking"`
			Compatible    int      `json:"compatible"`
			Compared      []string `json:"compared"`
			Entries       []Entry  `json:"entries"`
			Budget        *Budget  `json:"budget,omitempty"`
		}{JSONVersion, r.Old, r.New, r.Breaking, r.Compatible, r.Compared, r.Entries, r.Budget}
		if doc.Entries == nil {
			doc.Entries = []Entry{}
		}
		if doc.Compared == nil {
			doc.Compared = []string{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	case FormatMarkdown:
		return writeMarkdown(w, r)
	case FormatJUnit:
		return writeJUnit(w, r)
	}
	return writeText(w, r, showDiff)
}

// Summary is one line: "2 breaking, 3 compatible changes in 4 objects (compared: tools)".
func (r *Report) Summary() string {
	if r.Empty() {
		return "no changes (" + compared(r) + ")"
	}
	return fmt.Sprintf("%d breaking, %d compatible %s in %s (%s)", r.Breaking, r.Compatible, plural.Noun(r.Compatible, "change"), plural.Count(len(r.Entries), "object"), compared(r))
}

func compared(r *Report) string {
	if len(r.Compared) == 0 {
		return "nothing compared"
	}
	return "compared: " + strings.Join(r.Compared, ", ")
}

func verdict(breaking bool) string {
	if breaking {
		return "BREAKING"
	}
	return "compatible"
}

func entryTitle(e *Entry) string {
	name := e.Name
	if e.Status == Renamed {
		name = e.OldName + " → " + e.Name
	}
	return fmt.Sprintf("%s %s %s", e.Object, name, e.Status)
}

// Heading is what heads the report: its Title, or "Old → New".
func (r *Report) Heading() string {
	if r.Title != "" {
		return r.Title
	}
	return r.Old + " → " + r.New
}

func writeText(w io.Writer, r *Report, showDiff bool) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n", termsafe.Line(r.Heading()))
	for i := range r.Entries {
		e := &r.Entries[i]
		fmt.Fprintf(&b, "\n%s  [%s]\n", termsafe.Line(entryTitle(e)), verdict(e.Breaking))
		for _, c := range e.Changes {
			mark := "  "
			if c.Breaking {
				mark = "! "
			}
			fmt.Fprintf(&b, "  %s%s\n", mark, termsafe.Line(c.Message))
			if c.Before != "" || c.After != "" {
				if c.Kind == "description-changed" || c.Kind == "title-changed" {
					fmt.Fprintf(&b, "      - %s\n      + %s\n", termsafe.Line(c.Before), termsafe.Line(c.After))
				}
			}
		}
		if showDiff && e.Diff != "" && e.Status != Added && e.Status != Removed {
			for _, line := range strings.Split(strings.TrimRight(e.Diff, "\n"), "\n") {
				fmt.Fprintf(&b, "    %s\n", termsafe.Line(line))
			}
		}
	}
	fmt.Fprintf(&b, "\n%s\n", r.Summary())
	if r.Budget != nil {
		fmt.Fprintf(&b, "%s\n", r.Budget.Line())
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mdCell makes a server string safe inside a Markdown table cell.
func mdCell(s string) string {
	s = termsafe.Line(s)
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "`", "'")
	return s
}

func writeMarkdown(w io.Writer, r *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "## Tool surface: %s\n\n", mdCell(r.Heading()))
	fmt.Fprintf(&b, "%s\n", r.Summary())
	if r.Budget != nil {
		fmt.Fprintf(&b, "\n%s\n", r.Budget.Line())
	}
	if r.Empty() {
		_, err := io.WriteString(w, b.String())
		return err
	}
	b.WriteString("\n| | Object | Name | Change | Path |\n|---|---|---|---|---|\n")
	for i := range r.Entries {
		e := &r.Entries[i]
		for _, c := range e.Changes {
			mark := "compatible"
			if c.Breaking {
				mark = "**breaking**"
			}
			name := e.Name
			if e.Status == Renamed {
				name = e.OldName + " → " + e.Name
			}
			fmt.Fprintf(&b, "| %s | %s | `%s` | %s | %s |\n", mark, e.Object, mdCell(name), mdCell(c.Message), mdCell(c.Path))
		}
	}
	for i := range r.Entries {
		e := &r.Entries[i]
		if e.Diff == "" || e.Status == Added || e.Status == Removed {
			continue
		}
		fmt.Fprintf(&b, "\n<details><summary>%s</summary>\n\n```diff\n%s```\n\n</details>\n",
			mdCell(entryTitle(e)), strings.ReplaceAll(termsafe.Text(e.Diff), "```", "'''"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// JUnit: one test case per object that changed; a failure when the report's FailOn
// counts it (a breaking change by default, every change with "any", none with "none").
type (
	junitSuites  = junit.Suites
	junitSuite   = junit.Suite
	junitCase    = junit.Case
	junitFailure = junit.Failure
)

func writeJUnit(w io.Writer, r *Report) error {
	s := junitSuite{Name: "mcpscope diff " + r.Old + " → " + r.New}
	if r.Empty() {
		s.Cases = append(s.Cases, junitCase{Name: "tool surface unchanged", Classname: "mcpscope.diff"})
	}
	if b := r.Budget; b != nil {
		c := junitCase{Name: "cost within the budget of " + b.Limit, Classname: "mcpscope.diff.budget"}
		if b.Over {
			s.Failures++
			c.Failure = &junitFailure{Message: b.Line(), Type: "budget", Text: b.Line()}
		} else {
			c.SystemOut = b.Line()
		}
		s.Cases = append(s.Cases, c)
	}
	for i := range r.Entries {
		e := &r.Entries[i]
		var lines []string
		for _, c := range e.Changes {
			lines = append(lines, fmt.Sprintf("[%s] %s", verdict(c.Breaking), c.Message))
		}
		text := strings.Join(lines, "\n")
		if e.Diff != "" {
			text += "\n\n" + e.Diff
		}
		c := junitCase{Name: entryTitle(e), Classname: "mcpscope.diff." + e.Object}
		if e.Fails(r.FailOn) {
			s.Failures++
			typ, first := "breaking", ""
			if !e.Breaking {
				typ = "changed" // --fail-on any
			}
			for _, ch := range e.Changes {
				if ch.Breaking == e.Breaking {
					first = ch.Message
					break
				}
			}
			c.Failure = &junitFailure{Message: first, Type: typ, Text: xmlSafe(text)}
		} else {
			c.SystemOut = xmlSafe(text)
		}
		s.Cases = append(s.Cases, c)
	}
	s.Tests = len(s.Cases)
	s.Name = xmlSafe(s.Name)
	for i := range s.Cases {
		s.Cases[i].Name = xmlSafe(s.Cases[i].Name)
		if s.Cases[i].Failure != nil {
			s.Cases[i].Failure.Message = xmlSafe(s.Cases[i].Failure.Message)
		}
	}
	return junit.Write(w, junitSuites{Suites: []junitSuite{s}})
}

// xmlSafe is junit.Safe.
func xmlSafe(s string) string { return junit.Safe(s) }
