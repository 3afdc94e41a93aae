package host

import (
	"slices"
	"testing"
)

// TestConformanceFixturesOnlyInTheProfile: the suite's fixtures are served with
// Conformance and never by the default host, and the profile refuses a tool file.
func TestConformanceFixturesOnlyInTheProfile(t *testing.T) {
	names := func(opts Options) []string {
		cs := connect(t, newHost(t, opts), "2025-11-25", nil)
		res, err := cs.ListTools(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tool := range res.Tools {
			out = append(out, tool.Name)
		}
		return out
	}
	plain, conf := names(Options{}), names(Options{Conformance: true})
	for _, n := range conformanceToolNames {
		if slices.Contains(plain, n) {
			t.Errorf("the default host serves the fixture %q", n)
		}
		if !slices.Contains(conf, n) {
			t.Errorf("the conformance profile does not serve %q", n)
		}
	}
	if !slices.Contains(conf, "echo") {
		t.Errorf("the conformance profile dropped the demo: %v", conf)
	}
	if _, err := New(Options{Conformance: true, ToolFile: "testdata/tools.json"}); err == nil {
		t.Error("Conformance with a tool file was accepted")
	}
}
