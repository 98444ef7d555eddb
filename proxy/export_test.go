package proxy

// SetMaxCapturedReply lowers maxCapturedReply for a test; the returned
// function restores it.
func SetMaxCapturedReply(n int64) (restore func()) {
	old := maxCapturedReply
	maxCapturedReply = n
	return func() { maxCapturedReply = old }
}
