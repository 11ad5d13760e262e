//go:build !linux

package hostmod

import "os/exec"

// awaitExit blocks until the process of cmd has exited. Without waitid's WNOWAIT it
// reaps it (cmd.Wait), and reports true: the process group is then killed and
// released just after its number became free, a window the Linux version does not
// have.
func awaitExit(cmd *exec.Cmd) (reaped bool) {
	_ = cmd.Wait()
	return true
}
