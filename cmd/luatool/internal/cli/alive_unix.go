//go:build unix

package cli

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process with this pid exists (signal 0 checks
// without sending anything; a process of another user answers EPERM).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
