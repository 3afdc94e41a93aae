package pins

import (
	"context"
	"errors"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/surface"
)

// Lister is what Listed needs of a live session (a *client.Session): what it
// declared, and its prompts and resource templates.
type Lister interface {
	HasCapability(name string) bool
	Prompts(ctx context.Context) (*client.List[client.Prompt], error)
	ResourceTemplates(ctx context.Context) (*client.List[client.ResourceTemplate], error)
}

// Listed is the surface a pin is taken of and compared with: the tools as the
// caller listed them (the workbench and --inspect have their list already, and a
// second tools/list could differ from the one on screen), and the prompts and
// resource templates the session lists now, when the server declares them. A kind
// whose listing the server answered with a JSON-RPC error is not known (Has false:
// its pinned definitions are not reported as removed); any other failure (the
// session went away, the context ended) is an error, so that nothing is pinned from
// half a surface.
func Listed(ctx context.Context, s Lister, tools []client.Tool) (*surface.Surface, error) {
	out := &surface.Surface{Tools: tools, HasTools: true}
	if d, ok := s.(interface{ Declared() []string }); ok {
		out.Client = d.Declared()
	}
	if s.HasCapability("prompts") {
		list, err := s.Prompts(ctx)
		if err := answered(err); err != nil {
			return nil, err
		}
		if list != nil {
			out.HasPrompts = true
			for _, p := range list.Items {
				out.Prompts = append(out.Prompts, surface.Item{Key: p.Name, Raw: p.Raw})
			}
		}
	}
	if s.HasCapability("resources") {
		list, err := s.ResourceTemplates(ctx)
		if err := answered(err); err != nil {
			return nil, err
		}
		if list != nil {
			out.HasTemplates = true
			for _, t := range list.Items {
				out.Templates = append(out.Templates, surface.Item{Key: t.URITemplate, Raw: t.Raw})
			}
		}
	}
	return out, nil
}

// answered is err unless the server answered with a JSON-RPC error (the kind is
// then only not known).
func answered(err error) error {
	var rpc *client.RPCError
	if errors.As(err, &rpc) {
		return nil
	}
	return err
}
