package check

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/mcpscope/mcpscope/internal/junit"
	"github.com/mcpscope/mcpscope/internal/termsafe"
)

// Formats are what Write renders.
var Formats = []string{"text", "json", "junit"}

// Write renders reports in format. Text is for a terminal: every string a server
// sent goes through termsafe. JSON and JUnit keep the strings as sent (escaped by
// their encoders); the caller wraps a terminal in termsafe.NewWriter.
func Write(w io.Writer, format string, reports []Report, failOn Status) error {
	switch format {
	case "json":
		return writeJSON(w, reports, failOn)
	case "junit":
		return writeJUnit(w, reports)
	}
	return writeText(w, reports)
}

func writeText(w io.Writer, reports []Report) error {
	var b strings.Builder
	for i, r := range reports {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "check %s (%s)\n", termsafe.Line(r.Name), termsafe.Line(r.Target))
		// The name column fits the longest name (an inputs check is named after its
		// tool), within reason: a longer one pushes its own row only.
		width := 26
		for _, c := range r.Checks {
			width = max(width, min(40, utf8.RuneCountInString(termsafe.Line(strings.TrimPrefix(c.ID, c.Step+"/")))))
		}
		step := ""
		for _, c := range r.Checks {
			if c.Step != step {
				step = c.Step
				fmt.Fprintf(&b, "  %s\n", step)
			}
			fmt.Fprintf(&b, "    %-7s %-*s %s\n", c.Status, width, termsafe.Line(strings.TrimPrefix(c.ID, c.Step+"/")), termsafe.Line(c.Why))
			for _, d := range c.Details {
				fmt.Fprintf(&b, "            - %s\n", termsafe.Line(d))
			}
		}
		fmt.Fprintf(&b, "  %d passed, %d warned, %d failed, %d skipped\n", r.Count(Pass), r.Count(Warn), r.Count(Fail), r.Count(Skip))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

type jsonReport struct {
	Report
	Summary map[Status]int `json:"summary"`
	Failed  bool           `json:"failed"`
}

func writeJSON(w io.Writer, reports []Report, failOn Status) error {
	out := struct {
		Targets []jsonReport `json:"targets"`
		Failed  bool         `json:"failed"`
	}{Targets: []jsonReport{}}
	for _, r := range reports {
		j := jsonReport{Report: r, Summary: map[Status]int{}, Failed: r.Fails(failOn)}
		for _, s := range []Status{Pass, Warn, Fail, Skip} {
			j.Summary[s] = r.Count(s)
		}
		out.Failed = out.Failed || j.Failed
		out.Targets = append(out.Targets, j)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// writeJUnit: one suite per target, one case per check. A warning passes (its text
// is the case's output); --fail-on warn decides the exit code, not the document.
func writeJUnit(w io.Writer, reports []Report) error {
	var doc junit.Suites
	for _, r := range reports {
		s := junit.Suite{Name: junit.Safe("mcpscope check " + r.Name)}
		for _, c := range r.Checks {
			jc := junit.Case{Name: junit.Safe(c.ID), Classname: junit.Safe("check." + r.Name + "." + c.Step)}
			text := junit.Safe(strings.Join(append([]string{c.Why}, c.Details...), "\n"))
			switch c.Status {
			case Fail:
				jc.Failure = &junit.Failure{Message: junit.Safe(c.Why), Type: "fail", Text: text}
				s.Failures++
			case Skip:
				jc.Skipped = &junit.Skipped{Message: junit.Safe(c.Why)}
				s.Skipped++
			default:
				jc.SystemOut = string(c.Status) + ": " + text
			}
			s.Cases = append(s.Cases, jc)
		}
		s.Tests = len(s.Cases)
		doc.Suites = append(doc.Suites, s)
	}
	return junit.Write(w, doc)
}
