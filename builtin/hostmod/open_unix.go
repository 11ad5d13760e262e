//go:build unix

package hostmod

import (
	"os"
	"syscall"
)

// openFlags open a file for reading without blocking on a named pipe or a device.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK

// noFollow opens a file that must not be a symbolic link: the cwd file of a command
// that may write it but not replace it (scratch).
const noFollow = syscall.O_NOFOLLOW
