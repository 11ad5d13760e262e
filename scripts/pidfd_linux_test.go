package scripts_test

import (
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// pidfd opens a pidfd of the process pid, closed (and the process killed, whatever
// the test found) when the test ends; a process that is gone already gives -1.
func pidfd(t *testing.T, pid int) int {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if err == syscall.ESRCH {
		return -1
	}
	if err != nil {
		t.Fatalf("pidfd_open(%d): %v", pid, err)
	}
	t.Cleanup(func() {
		unix.PidfdSendSignal(fd, unix.SIGKILL, nil, 0)
		unix.Close(fd)
	})
	return fd
}

// exitedWithin reports whether the process of pidfd has exited, or exits within
// limit (a bound for a broken test, never a measure).
func exitedWithin(t *testing.T, pidfd int, limit time.Duration) bool {
	t.Helper()
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
			t.Fatalf("poll: %v", err)
		}
		return n > 0
	}
}
