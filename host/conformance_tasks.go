package host

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The conformance profile's tasks fixtures: the tools the 0.2 suite's tasks-extension
// scenarios (SEP-2663) call by name. They run in the host's one task store
// (taskStore), as research does; what the suite prescribes is their names,
// arguments, task support and outcome (a result, a tool error, a protocol error, the
// input they ask for).

func init() {
	conformanceToolNames = append(conformanceToolNames,
		"greet", "slow_compute", "failing_job", "protocol_error_job", "confirm_delete", "multi_input", "test_tool_with_task")
}

// maxComputeSeconds bounds slow_compute: the suite asks for at most 60 seconds, and a
// task is cancelled at its TTL anyway.
const maxComputeSeconds = 600

func (h *Host) addConformanceTasks() {
	s, st := h.server, h.tasks
	// taskFixture registers a tool with the server and the task store: a plain call
	// (when the tool allows one) runs the same work without a task.
	taskFixture := func(tool *mcp.Tool, tt *taskTool) {
		if tool.InputSchema == nil {
			tool.InputSchema = emptyObject()
		}
		st.register(tool.Name, tt)
		s.AddTool(tool, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return tt.run(ctx, req.Params, nil)
		})
	}
	wait := func(ctx context.Context, d time.Duration) error {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(d):
			return nil
		}
	}

	s.AddTool(&mcp.Tool{
		Name: "greet", Description: "Conformance fixture (tasks): a tool without task support; says hello to name.",
		InputSchema: objectSchema(map[string]any{"name": map[string]any{"type": "string", "description": "who to greet"}}, "name"),
		Annotations: readOnly(),
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct{ Name string }
		_ = json.Unmarshal(req.Params.Arguments, &in)
		return &mcp.CallToolResult{Content: text("Hello, " + in.Name + "!")}, nil
	})

	taskFixture(&mcp.Tool{
		Name: "slow_compute", Description: "Conformance fixture (tasks, optional): waits seconds, then returns a result naming label; a task when the client opts in.",
		InputSchema: objectSchema(map[string]any{
			"seconds": map[string]any{"type": "number", "minimum": 0, "description": "how long to work (at most 600)"},
			"label":   map[string]any{"type": "string", "description": "named in the result"},
		}),
		Annotations: readOnly(),
	}, &taskTool{support: "optional", run: func(ctx context.Context, p *mcp.CallToolParamsRaw, tc *taskCtl) (*mcp.CallToolResult, error) {
		var in struct {
			Seconds float64
			Label   string
		}
		if len(p.Arguments) > 0 {
			if err := json.Unmarshal(p.Arguments, &in); err != nil {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "slow_compute: " + err.Error()}
			}
		}
		secs := min(max(in.Seconds, 0), maxComputeSeconds)
		tc.status(fmt.Sprintf("computing for %gs", secs))
		if err := wait(ctx, time.Duration(secs*float64(time.Second))); err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: text(fmt.Sprintf("Computed %s after %gs.", in.Label, secs))}, nil
	}})

	taskFixture(&mcp.Tool{
		Name: "failing_job", Description: "Conformance fixture (tasks, required): after a second, ends with a tool error (isError): the task completes.",
		Annotations: readOnly(),
	}, &taskTool{support: "required", run: func(ctx context.Context, _ *mcp.CallToolParamsRaw, tc *taskCtl) (*mcp.CallToolResult, error) {
		tc.status("failing in a second")
		if err := wait(ctx, time.Second); err != nil {
			return nil, err
		}
		return errorResult("failing_job failed, as it always does"), nil
	}})

	taskFixture(&mcp.Tool{
		Name: "protocol_error_job", Description: "Conformance fixture (tasks, required): ends with a protocol error (internal error): the task fails.",
		Annotations: readOnly(),
	}, &taskTool{support: "required", run: func(context.Context, *mcp.CallToolParamsRaw, *taskCtl) (*mcp.CallToolResult, error) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "protocol_error_job: an internal error, as it always has"}
	}})

	confirm := objectSchema(map[string]any{"confirm": map[string]any{"type": "boolean", "description": "yes to go on"}}, "confirm")
	confirmed := func(r mcp.InputResponse) bool {
		er, ok := r.(*mcp.ElicitResult)
		if !ok || er.Action != "accept" {
			return false
		}
		yes, _ := er.Content["confirm"].(bool)
		return yes
	}
	taskFixture(&mcp.Tool{
		Name: "confirm_delete", Description: "Conformance fixture (tasks, required): asks (elicitation, mid-task) whether to delete filename, then says what it pretended to do.",
		InputSchema: objectSchema(map[string]any{"filename": map[string]any{"type": "string", "description": "the file (nothing is deleted)"}}, "filename"),
		Annotations: readOnly(),
	}, &taskTool{support: "required", run: func(ctx context.Context, p *mcp.CallToolParamsRaw, tc *taskCtl) (*mcp.CallToolResult, error) {
		var in struct{ Filename string }
		_ = json.Unmarshal(p.Arguments, &in)
		answers, err := tc.ask(ctx, mcp.InputRequestMap{"confirm": elicitReq(fmt.Sprintf("Delete %s?", in.Filename), confirm)})
		if err != nil {
			return nil, err
		}
		if !confirmed(answers["confirm"]) {
			return &mcp.CallToolResult{Content: text("Kept " + in.Filename + ".")}, nil
		}
		return &mcp.CallToolResult{Content: text("Deleted " + in.Filename + " (pretend).")}, nil
	}})

	taskFixture(&mcp.Tool{
		Name: "multi_input", Description: "Conformance fixture (tasks, required): asks two questions at once (two elicitations, mid-task); answers may come one at a time.",
		Annotations: readOnly(),
	}, &taskTool{support: "required", run: func(ctx context.Context, _ *mcp.CallToolParamsRaw, tc *taskCtl) (*mcp.CallToolResult, error) {
		answers, err := tc.ask(ctx, mcp.InputRequestMap{
			"name":    elicitReq("What is your name?", nameSchema("name")),
			"confirm": elicitReq("Go on?", confirm),
		})
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: text(fmt.Sprintf("name: %s, go on: %t", elicitText(answers["name"], "name"), confirmed(answers["confirm"])))}, nil
	}})

	// test_tool_with_task gathers the user's name in a multi-round-trip round (its
	// handler), and the retry that brings it becomes the task (begins).
	const userName = "user_name"
	signer := newStateSigner()
	st.register("test_tool_with_task", &taskTool{support: "required",
		begins: func(req *mcp.CallToolRequest, isModern bool) (bool, error) {
			if !isModern {
				return true, nil // before 2026-07-28 there are no rounds: the task asks
			}
			if _, ok := req.Params.InputResponses[userName]; !ok {
				return false, nil
			}
			if state, err := signer.verify("test_tool_with_task", req.Params.RequestState); err != nil || state != userName {
				return false, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "test_tool_with_task: requestState is not the one the host sent with its question"}
			}
			return true, nil
		},
		run: func(ctx context.Context, p *mcp.CallToolParamsRaw, tc *taskCtl) (*mcp.CallToolResult, error) {
			r, ok := p.InputResponses[userName]
			if !ok {
				answers, err := tc.ask(ctx, mcp.InputRequestMap{userName: elicitReq("What is your name?", nameSchema("name"))})
				if err != nil {
					return nil, err
				}
				r = answers[userName]
			}
			tc.status("working for " + strings.TrimSpace(elicitText(r, "name")))
			if err := wait(ctx, 200*time.Millisecond); err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: text("Task done for " + elicitText(r, "name") + ".")}, nil
		}})
	s.AddTool(&mcp.Tool{
		Name: "test_tool_with_task", Description: "Conformance fixture (tasks, required; SEP-2322 with SEP-2663): asks the user's name in a round of its own, then runs as a task whose result names them.",
		InputSchema: emptyObject(), Annotations: readOnly(),
	}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		// Only the round before the task reaches the handler (begins starts the task
		// on the retry), and only from a client that declared the tasks extension.
		return &mcp.CallToolResult{
			InputRequests: mcp.InputRequestMap{userName: elicitReq("What is your name?", nameSchema("name"))},
			RequestState:  signer.sign(userName),
		}, nil
	})
}
