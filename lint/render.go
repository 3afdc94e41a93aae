package lint

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/mcpscope/mcpscope/internal/termsafe"
)

// Formats Write takes.
var Formats = []string{"text", "json", "sarif", "junit"}

// WriteOptions shape a report.
type WriteOptions struct {
	Top    int      // text: the heaviest N definitions of each server (0: all)
	FailOn Severity // junit: a case fails with a finding this bad or worse
}

// Write renders reports in format: text, json, sarif (2.1.0) or junit.
func Write(w io.Writer, format string, reports []Report, o WriteOptions) error {
	bw := bufio.NewWriter(w)
	var err error
	switch format {
	case "json":
		enc := json.NewEncoder(bw)
		enc.SetIndent("", "  ")
		err = enc.Encode(struct {
			Reports []Report `json:"servers"`
		}{reports})
	case "sarif":
		err = writeSARIF(bw, reports)
	case "junit":
		if o.FailOn == "" {
			o.FailOn = Error
		}
		err = writeJUnit(bw, reports, o.FailOn)
	case "text", "":
		err = writeText(bw, reports, o.Top)
	default:
		return fmt.Errorf("lint: unknown format %q (text, json, sarif or junit)", format)
	}
	if err != nil {
		return err
	}
	return bw.Flush()
}

func writeText(w *bufio.Writer, reports []Report, top int) error {
	cited := map[string]bool{}
	for i, r := range reports {
		if i > 0 {
			w.WriteString("\n")
		}
		fmt.Fprintf(w, "%s: %s in %s, %s of it descriptions (tokens: %s, an estimate for other model families)\n", termsafe.Line(r.Server),
			countOf(r.Total.Tokens, "token"), bytesText(r.Total.Bytes), bytesText(r.Total.Description), r.Tokenizer)
		if len(r.Costs) > 0 {
			fmt.Fprintf(w, "  %7s %9s %9s %9s  %s\n", "tokens", "bytes", "descr.", "schema", "definition")
			for j, c := range r.Costs {
				if top > 0 && j == top {
					fmt.Fprintf(w, "  … %d more lighter (--top 0 lists all)\n", len(r.Costs)-top)
					break
				}
				fmt.Fprintf(w, "  %7d %9d %9d %9d  %s %s\n", c.Tokens, c.Bytes, c.Description, c.Schema, c.Object, termsafe.Line(c.Name))
			}
		}
		if len(r.Findings) == 0 {
			w.WriteString("  no findings\n")
			continue
		}
		fmt.Fprintf(w, "  %s\n", summary(r.Findings))
		for _, f := range r.Findings {
			cited[f.Rule] = true
			where := f.Object
			if f.Name != "" {
				where += " " + termsafe.Line(f.Name)
			}
			if f.Pointer != "" {
				where += " " + termsafe.Line(f.Pointer)
			}
			fmt.Fprintf(w, "  %-7s %s  %s\n", f.Severity, f.Rule, where)
			fmt.Fprintf(w, "          %s\n", termsafe.Line(f.Message))
			if f.Suggest != "" {
				fmt.Fprintf(w, "          fix: %s\n", f.Suggest)
			}
		}
	}
	if len(cited) > 0 {
		ids := make([]string, 0, len(cited))
		for id := range cited {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		w.WriteString("\nrules cited:\n")
		for _, id := range ids {
			if r, ok := rules()[id]; ok {
				fmt.Fprintf(w, "  %s (%s): %s\n    %s\n", id, r.Provider, r.Checks, r.Source)
			}
		}
	}
	return nil
}

// summary counts findings by severity: "2 errors, 5 warnings".
func summary(fs []Finding) string {
	n := map[Severity]int{}
	for _, f := range fs {
		n[f.Severity]++
	}
	var parts []string
	for _, s := range []Severity{Error, Warning, Info} {
		if n[s] > 0 {
			parts = append(parts, countOf(n[s], string(s)))
		}
	}
	return strings.Join(parts, ", ")
}

func bytesText(n int) string {
	if n < 10*1024 {
		return countOf(n, "byte")
	}
	return fmt.Sprintf("%.1f KiB", float64(n)/1024)
}
