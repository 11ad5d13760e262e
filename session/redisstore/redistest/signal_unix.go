//go:build unix

package redistest

import (
	"os"
	"syscall"
)

// The signals that pause and resume a process.
var sigStop, sigCont os.Signal = syscall.SIGSTOP, syscall.SIGCONT
