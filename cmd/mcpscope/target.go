package main

import (
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
