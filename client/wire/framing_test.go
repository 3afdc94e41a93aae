package wire

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

func readAll(t *testing.T, input string, max int) ([]frame, error) {
	t.Helper()
	fr := newFrameReader(strings.NewReader(input), max)
	var out []frame
	for {
		f, err := fr.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return out, err
		}
		out = append(out, f)
	}
}

func TestFrameReaderMixedFramings(t *testing.T) {
	input := "Server ready\n" +
		`{"jsonrpc":"2.0","id":1,"result":{}}` + "\r\n" +
		"\n" +
		"Content-Length: 17\r\nContent-Type: application/json\r\n\r\n" + `{"a":"b","c":[1]}` +
		"content-length: 2\r\n\r\n{}" +
		`[{"jsonrpc":"2.0","method":"x"}]` + "\n" +
		"tail without newline"
	frames, err := readAll(t, input, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		data    string
		noise   bool
		framing Framing
	}{
		{"Server ready", true, ""},
		{`{"jsonrpc":"2.0","id":1,"result":{}}`, false, FramingNDJSON},
		{`{"a":"b","c":[1]}`, false, FramingContentLength},
		{`{}`, false, FramingContentLength},
		{`[{"jsonrpc":"2.0","method":"x"}]`, false, FramingNDJSON},
		{"tail without newline", true, ""},
	}
	if len(frames) != len(want) {
		t.Fatalf("got %d frames, want %d: %+v", len(frames), len(want), frames)
	}
	for i, w := range want {
		f := frames[i]
		if string(f.data) != w.data || f.noise != w.noise || f.framing != w.framing {
			t.Errorf("frame %d = %q noise=%v framing=%q; want %q noise=%v framing=%q", i, f.data, f.noise, f.framing, w.data, w.noise, w.framing)
		}
	}
}

func TestFrameReaderLargeLineHasNoScannerLimit(t *testing.T) {
	big := `{"jsonrpc":"2.0","id":1,"result":{"text":"` + strings.Repeat("x", 5<<20) + `"}}`
	frames, err := readAll(t, big+"\n", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(frames) != 1 || len(frames[0].data) != len(big) {
		t.Fatalf("a 5 MiB line came back as %d frames", len(frames))
	}
}

func TestFrameReaderLimits(t *testing.T) {
	// An over-long message is an error that names the flag to raise.
	_, err := readAll(t, `{"x":"`+strings.Repeat("y", 2000)+`"}`+"\n", 1000)
	var tooBig *FrameTooLargeError
	if !errors.As(err, &tooBig) || !strings.Contains(err.Error(), "--max-frame") {
		t.Fatalf("over-long message: got %v, want FrameTooLargeError naming --max-frame", err)
	}
	// An announced Content-Length over the limit fails before anything is allocated.
	_, err = readAll(t, "Content-Length: 999999999\r\n\r\n{}", 1000)
	if !errors.As(err, &tooBig) {
		t.Fatalf("over-long Content-Length: got %v", err)
	}
	// An over-long noise line is skipped (its head kept) and reading goes on.
	frames, err := readAll(t, strings.Repeat("z", 10000)+"\n"+`{"jsonrpc":"2.0","id":2,"result":{}}`+"\n", 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(frames) != 2 || !frames[0].noise || frames[0].size != 10000 || len(frames[0].data) > noiseKeep || frames[1].noise {
		t.Fatalf("over-long noise: %+v", frames)
	}
}

func TestFrameReaderBadContentLength(t *testing.T) {
	for _, in := range []string{
		"Content-Length: abc\r\n\r\n{}",
		"Content-Length: 10\r\n\r\n{}",        // ends inside the body
		"Content-Length: 2\r\nX-Other: 1\r\n", // ends inside the headers
	} {
		if _, err := readAll(t, in, 0); err == nil {
			t.Errorf("%q: no error", in)
		}
	}
}

func TestEncodeFrame(t *testing.T) {
	if got := encodeFrame(FramingNDJSON, []byte(`{}`)); !bytes.Equal(got, []byte("{}\n")) {
		t.Errorf("ndjson: %q", got)
	}
	if got := encodeFrame(FramingContentLength, []byte(`{}`)); string(got) != "Content-Length: 2\r\n\r\n{}" {
		t.Errorf("content-length: %q", got)
	}
}

// A long line known to be noise from its first bytes is not buffered: its head is kept
// and its size counted, while a long JSON line of the same size is read whole.
func TestFrameReaderLongNoiseIsNotBuffered(t *testing.T) {
	noise := "DEBUG " + strings.Repeat("n", 1<<20)
	msg := `{"jsonrpc":"2.0","id":1,"result":{"t":"` + strings.Repeat("m", 1<<20) + `"}}`
	frames, err := readAll(t, noise+"\n"+msg+"\n", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(frames) != 2 || !frames[0].noise || frames[0].size != len(noise) || len(frames[0].data) > noiseKeep {
		t.Fatalf("noise frame: size %d, kept %d", frames[0].size, len(frames[0].data))
	}
	if frames[1].noise || string(frames[1].data) != msg {
		t.Fatalf("message frame: %d bytes", len(frames[1].data))
	}
}
