//go:build unix

package cli

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
)

// listenUnix listens on a unix socket at path that only this user may open (mode
// 0600). The mode is the socket's from the moment it exists (umask 0177 around the
// bind), not set by a chmod after it, when another user could already have
// connected. A path that exists is refused: it may be another server's socket.
func listenUnix(path string) (net.Listener, error) {
	if _, err := os.Lstat(path); err == nil {
		return nil, fmt.Errorf("--http unix:%s: the path exists; if it is the socket of a server that has ended, remove it first", path)
	}
	old := syscall.Umask(0o177)
	ln, err := net.Listen("unix", path)
	syscall.Umask(old)
	if err != nil {
		return nil, fmt.Errorf("--http unix:%s: %w", path, err)
	}
	return ln, nil
}

// makePrivateDir makes dir, a directory of the user's, private (mode 0700), and
// refuses one that is a symbolic link or belongs to another user: what it holds
// would not be the user's alone.
func makePrivateDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory (a symbolic link?): the token file is kept only in a directory of the user's own", dir)
	case !ok:
		return errors.New("cannot tell who owns " + dir)
	case int(st.Uid) != os.Getuid():
		return fmt.Errorf("%s belongs to user %d, not to this user (%d): the token file is kept only in a directory of the user's own", dir, st.Uid, os.Getuid())
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return os.Chmod(dir, 0o700)
	}
	return nil
}
