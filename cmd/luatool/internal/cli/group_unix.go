//go:build unix

package cli

import (
	"os/exec"
	"syscall"
)

// ownGroup runs cmd in a process group of its own, and makes its Cancel interrupt
// the whole group: npx runs the program it fetches through a shell, and a signal to
// npx alone leaves them running.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGINT) }
}
