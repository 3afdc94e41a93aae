package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// FastMCP is the command line of interop/fastmcp-notes.mjs, a server on npm fastmcp
// (lookup_weather, a destructive delete_note, echo_any), over stdio.
func FastMCP(t testing.TB) []string {
	t.Helper()
	dir := filepath.Join(Root(), "interop")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "fastmcp")); err != nil {
		t.Fatalf("fastmcp is not installed (%v); run scripts/test, or `npm ci` in interop/", err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("node is not installed: %v", err)
	}
	return []string{node, filepath.Join(dir, "fastmcp-notes.mjs")}
}

// FastMCPHTTP starts interop/fastmcp-notes.mjs over Streamable HTTP on 127.0.0.1.
func FastMCPHTTP(t testing.TB) *NodeServer {
	return StartNode(t, "fastmcp-notes.mjs", "http")
}

// Kill ends the server at once (SIGKILL), as a crash would.
func (s *NodeServer) Kill() {
	_ = s.cmd.Process.Kill()
}
