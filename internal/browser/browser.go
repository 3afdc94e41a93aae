// Package browser opens a URL a server handed over (a URL-mode elicitation, an
// authorization endpoint) in the user's browser. It is the one place that decides what
// may be opened: the workbench, the command line and the OAuth login all use it. A
// server's URL is untrusted: a javascript: or file: URL does in a browser what the
// server could not do itself, and an argument that starts with '-' is an option to the
// browser (--remote-debugging-port=9222 hands the browser to whoever connects).
package browser

import (
	"errors"
	"fmt"
	"net/url"
	"os/exec"
	"strings"
)

// ErrNoBrowser is returned when no browser command is given ($BROWSER is not set).
var ErrNoBrowser = errors.New("$BROWSER is not set")

// Check says whether raw may be opened: an absolute http or https URL with a host, as
// net/url parses it. Such a URL starts with its scheme, so it can never be read as an
// option.
func Check(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("not a URL (%v); only http and https URLs are opened", err)
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
	case "":
		return errors.New("not an absolute URL; only http and https URLs are opened")
	default:
		return fmt.Errorf("a %s: URL; only http and https URLs are opened", strings.ToLower(u.Scheme))
	}
	if u.Host == "" {
		return errors.New("the URL has no host; only http and https URLs with a host are opened")
	}
	if strings.HasPrefix(raw, "-") { // cannot happen once the scheme parsed; kept as the rule itself
		return errors.New("the URL starts with '-'")
	}
	return nil
}

// Argv is the command that opens raw with spec, a $BROWSER value: one or more commands
// separated by ':' (the first that can be found is used); in each, %s is replaced by the
// URL, else the URL is the last argument. The URL is always exactly one argument of its
// own or inside the user's own word, never split, never through a shell. It fails when
// raw is not a URL Check allows, or when no command of spec can be found.
func Argv(raw, spec string) ([]string, error) {
	if err := Check(raw); err != nil {
		return nil, err
	}
	last := ErrNoBrowser
	for _, c := range strings.Split(spec, ":") {
		words := strings.Fields(c)
		if len(words) == 0 {
			continue
		}
		if _, err := exec.LookPath(words[0]); err != nil {
			last = err
			continue
		}
		sub := false
		for i, w := range words[1:] {
			if strings.Contains(w, "%s") {
				words[i+1] = strings.ReplaceAll(w, "%s", raw)
				sub = true
			}
		}
		if !sub {
			words = append(words, raw)
		}
		return words, nil
	}
	return nil, last
}

// Open starts the browser for raw (see Argv) without waiting for it; its output is
// discarded (it must not reach the workbench's screen). It returns the command's name.
func Open(raw, spec string) (string, error) {
	argv, err := Argv(raw, spec)
	if err != nil {
		return "", err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	if err := cmd.Start(); err != nil {
		return "", err
	}
	go cmd.Wait()
	return argv[0], nil
}
