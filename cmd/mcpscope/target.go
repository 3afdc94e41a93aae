package main

import (
	"flag"

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

// targetTail reads what follows a server target that parse stopped at. A URL
// target takes no words after it (config.Resolve refuses them), so anything after a
// URL can only be mcpscope's own flags, and users put flags last (`call TOOL URL
// --login`): they are parsed into fs here rather than refused. A word that is no
// flag stays after the URL, for Resolve to refuse. A command target (argv) keeps
// its words: they are the command's.
func targetTail(fs *flag.FlagSet, rest []string) ([]string, error) {
	if len(rest) < 2 || !client.IsURL(rest[0]) {
		return rest, nil
	}
	_, tail, err := parse(fs, rest[1:], func([]string, string) bool { return true })
	if err != nil {
		return nil, err
	}
	return append([]string{rest[0]}, tail...), nil
}
