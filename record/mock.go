package record

// MockMetaKey is the member of a result's _meta where the mock (mcpscope serve, open)
// says that the request's params differ from every recorded one ("note") and which
// recorded request answered ("answeredAs"). The mock writes it (package replay) and
// the workbench reads it (package tui): both take it from here, the package both
// import (the TUI cannot import replay, which registers a -update flag its own golden
// tests register too).
const MockMetaKey = "io.mcpscope/mock"

// MockNote is the value under MockMetaKey.
type MockNote struct {
	Note       string `json:"note"`
	AnsweredAs string `json:"answeredAs"`
}
