package main

// The forms of `mcpscope tap` built in files of their own, hooked into runTap's
// dispatch (tap.go): tap wrap/unwrap NAME (tapwrap.go).
func init() {
	tapWrap, tapUnwrap = runTapWrap, runTapUnwrap
}
