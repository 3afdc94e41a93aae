package browser

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestCheckAllowsOnlyWebURLs(t *testing.T) {
	for raw, want := range map[string]string{
		"https://example.com/a?b=c":           "",
		"HTTP://example.com":                  "",
		"javascript:alert(1)":                 "a javascript: URL",
		"file:///etc/passwd":                  "a file: URL",
		"--remote-debugging-port=9222":        "not an absolute URL",
		"-https://example.com":                "not a URL", // "-https" is not a scheme
		"http:///etc/passwd":                  "no host",
		"https://example.com/\x1b]52;c;x\x07": "not a URL",
		"":                                    "not an absolute URL",
	} {
		err := Check(raw)
		if (want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), want)) {
			t.Errorf("Check(%q) = %v, want %q", raw, err, want)
		}
	}
}

func TestArgvKeepsTheURLOneArgument(t *testing.T) {
	u := "https://example.com/a b?x=1;rm -rf"
	for spec, want := range map[string][]string{
		"true --new-window":             {"true", "--new-window", u},
		"mcpscope-no-such-browser:true": {"true", u},
		"true --app=%s":                 {"true", "--app=" + u},
		"  true  ":                      {"true", u},
	} {
		got, err := Argv(u, spec)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("Argv(%q) = %q, %v; want %q", spec, got, err, want)
		}
	}
	if _, err := Argv(u, ""); !errors.Is(err, ErrNoBrowser) {
		t.Errorf("no $BROWSER: %v", err)
	}
	if _, err := Argv("--remote-debugging-port=9222", "true"); err == nil {
		t.Error("an option was handed to the browser")
	}
}
