//lint:file-ignore SA1019 sampling and roots are deprecated by protocol 2026-07-28 (SEP-2577) but still spoken by servers of earlier revisions, which the demo host must serve; the SDK keeps them functional for the deprecation window.

package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The host's demonstration of the other primitives: a resource that changes (and can
// be subscribed to), two skills with files (SEP-2640), a tool that asks the client
// for a model reply (sampling) and one that asks for its roots. Completion, the
// template and the prompts are in resources.go; elicitation is the ask tool.

const (
	counterURI  = "mcpscope://demo/counter"
	bigTemplate = "mcpscope://demo/big/{megabytes}"
	bigPrefix   = "mcpscope://demo/big/"
)

// maxSampleMessages bounds the conversation the sample tool sends.
const maxSampleMessages = 1000

func init() {
	demoToolNames = append(demoToolNames, "bump", "sample", "roots")
}

// skillsExtension is the skills extension's identifier.
const skillsExtension = "io.modelcontextprotocol/skills"

// skillFile is one file of a demo skill.
type skillFile struct {
	path, mime, text string
}

type demoSkill struct {
	name, description string
	files             []skillFile // SKILL.md first
	// dynamic: skills/list says "dynamic" instead of the files, which a client
	// enumerates with resources/directory/read (skilldirs.go).
	dynamic bool
}

var demoSkills = []demoSkill{
	{name: "hello-world", description: "Greets the world in a shell script", files: []skillFile{
		{path: "SKILL.md", mime: "text/markdown", text: "---\nname: hello-world\ndescription: Greets the world in a shell script\n---\n\n# Hello, world\n\nRun `scripts/hello.sh` to greet the world.\n"},
		{path: "scripts/hello.sh", mime: "text/x-shellscript", text: "#!/bin/sh\necho 'Hello, world!'\n"},
	}},
	{name: "colour-names", description: "Names a colour from its hex code", files: []skillFile{
		{path: "SKILL.md", mime: "text/markdown", text: "---\nname: colour-names\ndescription: Names a colour from its hex code\n---\n\n# Colour names\n\nLook the code up in `reference/colours.md`, or read mcpscope://demo/colors/{name}.\n"},
		{path: "reference/colours.md", mime: "text/markdown", text: "| name | hex |\n| --- | --- |\n| red | #FF0000 |\n| teal | #008080 |\n| gold | #FFD700 |\n"},
	}},
	releaseNotesSkill,
}

func skillURI(skill, path string) string { return "skill://" + skill + "/" + path }

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

type skillFileEntry struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int    `json:"size"`
}

type skillEntry struct {
	URI         string            `json:"uri"`
	Frontmatter map[string]string `json:"frontmatter"`
	Resources   any               `json:"resources"` // []skillFileEntry, or "dynamic"
}

func (k demoSkill) entry() skillEntry {
	e := skillEntry{URI: skillURI(k.name, "SKILL.md"), Frontmatter: map[string]string{"name": k.name, "description": k.description}}
	if k.dynamic {
		e.Resources = "dynamic"
		return e
	}
	var files []skillFileEntry
	for _, f := range k.files {
		files = append(files, skillFileEntry{URI: skillURI(k.name, f.path), Digest: digest(f.text), Size: len(f.text)})
	}
	e.Resources = files
	return e
}

type skillsListParams struct {
	mcp.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

type skillsListResult struct {
	mcp.ResultBase
	resultTypeField
	cacheFields
	Skills []skillEntry `json:"skills"`
}

type skillsGetParams struct {
	mcp.ParamsBase
	URI string `json:"uri"`
}

type skillsGetResult struct {
	mcp.ResultBase
	resultTypeField
	cacheFields
	Skill skillEntry `json:"skill"`
}

// counter is the changing resource's state.
type counter struct {
	mu    sync.Mutex
	value int
}

func (h *Host) addPrimitives() {
	s := h.server
	c := &counter{}
	s.AddResource(&mcp.Resource{
		URI: counterURI, Name: "counter", Title: "A counter that changes",
		Description: "Subscribe to it; the bump tool increments it and notifies subscribers (notifications/resources/updated).",
		MIMEType:    "text/plain",
	}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		c.mu.Lock()
		defer c.mu.Unlock()
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: counterURI, MIMEType: "text/plain", Text: fmt.Sprintf("counter = %d\n", c.value)}}}, nil
	})
	mcp.AddTool(s, &mcp.Tool{
		Name: "bump", Title: "Bump the counter",
		Description: "Increments the resource " + counterURI + " and tells its subscribers.",
		Annotations: &mcp.ToolAnnotations{OpenWorldHint: ptr(false), DestructiveHint: ptr(false)},
	}, func(ctx context.Context, _ *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
		c.mu.Lock()
		c.value++
		v := c.value
		c.mu.Unlock()
		_ = s.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: counterURI})
		return &mcp.CallToolResult{Content: text(fmt.Sprintf("counter = %d", v))}, nil, nil
	})

	// A big text resource, for reading 50 MB and more.
	s.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: bigTemplate, Name: "big", Title: "Big text",
		Description: "N MiB of numbered lines (at most 256), like the big tool's output.", MIMEType: "text/plain",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		mb, err := strconv.ParseFloat(strings.TrimPrefix(req.Params.URI, bigPrefix), 64)
		if err != nil || mb <= 0 || mb > maxBigMB {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s: give a size in MiB, at most %d", req.Params.URI, maxBigMB)}
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: bigText(int(mb * (1 << 20)))}}}, nil
	})

	// Skills: every file is also a resource at its skill:// URI.
	for _, k := range demoSkills {
		for _, f := range k.files {
			uri, f := skillURI(k.name, f.path), f
			r := &mcp.Resource{URI: uri, Name: k.name + "/" + f.path, MIMEType: f.mime, Size: int64(len(f.text))}
			if f.path == "SKILL.md" {
				// SEP-2640: SKILL.md's resource takes its name and description from
				// the frontmatter (conformance's sep-2640-skills-manifest warns otherwise).
				r.Name, r.Description = k.name, k.description
			}
			s.AddResource(r,
				func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
					return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: f.mime, Text: f.text}}}, nil
				})
		}
	}
	_ = mcp.AddReceivingCustomMethod(s, "skills/list", func(context.Context, *mcp.ServerSession, *skillsListParams) (*skillsListResult, error) {
		r := &skillsListResult{}
		for _, k := range demoSkills {
			r.Skills = append(r.Skills, k.entry())
		}
		return r, nil
	})
	_ = mcp.AddReceivingCustomMethod(s, "skills/get", func(_ context.Context, _ *mcp.ServerSession, p *skillsGetParams) (*skillsGetResult, error) {
		for _, k := range demoSkills {
			if e := k.entry(); p != nil && e.URI == p.URI {
				return &skillsGetResult{Skill: e}, nil
			}
		}
		uri := ""
		if p != nil {
			uri = p.URI
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("no skill %q", uri)}
	})
	h.addSkillDirectories()

	mcp.AddTool(s, &mcp.Tool{
		Name: "sample", Title: "Ask the client's model",
		Description: "Asks the client for a model reply (sampling/createMessage, or input_required in 2026-07-28) to a conversation of `messages` user messages (default 1, at most 1000), and returns the reply.",
		Annotations: readOnly(),
	}, h.sample)
	mcp.AddTool(s, &mcp.Tool{
		Name: "roots", Title: "List the client's roots",
		Description: "Asks the client for its roots (roots/list, or input_required in 2026-07-28) and returns them.",
		Annotations: readOnly(),
	}, h.roots)
}

type sampleIn struct {
	Prompt   string `json:"prompt,omitempty" jsonschema:"the question for the model (optional)"`
	Messages int    `json:"messages,omitempty" jsonschema:"how many messages the conversation has (default 1, at most 1000)"`
}

const sampleKey = "reply"

func (h *Host) sample(_ context.Context, req *mcp.CallToolRequest, in sampleIn) (*mcp.CallToolResult, any, error) {
	if len(req.Params.InputResponses) == 0 {
		if msg := cannotAsk(req, "sampling", "--sampling", "ask it for a model reply"); msg != "" {
			return errorResult(msg), nil, nil
		}
		if caps := req.ClientCapabilities(); caps == nil || caps.Sampling == nil {
			return errorResult(notDeclared("sampling", "--sampling", "ask it for a model reply")), nil, nil
		}
		n := in.Messages
		if n <= 0 {
			n = 1
		}
		if n > maxSampleMessages {
			return errorResult(fmt.Sprintf("messages is %d; at most %d", n, maxSampleMessages)), nil, nil
		}
		prompt := in.Prompt
		if prompt == "" {
			prompt = "Say hello to mcpscope."
		}
		msgs := make([]*mcp.SamplingMessage, 0, n)
		for i := 1; i < n; i++ {
			msgs = append(msgs, &mcp.SamplingMessage{Role: "user", Content: &mcp.TextContent{Text: fmt.Sprintf("message %d of %d", i, n)}})
		}
		msgs = append(msgs, &mcp.SamplingMessage{Role: "user", Content: &mcp.TextContent{Text: prompt}})
		return &mcp.CallToolResult{
			InputRequests: mcp.InputRequestMap{sampleKey: &mcp.CreateMessageParams{
				Messages: msgs, MaxTokens: 200, SystemPrompt: "You are the model behind mcpscope's sampling demo.",
			}},
			RequestState: "sample/v1",
		}, nil, nil
	}
	var reply []string
	switch r := req.Params.InputResponses[sampleKey].(type) {
	case *mcp.CreateMessageResult:
		if t, ok := r.Content.(*mcp.TextContent); ok {
			reply = append(reply, t.Text)
		}
		reply = append(reply, "(model: "+r.Model+")")
	case *mcp.CreateMessageWithToolsResult:
		for _, c := range r.Content {
			if t, ok := c.(*mcp.TextContent); ok {
				reply = append(reply, t.Text)
			}
		}
		reply = append(reply, "(model: "+r.Model+")")
	default:
		return errorResult(fmt.Sprintf("the retry's inputResponses has no sampling result under %q", sampleKey)), nil, nil
	}
	return &mcp.CallToolResult{Content: text("The model replied: " + strings.Join(reply, " "))}, nil, nil
}

const rootsKey = "roots"

func (h *Host) roots(_ context.Context, req *mcp.CallToolRequest, _ none) (*mcp.CallToolResult, any, error) {
	if len(req.Params.InputResponses) == 0 {
		if msg := cannotAsk(req, "roots", "--root DIR", "ask it for its roots"); msg != "" {
			return errorResult(msg), nil, nil
		}
		if caps := req.ClientCapabilities(); caps == nil || caps.RootsV2 == nil && !caps.Roots.ListChanged {
			return errorResult(notDeclared("roots", "--root DIR", "ask it for its roots")), nil, nil
		}
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{rootsKey: &mcp.ListRootsParams{}}, RequestState: "roots/v1"}, nil, nil
	}
	r, ok := req.Params.InputResponses[rootsKey].(*mcp.ListRootsResult)
	if !ok {
		return errorResult(fmt.Sprintf("the retry's inputResponses has no roots result under %q", rootsKey)), nil, nil
	}
	if len(r.Roots) == 0 {
		return &mcp.CallToolResult{Content: text("The client offers no roots.")}, nil, nil
	}
	var lines []string
	for _, root := range r.Roots {
		line := root.URI
		if root.Name != "" {
			line += " (" + root.Name + ")"
		}
		lines = append(lines, line)
	}
	return &mcp.CallToolResult{Content: text("The client's roots:\n" + strings.Join(lines, "\n"))}, nil, nil
}
