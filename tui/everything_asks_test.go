package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/target"
)

// everything connects a harness to server-everything over stdio.
// toTool goes back to the tool list and selects a tool, from wherever the screen is.
func (h *harness) toTool(name string) {
	h.press("1")
	if h.m.focus == paneRight {
		h.press("esc")
	}
	h.selectTool(name)
}

func everything(t *testing.T, opts Options) *harness {
	opts.Target = target.Target{Argv: testutil.Everything(t)}
	opts.Name, opts.Theme = "server-everything", "dark"
	h := newHarnessWith(t, opts, 120, 40)
	h.until("the tools", func(m *model) bool { return len(m.list.tools) > 0 && m.srv.state() == stateReady })
	return h
}

// simulate-research-query requires tasks: the form runs it as one (it failed with
// "requires task augmentation" before), the Tasks tab follows its stages, and its
// result is shown; an ambiguous one asks for clarification mid-task (input_required:
// tasks/result carries the server's elicitation, answered in the dialog); a third is
// cancelled.
func TestEverythingResearchTask(t *testing.T) {
	h := everything(t, Options{})
	h.selectTool("simulate-research-query")
	h.press("enter")
	h.contains("enter starts a task")
	h.m.form.SetValue([]byte(`{"topic":"owls"}`))
	h.press("enter")
	h.until("the task to complete", taskDone)
	h.contains("completed", "owls")
	if it := h.m.tasks.selected(); it.out == nil || it.out.err != nil || it.out.result == nil || it.out.result.IsError {
		t.Fatalf("outcome %+v", it.out)
	}

	h.toTool("simulate-research-query")
	h.press("enter")
	h.m.form.SetValue([]byte(`{"topic":"bats","ambiguous":true}`))
	h.press("enter")
	h.until("the clarification", func(m *model) bool { return elicitOf(m) != nil })
	h.contains("asks for input", "multiple interpretations")
	if err := elicitOf(h.m).form.SetValue([]byte(`{"interpretation":"technical"}`)); err != nil {
		t.Fatal(err)
	}
	h.press("enter")
	h.until("the ambiguous task to end", taskDone)
	h.contains("bats", "technical")

	h.toTool("simulate-research-query")
	h.press("enter")
	h.m.form.SetValue([]byte(`{"topic":"slow"}`))
	h.press("enter")
	h.until("the task to run", func(m *model) bool { it := m.tasks.selected(); return it != nil && it.created })
	h.press("x", "y")
	h.until("the task to end cancelled", func(m *model) bool {
		it := m.tasks.selected()
		return it != nil && it.done && it.task.Status == "cancelled"
	})
}

// Declared, sampling and roots show server-everything's tools for them (hidden
// before); the sampling tool's request opens the dialog and gets the typed reply;
// the roots tool lists the --root directory.
func TestEverythingSamplingAndRoots(t *testing.T) {
	dir := t.TempDir()
	root, err := client.RootFromDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	h := everything(t, Options{Sampling: true, Roots: []client.Root{root}})
	h.selectTool("trigger-sampling-request")
	h.press("enter")
	h.m.form.SetValue([]byte(`{"prompt":"Name a colour","maxTokens":50}`))
	h.press("enter")
	h.until("the dialog", func(m *model) bool { return samplingOf(m) != nil })
	h.contains("asks for a model reply", "Name a colour", "maxTokens 50")
	h.typeText("Teal.")
	h.press("enter")
	h.until("the result", func(m *model) bool { return m.current != nil && !m.current.running && samplingOf(m) == nil })
	h.contains("Teal.")

	h.toTool("get-roots-list")
	h.press("enter", "enter")
	h.until("the roots", func(m *model) bool {
		return m.current != nil && m.current.tool.Name == "get-roots-list" && !m.current.running
	})
	h.contains(filepath.Base(dir))
}

// URL-mode elicitation: the URL is shown in full and opened with $BROWSER only on
// consent (here a script that writes what it was given); a -32042 error shows the
// URL it requires.
func TestEverythingURLElicitation(t *testing.T) {
	out := filepath.Join(t.TempDir(), "opened")
	script := filepath.Join(t.TempDir(), "browser.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s\\n' \"$1\" >> "+out+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("BROWSER", script)
	h := everything(t, Options{})
	h.selectTool("trigger-url-elicitation")
	h.press("enter")
	h.m.form.SetValue([]byte(`{"url":"https://example.com/consent?step=1","message":"Please sign in"}`))
	h.press("enter")
	h.until("the URL dialog", func(m *model) bool { return elicitOf(m) != nil })
	h.contains("https://example.com/consent?step=1", "enter opens it with $BROWSER")
	h.press("enter")
	h.until("the browser to be started", func(m *model) bool {
		b, _ := os.ReadFile(out)
		return strings.Contains(string(b), "https://example.com/consent?step=1")
	})
	h.until("the result", func(m *model) bool { return m.current != nil && !m.current.running })

	// Declined: nothing opened.
	h.toTool("trigger-url-elicitation")
	h.press("enter")
	h.m.form.SetValue([]byte(`{"url":"https://example.com/declined","message":"no"}`))
	h.press("enter")
	h.until("the URL dialog", func(m *model) bool { return elicitOf(m) != nil })
	h.press("ctrl+x")
	h.until("the result", func(m *model) bool { return m.current != nil && !m.current.running && elicitOf(m) == nil })
	if b, _ := os.ReadFile(out); strings.Contains(string(b), "declined") {
		t.Fatal("a declined URL was opened")
	}

	// The error path: -32042 names the URL to visit first; it is shown, and opened
	// on consent.
	h.toTool("trigger-url-elicitation")
	h.press("enter")
	h.m.form.SetValue([]byte(`{"url":"https://example.com/after","message":"later","errorPath":true}`))
	h.press("enter")
	h.until("the URL the error names", func(m *model) bool { return elicitOf(m) != nil })
	h.contains("https://modelcontextprotocol.io", "-32042")
	h.press("enter")
	h.until("the browser to be started", func(m *model) bool {
		b, _ := os.ReadFile(out)
		return strings.Contains(string(b), "https://modelcontextprotocol.io")
	})
}
