package host

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func toolNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	return names
}

func skipWithoutSh(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the fixtures run /bin/sh")
	}
}

func TestHostToolFile(t *testing.T) {
	skipWithoutSh(t)
	forEachEra(t, func(t *testing.T, version string) {
		var logs syncBuffer
		h := newHost(t, Options{ToolFile: "testdata/tools.json", Logger: slog.New(slog.NewTextHandler(&logs, nil)), WatchInterval: -1})
		cs := connect(t, h, version, nil)
		want := []string{"failing", "flood", "greet", "json_result", "literal_args", "missing_program", "sleepy"}
		if got := toolNames(t, cs); !slices.Equal(got, want) {
			t.Errorf("tools = %v; want only the file's %v", got, want)
		}
		if got := textOf(call(t, cs, "greet", map[string]any{"name": "Ada"})); got != `Hello, Ada! (tool greet, stdin {"name":"Ada"})` {
			t.Errorf("greet = %q", got)
		}
		if res := call(t, cs, "failing", nil); !res.IsError || !strings.Contains(textOf(res), "something broke") {
			t.Errorf("failing = %q", textOf(res))
		}
		if res := call(t, cs, "json_result", nil); res.IsError || len(res.Content) != 2 {
			t.Errorf("json_result = %+v", res)
		}
		if res := call(t, cs, "sleepy", nil); !res.IsError || !strings.Contains(textOf(res), "timed out") {
			t.Errorf("sleepy = %q", textOf(res))
		}
		if res := call(t, cs, "flood", nil); !res.IsError || !strings.Contains(textOf(res), "more than 1024 bytes") {
			t.Errorf("flood = %q", textOf(res))
		}
		// The failing tool's stderr reaches the host's log.
		if !strings.Contains(logs.String(), "something broke") {
			t.Errorf("host log lacks the tool's stderr:\n%s", logs.String())
		}
	})
}

func TestHostToolFileWithDemo(t *testing.T) {
	h := newHost(t, Options{ToolFile: "testdata/amber-tools.json", Demo: true, WatchInterval: -1})
	cs := connect(t, h, "2026-07-28", nil)
	names := toolNames(t, cs)
	if !slices.Contains(names, "echo") || !slices.Contains(names, "read_file") {
		t.Errorf("tools = %v; want demo and file tools", names)
	}
}

func TestHostAmberToolsJSON(t *testing.T) {
	forEachEra(t, func(t *testing.T, version string) {
		h := newHost(t, Options{ToolFile: "testdata/amber-tools.json", WatchInterval: -1})
		cs := connect(t, h, version, nil)
		if got := toolNames(t, cs); !slices.Equal(got, []string{"list_dir", "read_file"}) {
			t.Errorf("tools = %v", got)
		}
		res := call(t, cs, "read_file", map[string]any{"path": "README.md"})
		if !res.IsError || !strings.Contains(textOf(res), `has no "run"`) {
			t.Errorf("read_file = %q (isError %v); want an error saying it has no run", textOf(res), res.IsError)
		}
	})
}

func TestHostRejectsBadToolFile(t *testing.T) {
	tests := []struct{ file, want string }{
		{"testdata/bad/empty-tools.json", "empty"},
		{"testdata/bad/repeated-name.json", "already used"},
		{"testdata/does-not-exist.json", "reading tool file"},
	}
	for _, tt := range tests {
		_, err := New(Options{ToolFile: tt.file})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("New(%s) = %v; want an error about %q", tt.file, err, tt.want)
		}
	}
	dir := t.TempDir()
	clash := filepath.Join(dir, "tools.json")
	writeFile(t, clash, `{"tools":[{"name":"echo","run":["/bin/echo"]}]}`)
	if _, err := New(Options{ToolFile: clash, Demo: true}); err == nil || !strings.Contains(err.Error(), "taken by a demo tool") {
		t.Errorf("a file tool named echo beside the demo: %v", err)
	}
	bad := filepath.Join(dir, "header.json")
	writeFile(t, bad, `{"tools":[{"name":"h","inputSchema":{"type":"object","properties":{"n":{"type":"number","x-mcp-header":"N"}}},"run":["/bin/true"]}]}`)
	if _, err := New(Options{ToolFile: bad}); err == nil || !strings.Contains(err.Error(), "rejected by the MCP SDK") {
		t.Errorf("an invalid x-mcp-header: %v", err)
	}
}

// writeFile replaces path atomically, so the watcher never reads half a file.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// Issue 19: the host read the tool file and only then started watching it, in a
// goroutine; an edit made in between (the test's first edit, under load) was never
// seen. The hook makes that edit right after the first read.
func TestHostToolFileEditDuringStart(t *testing.T) {
	skipWithoutSh(t)
	path := filepath.Join(t.TempDir(), "tools.json")
	writeFile(t, path, `{"tools":[{"name":"a","run":["/bin/echo","a"]}]}`)
	h := newHost(t, Options{ToolFile: path, WatchInterval: 5 * time.Millisecond, afterFirstRead: func() {
		writeFile(t, path, `{"tools":[{"name":"b","run":["/bin/echo","b"]}]}`)
	}})
	cs := connect(t, h, "2025-11-25", nil)
	waitFor(t, func() bool { return slices.Equal(toolNames(t, cs), []string{"b"}) })
}

func TestHostToolFileHotReload(t *testing.T) {
	skipWithoutSh(t)
	forEachEra(t, func(t *testing.T, version string) {
		path := filepath.Join(t.TempDir(), "tools.json")
		writeFile(t, path, `{"tools":[
			{"name":"a","description":"first","run":["/bin/echo","a1"]},
			{"name":"b","run":["/bin/echo","b"]}]}`)
		var logs syncBuffer
		h := newHost(t, Options{ToolFile: path, Logger: slog.New(slog.NewTextHandler(&logs, nil)), WatchInterval: 5 * time.Millisecond})

		changed := make(chan struct{}, 10)
		var mu sync.Mutex
		var messages []string
		cs := connect(t, h, version, &mcp.ClientOptions{
			ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
			//lint:ignore SA1019 the logging API, deprecated by 2026-07-28 (SEP-2577), is what servers on earlier versions speak
			LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
				mu.Lock()
				messages = append(messages, req.Params.Data.(string))
				mu.Unlock()
			},
		})
		if version < "2026-07-28" {
			//lint:ignore SA1019 the logging API, deprecated by 2026-07-28 (SEP-2577), is what servers on earlier versions speak
			if err := cs.SetLoggingLevel(t.Context(), &mcp.SetLoggingLevelParams{Level: "error"}); err != nil {
				t.Fatal(err)
			}
		}

		// A good edit: a changes, b goes, c arrives.
		writeFile(t, path, `{"tools":[
			{"name":"a","description":"second","run":["/bin/echo","a2"]},
			{"name":"c","run":["/bin/echo","c"]}]}`)
		select {
		case <-changed:
		case <-time.After(testutil.Patience):
			t.Fatal("no notifications/tools/list_changed after a good edit")
		}
		waitFor(t, func() bool { return slices.Equal(toolNames(t, cs), []string{"a", "c"}) })
		if got := textOf(call(t, cs, "a", nil)); got != "a2\n" {
			t.Errorf("a after the edit = %q", got)
		}

		// A broken edit keeps the last good set and reports the error.
		writeFile(t, path, `{"tools":[{"name":"a","run":"echo a3"}]}`)
		waitFor(t, func() bool { return h.ToolFileError() != nil })
		if err := h.ToolFileError(); !strings.Contains(err.Error(), `"run" must be an array of strings`) {
			t.Errorf("ToolFileError = %v", err)
		}
		waitFor(t, func() bool { return strings.Contains(logs.String(), "tool file edit rejected") })
		if got := toolNames(t, cs); !slices.Equal(got, []string{"a", "c"}) {
			t.Errorf("tools after a broken edit = %v; want the last good set", got)
		}
		if got := textOf(call(t, cs, "a", nil)); got != "a2\n" {
			t.Errorf("a after a broken edit = %q", got)
		}
		if version < "2026-07-28" {
			// 2025 clients that asked for log messages get the error as one.
			waitFor(t, func() bool {
				mu.Lock()
				defer mu.Unlock()
				return len(messages) > 0
			})
			mu.Lock()
			if !strings.Contains(messages[0], "still serving the last good tools") {
				t.Errorf("log notification = %q", messages[0])
			}
			mu.Unlock()
		}

		// Fixing the file clears the error.
		good := `{"tools":[{"name":"d","run":["/bin/echo","d"]}]}`
		writeFile(t, path, good)
		waitFor(t, func() bool { return h.ToolFileError() == nil })
		waitFor(t, func() bool { return slices.Equal(toolNames(t, cs), []string{"d"}) })

		// A deleted file is an error too; putting it back clears it.
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		waitFor(t, func() bool {
			e := h.ToolFileError()
			return e != nil && strings.Contains(e.Error(), "reading tool file")
		})
		writeFile(t, path, good)
		waitFor(t, func() bool { return h.ToolFileError() == nil })
		if got := toolNames(t, cs); !slices.Equal(got, []string{"d"}) {
			t.Errorf("tools after the file came back = %v", got)
		}
	})
}
