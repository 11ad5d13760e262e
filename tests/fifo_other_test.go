//go:build !linux

package tests

import "testing"

// fifoServer needs a FIFO and inotify (fifo_linux_test.go).
type fifoServer struct{}

// serveFIFO skips the test: it needs Linux.
func serveFIFO(t *testing.T, path string, contents ...string) *fifoServer {
	t.Skip("serving a FIFO one reader at a time needs Linux (inotify)")
	return nil
}

func (s *fifoServer) stop() int { return 0 }
