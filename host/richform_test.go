package host

import (
	"encoding/json"
	"testing"
)

// rich_form takes a call with only its required arguments (title, priority): the
// nested owner object, which is optional, was made from its member's default
// ({"team":"core"}) and then refused for lacking its required name. The defaults of
// the fields given are still applied.
func TestRichFormOnlyRequired(t *testing.T) {
	forEachEra(t, func(t *testing.T, version string) {
		cs := connect(t, newHost(t, Options{}), version, nil)
		res := call(t, cs, "rich_form", map[string]any{"title": "x", "priority": "low"})
		if res.IsError {
			t.Fatalf("rich_form with only its required arguments failed: %s", textOf(res))
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(textOf(res)), &got); err != nil {
			t.Fatal(err)
		}
		if got["count"] != float64(3) || got["enabled"] != true || got["owner"] != nil {
			t.Errorf("rich_form got %v; want the top-level defaults and no owner", got)
		}
		res = call(t, cs, "rich_form", map[string]any{"title": "x", "priority": "low", "owner": map[string]any{"name": "Ada"}})
		if err := json.Unmarshal([]byte(textOf(res)), &got); err != nil || res.IsError {
			t.Fatalf("rich_form with an owner: %s", textOf(res))
		}
		if owner, _ := got["owner"].(map[string]any); owner["team"] != "core" {
			t.Errorf("owner = %v; want its team default applied", got["owner"])
		}
	})
}
