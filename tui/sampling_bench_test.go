package tui

import (
	"fmt"
	"testing"

	"github.com/mcpscope/mcpscope/client"
)

// BenchmarkSamplingDialogFirstFrame: the first frame of a sampling dialog, for a
// request of 3 and of 1,000 messages (the same cost: only the messages in view are
// laid out).
func BenchmarkSamplingDialogFirstFrame(b *testing.B) {
	for _, n := range []int{3, 1000} {
		b.Run(fmt.Sprintf("messages=%d", n), func(b *testing.B) {
			req := client.SamplingRequest{MaxTokens: 100, SystemPrompt: "be brief"}
			for i := range n {
				req.Messages = append(req.Messages, client.SamplingMessage{Role: "user",
					Content: []client.Content{{Type: "text", Text: fmt.Sprintf("message %d of %d, with some words to wrap across the width of the pane", i+1, n)}}})
			}
			m := newModel(Options{Theme: "dark"})
			m.width, m.height = 120, 40
			b.ResetTimer()
			for range b.N {
				m.dialogs = overlay{}
				m.openSampling(samplingMsg{server: "s", req: req, reply: make(chan client.SamplingResponse, 1)})
				_ = m.render()
			}
		})
	}
}
