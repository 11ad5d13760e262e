//go:build !unix

package builtin

import "os"

// openFlags open a file for reading.
const openFlags = os.O_RDONLY
