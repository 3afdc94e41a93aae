package client

import (
	"bytes"
	"encoding/json"
	"testing"
)

// parseLog reads a log frame as encoding/json would (it replaced json.Unmarshal on
// the log path for speed): the same level, logger and data, and the same frames
// refused.
func TestParseLogReadsAsEncodingJSON(t *testing.T) {
	frames := []string{
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":"db","data":"hello"}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"warning","data":{"a":[1,2,{"b":"\u00e9\n"}]}}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"no level","logger":null}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"err\"or\u0041","logger":"l\ud83d\ude00","data":null}}`,
		`{"params":{"level":"a","level":"b","data":1},"method":"notifications/message","jsonrpc":"2.0"}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":5,"data":"bad level"}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","logger":["x"],"data":"bad logger"}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":"not an object"}`,
		`{"jsonrpc":"2.0","method":"notifications/message"}`,
	}
	for _, f := range frames {
		var n struct {
			Params struct {
				Level  string          `json:"level"`
				Logger string          `json:"logger"`
				Data   json.RawMessage `json:"data"`
			} `json:"params"`
		}
		err := json.Unmarshal([]byte(f), &n)
		wantOK := err == nil && bytes.Contains([]byte(f), []byte(`"params":{`))
		got, ok := parseLog([]byte(f))
		if ok != wantOK {
			t.Errorf("%s: ok %v, encoding/json %v (%v)", f, ok, wantOK, err)
			continue
		}
		if !ok {
			continue
		}
		if got.Level != n.Params.Level || got.Logger != n.Params.Logger || string(got.Data) != string(n.Params.Data) {
			t.Errorf("%s:\n got  %q %q %s\n want %q %q %s", f, got.Level, got.Logger, got.Data, n.Params.Level, n.Params.Logger, n.Params.Data)
		}
	}
}
