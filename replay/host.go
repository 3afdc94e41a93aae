package replay

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/record"
)

// hostAnswers are how the host of a tapped recording answered the server's requests
// (2025 era: roots/list, sampling/createMessage, elicitation/create), so that a replay
// answers the live server as the host did: the roots it offered, and its sampling and
// elicitation answers in the order it gave them. A request the live server makes
// beyond what the host answered gets a rejection (sampling) or a cancel
// (elicitation), and the comparison shows what changed.
type hostAnswers struct {
	roots     []client.Root
	rootsSeen bool

	mu      sync.Mutex
	samples []json.RawMessage // each a response message: result or error
	elicits []json.RawMessage
}

// collectHostAnswers reads a recording's messages (next returns nil at the end) for
// the server's requests and the host's answers to them.
func collectHostAnswers(next func() *record.Event) *hostAnswers {
	h := &hostAnswers{}
	asked := map[string]string{} // the server's request id -> its method
	for ev := next(); ev != nil; ev = next() {
		if !ev.IsMessage() {
			continue
		}
		for _, raw := range record.Split(ev.Msg) {
			var m record.Message
			if json.Unmarshal(raw, &m) != nil || len(m.ID) == 0 {
				continue
			}
			switch {
			case ev.Dir == record.Recv && m.Method != "":
				asked[string(m.ID)] = m.Method
			case ev.Dir == record.Send && m.Method == "":
				method := asked[string(m.ID)]
				delete(asked, string(m.ID))
				h.add(method, m, raw)
			}
		}
	}
	return h
}

func (h *hostAnswers) add(method string, m record.Message, raw json.RawMessage) {
	switch method {
	case "roots/list":
		var r struct {
			Roots []client.Root `json:"roots"`
		}
		if !h.rootsSeen && json.Unmarshal(m.Result, &r) == nil {
			h.roots, h.rootsSeen = r.Roots, true
			if h.roots == nil {
				h.roots = []client.Root{} // an empty list still declares roots
			}
		}
	case "sampling/createMessage":
		h.samples = append(h.samples, append(json.RawMessage(nil), raw...))
	case "elicitation/create":
		h.elicits = append(h.elicits, append(json.RawMessage(nil), raw...))
	}
}

// apply sets the session's handlers to the host's answers (where the user set none).
func (h *hostAnswers) apply(o *client.Options) {
	if h.rootsSeen && o.Roots == nil {
		o.Roots = h.roots
	}
	if len(h.samples) > 0 && o.Sample == nil {
		o.Sample = h.sample
	}
	if len(h.elicits) > 0 && o.Elicit == nil {
		o.Elicit = h.elicit
	}
}

// take is the next recorded answer of a list, or nil.
func (h *hostAnswers) take(list *[]json.RawMessage) *record.Message {
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(*list) == 0 {
		return nil
	}
	var m record.Message
	json.Unmarshal((*list)[0], &m)
	*list = (*list)[1:]
	return &m
}

func (h *hostAnswers) sample(context.Context, client.SamplingRequest) (client.SamplingResponse, error) {
	m := h.take(&h.samples)
	if m == nil || m.Result == nil {
		return client.SamplingResponse{Reject: true}, nil
	}
	var r struct {
		Model      string `json:"model"`
		StopReason string `json:"stopReason"`
		Content    struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	json.Unmarshal(m.Result, &r)
	return client.SamplingResponse{Text: r.Content.Text, Model: r.Model, StopReason: r.StopReason}, nil
}

func (h *hostAnswers) elicit(context.Context, client.ElicitRequest) (client.ElicitResponse, error) {
	m := h.take(&h.elicits)
	if m == nil || m.Result == nil {
		return client.ElicitResponse{Action: "cancel"}, nil
	}
	var r struct {
		Action  string          `json:"action"`
		Content json.RawMessage `json:"content"`
	}
	json.Unmarshal(m.Result, &r)
	return client.ElicitResponse{Action: r.Action, Content: r.Content}, nil
}
