package confine

// SetMaxWalked sets the bound of the walk for a test, and returns what restores it.
func SetMaxWalked(n int) (restore func()) {
	old := maxWalked
	maxWalked = n
	return func() { maxWalked = old }
}
