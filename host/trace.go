package host

import (
	"context"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// traceLogger names the host's log messages about trace context.
const traceLogger = "trace"

// echoTrace says in the host's logs which trace context (SEP-414: W3C traceparent
// and tracestate in params._meta) each request came with, so that a user of
// --traceparent sees it arrive: always on the host's stderr (its log), and as a
// notifications/message when the client asked for log messages (logging/setLevel
// before 2026-07-28, the request's logLevel _meta from then; the SDK sends none
// otherwise).
func (h *Host) echoTrace(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		p := req.GetParams()
		if p == nil || reflect.ValueOf(p).IsNil() {
			return next(ctx, method, req)
		}
		meta := p.GetMeta()
		tp, _ := meta["traceparent"].(string)
		if tp == "" {
			return next(ctx, method, req)
		}
		ts, _ := meta["tracestate"].(string)
		// Bounded: these are the client's strings, echoed.
		tp, ts = clipTrace(tp), clipTrace(ts)
		h.log.Info("trace context", "method", method, "traceparent", tp, "tracestate", ts)
		if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
			data := map[string]string{"method": method, "traceparent": tp}
			if ts != "" {
				data["tracestate"] = ts
			}
			//lint:ignore SA1019 the logging API, deprecated by 2026-07-28 (SEP-2577), is what servers on earlier versions speak
			_ = ss.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: traceLogger, Data: data})
		}
		return next(ctx, method, req)
	}
}

func clipTrace(s string) string {
	if len(s) > 512 {
		return s[:512] + "…"
	}
	return s
}
