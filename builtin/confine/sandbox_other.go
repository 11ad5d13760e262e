//go:build !linux

package confine

import (
	"errors"
	"os/exec"
)

// Landlock returns why there is no sandbox: Landlock is Linux's.
func Landlock() (int, error) {
	return 0, errors.New("Landlock is not available: it is a Linux security module")
}

// Start refuses: there is no sandbox on this system.
func Start(cmd *exec.Cmd, p Policy) error {
	_, err := Landlock()
	return err
}
