package record_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/record"
	"github.com/mcpscope/mcpscope/target"
)

func TestMain(m *testing.M) { testutil.Main(m) }

// BenchmarkEchoLoop is the recording overhead: sequential tools/call echo against the
// bundled host over stdio, without and with --record (every event written to a file
// as it happens). Compare the two ns/op (the target is under 5% apart):
//
//	go test -run '^$' -bench EchoLoop -benchtime 20000x -count 5 ./record
func BenchmarkEchoLoop(b *testing.B) {
	argv := []string{testutil.Mcpscope(b), "host"}
	for _, recording := range []bool{false, true} {
		name := "plain"
		if recording {
			name = "recording"
		}
		b.Run(name, func(b *testing.B) {
			tap := &wire.Tap{}
			var w *record.Writer
			if recording {
				var err error
				w, err = record.Create(filepath.Join(b.TempDir(), "bench.jsonl"), record.Header{Target: record.Target{Transport: "stdio", Argv: argv}}, nil)
				if err != nil {
					b.Fatal(err)
				}
				tap.Listen(w.Listen)
			}
			ctx := context.Background()
			s, err := client.Connect(ctx, target.Target{Argv: argv}, client.Options{Tap: tap})
			if err != nil {
				b.Fatal(err)
			}
			defer func() {
				s.Close()
				if w != nil {
					w.Close()
				}
			}()
			args := json.RawMessage(`{"text":"hello, benchmark"}`)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := s.Call(ctx, "echo", args, client.CallOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkListen is the recorder's cost per wire event on its own: one echo request
// or response written to a file as one line (what --record adds to each message).
func BenchmarkListen(b *testing.B) {
	w, err := record.Create(filepath.Join(b.TempDir(), "bench.jsonl"), record.Header{}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	events := []wire.Event{
		{Kind: wire.KindMessage, Dir: wire.Send, Framing: wire.FramingNDJSON, Data: []byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"mcpscope","version":"0.1.0"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"name":"echo","arguments":{"text":"hello, benchmark"}}}`)},
		{Kind: wire.KindMessage, Dir: wire.Recv, Framing: wire.FramingNDJSON, Data: []byte(`{"jsonrpc":"2.0","id":3,"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"mcpscope-host","title":"mcpscope bundled host","version":"0.1.0"}},"content":[{"type":"text","text":"hello, benchmark"}],"resultType":"complete"}}`)},
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		w.Listen(events[i%2])
	}
}

// BenchmarkEchoLoopPaired runs the two sessions of BenchmarkEchoLoop side by side, one
// call on each per iteration, so that a busy machine slows both alike, and reports
// their times per call and the recording's overhead in percent.
func BenchmarkEchoLoopPaired(b *testing.B) {
	argv := []string{testutil.Mcpscope(b), "host"}
	ctx := context.Background()
	connect := func(tap *wire.Tap) *client.Session {
		s, err := client.Connect(ctx, target.Target{Argv: argv}, client.Options{Tap: tap})
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	plain := connect(&wire.Tap{})
	defer plain.Close()
	w, err := record.Create(filepath.Join(b.TempDir(), "bench.jsonl"), record.Header{Target: record.Target{Transport: "stdio", Argv: argv}}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	tap := &wire.Tap{}
	tap.Listen(w.Listen)
	recorded := connect(tap)
	defer recorded.Close()
	args := json.RawMessage(`{"text":"hello, benchmark"}`)
	var tPlain, tRec time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, s := range []*client.Session{plain, recorded} {
			if i%2 == 1 {
				s = []*client.Session{recorded, plain}[j] // alternate which goes first
			}
			start := time.Now()
			if _, err := s.Call(ctx, "echo", args, client.CallOptions{}); err != nil {
				b.Fatal(err)
			}
			if s == plain {
				tPlain += time.Since(start)
			} else {
				tRec += time.Since(start)
			}
		}
	}
	b.ReportMetric(float64(tPlain.Nanoseconds())/float64(b.N), "plain-ns/call")
	b.ReportMetric(float64(tRec.Nanoseconds())/float64(b.N), "recording-ns/call")
	b.ReportMetric(100*(float64(tRec)/float64(tPlain)-1), "overhead-%")
}

// BenchmarkReadOverlongLine: a recording with one 300 MiB line, over MaxLine. B/op is
// what reading it allocates: the line is skipped as it streams, never held.
//
//	go test -run '^$' -bench OverlongLine -benchtime 3x ./record
func BenchmarkReadOverlongLine(b *testing.B) {
	path := filepath.Join(b.TempDir(), "big.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	fmt.Fprintln(f, `{"mcpscope":"recording","version":1,"target":{"transport":"stdio"}}`)
	fmt.Fprint(f, `{"t":0.1,"dir":"recv","msg":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`)
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	for range 300 {
		f.Write(chunk)
	}
	fmt.Fprintln(f, `"}]}}}`)
	fmt.Fprintln(f, `{"t":0.2,"kind":"end"}`)
	f.Close()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rec, err := record.Load(path)
		if err != nil || len(rec.Warnings) != 1 {
			b.Fatal(err, rec.Warnings)
		}
	}
}

// BenchmarkRedactLargeResult is what redaction costs a big result on its way to the
// file: an 8 MiB text block, with no secret (the redactor does nothing) and with one
// bearer token whose copies (case, base64, hex, URL escaping) are looked for.
func BenchmarkRedactLargeResult(b *testing.B) {
	text := make([]byte, 0, 8<<20)
	for len(text) < 8<<20 {
		text = append(text, "The quick brown fox jumps over the lazy dog 0123456789. "...)
	}
	msg := []byte(`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"` + string(text) + `"}]}}`)
	for _, secrets := range [][]string{nil, {"tok-bearer-9f8e7d6c5b"}} {
		name := "no-secret"
		if secrets != nil {
			name = "one-secret"
		}
		b.Run(name, func(b *testing.B) {
			red, _ := record.NewRedactor(secrets, nil)
			b.SetBytes(int64(len(msg)))
			for i := 0; i < b.N; i++ {
				red.JSON(msg)
			}
		})
	}
}
