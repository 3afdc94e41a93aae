package main_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// call --elicit accept handed any URL a server sent to $BROWSER: javascript: and
// file: URLs ran in the browser. Only http(s) is opened now (as in the workbench), and
// the refusal is said. The browser appends each URL it gets, so a refused URL that
// was opened anyway shows up beside the good one opened last.
func TestCallOpensOnlyWebURLs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	opened := filepath.Join(dir, "opened")
	browser := filepath.Join(dir, "browser.sh")
	testutil.WriteExecutable(t, browser, "#!/bin/sh\nprintf '%s\\n' \"$*\" >> "+opened+"\n")
	env := []string{"BROWSER=" + browser}
	for _, u := range []string{"javascript:alert(document.cookie)", "file:///etc/passwd"} {
		argv := append([]string{"call", "trigger-url-elicitation", "url=" + u, "--elicit", "accept", "--"}, testutil.Everything(t)...)
		r := mcpscope(t, env, argv...)
		scheme, _, _ := strings.Cut(u, ":")
		expect(t, r, 0, []string{"User declined to open the URL"}, []string{"not opened: a " + scheme + ": URL; only http and https URLs are opened"})
	}
	argv := append([]string{"call", "trigger-url-elicitation", "url=https://example.com/ok", "--elicit", "accept", "--"}, testutil.Everything(t)...)
	expect(t, mcpscope(t, env, argv...), 0, nil, nil)
	testutil.WaitFile(t, opened, "https://example.com/ok")
	if b, _ := os.ReadFile(opened); string(b) != "https://example.com/ok\n" {
		t.Errorf("the browser got:\n%s", b)
	}
}
