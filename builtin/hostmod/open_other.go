//go:build !unix

package hostmod

import "os"

// openFlags open a file for reading.
const openFlags = os.O_RDONLY
