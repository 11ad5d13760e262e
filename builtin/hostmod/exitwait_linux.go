package hostmod

import (
	"errors"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// awaitExit blocks until the process of cmd has exited, leaving it a zombie (not
// reaped: waitid's WNOWAIT), so that its pid, which is its process group's number,
// cannot be reused while the group is killed and released from the guard. It
// reports false: cmd.Wait must still reap it.
func awaitExit(cmd *exec.Cmd) (reaped bool) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, cmd.Process.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, syscall.EINTR) {
			return false
		}
	}
}
