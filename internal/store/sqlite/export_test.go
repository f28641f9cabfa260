package sqlite

// SetWalkThreshold lets tests force either plan of filtered listings.
func SetWalkThreshold(n int) (restore func()) {
	old := walkThreshold
	walkThreshold = n
	return func() { walkThreshold = old }
}
