package answer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/fields"
	"github.com/mcpscope/mcpscope/internal/browser"
	"github.com/mcpscope/mcpscope/internal/plural"
	"github.com/mcpscope/mcpscope/internal/termsafe"
)

// Field is one property of a flat elicitation schema.
type Field struct {
	Name        string
	Type        string
	Title       string
	Description string
	Default     json.RawMessage
	Enum        []string
	Required    bool
}

// Fields reads a flat elicitation schema through package fields, the one
// schema-to-fields builder (the TUI's form and inspect's coercion read schemas with it
// too), so that a $ref, an allOf or a "string or null" is asked as the TUI asks it.
// A property a flat form cannot ask for is an error that names it.
func Fields(schema json.RawMessage) ([]Field, error) {
	top, err := fields.Top(schema)
	if err != nil {
		return nil, fmt.Errorf("the requested schema is not an object: %v", err)
	}
	var out []Field
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
		out = append(out, Field{Name: p.Name, Type: p.Type, Title: p.Title, Description: p.Description,
			Default: p.Default, Enum: p.Enum, Required: p.Required})
	}
	return out, nil
}

// fillDefaults returns answers with the schema's defaults for the fields they leave
// out, and the required fields left without a value.
func fillDefaults(fs []Field, answers map[string]json.RawMessage) (map[string]json.RawMessage, []string) {
	out := map[string]json.RawMessage{}
	for k, v := range answers {
		out[k] = v
	}
	var missing []string
	for _, f := range fs {
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

// elicit answers one elicitation request: a URL to open, or a form answered by
// Elicit (with Answers) or asked on the terminal.
func (a *Answerer) elicit(ctx context.Context, req client.ElicitRequest) (client.ElicitResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	msg := termsafe.Line(req.Message)
	if req.Mode == "url" {
		return a.urlConsent(req.URL, msg), nil
	}
	fs, err := Fields(req.Schema)
	if err != nil {
		fmt.Fprintf(a.o.Out, "mcpscope: the server asks %q, but %v; declined\n", msg, err)
		return client.ElicitResponse{Action: "decline"}, nil
	}
	if a.o.Elicit != "" {
		fmt.Fprintf(a.o.Out, "mcpscope: the server asks: %s (answered %s by --elicit)\n", msg, a.o.Elicit)
		if a.o.Elicit != "accept" {
			return client.ElicitResponse{Action: a.o.Elicit}, nil
		}
		content, missing := fillDefaults(fs, a.answers)
		if len(missing) > 0 {
			fmt.Fprintf(a.o.Out, "mcpscope: --elicit-answers lacks the required %s %s, which have no default; cancelled\n", plural.Noun(len(missing), "field"), strings.Join(missing, ", "))
			return client.ElicitResponse{Action: "cancel"}, nil
		}
		data, _ := json.Marshal(content)
		return client.ElicitResponse{Action: "accept", Content: data}, nil
	}
	return a.askFields(ctx, msg, fs)
}

// askFields asks on the terminal, one field at a time; enter takes the default.
func (a *Answerer) askFields(ctx context.Context, msg string, fs []Field) (client.ElicitResponse, error) {
	fmt.Fprintf(a.o.Out, "The server asks: %s\n(enter accepts the [default]; type :decline or :cancel to refuse)\n", msg)
	content := map[string]json.RawMessage{}
	for _, fl := range fs {
		for {
			fmt.Fprintf(a.o.Out, "  %s: ", prompt(fl))
			line, err := a.in.ReadString('\n')
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
					fmt.Fprintln(a.o.Out, "  (required)")
					continue
				}
			default:
				v, err := fieldValue(fl, line)
				if err != nil {
					fmt.Fprintf(a.o.Out, "  %v\n", err)
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

// prompt is a field's question: its title (made safe) and name, * when required, the
// type or choices, and the [default].
func prompt(fl Field) string {
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
	return fmt.Sprintf("%s <%s>%s", label, termsafe.Line(hint), def)
}

// fieldValue reads a typed line as the field's JSON value.
func fieldValue(fl Field, s string) (json.RawMessage, error) {
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
func (a *Answerer) urlConsent(u, msg string) client.ElicitResponse {
	fmt.Fprintf(a.o.Out, "mcpscope: the server asks you to open a URL: %s\n  %s\n", msg, termsafe.Line(u))
	if err := browser.Check(u); err != nil {
		fmt.Fprintf(a.o.Out, "mcpscope: not opened: %s; declined\n", termsafe.Line(err.Error()))
		return client.ElicitResponse{Action: "decline"}
	}
	consent := a.o.Elicit == "accept"
	if a.o.Elicit == "" && a.o.Terminal {
		fmt.Fprint(a.o.Out, "Open it in $BROWSER? [y/N] ")
		line, _ := a.in.ReadString('\n')
		consent = strings.HasPrefix(strings.ToLower(strings.TrimSpace(line)), "y")
	}
	if !consent {
		action := a.o.Elicit
		if action == "" || action == "accept" {
			action = "decline"
		}
		return client.ElicitResponse{Action: action}
	}
	a.open(u)
	return client.ElicitResponse{Action: "accept"}
}

// open opens u with Browser through the browser package (http and https only, the
// URL one argument, never through a shell).
func (a *Answerer) open(u string) {
	if _, err := browser.Open(u, a.o.Browser); errors.Is(err, browser.ErrNoBrowser) {
		fmt.Fprintln(a.o.Out, "mcpscope: $BROWSER is not set; open the URL yourself")
	} else if err != nil {
		fmt.Fprintf(a.o.Out, "mcpscope: could not start $BROWSER: %s\n", termsafe.Line(err.Error()))
	}
}

// URLRequired shows a 2025-11-25 URLElicitationRequired error (-32042): each URL in
// full, opened with Browser on consent. It reports whether err was one (with at least
// one URL); the command then says to run it again once the step is done.
func (a *Answerer) URLRequired(err error) bool {
	var re *client.RPCError
	if !errors.As(err, &re) || re.Code != -32042 {
		return false
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
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, e := range data.Elicitations {
		a.urlConsent(e.URL, termsafe.Line(e.Message))
	}
	return true
}
