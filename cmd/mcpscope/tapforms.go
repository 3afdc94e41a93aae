package main

// The forms of `mcpscope tap` built in files of their own, hooked into runTap's
// dispatch (tap.go): tap wrap/unwrap NAME (tapwrap.go) and tap --listen ADDR URL
// (taplisten.go).
func init() {
	tapWrap, tapUnwrap, tapListen = runTapWrap, runTapUnwrap, runTapListen
}
