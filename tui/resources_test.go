package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/target"
	"github.com/mcpscope/mcpscope/workbench"
)

// resourcesOpen opens the Resources tab (8) and waits for the server's list.
func resourcesOpen(t *testing.T, h *harness) {
	t.Helper()
	h.press("8")
	h.until("the resources", func(m *model) bool {
		l := m.res.lists[m.srv.name]
		return l != nil && !l.loading
	})
}

// pick filters the Resources list to what matches q and selects the first row.
func pick(h *harness, q string) {
	h.press("/")
	h.typeText(q)
	h.press("enter")
}

// readDone waits for the read shown to finish.
func readDone(h *harness) {
	h.t.Helper()
	h.until("the read", func(m *model) bool { return m.res.open != nil && !m.res.open.running })
}

// The tab lists the bundled host's resources and templates (with name, URI, MIME
// type, size and the selected one's detail); enter reads one and renders it by MIME
// type: Markdown laid out, JSON highlighted, a picture described.
func TestResourcesBrowseAndRead(t *testing.T) {
	h := ready(t, 120, 40)
	h.contains("8 Resources")
	resourcesOpen(t, h)
	h.contains("About the demo host", "mcpscope://demo/readme.md", "text/markdown, 398 B",
		"Templates", "Named colours", "mcpscope://demo/colors/{name}", "name counter", "uri mcpscope://demo/counter")

	pick(h, "readme")
	h.contains("/readme", "• About the demo host", "size 398 B (398 bytes)")
	if strings.Contains(h.screen(), "A counter that changes") {
		t.Error("the filter kept a resource that does not match")
	}
	h.press("enter")
	readDone(h)
	h.contains("mcpscope bundled host", "═══", "esc back · s save")
	if strings.Contains(h.screen(), "# mcpscope bundled host") {
		t.Error("the Markdown heading is shown raw")
	}

	h.press("esc", "esc") // back to the list, then the filter cleared
	pick(h, "gradient")
	h.press("enter")
	readDone(h)
	h.contains("binary, image/png, 1.2 KiB, 64×64 png", "s saves it to a file")
}

// A picture read is saved with s, as a command, into the save directory; a name the
// server chose stays one file inside it.
func TestResourceBlobIsSaved(t *testing.T) {
	save := t.TempDir()
	h := newHarnessWith(t, Options{Target: hostTarget(t), Name: "bundled host", Theme: "dark", SaveDir: save}, 120, 40)
	h.until("connected", func(m *model) bool { return m.srv.state() == stateReady })
	resourcesOpen(t, h)
	pick(h, "gradient")
	h.press("enter")
	readDone(h)
	h.press("s")
	h.until("the save", func(m *model) bool { return strings.HasPrefix(m.notice, "saved ") })
	files, _ := filepath.Glob(filepath.Join(save, "mcpscope-resource-*", "*"))
	if len(files) != 1 || !strings.HasSuffix(files[0], "gradient.png") {
		t.Fatalf("saved %v; notice %q", files, h.m.notice)
	}
	data, err := os.ReadFile(files[0])
	if err != nil || !strings.HasPrefix(string(data), "\x89PNG") {
		t.Fatalf("the saved file is not the PNG: %v %q", err, data[:min(8, len(data))])
	}
}

// Subscribing (u) and then changing the resource (the bump tool) re-reads the open
// resource and marks it as updated.
func TestResourceSubscriptionRereads(t *testing.T) {
	for _, protocol := range []string{"", "2025-11-25"} {
		t.Run("protocol="+protocol, func(t *testing.T) {
			opts := Options{Target: hostTarget(t), Name: "bundled host", Theme: "dark"}
			opts.Client.Protocol = protocol
			h := newHarnessWith(t, opts, 120, 40)
			h.until("connected", func(m *model) bool { return m.srv.state() == stateReady && len(m.list.tools) > 0 })
			resourcesOpen(t, h)
			pick(h, "counter")
			h.press("u")
			h.until("the subscription", func(m *model) bool { return strings.HasPrefix(m.notice, "subscribed to") })
			h.contains("● subscribed")
			h.press("enter")
			readDone(h)
			h.contains("counter = 0")
			h.selectTool("bump")
			h.press("enter", "enter")
			h.until("the bump", func(m *model) bool { return m.current != nil && !m.current.running })
			h.press("8")
			h.until("the re-read", func(m *model) bool {
				r := m.res.open
				return r != nil && !r.running && r.updates > 0 && r.result != nil && len(r.result.Contents) == 1 && r.result.Contents[0].Text == "counter = 1\n"
			})
			h.contains("counter = 1", "↻ updated (1 notification,")
			h.press("esc")
			h.contains("A counter that changes", "● subscribed", "↻ updated 1 time ")
			h.press("u")
			h.until("the unsubscription", func(m *model) bool { return strings.HasPrefix(m.notice, "unsubscribed from") })
		})
	}
}

// A template's variables become a form; typing asks completion/complete (debounced),
// the values are offered as a pick list, ↓ then enter puts one in, and enter reads
// the expanded URI.
func TestTemplateWithCompletion(t *testing.T) {
	h := ready(t, 120, 40)
	resourcesOpen(t, h)
	pick(h, "colors/{")
	h.press("enter")
	h.contains("Named colours", "mcpscope://demo/colors/{name}", "reads mcpscope://demo/colors/")
	h.typeText("te")
	h.until("the values offered", func(m *model) bool {
		f := m.res.tpl.form.Focused()
		return len(f.values) > 0 && f.Value() == "te"
	})
	h.contains("teal", "↓/↑ pick · enter takes it")
	h.press("down", "enter")
	h.contains("reads mcpscope://demo/colors/teal")
	h.press("enter")
	readDone(h)
	h.contains("mcpscope://demo/colors/teal", `"#008080"`)
}

// The fake server's misbehaviours: a template that does not parse, a completion that
// never answers, a read of an unknown content shape. Each gets a clear message and
// the screen goes on.
func TestResourcesBadInput(t *testing.T) {
	h := newHarness(t, target.Target{Argv: testutil.FakeServer(t, "primitives")}, 120, 40)
	h.until("connected", func(m *model) bool { return m.srv.state() == stateReady })
	resourcesOpen(t, h)
	h.contains(`⚠ resource "fake://ok": name is`, "broken", "fake://items/{id")

	pick(h, "odd")
	h.press("enter")
	readDone(h)
	h.contains("has neither text nor blob (members: video)", `"video": "AAAA"`)
	h.press("esc", "esc")

	pick(h, "broken")
	h.press("enter")
	h.contains("This template cannot be used", "does not parse")
	h.press("esc", "esc")

	pick(h, "id}")
	h.press("enter")
	h.typeText("4")
	// The keystrokes are taken at once; the question waits in a command.
	h.contains("reads fake://items/4")
	h.typeText("2")
	h.contains("reads fake://items/42")
	h.until("the completion's timeout", screenHas(h, "completion: no answer within"))
	h.contains("type on, or enter reads the URI")
	h.press("enter")
	readDone(h)
	h.contains("fake://items/42", "ok")
}

// A later field's completion gets the earlier fields as context.arguments: the fake
// server builds repo's values from the owner it is told.
func TestTemplateCompletionPassesEarlierFields(t *testing.T) {
	h := newHarness(t, target.Target{Argv: testutil.FakeServer(t, "completion-context")}, 120, 40)
	h.until("connected", func(m *model) bool { return m.srv.state() == stateReady })
	resourcesOpen(t, h)
	pick(h, "owner}/")
	h.press("enter")
	h.contains("fake://{owner}/{repo}", "owner", "repo")
	h.typeText("al")
	h.until("owner's values", func(m *model) bool { return m.res.tpl != nil && len(m.res.tpl.form.Focused().values) == 1 })
	h.press("down", "enter", "tab")
	h.typeText("x")
	h.until("repo's values", func(m *model) bool {
		f := m.res.tpl.form.Focused()
		return f.Name == "repo" && len(f.values) > 0
	})
	h.contains("alice-app", "alice-lib")
	h.press("down", "enter", "enter")
	readDone(h)
	h.contains("read fake://alice/alice-app")
}

// With several servers the resources are grouped under a header per server, and a
// read goes to the row's own server.
func TestResourcesOfSeveralServers(t *testing.T) {
	h := newHarnessWith(t, Options{Theme: "dark", Servers: []workbench.Spec{
		{Name: "host", Target: hostTarget(t)},
		{Name: "fake", Target: target.Target{Argv: testutil.FakeServer(t, "completion-context")}},
	}}, 120, 40)
	h.until("both connected", func(m *model) bool {
		return len(m.servers) == 2 && m.servers[0].state() == stateReady && m.servers[1].state() == stateReady
	})
	h.press("8")
	h.until("both lists", func(m *model) bool {
		for _, n := range []string{"host", "fake"} {
			if l := m.res.lists[n]; l == nil || l.loading {
				return false
			}
		}
		return true
	})
	h.contains("▾ host", "▾ fake", "About the demo host", "fake://{owner}/{repo}")
	pick(h, "owner}/")
	h.press("enter")
	h.typeText("bob")
	h.press("tab")
	h.typeText("site")
	h.press("enter")
	readDone(h)
	if r := h.m.res.open; r.server != "fake" || r.err != nil {
		t.Fatalf("the read went to %q: %v", r.server, r.err)
	}
	h.contains("read fake://bob/site")
}

// A server that asks for input while it reads (elicitation/create, 2025 era) gets the
// same dialog as during a tool call, and the read finishes with the answer.
func TestElicitationDuringRead(t *testing.T) {
	h := newHarness(t, target.Target{Argv: testutil.FakeServer(t, "completion-context")}, 120, 40)
	h.until("connected", func(m *model) bool { return m.srv.state() == stateReady })
	resourcesOpen(t, h)
	pick(h, "ask")
	h.press("enter")
	h.until("the question", func(m *model) bool { return elicitOf(m) != nil })
	h.contains("The server asks for input", "Who is reading?")
	if err := elicitOf(h.m).form.SetValue([]byte(`{"name":"Ada"}`)); err != nil {
		t.Fatal(err)
	}
	h.press("enter")
	readDone(h)
	h.contains("read by Ada")
}

// notifications/resources/list_changed lists the resources again.
func TestResourcesListChangedRefreshes(t *testing.T) {
	h := newHarness(t, target.Target{Argv: testutil.FakeServer(t, "completion-context")}, 120, 40)
	h.until("connected", func(m *model) bool { return m.srv.state() == stateReady })
	resourcesOpen(t, h)
	pick(h, "grow")
	h.press("enter")
	readDone(h)
	h.press("esc", "esc")
	h.until("the new resource", func(m *model) bool {
		l := m.res.lists[m.srv.name]
		return l != nil && !l.loading && len(l.resources) == 3
	})
	h.contains("fake://grown", "the server's resources changed; list refreshed")
}

// u toggles a subscription: the view's key line says what it does now (unsubscribe
// once subscribed, in the list and in the read), and on a template, which cannot be
// subscribed to, u says why instead of doing nothing.
func TestSubscribeKeySaysWhatItDoes(t *testing.T) {
	h := ready(t, 120, 40)
	resourcesOpen(t, h)
	pick(h, "counter")
	h.contains("u subscribe")
	h.press("u")
	h.until("the subscription", func(m *model) bool { return strings.HasPrefix(m.notice, "subscribed to") })
	h.contains("u unsubscribe")
	h.press("enter")
	readDone(h)
	h.contains("u unsubscribe")
	h.press("esc")
	h.press("esc") // the filter goes: every row
	pick(h, "colors/{")
	h.press("u")
	h.contains("a resource is subscribed to, not a template")
}
