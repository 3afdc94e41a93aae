package tui

import tea "charm.land/bubbletea/v2"

// The lists the screen keeps for each server (prompts, skills, resources with
// templates) are asked for lazily: when their tab is first shown, of each connected
// (or idle: the request reconnects it, as a call does) server that offers them, and then again only for a new connection (a restart, a
// reconnect: the server's gen moves on), a list_changed or the user's refetch. Each
// list embeds a lazyList, the record of that: which connection it is for, whether an
// answer is awaited. An answer fetched on an older connection is dropped.

// lazyList is what a per-server list records of its fetch.
type lazyList struct {
	gen     int  // the connection (server.gen) the list is for
	loading bool // a fetch is in flight
}

func (l *lazyList) lazy() *lazyList { return l }

// perServer is a list that embeds a lazyList.
type perServer interface{ lazy() *lazyList }

// fetchAll runs fetch for each server that offers the list and can take a request:
// connected, or idle (the request reconnects it, as a call does; only showing a list
// it never had, or the user's refetch, wakes a server).
func fetchAll(servers []*server, offers func(*server) bool, fetch func(*server) tea.Cmd) tea.Cmd {
	var cmds []tea.Cmd
	for _, s := range servers {
		if s.callable() && offers(s) {
			cmds = append(cmds, fetch(s))
		}
	}
	return tea.Batch(cmds...)
}

// fetchMissing runs fetch for each server of fetchAll that has no list in lists
// for its current connection, nor one awaited from the reconnect of an idle server
// (an idle server's list from before it went idle is current: it is not woken).
func fetchMissing[L perServer](servers []*server, lists map[string]L, offers func(*server) bool, fetch func(*server) tea.Cmd) tea.Cmd {
	return fetchAll(servers, func(s *server) bool {
		l, ok := lists[s.name]
		return offers(s) && (!ok || !s.answers(l.lazy().gen))
	}, fetch)
}

// listFor is the list of s for the connection a request sent now is answered on
// (reqGen), marked loading: a new, empty
// one after a restart; the one shown, kept until the answer replaces it, when it is
// fetched again on the same connection.
func listFor[T any, L interface {
	*T
	perServer
}](lists map[string]L, s *server) L {
	l, ok := lists[s.name]
	if !ok || l.lazy().gen != s.reqGen() {
		l = new(T)
		l.lazy().gen = s.reqGen()
		lists[s.name] = l
	}
	l.lazy().loading = true
	return l
}

// answerFor is the list an answer fetched on connection gen of server fills, and
// false when it is stale: the server removed, or connected again since. The answer
// of an idle server's reconnect may come before its connecting status: it is for
// reqGen then.
func answerFor[L perServer](m *model, lists map[string]L, server string, gen int) (L, bool) {
	s := m.server(server)
	l, ok := lists[server]
	if !ok || !s.answers(gen) || l.lazy().gen != gen {
		var none L
		return none, false
	}
	return l, true
}
