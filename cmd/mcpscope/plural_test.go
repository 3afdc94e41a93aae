package main_test

import (
	"os"
	"path/filepath"
	"testing"
)

// Counts of one read in the singular everywhere the CLI counts something: `servers`
// printed "1 servers.", call's sampling note "1 message(s)".
func TestCountsOfOneInTheSingular(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "one.json")
	if err := os.WriteFile(cfg, []byte(`{"mcpServers":{"solo":{"command":"mcpscope","args":["host"]}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	r := mcpscope(t, nil, "servers", "--config", cfg)
	expect(t, r, 0, []string{"\n1 server. Inspect one with"}, nil)

	r = mcpscope(t, nil, "call", "sample", "--sampling-reply", "hi")
	expect(t, r, 0, []string{"The model replied: hi"}, []string{"(1 message, maxTokens 200)"})
}
