package replay_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/internal/testutil"
	"github.com/mcpscope/mcpscope/record"
	"github.com/mcpscope/mcpscope/replay"
	"github.com/mcpscope/mcpscope/target"
)

const benchExchanges = 10000

var (
	benchOnce sync.Once
	benchRec  *record.Recording
	benchErr  error
)

// benchRecording records a session of benchExchanges tools/call echo with the host.
func benchRecording(b *testing.B, argv []string) *record.Recording {
	benchOnce.Do(func() {
		path := filepath.Join(b.TempDir(), "10k.jsonl")
		tap := &wire.Tap{}
		w, err := record.Create(path, record.Header{Target: record.Target{Transport: "stdio", Argv: argv}}, nil)
		if err != nil {
			benchErr = err
			return
		}
		tap.Listen(w.Listen)
		ctx := context.Background()
		s, err := client.Connect(ctx, target.Target{Argv: argv}, client.Options{Tap: tap})
		if err != nil {
			benchErr = err
			return
		}
		for i := 0; i < benchExchanges; i++ {
			args := json.RawMessage(fmt.Sprintf(`{"text":"message %d"}`, i))
			if _, err := s.Call(ctx, "echo", args, client.CallOptions{}); err != nil {
				benchErr = err
				break
			}
		}
		s.Close()
		w.Close()
		if benchErr == nil {
			benchRec, benchErr = record.Load(path)
		}
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchRec
}

// BenchmarkReplay10k replays a 10,000-exchange recording against the bundled host over
// stdio ("replay"), against sending the same requests without comparing anything
// ("send"). One op is the whole session, connecting included. The target is replay
// within 1.5× of send:
//
//	go test -run '^$' -bench Replay10k -benchtime 5x ./replay
func BenchmarkReplay10k(b *testing.B) {
	argv := []string{testutil.Mcpscope(b), "host"}
	rec := benchRecording(b, argv)
	xs := rec.Exchanges()
	ctx := context.Background()
	b.Run("replay", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			report, err := replay.Run(ctx, rec, target.Target{Argv: argv}, replay.Options{})
			if err != nil {
				b.Fatal(err)
			}
			if !report.OK() || report.Replayed < benchExchanges {
				b.Fatalf("%s", report.Summary())
			}
		}
	})
	b.Run("send", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			s, err := client.Connect(ctx, target.Target{Argv: argv}, client.Options{})
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for _, x := range xs {
				if x.Handshake() {
					continue
				}
				var p map[string]json.RawMessage
				json.Unmarshal(x.Params, &p)
				delete(p, "_meta")
				params, _ := json.Marshal(p)
				if _, err := s.Raw(ctx, x.Method, params); err != nil {
					b.Fatal(err)
				}
				n++
			}
			s.Close()
			if n < benchExchanges {
				b.Fatalf("%d requests", n)
			}
		}
	})
}
