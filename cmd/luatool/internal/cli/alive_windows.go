//go:build windows

package cli

import (
	"errors"

	"golang.org/x/sys/windows"
)

// processAlive reports whether a process with this pid exists: Windows refuses to
// open one that does not as an invalid parameter, and one of another user as
// access denied (it exists).
func processAlive(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return !errors.Is(err, windows.ERROR_INVALID_PARAMETER)
	}
	windows.CloseHandle(h)
	return true
}
