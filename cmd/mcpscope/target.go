package main

import (
	"context"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/config"
)

// sources are the config files named by --config (or the usual places) with the
// --input values for their placeholders.
func (c *common) sources() (*config.Sources, error) {
	inputs, err := config.ParseInputs(c.remote.inputs)
	if err != nil {
		return nil, err
	}
	return &config.Sources{File: c.remote.config, Inputs: inputs}, nil
}

// resolveTarget turns what the user named into a target (see config.Sources.Resolve);
// nothing at all means the bundled host (see defaultTarget), unless --config names a
// file with exactly one server.
func resolveTarget(ctx context.Context, c *common, argv []string) (client.Target, error) {
	src, err := c.sources()
	if err != nil {
		return client.Target{}, err
	}
	if len(argv) == 0 {
		if c.remote.config != "" {
			srv, err := src.Only(ctx)
			return srv.Target, err
		}
		return defaultTarget()
	}
	srv, err := src.Resolve(ctx, argv)
	return srv.Target, err
}
