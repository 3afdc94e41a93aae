package app

import (
	"reflect"
	"testing"
	"time"

	"github.com/mcpscope/mcpscope/client"
	"github.com/mcpscope/mcpscope/client/wire"
	"github.com/mcpscope/mcpscope/history"
	"github.com/mcpscope/mcpscope/target"
	"github.com/mcpscope/mcpscope/tui"
	"github.com/mcpscope/mcpscope/workbench"
)

// Every setting of the screen reaches tui.Options, under its own name, for one
// server and for several (a session of several once ran without --keep, issue 19
// item 10): a field added to Screen and not to TUI fails here, not in a user's
// session of several servers.
func TestScreenReachesEveryWorkbench(t *testing.T) {
	scr := Screen{
		Theme: "light", NoConfirm: true, Keep: 1 << 10, IdleDisconnect: time.Minute,
		Sampling: true, SamplingReply: "hi", Roots: []client.Root{{URI: "file:///tmp"}},
		History: &history.Options{}, Configured: []workbench.Spec{{Name: "gh"}}, Refused: []tui.Refused{{Name: "x", Why: "y"}},
	}
	sv := reflect.ValueOf(scr)
	for i := range sv.NumField() {
		if sv.Field(i).IsZero() {
			t.Fatalf("the test leaves Screen.%s zero: give it a value", sv.Type().Field(i).Name)
		}
	}
	s := &Session{Screen: scr, Client: client.Options{Protocol: "2025-11-25"}, OAuth: nil}
	one := []workbench.Spec{{Name: "a"}}
	two := []workbench.Spec{{Name: "a"}, {Name: "b"}}
	for name, servers := range map[string][]workbench.Spec{"one": one, "several": two} {
		o := reflect.ValueOf(s.TUI(servers, &wire.Tap{}))
		for i := range sv.NumField() {
			f := sv.Type().Field(i)
			got := o.FieldByName(f.Name)
			if !got.IsValid() {
				t.Fatalf("tui.Options has no field %s for Screen.%s", f.Name, f.Name)
			}
			if !reflect.DeepEqual(got.Interface(), sv.Field(i).Interface()) {
				t.Errorf("%s server(s): tui.Options.%s = %v, want %v", name, f.Name, got.Interface(), sv.Field(i).Interface())
			}
		}
		if got := s.TUI(servers, &wire.Tap{}); got.Client.Protocol != "2025-11-25" || len(got.Servers) != len(servers) {
			t.Errorf("%s server(s): the client options or the servers were lost: %+v", name, got)
		}
	}
}

// A one-shot command's server gets the session's client options, its config
// entry's timeout over --timeout, and the trace on its tap.
func TestClientForOneServer(t *testing.T) {
	traced := 0
	s := &Session{Client: client.Options{Timeout: time.Minute, TimeoutCap: time.Hour, Protocol: "2025-11-25"}, Trace: func(wire.Event) { traced++ }}
	tap := &wire.Tap{}
	o := s.ClientFor(workbench.Spec{Name: "gh", Target: target.Target{URL: "http://127.0.0.1:1"}, Timeout: time.Second}, tap)
	if o.Timeout != time.Second || o.TimeoutCap != 0 || o.TimeoutFrom != "the timeout of gh's config entry" || o.Protocol != "2025-11-25" || o.Tap != tap {
		t.Errorf("ClientFor = %+v", o)
	}
	tap.Emit(wire.Event{Kind: wire.KindNoise})
	if traced != 1 {
		t.Errorf("the trace saw %d events, want 1", traced)
	}
	if o := s.ClientFor(workbench.Spec{Name: "x"}, &wire.Tap{}); o.Timeout != time.Minute || o.TimeoutCap != time.Hour {
		t.Errorf("without an entry's timeout: %v/%v, want --timeout's", o.Timeout, o.TimeoutCap)
	}
}
