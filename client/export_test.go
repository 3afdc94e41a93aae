package client

// SetAfterCallTool sets a hook that Call runs between the SDK's return and the
// reading of the captured answer (tests only).
func SetAfterCallTool(s *Session, f func()) { s.afterCallTool = f }
