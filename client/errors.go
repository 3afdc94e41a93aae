package client

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpscope/mcpscope/client/wire"
)

// RPCError is a JSON-RPC error the server answered with: a protocol error, never to be
// confused with a tool's own error (a result with isError true).
type RPCError struct {
	Code    int64
	Message string
	Data    json.RawMessage
}

func (e *RPCError) Error() string {
	s := fmt.Sprintf("server answered with JSON-RPC error %d: %s", e.Code, e.Message)
	if len(e.Data) > 0 && string(e.Data) != "null" {
		s += " (data: " + abbreviate(e.Data, 300) + ")"
	}
	return s
}

// ServerError says the server could not be reached or stopped working: it could not
// be started, exited, closed its output, or broke the protocol beyond repair.
type ServerError struct {
	Reason string
	Exit   *wire.Exit
	Stderr []string // the server's last stderr lines
	// Restarted says why the server had been restarted with Content-Length framing
	// ("" when it was not): the failure is the second start's.
	Restarted string
}

func (e *ServerError) Error() string {
	var b strings.Builder
	b.WriteString(e.Reason)
	if e.Exit != nil {
		b.WriteString(" (server " + e.Exit.String() + ")")
	}
	if e.Restarted != "" {
		b.WriteString("; mcpscope had restarted it once, with Content-Length framing: " + e.Restarted)
	}
	if len(e.Stderr) > 0 {
		b.WriteString("\nlast stderr lines:")
		for _, l := range e.Stderr {
			b.WriteString("\n  " + l)
		}
	}
	return b.String()
}
