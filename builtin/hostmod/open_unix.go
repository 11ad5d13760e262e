//go:build unix

package hostmod

import (
	"os"
	"syscall"
)

// openFlags open a file for reading without blocking on a named pipe or a device.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK
