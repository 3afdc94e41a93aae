package replay

import (
	"encoding/json"
	"strings"
	"testing"
)

func matcher(t *testing.T, extra ...string) *Matcher {
	t.Helper()
	ps, err := parsePatterns(append(append([]string{}, DefaultIgnore...), extra...))
	if err != nil {
		t.Fatal(err)
	}
	return newMatcher(ps)
}

func paths(ds []Diff) string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Path)
	}
	return strings.Join(out, " ")
}

func TestCompare(t *testing.T) {
	cases := []struct {
		name      string
		ignore    []string
		exp, got  string
		wantPaths string
	}{
		{"equal apart from id", nil, `{"jsonrpc":"2.0","id":1,"result":{"a":1}}`, `{"jsonrpc":"2.0","id":"mcpscope-7","result":{"a":1}}`, ""},
		{"member order and spacing", nil, `{"result":{"a":1,"b":[1,2]}}`, `{ "result" : { "b":[1, 2], "a":1 } }`, ""},
		{"numbers by value", nil, `{"result":{"n":1.0,"m":100}}`, `{"result":{"n":1,"m":1e2}}`, ""},
		{"one value", nil, `{"result":{"content":[{"type":"text","text":"hi"}]}}`, `{"result":{"content":[{"type":"text","text":"ho"}]}}`, "/result/content/0/text"},
		{"absent member", nil, `{"result":{"a":1,"b":2}}`, `{"result":{"a":1}}`, "/result/b"},
		{"extra element", nil, `{"result":{"l":[1]}}`, `{"result":{"l":[1,2]}}`, "/result/l/1"},
		{"type change", nil, `{"result":{"a":"1"}}`, `{"result":{"a":1}}`, "/result/a"},
		{"JSON in a text block", nil,
			`{"result":{"content":[{"type":"text","text":"{\"temp\":20,\"city\":\"Oslo\"}"}]}}`,
			`{"result":{"content":[{"type":"text","text":"{\n  \"city\": \"Oslo\",\n  \"temp\": 21\n}"}]}}`,
			"/result/content/0/text/temp"},
		{"ignored inside a text block", []string{"/result/content/*/text/temp"},
			`{"result":{"content":[{"type":"text","text":"{\"temp\":20,\"city\":\"Oslo\"}"}]}}`,
			`{"result":{"content":[{"type":"text","text":"{\"temp\":21,\"city\":\"Oslo\"}"}]}}`, ""},
		{"wildcard segment", []string{"/result/tools/*/description"},
			`{"result":{"tools":[{"name":"a","description":"x"},{"name":"b","description":"y"}]}}`,
			`{"result":{"tools":[{"name":"a","description":"X"},{"name":"c","description":"Y"}]}}`, "/result/tools/1 /result/tools/1"},
		// A listing compares by name: a tool added at the front is one difference (at
		// its live position), and the rest compare with their own recorded selves.
		{"a tool added at the front", nil,
			`{"result":{"tools":[{"name":"a","description":"x"},{"name":"b","description":"y"}]}}`,
			`{"result":{"tools":[{"name":"new","description":"n"},{"name":"a","description":"x"},{"name":"b","description":"Y"}]}}`,
			"/result/tools/1/description /result/tools/0"},
		{"resources by uri, templates by uriTemplate, whatever the order", nil,
			`{"result":{"resources":[{"uri":"a://1","name":"one"},{"uri":"a://2","name":"two"}],"resourceTemplates":[{"uriTemplate":"t://{x}"},{"uriTemplate":"u://{y}"}]}}`,
			`{"result":{"resources":[{"uri":"a://2","name":"two"},{"uri":"a://1","name":"one"}],"resourceTemplates":[{"uriTemplate":"u://{y}"},{"uriTemplate":"t://{x}"}]}}`,
			""},
		{"a prompt gone", nil,
			`{"result":{"prompts":[{"name":"p"},{"name":"q"}]}}`, `{"result":{"prompts":[{"name":"q"}]}}`, "/result/prompts/0"},
		{"names that repeat compare by position", nil,
			`{"result":{"tools":[{"name":"a","d":1},{"name":"a","d":2}]}}`, `{"result":{"tools":[{"name":"a","d":2},{"name":"a","d":1}]}}`,
			"/result/tools/0/d /result/tools/1/d"},
		{"not a listing: content keeps its order", nil,
			`{"result":{"content":[{"type":"resource_link","name":"a","uri":"x://a"},{"type":"resource_link","name":"b","uri":"x://b"}]}}`,
			`{"result":{"content":[{"type":"resource_link","name":"b","uri":"x://b"},{"type":"resource_link","name":"a","uri":"x://a"}]}}`,
			"/result/content/0/name /result/content/0/uri /result/content/1/name /result/content/1/uri"},
		{"double star", []string{"**/timestamp"},
			`{"result":{"a":{"timestamp":1,"b":[{"timestamp":2}]}}}`, `{"result":{"a":{"timestamp":3,"b":[{"timestamp":4}]}}}`, ""},
		{"glob inside a segment", []string{"/result/_meta/io.modelcontextprotocol~1*"},
			`{"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"version":"1"},"k":1}}}`,
			`{"result":{"_meta":{"io.modelcontextprotocol/serverInfo":{"version":"2"},"k":2}}}`, "/result/_meta/k"},
		{"progress token and _meta timing", nil,
			`{"params":{"progressToken":"a","progress":1,"_meta":{"timestamp":"2020","startedAt":1,"durationMs":5,"count":1}}}`,
			`{"params":{"progressToken":"b","progress":1,"_meta":{"timestamp":"2021","startedAt":2,"durationMs":6,"count":2}}}`,
			"/params/_meta/count"},
		{"escaped pointer", nil, `{"result":{"a/b":{"~":1}}}`, `{"result":{"a/b":{"~":2}}}`, "/result/a~1b/~0"},
		{"error vs result", nil, `{"id":1,"result":{}}`, `{"id":1,"error":{"code":-32601,"message":"x"}}`, "/error /result"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ds := matcher(t, c.ignore...).Compare([]byte(c.exp), []byte(c.got))
			if got := paths(ds); got != c.wantPaths {
				t.Errorf("paths %q, want %q\n%+v", got, c.wantPaths, ds)
			}
		})
	}
	ds := matcher(t).Compare([]byte(`{"result":{"content":[{"text":"hi"}]}}`), []byte(`{"result":{"content":[{"text":"ho"}]}}`))
	if len(ds) != 1 || ds[0].Expected != `"hi"` || ds[0].Got != `"ho"` {
		t.Errorf("diff %+v", ds)
	}
	// --strict-order: a listing by position.
	strict := matcher(t)
	strict.listsByPosition = true
	if got := paths(strict.Compare([]byte(`{"result":{"tools":[{"name":"a"},{"name":"b"}]}}`), []byte(`{"result":{"tools":[{"name":"b"},{"name":"a"}]}}`))); got != "/result/tools/0/name /result/tools/1/name" {
		t.Errorf("by position: paths %q", got)
	}
	ds = matcher(t).Compare([]byte(`{"result":{"a":1}}`), []byte(`{"result":{}}`))
	if ds[0].Got != "(absent)" {
		t.Errorf("absent shown as %q", ds[0].Got)
	}
}

func TestCompareAcrossEras(t *testing.T) {
	legacy := `{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"echo"}]}}`
	modern := `{"jsonrpc":"2.0","id":"mcpscope-1","result":{"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"h","version":"1"}},"ttlMs":0,"cacheScope":"public","tools":[{"name":"echo"}]}}`
	m := matcher(t)
	if ds := m.Compare([]byte(legacy), []byte(modern)); len(ds) != 4 {
		t.Errorf("same era: want 4 differences, got %+v", ds)
	}
	extra, _ := parsePatterns(eraIgnore)
	m.patterns = append(m.patterns, extra...)
	m.eraLenient = true
	if ds := m.Compare([]byte(legacy), []byte(modern)); len(ds) != 0 {
		t.Errorf("across eras: %+v", ds)
	}
	inputRequired := strings.Replace(modern, `"complete"`, `"input_required"`, 1)
	if ds := m.Compare([]byte(legacy), []byte(inputRequired)); paths(ds) != "/result/resultType" {
		t.Errorf("a resultType other than complete must show: %+v", ds)
	}
}

func TestPatternErrors(t *testing.T) {
	for _, bad := range []string{"result/x", ":/x", "now:result"} {
		if err := CheckPatterns([]string{bad}); err == nil || !strings.Contains(err.Error(), "JSON pointer") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	ps, err := parsePatterns([]string{"now:/result/x", "notifications/message:**/data", "/id"})
	if err != nil || ps[0].scope != "now" || strings.Join(ps[0].segs, ",") != "result,x" || ps[1].scope != "notifications/message" || ps[1].segs[0] != "**" || ps[2].scope != "" {
		t.Errorf("%v %+v", err, ps)
	}
}

func raws(ss ...string) []json.RawMessage {
	var out []json.RawMessage
	for _, s := range ss {
		out = append(out, json.RawMessage(s))
	}
	return out
}

func TestCompareNotifications(t *testing.T) {
	p := func(n int, tok string) string {
		return `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"` + tok + `","progress":` + string(rune('0'+n)) + `}}`
	}
	logm := func(s string) string {
		return `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"` + s + `"}}`
	}
	m := matcher(t)
	exp := raws(p(1, "a"), p(2, "a"), logm("x"))
	// Another order, other tokens: equal as a multiset.
	if d := compareNotifications(m, nil, exp, raws(logm("x"), p(2, "b"), p(1, "b")), false); len(d) != 0 {
		t.Errorf("multiset: %+v", d)
	}
	// In order, the same is a difference.
	if d := compareNotifications(m, nil, exp, raws(logm("x"), p(2, "b"), p(1, "b")), true); len(d) == 0 {
		t.Error("strict order saw no difference")
	}
	// One changed value is paired with its counterpart and shown by path.
	d := compareNotifications(m, nil, exp, raws(p(1, "b"), p(2, "b"), logm("y")), false)
	if len(d) != 1 || d[0].In != "notifications/message #1" || d[0].Path != "/params/data" {
		t.Errorf("changed: %+v", d)
	}
	// Missing and unexpected.
	d = compareNotifications(m, nil, exp, raws(p(1, "b"), p(2, "b"), `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"x"}}`), false)
	if len(d) != 2 || d[0].Got != "(absent)" || d[1].Expected != "(absent)" {
		t.Errorf("missing/unexpected: %+v", d)
	}
	// list_changed races with responses: never compared.
	listChanged := `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`
	if d := compareNotifications(m, nil, raws(listChanged), nil, false); len(d) != 0 {
		t.Errorf("list_changed compared: %+v", d)
	}
}
