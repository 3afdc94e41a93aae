package watch

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/internal/ownfiles"
)

const deadline = 30 * time.Second

func next(t *testing.T, w *Watcher) Event {
	t.Helper()
	select {
	case e, ok := <-w.Events:
		if !ok {
			t.Fatal("events closed")
		}
		return e
	case <-time.After(deadline):
		t.Fatal("no event")
	}
	return Event{}
}

// nextChanged skips Missing events.
func nextChanged(t *testing.T, w *Watcher) Event {
	for {
		if e := next(t, w); e.Kind == Changed {
			return e
		}
	}
}

// settle proves that nothing else is pending: it touches a sentinel file and the next
// event must name the sentinel only.
func settle(t *testing.T, w *Watcher, sentinel string) {
	t.Helper()
	if err := os.WriteFile(sentinel, []byte(time.Now().String()), 0o644); err != nil {
		t.Fatal(err)
	}
	e := nextChanged(t, w)
	if !slices.Equal(e.Paths, []string{sentinel}) {
		t.Fatalf("a second event for one burst: %v", e.Paths)
	}
}

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestBurstIsOneEvent(t *testing.T) {
	dir := t.TempDir()
	file, sentinel := filepath.Join(dir, "tools.json"), filepath.Join(dir, "sentinel")
	write(t, file, "{}")
	write(t, sentinel, "")
	w, err := New([]string{file, sentinel}, 500*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()

	// Many small writes.
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 200; i++ {
		f.WriteString("x")
	}
	f.Close()
	if e := nextChanged(t, w); !slices.Equal(e.Paths, []string{file}) {
		t.Fatalf("paths %v", e.Paths)
	}
	settle(t, w, sentinel)

	// Write a temporary file, rename it over the original (vim, most IDEs), twice.
	for i := 0; i < 2; i++ {
		tmp := filepath.Join(dir, ".tools.json.tmp")
		write(t, tmp, `{"v":2}`)
		if err := os.Rename(tmp, file); err != nil {
			t.Fatal(err)
		}
	}
	if e := nextChanged(t, w); !slices.Contains(e.Paths, file) {
		t.Fatalf("paths %v", e.Paths)
	}
	settle(t, w, sentinel)

	// Still watched after the rename.
	write(t, file, `{"v":3}`)
	if e := nextChanged(t, w); !slices.Equal(e.Paths, []string{file}) {
		t.Fatalf("after rename: %v", e.Paths)
	}
	// Other files of the directory are not ours.
	write(t, filepath.Join(dir, "unrelated.txt"), "x")
	settle(t, w, sentinel)
}

func TestMissingPathIsReportedAndTheRestWatched(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "server.py")
	write(t, file, "print(1)")
	gone := filepath.Join(t.TempDir(), "nope", "x.py")
	w, err := New([]string{gone, file}, 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	e := next(t, w)
	if e.Kind != Missing || !slices.Equal(e.Paths, []string{gone}) {
		t.Fatalf("first event %+v", e)
	}
	write(t, file, "print(2)")
	if e := nextChanged(t, w); !slices.Equal(e.Paths, []string{file}) {
		t.Fatalf("paths %v", e.Paths)
	}
	if _, err := New([]string{gone}, 0); err == nil || !strings.Contains(err.Error(), "none of the paths exists") {
		t.Fatalf("all missing: %v", err)
	}
}

func TestDirectoryAndGlob(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	os.Mkdir(src, 0o755)
	w, err := New([]string{src, filepath.Join(dir, "*.ts")}, 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	write(t, filepath.Join(dir, "tools.ts"), "x")
	if e := nextChanged(t, w); !slices.Equal(e.Paths, []string{filepath.Join(dir, "tools.ts")}) {
		t.Fatalf("glob: %v", e.Paths)
	}
	// A directory created under a watched one is watched too.
	sub := filepath.Join(src, "lib")
	os.Mkdir(sub, 0o755)
	nextChanged(t, w)
	// The new directory's watch is added when its Create event is handled; poll by
	// writing until a change inside it is seen.
	deadlineAt := time.Now().Add(deadline)
	for {
		write(t, filepath.Join(sub, "a.go"), time.Now().String())
		e := nextChanged(t, w)
		if slices.Contains(e.Paths, filepath.Join(sub, "a.go")) {
			break
		}
		if time.Now().After(deadlineAt) {
			t.Fatal("no event from the new directory")
		}
	}
}

func TestDefaultPaths(t *testing.T) {
	dir := t.TempDir()
	js := filepath.Join(dir, "server.js")
	cfg := filepath.Join(dir, "config.yaml")
	write(t, js, "")
	write(t, cfg, "")
	got := DefaultPaths([]string{"node", js, "--config=" + cfg, "--port", "3000"})
	want := []string{js, dir, cfg}
	if !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	tools := filepath.Join(dir, "tools.ts")
	write(t, tools, "")
	if got := DefaultPaths([]string{"amber", "mcp", tools}); !slices.Equal(got, []string{tools, dir}) {
		t.Fatalf("amber: %v", got)
	}
	bin := filepath.Join(dir, "my-server")
	write(t, bin, "")
	if got := DefaultPaths([]string{bin, "--stdio"}); !slices.Equal(got, []string{bin}) {
		t.Fatalf("binary: %v", got)
	}
}

// Under a directory watched whole, what is not an edit is never told: what .gitignore
// ignores (the directory's own and its parent's, up to the repository's root), version
// control and dependency directories, logs and temporary files, and the files
// mcpscope itself writes. Each restarted a watched server (issue 20).
func TestIgnoresWhatIsNotAnEdit(t *testing.T) {
	repo := t.TempDir()
	os.Mkdir(filepath.Join(repo, ".git"), 0o755)
	write(t, filepath.Join(repo, ".gitignore"), "dist/\n")
	dir := filepath.Join(repo, "server")
	os.Mkdir(dir, 0o755)
	write(t, filepath.Join(dir, ".gitignore"), "# generated\n*.cache\n/out/\n")
	sentinel := filepath.Join(dir, "server.js")
	write(t, sentinel, "")
	rec := filepath.Join(dir, "session.jsonl")
	write(t, rec, "")
	ownfiles.Add(rec)
	w, err := New([]string{dir}, 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()

	write(t, filepath.Join(dir, "tools.cache"), "x")
	os.MkdirAll(filepath.Join(dir, "out", "sub"), 0o755)
	write(t, filepath.Join(dir, "out", "a.js"), "x")
	os.Mkdir(filepath.Join(dir, "dist"), 0o755)
	write(t, filepath.Join(dir, "dist", "bundle.js"), "x")
	os.MkdirAll(filepath.Join(dir, "node_modules", "dep"), 0o755)
	write(t, filepath.Join(dir, "node_modules", "dep", "index.js"), "x")
	os.Mkdir(filepath.Join(dir, ".git"), 0o755)
	write(t, filepath.Join(dir, ".git", "index"), "x")
	write(t, filepath.Join(dir, "npm-debug.log"), "x")
	write(t, filepath.Join(dir, ".server.js.tmp"), "x")
	write(t, rec, "{}\n")
	settle(t, w, sentinel)

	// A .gitignore edited while watched counts from then on, and is no edit itself.
	write(t, filepath.Join(dir, ".gitignore"), "*.cache\n/out/\nschema.json\n")
	write(t, filepath.Join(dir, "schema.json"), "{}")
	settle(t, w, sentinel)
}

// A file made and renamed away within one burst is the saving program's temporary
// file (sed -i writes ./sedXXXXXX and renames it over the file; editors alike, under
// any name): the change is the file it became. The restart had been announced as
// "sedOIbniW, srv.py changed", naming a file that no longer exists.
func TestATemporaryFileRenamedAwayIsNotAChange(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "srv.py")
	write(t, file, "print(1)")
	w, err := New([]string{dir}, 300*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	tmp := filepath.Join(dir, "sedOIbniW")
	write(t, tmp, "print(2)")
	if err := os.Rename(tmp, file); err != nil {
		t.Fatal(err)
	}
	if e := nextChanged(t, w); !slices.Equal(e.Paths, []string{file}) {
		t.Fatalf("paths %v, want only %s", e.Paths, file)
	}
	// A file made and kept is a change, and one deleted too.
	other := filepath.Join(dir, "helper.py")
	write(t, other, "x")
	if e := nextChanged(t, w); !slices.Equal(e.Paths, []string{other}) {
		t.Fatalf("a new file: paths %v", e.Paths)
	}
	if err := os.Remove(other); err != nil {
		t.Fatal(err)
	}
	if e := nextChanged(t, w); !slices.Equal(e.Paths, []string{other}) {
		t.Fatalf("a deleted file: paths %v", e.Paths)
	}
}
