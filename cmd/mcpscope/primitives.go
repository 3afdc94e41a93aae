package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/mcpscope/mcpscope/apps"
	"io"
	"regexp"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/inspect"
	"github.com/mcpscope/mcpscope/internal/termsafe"
)

// exitVerify: a skill file failed its digest, size or frontmatter check.
const exitVerify = 5

// qualifiedURI matches SERVER/URI: a server name, then a URI with a scheme.
var qualifiedURI = sync.OnceValue(func() *regexp.Regexp { // on first use: see traceparentForm
	return regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z][A-Za-z0-9+.-]*:`)
})

// server picks the one server of the command, as call does: the command line's
// target, or the SERVER/ prefix of the first positional (SERVER/NAME, SERVER/URI).
// The prefix is removed from the positional.
func (p *primCmd) server(ctx context.Context, args, argv []string) (namedServer, error) {
	if len(p.pos) > 0 {
		first := p.pos[0]
		qualified := strings.Contains(first, "://") && qualifiedURI().MatchString(first) || !strings.Contains(first, ":") && strings.Contains(first, "/")
		if qualified {
			srv, rest, err := p.c.callServer(ctx, args, argv, first)
			if err != nil {
				return namedServer{}, err
			}
			p.pos[0] = rest
			return srv, nil
		}
	}
	servers, err := p.c.namedServers(ctx, args, argv)
	if err != nil {
		return namedServer{}, err
	}
	if len(servers) != 1 {
		var names []string
		for _, s := range servers {
			names = append(names, s.spec.Name)
		}
		return namedServer{}, usageErr("%s works on one server; %d are named (%s): prefix the name or URI with SERVER/", p.fs.Name(), len(servers), strings.Join(names, ", "))
	}
	return servers[0], servers[0].err
}

// primCmd is what every command of this file shares: the common flags, the answers
// to server requests, and the positionals before the server.
type primCmd struct {
	c       common
	ia      interactFlags
	fs      *flag.FlagSet
	pos     []string
	s       *client.Session
	out     io.Writer
	saveDir string // read --save-dir
}

// start parses args (npos positionals before the server; -1: any number of key=value
// pairs after the first) and connects.
func (p *primCmd) start(ctx context.Context, name string, args []string, npos int, extra func(*flag.FlagSet), stdout, stderr io.Writer) (func(), error) {
	p.fs = flag.NewFlagSet(name, flag.ContinueOnError)
	p.c.register(p.fs, "text")
	p.ia.register(p.fs)
	if extra != nil {
		extra(p.fs)
	}
	pos, argv, err := parse(p.fs, args, func(pos []string, arg string) bool {
		if npos < 0 {
			return len(pos) >= 1 && !strings.Contains(arg, "=")
		}
		return len(pos) >= npos
	})
	if err != nil {
		return nil, err
	}
	p.pos = pos
	switch p.c.format {
	case "text", "table":
		p.c.format = "text"
	case inspect.FormatJSON:
	default:
		return nil, usageErr("--format %q: use text or json", p.c.format)
	}
	if err := inspect.CheckSaveDir(p.saveDir); err != nil { // read's, before a server starts
		return nil, usageErr("%v", err)
	}
	srv, err := p.server(ctx, args, argv)
	if err != nil {
		return nil, err
	}
	s, done, err := connect(ctx, p.c.withTimeout(srv.spec), srv.spec.Target, stderr, func(o *client.Options) error { return p.ia.apply(o, stderr) })
	if err != nil {
		return nil, err
	}
	p.s = s
	p.out = stdout
	if isTerminal(stdout) {
		p.out = termsafe.NewWriter(stdout)
	}
	return done, nil
}

func (p *primCmd) json(v any) error {
	enc := json.NewEncoder(p.out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func nonNil(p []string) []string {
	if p == nil {
		return []string{}
	}
	return p
}

func warnProblems(stderr io.Writer, problems []string) {
	for _, pr := range problems {
		fmt.Fprintln(stderr, "mcpscope: problem: "+termsafe.Line(pr))
	}
}

// needCapability fails with a clear message when the server lacks a capability.
func needCapability(s *client.Session, name, what string) error {
	if !s.HasCapability(name) {
		return &exitError{code: exitServer, msg: fmt.Sprintf("the server does not offer %s (no %q capability)", what, name)}
	}
	return nil
}

// ResourceJSON is one resource in --format json (and in --inspect).
type ResourceJSON = inspect.ResourceJSON

func runResources(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var p primCmd
	done, err := p.start(ctx, "resources", args, 0, nil, stdout, stderr)
	if err != nil {
		return err
	}
	defer done()
	if err := needCapability(p.s, "resources", "resources"); err != nil {
		return err
	}
	list, err := p.s.Resources(ctx)
	if err != nil {
		return err
	}
	if p.c.format == inspect.FormatJSON {
		return p.json(map[string]any{"formatVersion": inspect.FormatVersion, "resources": inspect.Resources(list.Items), "pages": list.Pages, "problems": nonNil(list.Problems)})
	}
	inspect.WriteResources(p.out, list.Items)
	warnProblems(stderr, list.Problems)
	return nil
}

func runTemplates(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var p primCmd
	done, err := p.start(ctx, "templates", args, 0, nil, stdout, stderr)
	if err != nil {
		return err
	}
	defer done()
	if err := needCapability(p.s, "resources", "resource templates"); err != nil {
		return err
	}
	list, err := p.s.ResourceTemplates(ctx)
	if err != nil {
		return err
	}
	if p.c.format == inspect.FormatJSON {
		return p.json(map[string]any{"formatVersion": inspect.FormatVersion, "resourceTemplates": inspect.Templates(list.Items), "pages": list.Pages, "problems": nonNil(list.Problems)})
	}
	inspect.WriteTemplates(p.out, list.Items)
	warnProblems(stderr, list.Problems)
	return nil
}

func runPrompts(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var p primCmd
	done, err := p.start(ctx, "prompts", args, 0, nil, stdout, stderr)
	if err != nil {
		return err
	}
	defer done()
	if err := needCapability(p.s, "prompts", "prompts"); err != nil {
		return err
	}
	list, err := p.s.Prompts(ctx)
	if err != nil {
		return err
	}
	if p.c.format == inspect.FormatJSON {
		return p.json(map[string]any{"formatVersion": inspect.FormatVersion, "prompts": inspect.Prompts(list.Items), "pages": list.Pages, "problems": nonNil(list.Problems)})
	}
	inspect.WritePrompts(p.out, list.Items)
	warnProblems(stderr, list.Problems)
	return nil
}

func runRead(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var p primCmd
	var subscribe bool
	var updates int
	done, err := p.start(ctx, "read", args, 1, func(fs *flag.FlagSet) {
		fs.BoolVar(&subscribe, "subscribe", false, "subscribe to the resource and print it again on each update")
		fs.IntVar(&updates, "updates", 1, "with --subscribe: stop after this many updates (0: until interrupted)")
		fs.StringVar(&p.saveDir, "save-dir", "", "write each of the resource's contents (a blob's bytes, a text) to a file here")
	}, stdout, stderr)
	if err != nil {
		return err
	}
	defer done()
	if len(p.pos) != 1 {
		return usageErr("read needs one URI: mcpscope read URI [flags] -- CMD [ARGS...]")
	}
	uri := p.pos[0]
	r, err := p.s.Read(ctx, uri)
	if err != nil {
		return p.ia.urlElicitationErr(err)
	}
	if err := p.writeRead(uri, r, stderr); err != nil {
		return err
	}
	if !subscribe {
		return readVerdict(r)
	}
	return p.follow(ctx, uri, updates, stderr)
}

// follow subscribes to uri and re-reads it on each notifications/resources/updated.
func (p *primCmd) follow(ctx context.Context, uri string, updates int, stderr io.Writer) error {
	// The session was made before the subscription: updates arrive through the tap.
	ch := make(chan struct{}, 16)
	stop := p.s.Tap().Listen(func(e wireEvent) {
		if isUpdated(e, uri) {
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	})
	defer stop()
	if err := p.s.Subscribe(ctx, uri); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "mcpscope: subscribed to %s; waiting for updates (interrupt to stop)\n", termsafe.Line(uri))
	for n := 0; updates == 0 || n < updates; n++ {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch:
		}
		fmt.Fprintf(stderr, "mcpscope: %s was updated\n", termsafe.Line(uri))
		r, err := p.s.Read(ctx, uri)
		if err != nil {
			return err
		}
		if err := p.writeRead(uri, r, stderr); err != nil {
			return err
		}
	}
	uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5e9)
	defer cancel()
	_ = p.s.Unsubscribe(uctx, uri)
	return nil
}

func (p *primCmd) writeRead(uri string, r *client.ReadResult, stderr io.Writer) error {
	saved := map[int]string{}
	if p.saveDir != "" {
		for i, c := range r.Contents {
			if !c.HasText && !c.HasBlob {
				continue // said among the problems
			}
			data, err := c.Bytes()
			if err != nil {
				fmt.Fprintf(stderr, "mcpscope: %s: %v; not saved\n", termsafe.Line(c.URI), err)
				continue
			}
			path, err := inspect.SaveContents(p.saveDir, c.URI, i, c.MIMEType, data)
			if err != nil {
				return err
			}
			saved[i] = path
			if p.c.format == inspect.FormatJSON || c.HasText {
				// JSON says nothing of files, and a text is printed as it is: the path
				// goes to stderr.
				fmt.Fprintf(stderr, "mcpscope: saved %s (%s) to %s\n", termsafe.Line(c.URI), termsafe.Line(orDash(c.MIMEType)), termsafe.Line(path))
			}
		}
	}
	if p.c.format == inspect.FormatJSON {
		return p.json(map[string]any{"formatVersion": inspect.FormatVersion, "uri": uri, "contents": inspect.Contents(r.Contents), "problems": nonNil(r.Problems)})
	}
	for i, c := range r.Contents {
		if len(r.Contents) > 1 {
			fmt.Fprintf(p.out, "── %s (%s) ──\n", termsafe.Line(c.URI), termsafe.Line(orDash(c.MIMEType)))
		}
		switch {
		case c.HasText:
			io.WriteString(p.out, c.Text)
			if !strings.HasSuffix(c.Text, "\n") {
				io.WriteString(p.out, "\n")
			}
		case c.HasBlob:
			n := base64.StdEncoding.DecodedLen(len(c.Blob))
			if b, err := base64.StdEncoding.DecodeString(c.Blob); err == nil {
				n = len(b)
			}
			where := ""
			if path, ok := saved[i]; ok {
				where = ", saved to " + termsafe.Line(path)
			}
			fmt.Fprintf(p.out, "[blob %d: %s, %s%s]\n", i, termsafe.Line(orDash(c.MIMEType)), humanSize(n), where)
		default:
			fmt.Fprintf(p.out, "[contents %d of an unknown shape: %s]\n", i, termsafe.Line(string(c.Raw)))
		}
	}
	if len(r.Contents) == 0 {
		fmt.Fprintln(p.out, "(the resource has no contents)")
	}
	warnProblems(stderr, r.Problems)
	return nil
}

// readVerdict: a read none of whose contents is text or a blob failed.
func readVerdict(r *client.ReadResult) error {
	for _, c := range r.Contents {
		if c.HasText || c.HasBlob {
			return nil
		}
	}
	if len(r.Contents) == 0 {
		return nil
	}
	return &exitError{code: exitServer, msg: "the server's contents have neither text nor blob; nothing could be read (see the problems above)"}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func humanSize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

func pairsToMap(pairs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range pairs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, usageErr("%q: give key=value", kv)
		}
		out[k] = v
	}
	return out, nil
}

func runPrompt(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var p primCmd
	done, err := p.start(ctx, "prompt", args, -1, nil, stdout, stderr)
	if err != nil {
		return err
	}
	defer done()
	if len(p.pos) == 0 {
		return usageErr("prompt needs a name: mcpscope prompt NAME [key=value ...] -- CMD [ARGS...]")
	}
	name := p.pos[0]
	values, err := pairsToMap(p.pos[1:])
	if err != nil {
		return err
	}
	// The list says which arguments are required, and lets an unknown name fail with
	// the names there are. A server whose list fails still gets the request.
	if list, lerr := p.s.Prompts(ctx); lerr == nil {
		var found *client.Prompt
		var names []string
		for i := range list.Items {
			names = append(names, list.Items[i].Name)
			if list.Items[i].Name == name {
				found = &list.Items[i]
			}
		}
		if found == nil {
			return usageErr("the server has no prompt %q; it has: %s", name, strings.Join(names, ", "))
		}
		var missing []string
		for _, a := range found.Arguments {
			if _, ok := values[a.Name]; !ok && a.Required {
				missing = append(missing, a.Name)
			}
		}
		if len(missing) > 0 {
			return usageErr("prompt %q needs %s (give key=value)", name, strings.Join(missing, ", "))
		}
	}
	r, err := p.s.GetPrompt(ctx, name, values)
	if err != nil {
		return p.ia.urlElicitationErr(err)
	}
	if r.ResultType == "input_required" {
		return inputRequiredErr(&client.CallResult{ResultType: r.ResultType, Raw: r.Raw})
	}
	if p.c.format == inspect.FormatJSON {
		return p.json(map[string]any{"formatVersion": inspect.FormatVersion, "name": name, "description": r.Description, "messages": inspect.Messages(r.Messages), "problems": nonNil(r.Problems)})
	}
	if r.Description != "" {
		fmt.Fprintf(p.out, "%s\n\n", termsafe.Line(r.Description))
	}
	for _, m := range r.Messages {
		fmt.Fprintf(p.out, "── %s ──\n", termsafe.Line(m.Role))
		cr := &client.CallResult{Content: m.Content}
		if err := inspect.WriteResult(p.out, inspect.CallOutput{Format: "text", Tool: name}, cr); err != nil {
			return err
		}
	}
	if len(r.Messages) == 0 {
		fmt.Fprintln(p.out, "(the prompt has no messages)")
	}
	warnProblems(stderr, r.Problems)
	return nil
}

func runComplete(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var p primCmd
	var promptName, tmpl string
	done, err := p.start(ctx, "complete", args, -1, func(fs *flag.FlagSet) {
		fs.StringVar(&promptName, "prompt", "", "complete an argument of this prompt")
		fs.StringVar(&tmpl, "template", "", "complete a variable of this resource template (its URI template)")
	}, stdout, stderr)
	if err != nil {
		return err
	}
	defer done()
	if (promptName == "") == (tmpl == "") {
		return usageErr("complete needs --prompt NAME or --template URI-TEMPLATE, then ARG[=PREFIX] [earlier=value ...]")
	}
	if len(p.pos) == 0 {
		return usageErr("complete needs the argument to complete: ARG or ARG=PREFIX")
	}
	arg, value, _ := strings.Cut(p.pos[0], "=")
	context, err := pairsToMap(p.pos[1:])
	if err != nil {
		return err
	}
	ref := client.CompletionRef{Type: "ref/prompt", Name: promptName}
	if tmpl != "" {
		t := client.ResourceTemplate{URITemplate: tmpl}
		vars, err := t.Variables()
		if err != nil {
			return usageErr("%v", err)
		}
		known := false
		for _, v := range vars {
			known = known || v == arg
		}
		if !known {
			return usageErr("the template %q has no variable %q; it has: %s", tmpl, arg, strings.Join(vars, ", "))
		}
		ref = client.CompletionRef{Type: "ref/resource", URI: tmpl}
	}
	if err := needCapability(p.s, "completions", "completion"); err != nil {
		return err
	}
	c, err := p.s.Complete(ctx, ref, arg, value, context)
	if err != nil {
		return err
	}
	if p.c.format == inspect.FormatJSON {
		return p.json(map[string]any{"formatVersion": inspect.FormatVersion, "values": nonNil(c.Values), "total": c.Total, "hasMore": c.HasMore, "problems": nonNil(c.Problems)})
	}
	for _, v := range c.Values {
		fmt.Fprintln(p.out, termsafe.Line(v))
	}
	if c.HasMore {
		fmt.Fprintln(stderr, "mcpscope: the server has more values")
	}
	warnProblems(stderr, c.Problems)
	return nil
}

func runSkills(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var p primCmd
	done, err := p.start(ctx, "skills", args, 0, nil, stdout, stderr)
	if err != nil {
		return err
	}
	defer done()
	if !p.s.HasSkills() {
		return &exitError{code: exitServer, msg: "the server does not declare the skills extension (" + client.SkillsExtension + ")"}
	}
	list, err := p.s.Skills(ctx)
	if err != nil {
		return err
	}
	if p.c.format == inspect.FormatJSON {
		return p.json(map[string]any{"formatVersion": inspect.FormatVersion, "skills": inspect.Skills(list.Items), "problems": nonNil(list.Problems)})
	}
	inspect.WriteSkills(p.out, list.Items)
	warnProblems(stderr, list.Problems)
	return nil
}

func runSkill(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var p primCmd
	done, err := p.start(ctx, "skill", args, 1, nil, stdout, stderr)
	if err != nil {
		return err
	}
	defer done()
	if len(p.pos) != 1 {
		return usageErr("skill needs a skill's URI or name: mcpscope skill skill://NAME/SKILL.md -- CMD [ARGS...]")
	}
	want := p.pos[0]
	if !strings.Contains(want, "://") {
		want = "skill://" + want + "/SKILL.md"
	}
	if !p.s.HasSkills() {
		return &exitError{code: exitServer, msg: "the server does not declare the skills extension (" + client.SkillsExtension + ")"}
	}
	// The listing is what each file is checked against.
	var skill *client.Skill
	list, err := p.s.Skills(ctx)
	if err != nil {
		return err
	}
	var names []string
	for i := range list.Items {
		names = append(names, list.Items[i].URI)
		if list.Items[i].URI == want {
			skill = &list.Items[i]
		}
	}
	if skill == nil {
		k, gerr := p.s.GetSkill(ctx, want)
		if gerr != nil {
			return usageErr("the server lists no skill %q (it lists: %s)", want, strings.Join(names, ", "))
		}
		skill = k
	}
	warnProblems(stderr, skill.Problems)
	loaded, err := p.s.LoadSkill(ctx, *skill)
	var ve *client.VerifyError
	if errors.As(err, &ve) {
		return &exitError{code: exitVerify, msg: termsafe.Line(ve.Error())}
	}
	if err != nil {
		return err
	}
	warnProblems(stderr, loaded.Problems)
	if skill.Dynamic && !p.s.HasDirectoryRead() {
		fmt.Fprintln(stderr, "mcpscope: the skill's files are \"dynamic\" and the server does not declare directoryRead (resources/directory/read): only SKILL.md was read")
	}
	if p.c.format == inspect.FormatJSON {
		files := []map[string]any{}
		for _, f := range append([]client.SkillFileContent{loaded.SkillMD}, loaded.Files...) {
			files = append(files, map[string]any{"uri": f.File.URI, "digest": f.File.Digest, "size": f.File.Size, "verified": f.File.Digest != "", "text": f.Text})
		}
		return p.json(map[string]any{"formatVersion": inspect.FormatVersion, "skill": inspect.Skills([]client.Skill{*skill})[0], "files": files, "problems": nonNil(append(append([]string(nil), skill.Problems...), loaded.Problems...))})
	}
	io.WriteString(p.out, loaded.SkillMD.Text)
	if !strings.HasSuffix(loaded.SkillMD.Text, "\n") {
		io.WriteString(p.out, "\n")
	}
	tw := tabwriter.NewWriter(p.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "\nFILE\tSIZE\tCHECK")
	for _, f := range append([]client.SkillFileContent{loaded.SkillMD}, loaded.Files...) {
		check := "digest and size match"
		if f.File.Digest == "" {
			check = "not listed (dynamic): unchecked"
			if f.File.Unlisted {
				check = "dynamic, found by resources/directory/read: unchecked"
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\n", termsafe.Line(f.File.URI), len(f.Data), check)
	}
	return tw.Flush()
}

func runTasks(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var p primCmd
	var cancelID, getID string
	done, err := p.start(ctx, "tasks", args, 0, func(fs *flag.FlagSet) {
		fs.StringVar(&cancelID, "cancel", "", "cancel this task (tasks/cancel)")
		fs.StringVar(&getID, "get", "", "show this task (tasks/get)")
	}, stdout, stderr)
	if err != nil {
		return err
	}
	defer done()
	if p.s.TaskDialect() == "" {
		return &exitError{code: exitServer, msg: "the server declares no tasks support"}
	}
	var tasks []client.Task
	var problems []string
	switch {
	case cancelID != "":
		t, err := p.s.CancelTask(ctx, cancelID)
		if err != nil {
			return err
		}
		tasks = []client.Task{*t}
	case getID != "":
		t, err := p.s.GetTask(ctx, getID)
		if err != nil {
			return err
		}
		tasks = []client.Task{*t}
	case p.s.TaskDialect() == client.Tasks2026:
		// Nothing to list with: the server lacks it (exit 1), the command line was
		// right. Say how a task is followed in this revision instead.
		return &exitError{code: exitServer, msg: "the server speaks the 2026-07-28 tasks extension, which has no tasks/list: a task's id comes in the result of the call that started it (mcpscope call TOOL --task prints it on stderr); then mcpscope tasks --get ID shows the task and mcpscope tasks --cancel ID cancels it"}
	default:
		list, err := p.s.ListTasks(ctx)
		if err != nil {
			return err
		}
		tasks, problems = list.Items, list.Problems
	}
	if p.c.format == inspect.FormatJSON {
		return p.json(map[string]any{"formatVersion": inspect.FormatVersion, "dialect": p.s.TaskDialect(), "tasks": inspect.Tasks(tasks), "problems": nonNil(problems)})
	}
	tw := tabwriter.NewWriter(p.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tSTATUS\tMESSAGE\tUPDATED")
	for _, t := range tasks {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", termsafe.Line(t.ID), termsafe.Line(t.Status), termsafe.Line(t.StatusMessage), termsafe.Line(t.LastUpdatedAt))
	}
	if len(tasks) == 0 {
		fmt.Fprintln(tw, "(no tasks)")
	}
	warnProblems(stderr, problems)
	return tw.Flush()
}

func runPing(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var p primCmd
	done, err := p.start(ctx, "ping", args, 0, nil, stdout, stderr)
	if err != nil {
		return err
	}
	defer done()
	start := time.Now()
	method, err := p.s.Ping(ctx)
	if err != nil {
		return err
	}
	rtt := time.Since(start)
	if p.c.format == inspect.FormatJSON {
		return p.json(map[string]any{"formatVersion": inspect.FormatVersion, "ok": true, "method": method, "roundTripMs": float64(rtt.Microseconds()) / 1000})
	}
	note := ""
	if method != "ping" {
		// Say why it is not a ping, so that a trace showing server/discover is expected.
		note = " (" + termsafe.Line(p.s.Info().ProtocolVersion) + " has no ping)"
	}
	fmt.Fprintf(p.out, "pong: %s answered in %s%s\n", method, rtt.Round(10*time.Microsecond), note)
	return nil
}

type wireEvent = wire.Event

// isUpdated reports whether e is a notifications/resources/updated for uri.
func isUpdated(e wire.Event, uri string) bool {
	if e.Kind != wire.KindMessage || e.Dir != wire.Recv || !strings.Contains(string(e.Data), `"notifications/resources/updated"`) {
		return false
	}
	var n struct {
		Params struct {
			URI string `json:"uri"`
		} `json:"params"`
	}
	return json.Unmarshal(e.Data, &n) == nil && n.Params.URI == uri
}

// gatherPrimitives lists what --inspect shows besides tools. A list that fails is a
// problem in the report, not a failed inspection. The MCP Apps views list's tools
// name are read and checked; what is wrong with one is a problem of each tool that
// names it.
func gatherPrimitives(ctx context.Context, s *client.Session, list *client.ToolList) *inspect.Primitives {
	p := &inspect.Primitives{Extensions: s.Extensions(), Views: checkViews(ctx, s, list)}
	note := func(what string, err error) {
		p.Problems = append(p.Problems, fmt.Sprintf("%s failed: %v", what, err))
	}
	if s.HasCapability("resources") {
		if l, err := s.Resources(ctx); err != nil {
			note("resources/list", err)
		} else {
			p.Resources, p.Problems = l.Items, append(p.Problems, l.Problems...)
		}
		if l, err := s.ResourceTemplates(ctx); err != nil {
			note("resources/templates/list", err)
		} else {
			p.Templates, p.Problems = l.Items, append(p.Problems, l.Problems...)
		}
	}
	if s.HasCapability("prompts") {
		if l, err := s.Prompts(ctx); err != nil {
			note("prompts/list", err)
		} else {
			p.Prompts, p.Problems = l.Items, append(p.Problems, l.Problems...)
		}
	}
	if s.HasSkills() {
		if l, err := s.Skills(ctx); err != nil {
			note("skills/list", err)
		} else {
			p.Skills, p.Problems = l.Items, append(p.Problems, l.Problems...)
		}
	}
	// Last: the requests a server sends right after the handshake (roots/list) have
	// been seen by now.
	p.Deprecated = s.Deprecated()
	for _, n := range p.Deprecated {
		p.Problems = append(p.Problems, "deprecated: "+n.String())
	}
	return p
}

// checkViews reads each MCP Apps view the tools name, once per URI, and adds what is
// wrong with it to the problems of the tools that name it.
func checkViews(ctx context.Context, s *client.Session, list *client.ToolList) map[string]apps.View {
	views := map[string]apps.View{}
	for i := range list.Tools {
		t := &list.Tools[i]
		uri := t.UI.ResourceURI
		if !strings.HasPrefix(uri, "ui://") {
			continue
		}
		v, ok := views[uri]
		if !ok {
			r, err := s.Read(ctx, uri)
			var contents []apps.Content
			if r != nil {
				for _, c := range r.Contents {
					contents = append(contents, apps.Content{URI: c.URI, MIMEType: c.MIMEType, Text: c.Text, HasText: c.HasText, Meta: c.Meta})
				}
			}
			v = apps.CheckView(uri, contents, err)
			views[uri] = v
		}
		for _, pr := range v.Problems {
			t.Problems = append(t.Problems, "view "+uri+": "+pr)
		}
	}
	return views
}

// callMaybeTask calls the tool, as a task when asked or when the tool requires it;
// status changes go to stderr.
func callMaybeTask(ctx context.Context, s *client.Session, t client.Tool, args json.RawMessage, asTask bool, stderr io.Writer) (*client.CallResult, error) {
	support := t.TaskSupport()
	if asTask && support == "forbidden" {
		return nil, usageErr("tool %q does not support tasks (execution.taskSupport is %q)", t.Name, support)
	}
	if support == "required" || asTask {
		if s.TaskDialect() == "" {
			return nil, &exitError{code: exitServer, msg: fmt.Sprintf("tool %q wants to run as a task, but the server declares no tasks support", t.Name)}
		}
		r, task, err := s.CallTask(ctx, t.Name, args, client.TaskOptions{
			OnStatus: func(tk client.Task) {
				msg := ""
				if tk.StatusMessage != "" {
					msg = ": " + termsafe.Line(tk.StatusMessage)
				}
				fmt.Fprintf(stderr, "mcpscope: task %s %s%s\n", termsafe.Line(tk.ID), termsafe.Line(tk.Status), msg)
			},
		})
		if err != nil {
			return nil, err
		}
		if task != nil && task.Status == "failed" && r != nil && !r.IsError {
			r.IsError = true
		}
		return r, nil
	}
	return s.Call(ctx, t.Name, args, client.CallOptions{})
}
