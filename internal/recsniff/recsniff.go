// Package recsniff tells an mcpscope recording by its first line, for messages about a
// file given where something else belongs. It is apart from package record, which
// links the wire and the SDK, so that the config layer can ask without them.
package recsniff

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
)

// Format is the value of the header's "mcpscope" member (package record writes it).
const Format = "recording"

// sniffMax caps what Sniff reads: a header is one short line (a few hundred bytes even
// with several servers); a file whose first line is longer is no recording to point at.
const sniffMax = 64 << 10

// Sniff reports whether path is a regular file whose first line is a recording header.
// It is for messages ("this is a recording, not a server"), so it reads no more than
// the first line, capped, and says false on any doubt.
func Sniff(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return false
	}
	// A header line longer than the cap (ErrBufferFull) is taken for none.
	line, err := bufio.NewReaderSize(f, sniffMax).ReadSlice('\n')
	if err != nil && err != io.EOF {
		return false
	}
	var probe struct {
		Format *string `json:"mcpscope"`
	}
	return json.Unmarshal(line, &probe) == nil && probe.Format != nil && *probe.Format == Format
}
