//go:build !linux

package rules

// noSymlinks reports false: the system has no one-call test that a path holds no
// symbolic link, and pathForms resolves it element by element.
func noSymlinks(string) bool { return false }
