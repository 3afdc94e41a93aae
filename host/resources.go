package host

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	readmeURI      = "mcpscope://demo/readme.md"
	gradientURI    = "mcpscope://demo/gradient.png"
	colorTemplate  = "mcpscope://demo/colors/{name}"
	colorURIPrefix = "mcpscope://demo/colors/"
)

const readmeText = `# mcpscope bundled host

This server ships with mcpscope. Its demo tools exercise the Model Context Protocol:
content of every type, tool annotations, progress and cancellation, logging,
elicitation, list_changed, and deliberate failures. None of them touches the network.

Try the colors template (mcpscope://demo/colors/{name}) with completion on "name",
and the prompts "summarize" and "greet".
`

var colors = map[string]string{
	"amber": "#FFBF00", "azure": "#007FFF", "black": "#000000", "blue": "#0000FF",
	"coral": "#FF7F50", "crimson": "#DC143C", "cyan": "#00FFFF", "gold": "#FFD700",
	"green": "#008000", "indigo": "#4B0082", "lavender": "#E6E6FA", "lime": "#00FF00",
	"magenta": "#FF00FF", "navy": "#000080", "olive": "#808000", "orange": "#FFA500",
	"pink": "#FFC0CB", "purple": "#800080", "red": "#FF0000", "salmon": "#FA8072",
	"silver": "#C0C0C0", "teal": "#008080", "violet": "#EE82EE", "white": "#FFFFFF",
	"yellow": "#FFFF00",
}

var (
	summaryStyles = []string{"brief", "detailed", "bullets"}
	languages     = []string{"de", "en", "es", "fr", "it", "ja"}
)

func (h *Host) addResources() {
	s := h.server
	s.AddResource(&mcp.Resource{
		URI: readmeURI, Name: "readme", Title: "About the demo host",
		Description: "A static text resource.", MIMEType: "text/markdown", Size: int64(len(readmeText)),
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
			{URI: readmeURI, MIMEType: "text/markdown", Text: readmeText},
		}}, nil
	})
	s.AddResource(&mcp.Resource{
		URI: gradientURI, Name: "gradient", Title: "Gradient image",
		Description: "A static binary resource: the image tool's PNG.", MIMEType: "image/png", Size: int64(len(demoPNG())),
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
			{URI: gradientURI, MIMEType: "image/png", Blob: demoPNG()},
		}}, nil
	})
	s.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: colorTemplate, Name: "color", Title: "Named colours",
		Description: "A resource template; completion/complete suggests values for {name}.",
		MIMEType:    "application/json",
	}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		uri := req.Params.URI
		name := strings.TrimPrefix(uri, colorURIPrefix)
		hex, ok := colors[strings.ToLower(name)]
		if !ok || !strings.HasPrefix(uri, colorURIPrefix) {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		b, _ := json.Marshal(map[string]string{"name": name, "hex": hex})
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
			{URI: uri, MIMEType: "application/json", Text: string(b)},
		}}, nil
	})
}

func (h *Host) addPrompts() {
	s := h.server
	s.AddPrompt(&mcp.Prompt{
		Name: "summarize", Title: "Summarize text",
		Description: "Asks the model to summarize a text in a chosen style.",
		Arguments: []*mcp.PromptArgument{
			{Name: "text", Title: "Text", Description: "The text to summarize.", Required: true},
			{Name: "style", Title: "Style", Description: "brief, detailed or bullets (completion offers them)."},
		},
	}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		txt := req.Params.Arguments["text"]
		if txt == "" {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: `prompt "summarize" needs the argument "text"`}
		}
		style := req.Params.Arguments["style"]
		if style == "" {
			style = "brief"
		}
		return &mcp.GetPromptResult{
			Description: "Summarize in a " + style + " style",
			Messages: []*mcp.PromptMessage{{
				Role:    "user",
				Content: &mcp.TextContent{Text: fmt.Sprintf("Summarize the following text (%s):\n\n%s", style, txt)},
			}},
		}, nil
	})
	s.AddPrompt(&mcp.Prompt{
		Name: "greet", Title: "Greet someone",
		Description: "A two-message conversation that greets a person in a language.",
		Arguments: []*mcp.PromptArgument{
			{Name: "name", Title: "Name", Description: "Who to greet.", Required: true},
			{Name: "language", Title: "Language", Description: "A language code (completion offers some)."},
		},
	}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		name := req.Params.Arguments["name"]
		if name == "" {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: `prompt "greet" needs the argument "name"`}
		}
		lang := req.Params.Arguments["language"]
		if lang == "" {
			lang = "en"
		}
		return &mcp.GetPromptResult{
			Messages: []*mcp.PromptMessage{
				{Role: "user", Content: &mcp.TextContent{Text: fmt.Sprintf("Please greet %s in the language %q.", name, lang)}},
				{Role: "assistant", Content: &mcp.TextContent{Text: "Sure. Here is a friendly greeting:"}},
			},
		}, nil
	})
}

// complete answers completion/complete for the colors template's {name} and the
// prompts' optional arguments.
func complete(_ context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	var pool []string
	ref, arg := req.Params.Ref, req.Params.Argument
	switch {
	case ref.Type == "ref/resource" && ref.URI == colorTemplate && arg.Name == "name":
		for c := range colors {
			pool = append(pool, c)
		}
		slices.Sort(pool)
	case ref.Type == "ref/prompt" && ref.Name == "summarize" && arg.Name == "style":
		pool = summaryStyles
	case ref.Type == "ref/prompt" && ref.Name == "greet" && arg.Name == "language":
		pool = languages
	}
	values := []string{}
	prefix := strings.ToLower(arg.Value)
	for _, v := range pool {
		if strings.HasPrefix(v, prefix) {
			values = append(values, v)
		}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values, Total: len(values)}}, nil
}
