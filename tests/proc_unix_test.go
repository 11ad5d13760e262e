//go:build unix

package tests

import (
	"os/exec"
	"syscall"
)

// killTreeOnCancel starts cmd in a process group of its own, which its context's
// end kills whole: the program and the servers it started.
func killTreeOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}

// runAs makes cmd run as the user uid, gid.
func runAs(cmd *exec.Cmd, uid, gid uint32) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: gid}}
	return nil
}
