package workbench

// SetOverlapRestarts switches overlapped restarts after an edit (for benchmarks
// that compare); it returns the previous setting.
func SetOverlapRestarts(on bool) bool {
	old := overlapRestarts
	overlapRestarts = on
	return old
}

// SetAfterStart sets a hook that Add runs once a server's first start has begun.
func SetAfterStart(w *Workbench, f func(name string)) { w.afterStart = f }
