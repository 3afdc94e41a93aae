package answer

import (
	"context"
	"fmt"
	"strings"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/plural"
	"github.com/mcpscope/mcpscope/internal/termsafe"
)

// maxSamplingShown bounds the messages printed for one sampling request.
const maxSamplingShown = 20

// sample answers sampling/createMessage: with SamplingReply, else asked on the
// terminal (the last maxSamplingShown messages shown, each clipped), else rejected.
func (a *Answerer) sample(ctx context.Context, req client.SamplingRequest) (client.SamplingResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := a.o.Out
	summary := fmt.Sprintf("%s, maxTokens %d", plural.Count(len(req.Messages), "message"), req.MaxTokens)
	if len(req.Tools) > 0 {
		summary += ", with tools"
	}
	if a.o.SamplingReply != "" {
		fmt.Fprintf(out, "mcpscope: the server asked for a model reply (%s); answered with --sampling-reply\n", summary)
		return client.SamplingResponse{Text: a.o.SamplingReply}, nil
	}
	if !a.o.Terminal {
		fmt.Fprintf(out, "mcpscope: the server asked for a model reply (%s); rejected: give --sampling-reply TEXT|@FILE to answer\n", summary)
		return client.SamplingResponse{Reject: true}, nil
	}
	fmt.Fprintf(out, "The server asks for a model reply (%s).\n", summary)
	if req.SystemPrompt != "" {
		fmt.Fprintf(out, "  system: %s\n", termsafe.Line(clipText(req.SystemPrompt, 400)))
	}
	start := 0
	if len(req.Messages) > maxSamplingShown {
		start = len(req.Messages) - maxSamplingShown
		fmt.Fprintf(out, "  (%d earlier messages not shown)\n", start)
	}
	for _, m := range req.Messages[start:] {
		for _, c := range m.Content {
			text := c.Text
			if c.Type != "text" {
				text = "[" + c.Type + "]"
			}
			fmt.Fprintf(out, "  %s: %s\n", termsafe.Line(m.Role), termsafe.Line(clipText(text, 400)))
		}
	}
	fmt.Fprint(out, "Your reply (empty rejects): ")
	line, err := a.in.ReadString('\n')
	if ctx.Err() != nil {
		return client.SamplingResponse{}, ctx.Err()
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" || err != nil && line == "" {
		return client.SamplingResponse{Reject: true}, nil
	}
	return client.SamplingResponse{Text: line}, nil
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
