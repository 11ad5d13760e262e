//go:build !unix

package redistest

import "os"

// No signal pauses a process here (Windows): Pause skips the test.
var sigStop, sigCont os.Signal
