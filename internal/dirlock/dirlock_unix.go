//go:build unix

package dirlock

import (
	"context"
	"errors"
	"os"
	"syscall"
	"time"
)

// Lock takes the exclusive lock on dir, an open directory, waiting until it is free
// or ctx ends (then the error is ctx's). unlock releases it; the caller closes dir
// after that.
func Lock(ctx context.Context, dir *os.File) (unlock func(), err error) {
	fd := int(dir.Fd())
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { _ = syscall.Flock(fd, syscall.LOCK_UN) }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
	}
}
