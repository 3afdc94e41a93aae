package record

import "slices"

// AddIgnore adds JSON-pointer patterns to the header's ignore list (replay
// --save-ignore), each once, and reports whether the list grew. The recording is
// not written: Save does that.
func (rec *Recording) AddIgnore(patterns []string) bool {
	grew := false
	for _, p := range patterns {
		if !slices.Contains(rec.Header.Ignore, p) {
			rec.Header.Ignore = append(rec.Header.Ignore, p)
			grew = true
		}
	}
	return grew
}
