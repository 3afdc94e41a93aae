package tui

import (
	"os"
	"path/filepath"
	"testing"
)

// A URL-mode elicitation with a javascript: URL: enter does not open it (the shared
// internal/browser rule), says why, and answers decline, not accept: nothing was
// opened, as on the command line.
func TestURLElicitationOpensOnlyWebURLs(t *testing.T) {
	out := filepath.Join(t.TempDir(), "opened")
	script := filepath.Join(t.TempDir(), "browser.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s\\n' \"$1\" >> "+out+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BROWSER", script)
	h := everything(t, Options{})
	h.selectTool("trigger-url-elicitation")
	h.press("enter")
	h.m.form.SetValue([]byte(`{"url":"javascript:alert(1)","message":"Please sign in"}`))
	h.press("enter")
	h.until("the URL dialog", func(m *model) bool { return elicitOf(m) != nil })
	h.contains("javascript:alert(1)")
	h.press("enter")
	h.until("the result", func(m *model) bool { return m.current != nil && !m.current.running && elicitOf(m) == nil })
	h.contains("User declined to open the URL")
	h.until("the refusal", func(m *model) bool { return m.notice != "" })
	h.contains("not opened: a javascript: URL; only http and https URLs are opened")
	if _, err := os.Stat(out); err == nil {
		t.Fatal("the javascript: URL was handed to $BROWSER")
	}
}
