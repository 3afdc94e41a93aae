package tui

import (
	"encoding/json"
	"testing"

	"github.com/mcpscope/mcpscope/record"
)

// The result view reads the mock's note under the key and in the shape the mock
// writes them (record.MockMetaKey, record.MockNote: one definition for both sides).
func TestMockAnsweredAsReadsWhatTheMockWrites(t *testing.T) {
	note, _ := json.Marshal(record.MockNote{Note: "the arguments differ", AnsweredAs: "echo-1"})
	meta, _ := json.Marshal(map[string]json.RawMessage{record.MockMetaKey: note, "other": json.RawMessage(`1`)})
	if got := mockAnsweredAs(meta); got != "echo-1" {
		t.Errorf("mockAnsweredAs = %q, want echo-1", got)
	}
	if got := mockAnsweredAs(json.RawMessage(`{"other":{"answeredAs":"x"}}`)); got != "" {
		t.Errorf("without the key: %q", got)
	}
}
