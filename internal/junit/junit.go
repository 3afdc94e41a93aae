// Package junit is the JUnit XML report both `diff --format junit` and
// `lint --format junit` write: the document's shape, the one way to write it, and
// what XML 1.0 cannot hold made safe.
package junit

import (
	"encoding/xml"
	"io"
	"strings"
)

// Suites is the document.
type Suites struct {
	XMLName xml.Name `xml:"testsuites"`
	Suites  []Suite  `xml:"testsuite"`
}

// Suite is one test suite.
type Suite struct {
	Name     string `xml:"name,attr"`
	Tests    int    `xml:"tests,attr"`
	Failures int    `xml:"failures,attr"`
	Skipped  int    `xml:"skipped,attr,omitempty"`
	Cases    []Case `xml:"testcase"`
}

// Case is one test case, failed when Failure is set.
type Case struct {
	Name      string   `xml:"name,attr"`
	Classname string   `xml:"classname,attr"`
	Failure   *Failure `xml:"failure,omitempty"`
	// Skipped marks a case that did not run (CI shows it as skipped, not passed).
	Skipped   *Skipped `xml:"skipped,omitempty"`
	SystemOut string   `xml:"system-out,omitempty"`
}

// Skipped says why a case did not run.
type Skipped struct {
	Message string `xml:"message,attr"`
}

// Failure says why a case failed.
type Failure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// Write writes the document: the XML header, the suites indented, a final newline.
func Write(w io.Writer, s Suites) error {
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(s); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// Safe replaces what XML 1.0 cannot hold (control characters other than tab,
// newline and carriage return, U+FFFE, U+FFFF), which encoding/xml would write as
// they are, with U+FFFD.
func Safe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return r
		case r < 0x20, r == 0xFFFE, r == 0xFFFF:
			return '\uFFFD'
		}
		return r
	}, s)
}
