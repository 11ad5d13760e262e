//go:build unix

package hostmod

import (
	"context"
	"errors"
	"os"
	"syscall"
	"time"
)

// lockDir takes the advisory lock that every luatool process (and every write of
// this one) takes on a directory before it checks and replaces a file in it, waiting
// until the lock is free or ctx ends. The lock is flock(2) on the directory itself:
// it needs no lock file (which listings would show), it is released if the process
// dies, and a rename inside the directory does not move it.
func lockDir(ctx context.Context, r *os.Root, dir string) (unlock func(), err error) {
	f, err := r.Open(dir)
	if err != nil {
		return nil, err
	}
	fd := int(f.Fd())
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() {
				_ = syscall.Flock(fd, syscall.LOCK_UN)
				f.Close()
			}, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, err
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, newOpError(codeCancelled, "write cancelled while another write held %s: %v", dir, ctx.Err())
		case <-time.After(wait):
		}
	}
}

// syncDir makes a rename in dir durable: after it, a crash leaves the new file.
func syncDir(r *os.Root, dir string) error {
	f, err := r.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
