//go:build unix

package procgroup

import (
	"os/exec"
	"syscall"
)

// A Group is the processes of one command: the command, and what it starts and
// does not take out of the group. Its methods are safe across goroutines.
type Group struct {
	pgid int
}

// Start starts cmd with start (cmd.Start, or a sandbox's Start that executes the
// command in the process it starts) as the leader of a process group of its own,
// and returns the group. It sets cmd.SysProcAttr.Setpgid, keeping the rest of
// cmd.SysProcAttr.
func Start(cmd *exec.Cmd, start func(*exec.Cmd) error) (*Group, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	if err := start(cmd); err != nil {
		return nil, err
	}
	return &Group{pgid: cmd.Process.Pid}, nil
}

// ID is the group's number, the process group id (the command's pid).
func (g *Group) ID() int { return g.pgid }

// Kill ends every process of the group at once (SIGKILL). Call it only while the
// command has not been reaped (cmd.Wait has not returned), so that the number
// cannot name a group that reuses it.
func (g *Group) Kill() { _ = syscall.Kill(-g.pgid, syscall.SIGKILL) }

// Stop asks every process of the group to end (SIGTERM), under the same condition
// as Kill.
func (g *Group) Stop() { _ = syscall.Kill(-g.pgid, syscall.SIGTERM) }

// Close releases what the group holds; on Unix, nothing. It does not end the
// processes.
func (g *Group) Close() {}
