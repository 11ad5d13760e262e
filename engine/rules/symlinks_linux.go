package rules

import "golang.org/x/sys/unix"

// noSymlinks reports whether the path p exists and none of its elements is a
// symbolic link, with one system call: a path walk that refuses links. Then p
// resolved is p. False says nothing (the kernel may lack openat2).
func noSymlinks(p string) bool {
	fd, err := unix.Openat2(unix.AT_FDCWD, p, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS,
	})
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
}
