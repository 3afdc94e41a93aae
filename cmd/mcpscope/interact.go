package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/mcpscope/mcpscope/answer"
	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/internal/readfile"
	"github.com/mcpscope/mcpscope/internal/termsafe"
)

// interactFlags are the flags of what a server asks of a one-shot command
// mid-request: elicitation, sampling and roots. Package answer answers them; this
// file only reads the flags into its Options.
type interactFlags struct {
	elicit        string // accept, decline, cancel; "" asks on a terminal
	elicitAnswers string // @FILE or a JSON object
	sampling      bool
	samplingReply string // TEXT or @FILE
	roots         multiFlag
	logLevel      string // --log-level: the server's log messages at this level and above, on stderr

	a *answer.Answerer // set by apply
}

func (f *interactFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.elicit, "elicit", "", "answer elicitation requests: accept, decline or cancel (default: ask on a terminal)")
	fs.StringVar(&f.elicitAnswers, "elicit-answers", "", "with --elicit accept: the values, as @FILE or a JSON object (schema defaults fill the rest)")
	fs.BoolVar(&f.sampling, "sampling", false, "declare the sampling capability and answer sampling/createMessage")
	fs.StringVar(&f.samplingReply, "sampling-reply", "", "the reply to sampling requests, TEXT or @FILE (implies --sampling)")
	fs.Var(&f.roots, "root", "declare the roots capability and offer DIR as a file:// root (repeatable)")
	fs.StringVar(&f.logLevel, "log-level", "", "print the server's log messages at this level and above on stderr: "+strings.Join(client.LogLevels, ", "))
}

// applyLogs asks for the server's log messages at --log-level and prints each on
// stderr as it comes, one line, as the workbench's Logs view shows it.
func (f *interactFlags) applyLogs(opts *client.Options, stderr io.Writer) error {
	if f.logLevel == "" {
		return nil
	}
	if !slices.Contains(client.LogLevels, f.logLevel) {
		return usageErr("--log-level %q: use one of %s", f.logLevel, strings.Join(client.LogLevels, ", "))
	}
	opts.LogLevel = f.logLevel
	var mu sync.Mutex
	opts.OnLog = func(l client.LogMessage) {
		data := string(l.Data)
		var text string
		if json.Unmarshal(l.Data, &text) == nil {
			data = text // a string is shown as the text it holds
		}
		logger := ""
		if l.Logger != "" {
			logger = " [" + l.Logger + "]"
		}
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(stderr, "mcpscope: log %s%s: %s\n", termsafe.Line(l.Level), termsafe.Line(logger), termsafe.Line(data))
	}
	return nil
}

// apply checks the flags and sets the handlers on opts. Every session of the command
// gets the one Answerer (one question at a time on the terminal).
func (f *interactFlags) apply(opts *client.Options, stderr io.Writer) error {
	if err := f.applyLogs(opts, stderr); err != nil {
		return err
	}
	if f.a != nil {
		f.a.Apply(opts)
		return nil
	}
	o := answer.Options{Elicit: f.elicit, Sampling: f.sampling, Out: stderr, In: os.Stdin,
		Terminal: isTerminal(os.Stdin) && isTerminal(os.Stderr), Browser: os.Getenv("BROWSER")}
	var err error
	if f.elicitAnswers != "" {
		if o.Answers, err = valueOrFile(f.elicitAnswers, "--elicit-answers"); err != nil {
			return err
		}
		o.Answers = append([]byte{}, o.Answers...) // given, even empty: answer checks it
	}
	if f.samplingReply != "" {
		o.Sampling = true // even when @FILE is empty: a terminal asks
		data, err := valueOrFile(f.samplingReply, "--sampling-reply")
		if err != nil {
			return err
		}
		o.SamplingReply = string(data)
	}
	if o.Roots, err = answer.Roots(f.roots); err != nil {
		return err
	}
	if f.a, err = answer.New(o); err != nil {
		return err
	}
	f.a.Apply(opts)
	return nil
}

// valueOrFile reads @FILE, or takes the value itself. The file is read as a config
// file is (readfile: a regular file of at most readfile.MaxConfig; a FIFO, a device or
// a directory is refused without being read).
func valueOrFile(v, flagName string) ([]byte, error) {
	if strings.HasPrefix(v, "@") {
		data, err := readfile.Read(v[1:], readfile.MaxConfig)
		if err != nil {
			return nil, usageErr("%s: %v", flagName, err)
		}
		return data, nil
	}
	return []byte(v), nil
}

// inputRequiredErr explains a result that still asks for input: it is never shown as
// "no content".
func inputRequiredErr(r *client.CallResult) error {
	if r == nil || r.ResultType != "input_required" {
		return nil
	}
	var p struct {
		InputRequests map[string]struct {
			Method string `json:"method"`
		} `json:"inputRequests"`
	}
	_ = json.Unmarshal(r.Raw, &p)
	var what []string
	for _, v := range p.InputRequests {
		what = append(what, v.Method)
	}
	sort.Strings(what)
	hint := "answer it with --elicit accept|decline|cancel (or run on a terminal), --sampling-reply TEXT, or --root DIR"
	if r.SDKError != "" {
		hint += " (" + r.SDKError + ")"
	}
	return &exitError{code: exitServer, msg: fmt.Sprintf("the server needs input to go on (%s), which was not given: %s", strings.Join(what, ", "), hint)}
}

// urlElicitationErr shows a 2025-11-25 URLElicitationRequired error (-32042): the URLs
// in full, each opened with $BROWSER on consent (answer's URLRequired).
func (f *interactFlags) urlElicitationErr(err error) error {
	if f.a == nil || !f.a.URLRequired(err) {
		return err
	}
	return &exitError{code: exitRPCError, msg: "the server needs you to complete the step at the URL above first (error -32042); run the command again once it is done"}
}
