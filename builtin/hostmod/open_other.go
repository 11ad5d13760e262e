//go:build !unix

package hostmod

import "os"

// openFlags open a file for reading.
const openFlags = os.O_RDONLY

// noFollow is no flag where there is no O_NOFOLLOW: there, commands run without the
// kernel sandbox, with the rights of the user reading their cwd file back, so a
// link put in its place leads nowhere the command could not read itself.
const noFollow = 0
