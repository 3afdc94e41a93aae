// Package answer answers what a server asks of a one-shot command (--inspect, call,
// the primitives) in the middle of a request: elicitation (a form, or a URL to open),
// sampling (a model reply) and roots. What the command line said (--elicit,
// --elicit-answers, --sampling, --sampling-reply, --root) is an Options;
// cmd/mcpscope parses the flags into it and sets the handlers on the session's client
// options with Apply, once, so that one server and several get the same answers.
//
// Nothing is declared unless the options (or a terminal, for elicitation) ask for it.
// On a terminal a request is asked there, one at a time; every string a server sent
// goes through termsafe before it is printed.
package answer

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/target"
)

// Options are what the command line says about a server's questions.
type Options struct {
	// Elicit answers every elicitation request: accept, decline or cancel; "" asks on
	// a terminal (and, off one, declares no elicitation).
	Elicit string
	// Answers, a JSON object, are the values of an accepted form (the schema's
	// defaults fill the rest); given with Elicit "", they imply accept.
	Answers []byte
	// Sampling declares the sampling capability: SamplingReply answers every
	// request, or else a terminal asks, or else each request is rejected.
	Sampling      bool
	SamplingReply string
	// Roots, when not nil, declares the roots capability with these roots (Roots
	// makes them from directories).
	Roots []client.Root
	// Terminal says In and Out are a terminal, where requests are asked.
	Terminal bool
	In       io.Reader
	Out      io.Writer
	// Browser is $BROWSER, which opens a URL the user consents to.
	Browser string
}

// Answerer answers a session's requests as its Options say.
type Answerer struct {
	o       Options
	answers map[string]json.RawMessage
	in      *bufio.Reader
	mu      sync.Mutex // one question at a time on the terminal
}

func usage(format string, a ...any) error {
	return &target.UsageError{Msg: fmt.Sprintf(format, a...)}
}

// New checks the options. Its errors are *target.UsageError (exit 2).
func New(o Options) (*Answerer, error) {
	switch o.Elicit {
	case "", "accept", "decline", "cancel":
	default:
		return nil, usage("--elicit %q: use accept, decline or cancel", o.Elicit)
	}
	a := &Answerer{o: o}
	if o.Answers != nil {
		if o.Elicit != "accept" && o.Elicit != "" {
			return nil, usage("--elicit-answers goes with --elicit accept")
		}
		a.o.Elicit = "accept"
		if err := json.Unmarshal(o.Answers, &a.answers); err != nil || a.answers == nil {
			return nil, usage("--elicit-answers: a JSON object of field values is needed: %v", err)
		}
	}
	if o.SamplingReply != "" {
		a.o.Sampling = true
	}
	if o.Terminal {
		a.in = bufio.NewReader(o.In)
	}
	if a.o.Out == nil {
		a.o.Out = io.Discard
	}
	return a, nil
}

// Apply sets the handlers the options ask for on opts.
func (a *Answerer) Apply(opts *client.Options) {
	if a.o.Elicit != "" || a.o.Terminal {
		opts.Elicit = func(ctx context.Context, req client.ElicitRequest) (client.ElicitResponse, error) {
			return a.elicit(ctx, req)
		}
	}
	if a.o.Sampling {
		opts.Sample = a.sample
	}
	if a.o.Roots != nil {
		opts.Roots = a.o.Roots
	}
}

// Roots makes the roots of directories (--root DIR, repeated). Each must exist and
// be a directory.
func Roots(dirs []string) ([]client.Root, error) {
	if len(dirs) == 0 {
		return nil, nil
	}
	roots := []client.Root{}
	for _, d := range dirs {
		st, err := os.Stat(d)
		if err != nil || !st.IsDir() {
			return nil, usage("--root %q: not a directory", d)
		}
		r, err := client.RootFromDir(d)
		if err != nil {
			return nil, usage("--root %q: %v", d, err)
		}
		roots = append(roots, r)
	}
	return roots, nil
}
