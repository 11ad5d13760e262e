//go:build windows

package tests

import (
	"errors"
	"os/exec"
)

// killTreeOnCancel leaves cmd as it is: its context's end kills the program alone
// (exec.CommandContext's default), not what it started.
func killTreeOnCancel(*exec.Cmd) {}

// runAs refuses: a process takes another user's identity by Unix credentials.
func runAs(*exec.Cmd, uint32, uint32) error {
	return errors.New("running a program as another user needs Unix credentials")
}
