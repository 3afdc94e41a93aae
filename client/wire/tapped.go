package wire

// tapOnly reports whether a received message is for the tap's listeners alone and is
// not handed to the SDK: a notifications/message.
//
// Why: the client takes log messages from the tap, in wire order (client's
// onNotification, which calls Options.OnLog), and gives the SDK no handler for them.
// The SDK would still decode each one into its own types and dispatch it on a
// goroutine of its own, only to drop it; under a log flood that per-notification cost
// was the ceiling of the whole path (issue 23: a bare go-sdk client reads about
// 5,000–9,000 logs/s on a 2-core machine, which is what the workbench was held to).
// The frame has been emitted to the tap before this is asked, so Traffic, the
// recording, --trace and Logs see it as before. Only a notification: a request or a
// response that names this method stays the SDK's.
func tapOnly(env envelope) bool {
	return bool(env.Method) && env.ID == nil && env.MethodName == "notifications/message"
}
