package workbench

// SetOverlapRestarts switches overlapped restarts after an edit (for benchmarks
// that compare); it returns the previous setting.
func SetOverlapRestarts(on bool) bool {
	old := overlapRestarts
	overlapRestarts = on
	return old
}
