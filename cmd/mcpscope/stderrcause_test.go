package main_test

import "testing"

// A server that prints its cause first and a long trace after it, then exits: the
// message keeps the first lines as well as the last, with how many were left out
// between. Only the last 20 were kept, so "the cause: cannot open database" was lost
// under 20 lines of "at frame N" (the workbench already showed both ends).
func TestAFailureKeepsTheFirstStderrLinesToo(t *testing.T) {
	t.Parallel()
	r := fake(t, "exit-verbose", "call", "echo", "text=hi")
	expect(t, r, 1, nil, []string{
		"fakemcp: the cause: cannot open database notes.db",
		"… 38 more lines …",
		"at frame 60 (trace.go:60)",
		"fakemcp: giving up",
	})
}
