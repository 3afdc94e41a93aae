package replay_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpscope/mcpscope/internal/testutil"
)

// mcpscope runs the built binary in dir and returns its output and exit code.
func mcpscope(t *testing.T, bin, dir string, args ...string) (string, int) {
	t.Helper()
	cmd := exec.CommandContext(testutil.Context(t), bin, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("mcpscope %v: %v\n%s", args, err, out)
	}
	return string(out), code
}

// edit rewrites a recording: each pair of olds and news replaced once.
func edit(t *testing.T, path string, pairs ...string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for i := 0; i < len(pairs); i += 2 {
		if !strings.Contains(s, pairs[i]) {
			t.Fatalf("%s holds no %q", path, pairs[i])
		}
		s = strings.Replace(s, pairs[i], pairs[i+1], 1)
	}
	if err := os.WriteFile(path, []byte(s), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A 2026-07-28 multi-round-trip call replays as one operation: the retries carry the
// recorded inputResponses with the requestState the live host sent (the conformance
// host signs it with a key of its own run, so the recorded one is refused), and the
// report names the chain.
func TestReplayInputRequiredChainIsOneOperation(t *testing.T) {
	bin := testutil.Mcpscope(t)
	dir := t.TempDir()
	out, code := mcpscope(t, bin, dir, "call", "test_input_required_result_multi_round", "--elicit", "accept",
		"--elicit-answers", `{"name":"ann","color":"red"}`, "--record", "mr.jsonl", "--", bin, "host", "--conformance")
	if code != 0 || !strings.Contains(out, "ann likes red.") {
		t.Fatalf("recording the call: exit %d\n%s", code, out)
	}
	out, code = mcpscope(t, bin, dir, "replay", "mr.jsonl")
	want := "exchange 3 (line 6): tools/call test_input_required_result_multi_round {}: input_required (elicitation/create) → input_required (elicitation/create) → complete: equal\n" +
		"replay: all 2 exchanges equal"
	if code != 0 || !strings.Contains(out, want) {
		t.Fatalf("replay: exit %d, want 0 and\n%s\ngot:\n%s", code, want, out)
	}

	out, code = mcpscope(t, bin, dir, "replay", "mr.jsonl", "--format", "json")
	var rep struct {
		Replayed, Equal int
		Operations      []struct {
			Exchange, Line, Requests int
			Operation                string
			Equal                    bool
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 {
		t.Fatalf("replay --format json: exit %d, %v\n%s", code, err, out)
	}
	if rep.Replayed != 2 || rep.Equal != 2 || len(rep.Operations) != 1 || rep.Operations[0].Requests != 3 || !rep.Operations[0].Equal ||
		rep.Operations[0].Exchange != 3 || rep.Operations[0].Operation != "input_required (elicitation/create) → input_required (elicitation/create) → complete" {
		t.Fatalf("replay --format json: %+v\n%s", rep, out)
	}
}

// A chain that differs is one failure naming the operation, with each round's diff
// (what the server asked) and the final result's.
func TestReplayInputRequiredChainDiffers(t *testing.T) {
	bin := testutil.Mcpscope(t)
	dir := t.TempDir()
	out, code := mcpscope(t, bin, dir, "call", "ask", "question=x", "--elicit", "accept",
		"--elicit-answers", `{"name":"bob"}`, "--record", "ask.jsonl", "--", bin, "host")
	if code != 0 || !strings.Contains(out, "Hello, bob!") {
		t.Fatalf("recording the call: exit %d\n%s", code, out)
	}
	path := filepath.Join(dir, "ask.jsonl")
	// What the host asked, and what it answered, as another build would.
	edit(t, path, `"message":"x"`, `"message":"who?"`, `Hello, bob!`, `Hello, bobby!`)
	out, code = mcpscope(t, bin, dir, "replay", "ask.jsonl")
	for _, want := range []string{
		`exchange 3 (line 6): tools/call ask {"question":"x"}: input_required (elicitation/create) → complete` + "\n",
		"  round 1 (input_required) /result/inputRequests/favorite/params/message\n    expected: \"who?\"\n    got:      \"x\"\n",
		"  response /result/content/0/text\n    expected: \"Hello, bobby!\"\n    got:      \"Hello, bob!\"\n",
		"replay: 1 of 2 exchanges differ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("replay lacks\n%s\ngot:\n%s", want, out)
		}
	}
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if strings.Contains(out, "exchange 4") {
		t.Errorf("the retry is reported as an exchange of its own:\n%s", out)
	}

	// --update does not rewrite an operation (it would have to rewrite each round):
	// it says so and leaves it as recorded.
	out, code = mcpscope(t, bin, dir, "replay", "ask.jsonl", "--update", "--format", "json")
	if !strings.Contains(out, "an operation of several requests is not rewritten") {
		t.Errorf("replay --update does not say it left the operation as recorded:\n%s", out)
	}
	// Nor does it claim to have updated the file: the golden still differs.
	if code != 1 || strings.Contains(out, "rewritten from the live server") || !strings.Contains(out, "still differs from the live server in 1 operation of several requests") {
		t.Errorf("replay --update: exit %d, want 1 and the operation named as still differing:\n%s", code, out)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "Hello, bobby!") {
		t.Errorf("replay --update rewrote part of the operation:\n%s", b)
	}
}

// keepPolls drops the tasks/get polls of a recording but the first keep-1 and the
// last, as if the host had polled less often.
func keepPolls(t *testing.T, path string, keep int) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	type msg struct {
		Msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		} `json:"msg"`
	}
	var polls []string
	for _, l := range lines {
		var m msg
		if json.Unmarshal([]byte(l), &m) == nil && m.Msg.Method == "tasks/get" {
			polls = append(polls, string(m.Msg.ID))
		}
	}
	if len(polls) < keep {
		t.Fatalf("the recording has %d polls, fewer than %d", len(polls), keep)
	}
	drop := map[string]bool{}
	for _, id := range polls[keep-1 : len(polls)-1] {
		drop[id] = true
	}
	var out strings.Builder
	for _, l := range lines {
		var m msg
		if json.Unmarshal([]byte(l), &m) == nil && drop[string(m.Msg.ID)] {
			continue
		}
		out.WriteString(l)
	}
	if err := os.WriteFile(path, []byte(out.String()), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A task's polls are one operation with the call that made it: the replay polls the
// live task (its own taskId, at its own pollInterval), the number of polls is not
// compared (3 recorded, however many the host needs now), and the statuses and the
// final result are.
func TestReplayTaskPollsAreOneOperation(t *testing.T) {
	bin := testutil.Mcpscope(t)
	dir := t.TempDir()
	out, code := mcpscope(t, bin, dir, "call", "research", "topic=go", "--task", "--record", "task.jsonl", "--", bin, "host")
	if code != 0 || !strings.Contains(out, "Report on go: 4 stages done.") {
		t.Fatalf("recording the task: exit %d\n%s", code, out)
	}
	path := filepath.Join(dir, "task.jsonl")
	keepPolls(t, path, 3)
	out, code = mcpscope(t, bin, dir, "replay", "task.jsonl")
	want := `exchange 3 (line 6): tools/call research {"topic":"go"}: task: working → completed (3 polls recorded): equal` + "\n" +
		"replay: all 2 exchanges equal"
	if code != 0 || !strings.Contains(out, want) {
		t.Fatalf("replay: exit %d, want 0 and\n%s\ngot:\n%s", code, want, out)
	}

	// Another build: the task fails where it completed, with another report.
	edit(t, path, `"status":"completed"`, `"status":"failed"`, `4 stages done.`, `5 stages done.`)
	out, code = mcpscope(t, bin, dir, "replay", "task.jsonl")
	for _, want := range []string{
		`exchange 3 (line 6): tools/call research {"topic":"go"}: task: working → failed (3 polls recorded)` + "\n",
		"  task (statuses)\n    expected: working → failed\n    got:      working → completed\n",
		"  final tasks/get /result/result/content/0/text\n    expected: \"Report on go: 5 stages done.\"\n    got:      \"Report on go: 4 stages done.\"\n",
		"replay: 1 of 2 exchanges differ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("replay lacks\n%s\ngot:\n%s", want, out)
		}
	}
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
}
