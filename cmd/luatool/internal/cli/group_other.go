//go:build !unix

package cli

import "os/exec"

// ownGroup leaves cmd's Cancel as it is, killing the process: without Unix process
// groups there is no group to interrupt.
func ownGroup(cmd *exec.Cmd) {}
