package tap

import (
	"fmt"
	"strings"
	"testing"
)

// The splitter cuts the copy of a stream into what the recording holds, whatever the
// chunks the pipe happened to deliver: every message whole, in its framing, noise as
// noise, a message over the limit as a note of its size.
func TestSplitterAnyChunks(t *testing.T) {
	big := `{"jsonrpc":"2.0","id":9,"result":{"text":"` + strings.Repeat("y", spillAt+100) + `"}}`
	stream := `{"jsonrpc":"2.0","id":1,"method":"initialize"}` + "\r\n" +
		"\n" +
		"Server started on stdout\n" +
		"Content-Length: 17\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" + `{"jsonrpc":"2.0"}` +
		"Content-Length: 2\r\n\r\n[]" +
		big + "\n" +
		`{"too":"` + strings.Repeat("z", len(big)) + `"}` + "\n" +
		"Connecting...\n" +
		`{"jsonrpc":"2.0","method":"x"}` + "\n"
	want := []string{
		`msg  {"jsonrpc":"2.0","id":1,"method":"initialize"}`,
		`noise Server started on stdout`,
		`msg content-length {"jsonrpc":"2.0"}`,
		`msg content-length []`,
		fmt.Sprintf("msg  %d bytes", len(big)),
		fmt.Sprintf("note %d", len(`{"too":"`)+len(big)+2),
		`noise Connecting...`,
		`msg  {"jsonrpc":"2.0","method":"x"}`,
	}
	for _, chunk := range []int{1, 7, 64 << 10, len(stream)} {
		var got []string
		s := newSplitter(int64(len(big)), func(u unit) {
			if u.load != nil {
				u.data = u.load() // spilled: read back, as the recorder does
			}
			switch {
			case u.noise:
				got = append(got, "noise "+string(u.data))
			case u.data == nil:
				got = append(got, fmt.Sprintf("note %d", u.size))
			case len(u.data) > 1000:
				if string(u.data) != big {
					t.Errorf("chunk %d: the big message came out changed", chunk)
				}
				got = append(got, fmt.Sprintf("msg %s %d bytes", u.framing, len(u.data)))
			default:
				got = append(got, "msg "+u.framing+" "+string(u.data))
			}
		})
		for i := 0; i < len(stream); i += chunk {
			s.write([]byte(stream[i:min(i+chunk, len(stream))]))
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("chunks of %d:\n%s\nwant\n%s", chunk, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
