package lint

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/mcpscope/mcpscope/internal/junit"
)

// SARIF 2.1.0 (OASIS), the shape code-scanning uploads take: one run, the rules
// cited as the driver's rules (each with its source as help), each finding a result
// with a logical location (server, object, JSON pointer) and, for a surface read
// from a file, that file as its artifact.

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifText struct {
	Text string `json:"text"`
}

type sarifRule struct {
	ID                   string            `json:"id"`
	ShortDescription     sarifText         `json:"shortDescription"`
	Help                 sarifText         `json:"help"`
	HelpURI              string            `json:"helpUri,omitempty"`
	DefaultConfiguration sarifConfig       `json:"defaultConfiguration"`
	Properties           map[string]string `json:"properties"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifText       `json:"message"`
	Locations []sarifLocation `json:"locations"`
}

type sarifLocation struct {
	PhysicalLocation *sarifPhysical `json:"physicalLocation,omitempty"`
	LogicalLocations []sarifLogical `json:"logicalLocations"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifLogical struct {
	FullyQualifiedName string `json:"fullyQualifiedName"`
	Kind               string `json:"kind"`
}

// sarifLevel maps a severity to SARIF's levels.
func sarifLevel(s Severity) string {
	switch s {
	case Error:
		return "error"
	case Warning:
		return "warning"
	}
	return "note"
}

// helpURI is the first https address in a rule's source, if any.
func helpURI(source string) string {
	i := strings.Index(source, "https://")
	if i < 0 {
		return ""
	}
	u := source[i:]
	if j := strings.IndexAny(u, " ;\"()"); j >= 0 {
		u = u[:j]
	}
	return u
}

func writeSARIF(w io.Writer, reports []Report) error {
	cited := map[string]bool{}
	for _, r := range reports {
		for _, f := range r.Findings {
			cited[f.Rule] = true
		}
	}
	ids := make([]string, 0, len(cited))
	for id := range cited {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	index := map[string]int{}
	driver := sarifDriver{Name: "mcpscope lint", InformationURI: "https://github.com/mcpscope/mcpscope", Rules: []sarifRule{}}
	for i, id := range ids {
		index[id] = i
		r := rules()[id]
		driver.Rules = append(driver.Rules, sarifRule{ID: id, ShortDescription: sarifText{r.Checks}, Help: sarifText{r.Suggest + ". Source: " + r.Source},
			HelpURI: helpURI(r.Source), DefaultConfiguration: sarifConfig{sarifLevel(r.Severity)}, Properties: map[string]string{"profile": r.Provider}})
	}
	run := sarifRun{Tool: sarifTool{driver}, Results: []sarifResult{}}
	for _, r := range reports {
		for _, f := range r.Findings {
			loc := sarifLocation{LogicalLocations: []sarifLogical{{FullyQualifiedName: qualified(f), Kind: "member"}}}
			if r.File != "" {
				loc.PhysicalLocation = &sarifPhysical{sarifArtifact{URI: r.File}}
			}
			text := f.Message
			if f.Suggest != "" {
				text += ". Fix: " + f.Suggest
			}
			run.Results = append(run.Results, sarifResult{RuleID: f.Rule, RuleIndex: index[f.Rule], Level: sarifLevel(f.Severity),
				Message: sarifText{qualified(f) + ": " + text}, Locations: []sarifLocation{loc}})
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}})
}

// qualified names where a finding is: SERVER/OBJECT NAME#POINTER.
func qualified(f Finding) string {
	s := f.Server + "/" + f.Object
	if f.Name != "" {
		s += " " + f.Name
	}
	if f.Pointer != "" {
		s += "#" + f.Pointer
	}
	return s
}

// JUnit: a suite per server, a case per definition (and one for the server), failed
// when it has a finding at failOn or worse; every finding is in the case's text.

type (
	junitSuites  = junit.Suites
	junitSuite   = junit.Suite
	junitCase    = junit.Case
	junitFailure = junit.Failure
)

func writeJUnit(w io.Writer, reports []Report, failOn Severity) error {
	var out junitSuites
	for _, r := range reports {
		s := junitSuite{Name: xmlSafe("mcpscope lint " + r.Server)}
		byObject := map[string][]Finding{}
		var order []string
		key := func(object, name string) string { return object + " " + name }
		for _, c := range r.Costs {
			k := key(c.Object, c.Name)
			order = append(order, k)
			byObject[k] = nil
		}
		for _, f := range r.Findings {
			k := key(f.Object, f.Name)
			if _, ok := byObject[k]; !ok {
				order = append(order, k)
			}
			byObject[k] = append(byObject[k], f)
		}
		for _, k := range order {
			fs := byObject[k]
			c := junitCase{Name: xmlSafe(k), Classname: "mcpscope.lint." + xmlSafe(r.Server)}
			var lines []string
			var worst *Finding
			for i := range fs {
				f := &fs[i]
				lines = append(lines, fmt.Sprintf("[%s] %s %s: %s", f.Severity, f.Rule, f.Pointer, f.Message))
				if f.Severity.AtLeast(failOn) && (worst == nil || f.Severity.rank() > worst.Severity.rank()) {
					worst = f
				}
			}
			text := xmlSafe(strings.Join(lines, "\n"))
			if worst != nil {
				s.Failures++
				c.Failure = &junitFailure{Message: xmlSafe(worst.Rule + ": " + worst.Message), Type: string(worst.Severity), Text: text}
			} else {
				c.SystemOut = text
			}
			s.Cases = append(s.Cases, c)
		}
		s.Tests = len(s.Cases)
		out.Suites = append(out.Suites, s)
	}
	return junit.Write(w, out)
}

// xmlSafe is junit.Safe.
func xmlSafe(s string) string { return junit.Safe(s) }
