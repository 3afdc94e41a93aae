package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/fields"
	"github.com/mcpscope/mcpscope/internal/browser"
	"github.com/mcpscope/mcpscope/internal/plural"
	"github.com/mcpscope/mcpscope/internal/readfile"
	"github.com/mcpscope/mcpscope/internal/termsafe"
)

// interactFlags answer what a server asks of the client mid-request: elicitation,
// sampling and roots. Nothing is declared unless these flags (or a terminal, for
// elicitation) ask for it.
type interactFlags struct {
	elicit        string // accept, decline, cancel; "" asks on a terminal
	elicitAnswers string // @FILE or a JSON object
	sampling      bool
	samplingReply string // TEXT or @FILE
	roots         multiFlag

	// set by options
	terminal bool
	in       *bufio.Reader
	stderr   io.Writer
	mu       sync.Mutex // one question at a time on the terminal
	asked    int        // elicitation requests answered
	sampled  int
}

func (f *interactFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.elicit, "elicit", "", "answer elicitation requests: accept, decline or cancel (default: ask on a terminal)")
	fs.StringVar(&f.elicitAnswers, "elicit-answers", "", "with --elicit accept: the values, as @FILE or a JSON object (schema defaults fill the rest)")
	fs.BoolVar(&f.sampling, "sampling", false, "declare the sampling capability and answer sampling/createMessage")
	fs.StringVar(&f.samplingReply, "sampling-reply", "", "the reply to sampling requests, TEXT or @FILE (implies --sampling)")
	fs.Var(&f.roots, "root", "declare the roots capability and offer DIR as a file:// root (repeatable)")
}

// apply checks the flags and sets the handlers on opts.
func (f *interactFlags) apply(opts *client.Options, stderr io.Writer) error {
	f.stderr = stderr
	f.terminal = isTerminal(os.Stdin) && isTerminal(os.Stderr)
	switch f.elicit {
	case "", "accept", "decline", "cancel":
	default:
		return usageErr("--elicit %q: use accept, decline or cancel", f.elicit)
	}
	var answers map[string]json.RawMessage
	if f.elicitAnswers != "" {
		if f.elicit != "accept" && f.elicit != "" {
			return usageErr("--elicit-answers goes with --elicit accept")
		}
		if f.elicit == "" {
			f.elicit = "accept"
		}
		data, err := valueOrFile(f.elicitAnswers, "--elicit-answers")
		if err != nil {
			return err
		}
		if err := json.Unmarshal(data, &answers); err != nil || answers == nil {
			return usageErr("--elicit-answers: a JSON object of field values is needed: %v", err)
		}
	}
	if f.elicit != "" || f.terminal {
		opts.Elicit = func(ctx context.Context, req client.ElicitRequest) (client.ElicitResponse, error) {
			return f.answerElicit(ctx, req, answers)
		}
	}
	var reply string
	if f.samplingReply != "" {
		f.sampling = true
		data, err := valueOrFile(f.samplingReply, "--sampling-reply")
		if err != nil {
			return err
		}
		reply = string(data)
	}
	if f.sampling {
		opts.Sample = func(ctx context.Context, req client.SamplingRequest) (client.SamplingResponse, error) {
			return f.answerSampling(ctx, req, reply)
		}
	}
	if len(f.roots) > 0 {
		opts.Roots = []client.Root{}
		for _, d := range f.roots {
			st, err := os.Stat(d)
			if err != nil || !st.IsDir() {
				return usageErr("--root %q: not a directory", d)
			}
			r, err := client.RootFromDir(d)
			if err != nil {
				return usageErr("--root %q: %v", d, err)
			}
			opts.Roots = append(opts.Roots, r)
		}
	}
	if f.terminal {
		f.in = bufio.NewReader(os.Stdin)
	}
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

// schemaField is one property of a flat elicitation schema.
type schemaField struct {
	Name        string
	Type        string
	Title       string
	Description string
	Default     json.RawMessage
	Enum        []string
	Required    bool
}

// schemaFields reads a flat elicitation schema through package fields, the one
// schema-to-fields builder (the TUI's form and inspect's coercion read schemas with it
// too), so that a $ref, an allOf or a "string or null" is asked as the TUI asks it.
func schemaFields(schema json.RawMessage) ([]schemaField, error) {
	top, err := fields.Top(schema)
	if err != nil {
		return nil, fmt.Errorf("the requested schema is not an object: %v", err)
	}
	var out []schemaField
	for _, p := range top {
		if p.Err != nil {
			return nil, fmt.Errorf("property %q is not a flat field the form can ask for: %v", p.Name, p.Err)
		}
		switch p.Type {
		case "string", "number", "integer", "boolean", "array":
		default:
			what := p.Type
			if what == "" {
				what = "none (or several)"
			}
			return nil, fmt.Errorf("property %q has type %s, which a flat elicitation form cannot ask for", p.Name, what)
		}
		out = append(out, schemaField{Name: p.Name, Type: p.Type, Title: p.Title, Description: p.Description,
			Default: p.Default, Enum: p.Enum, Required: p.Required})
	}
	return out, nil
}

// fillDefaults returns answers with the schema's defaults for the fields they leave out.
func fillDefaults(fields []schemaField, answers map[string]json.RawMessage) (map[string]json.RawMessage, []string) {
	out := map[string]json.RawMessage{}
	for k, v := range answers {
		out[k] = v
	}
	var missing []string
	for _, f := range fields {
		if _, ok := out[f.Name]; ok {
			continue
		}
		if len(f.Default) > 0 {
			out[f.Name] = f.Default
		} else if f.Required {
			missing = append(missing, f.Name)
		}
	}
	return out, missing
}

func (f *interactFlags) answerElicit(ctx context.Context, req client.ElicitRequest, answers map[string]json.RawMessage) (client.ElicitResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked++
	msg := termsafe.Line(req.Message)
	if req.Mode == "url" {
		return f.urlConsent(req.URL, msg), nil
	}
	fields, err := schemaFields(req.Schema)
	if err != nil {
		fmt.Fprintf(f.stderr, "mcpscope: the server asks %q, but %v; declined\n", msg, err)
		return client.ElicitResponse{Action: "decline"}, nil
	}
	if f.elicit != "" {
		fmt.Fprintf(f.stderr, "mcpscope: the server asks: %s (answered %s by --elicit)\n", msg, f.elicit)
		if f.elicit != "accept" {
			return client.ElicitResponse{Action: f.elicit}, nil
		}
		content, missing := fillDefaults(fields, answers)
		if len(missing) > 0 {
			fmt.Fprintf(f.stderr, "mcpscope: --elicit-answers lacks the required %s %s, which have no default; cancelled\n", plural.Noun(len(missing), "field"), strings.Join(missing, ", "))
			return client.ElicitResponse{Action: "cancel"}, nil
		}
		data, _ := json.Marshal(content)
		return client.ElicitResponse{Action: "accept", Content: data}, nil
	}
	return f.askFields(ctx, msg, fields)
}

// askFields asks on the terminal, one field at a time; enter takes the default.
func (f *interactFlags) askFields(ctx context.Context, msg string, fields []schemaField) (client.ElicitResponse, error) {
	fmt.Fprintf(f.stderr, "The server asks: %s\n(enter accepts the [default]; type :decline or :cancel to refuse)\n", msg)
	content := map[string]json.RawMessage{}
	for _, fl := range fields {
		for {
			label := fl.Name
			if fl.Title != "" {
				label = termsafe.Line(fl.Title) + " (" + fl.Name + ")"
			}
			if fl.Required {
				label += " *"
			}
			hint := fl.Type
			if len(fl.Enum) > 0 {
				hint = strings.Join(fl.Enum, "|")
			}
			def := ""
			if len(fl.Default) > 0 {
				def = " [" + termsafe.Line(string(fl.Default)) + "]"
			}
			fmt.Fprintf(f.stderr, "  %s <%s>%s: ", label, termsafe.Line(hint), def)
			line, err := f.in.ReadString('\n')
			if err != nil && line == "" {
				return client.ElicitResponse{Action: "cancel"}, nil
			}
			if ctx.Err() != nil {
				return client.ElicitResponse{}, ctx.Err()
			}
			line = strings.TrimRight(line, "\r\n")
			switch line {
			case ":decline":
				return client.ElicitResponse{Action: "decline"}, nil
			case ":cancel":
				return client.ElicitResponse{Action: "cancel"}, nil
			case "":
				if len(fl.Default) > 0 {
					content[fl.Name] = fl.Default
				} else if fl.Required {
					fmt.Fprintln(f.stderr, "  (required)")
					continue
				}
			default:
				v, err := fieldValue(fl, line)
				if err != nil {
					fmt.Fprintf(f.stderr, "  %v\n", err)
					continue
				}
				content[fl.Name] = v
			}
			break
		}
	}
	data, _ := json.Marshal(content)
	return client.ElicitResponse{Action: "accept", Content: data}, nil
}

func fieldValue(fl schemaField, s string) (json.RawMessage, error) {
	switch fl.Type {
	case "integer":
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not an integer", s)
		}
		return json.Marshal(n)
	case "number":
		n, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", s)
		}
		return json.Marshal(n)
	case "boolean":
		switch strings.ToLower(s) {
		case "y", "yes", "true":
			return json.RawMessage("true"), nil
		case "n", "no", "false":
			return json.RawMessage("false"), nil
		}
		return nil, fmt.Errorf("answer yes or no")
	case "array":
		var items []string
		for _, p := range strings.Split(s, ",") {
			items = append(items, strings.TrimSpace(p))
		}
		return json.Marshal(items)
	}
	if len(fl.Enum) > 0 {
		ok := false
		for _, e := range fl.Enum {
			ok = ok || e == s
		}
		if !ok {
			return nil, fmt.Errorf("choose one of %s", strings.Join(fl.Enum, ", "))
		}
	}
	return json.Marshal(s)
}

// urlConsent shows a URL-mode request in full and opens it with $BROWSER on consent.
// A URL the browser package refuses (not http or https) is said and declined, whatever
// --elicit says: nothing was opened.
func (f *interactFlags) urlConsent(u, msg string) client.ElicitResponse {
	fmt.Fprintf(f.stderr, "mcpscope: the server asks you to open a URL: %s\n  %s\n", msg, termsafe.Line(u))
	if err := browser.Check(u); err != nil {
		fmt.Fprintf(f.stderr, "mcpscope: not opened: %s; declined\n", termsafe.Line(err.Error()))
		return client.ElicitResponse{Action: "decline"}
	}
	consent := f.elicit == "accept"
	if f.elicit == "" && f.terminal {
		fmt.Fprint(f.stderr, "Open it in $BROWSER? [y/N] ")
		line, _ := f.in.ReadString('\n')
		consent = strings.HasPrefix(strings.ToLower(strings.TrimSpace(line)), "y")
	}
	if !consent {
		action := f.elicit
		if action == "" || action == "accept" {
			action = "decline"
		}
		return client.ElicitResponse{Action: action}
	}
	openBrowser(u, f.stderr)
	return client.ElicitResponse{Action: "accept"}
}

// openBrowser opens u with $BROWSER through the browser package (http and https
// only, the URL one argument, never through a shell).
func openBrowser(u string, stderr io.Writer) {
	if _, err := browser.Open(u, os.Getenv("BROWSER")); errors.Is(err, browser.ErrNoBrowser) {
		fmt.Fprintln(stderr, "mcpscope: $BROWSER is not set; open the URL yourself")
	} else if err != nil {
		fmt.Fprintf(stderr, "mcpscope: could not start $BROWSER: %s\n", termsafe.Line(err.Error()))
	}
}

// maxSamplingShown bounds the messages printed for one sampling request.
const maxSamplingShown = 20

func (f *interactFlags) answerSampling(ctx context.Context, req client.SamplingRequest, reply string) (client.SamplingResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.sampled++
	summary := fmt.Sprintf("%s, maxTokens %d", plural.Count(len(req.Messages), "message"), req.MaxTokens)
	if len(req.Tools) > 0 {
		summary += ", with tools"
	}
	if reply != "" {
		fmt.Fprintf(f.stderr, "mcpscope: the server asked for a model reply (%s); answered with --sampling-reply\n", summary)
		return client.SamplingResponse{Text: reply}, nil
	}
	if !f.terminal {
		fmt.Fprintf(f.stderr, "mcpscope: the server asked for a model reply (%s); rejected: give --sampling-reply TEXT|@FILE to answer\n", summary)
		return client.SamplingResponse{Reject: true}, nil
	}
	fmt.Fprintf(f.stderr, "The server asks for a model reply (%s).\n", summary)
	if req.SystemPrompt != "" {
		fmt.Fprintf(f.stderr, "  system: %s\n", termsafe.Line(clipText(req.SystemPrompt, 400)))
	}
	start := 0
	if len(req.Messages) > maxSamplingShown {
		start = len(req.Messages) - maxSamplingShown
		fmt.Fprintf(f.stderr, "  (%d earlier messages not shown)\n", start)
	}
	for _, m := range req.Messages[start:] {
		for _, c := range m.Content {
			text := c.Text
			if c.Type != "text" {
				text = "[" + c.Type + "]"
			}
			fmt.Fprintf(f.stderr, "  %s: %s\n", termsafe.Line(m.Role), termsafe.Line(clipText(text, 400)))
		}
	}
	fmt.Fprint(f.stderr, "Your reply (empty rejects): ")
	line, err := f.in.ReadString('\n')
	if ctx.Err() != nil {
		return client.SamplingResponse{}, ctx.Err()
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" || err != nil && line == "" {
		return client.SamplingResponse{Reject: true}, nil
	}
	return client.SamplingResponse{Text: line}, nil
}

func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
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
// in full, each opened with $BROWSER on consent.
func (f *interactFlags) urlElicitationErr(err error) error {
	var re *client.RPCError
	if !errors.As(err, &re) || re.Code != -32042 {
		return err
	}
	var data struct {
		Elicitations []struct {
			Mode    string `json:"mode"`
			URL     string `json:"url"`
			Message string `json:"message"`
		} `json:"elicitations"`
	}
	_ = json.Unmarshal(re.Data, &data)
	if len(data.Elicitations) == 0 {
		return err
	}
	for _, e := range data.Elicitations {
		f.urlConsent(e.URL, termsafe.Line(e.Message))
	}
	return &exitError{code: exitRPCError, msg: "the server needs you to complete the step at the URL above first (error -32042); run the command again once it is done"}
}
