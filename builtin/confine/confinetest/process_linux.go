package confinetest

import (
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Pidfd opens a pidfd of the process pid, closed (and the process killed, whatever
// the test found) when the test ends; a process that is gone already gives -1.
func Pidfd(tb testing.TB, pid int) int {
	tb.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if err == syscall.ESRCH {
		return -1
	}
	if err != nil {
		tb.Fatalf("pidfd_open(%d): %v", pid, err)
	}
	tb.Cleanup(func() {
		unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
		unix.Close(fd)
	})
	return fd
}

// Exited reports whether the process of pidfd (from Pidfd; -1 for one gone already)
// has exited, or exits within limit (0: has it exited now). The limit bounds a broken
// test, never measures one.
func Exited(tb testing.TB, pidfd int, limit time.Duration) bool {
	tb.Helper()
	if pidfd < 0 {
		return true
	}
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, int(limit/time.Millisecond))
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			tb.Fatalf("poll: %v", err)
		}
		return n > 0
	}
}
