package tests

import (
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// fifoServer answers each open of the FIFO at path with the next of contents (the
// last one again once they run out), one reader at a time, and counts the readers.
type fifoServer struct {
	path     string
	reads    atomic.Int32
	stopping atomic.Bool
	done     chan struct{}
}

// serveFIFO makes a FIFO at path and serves contents on it until stop. A reader gets
// its content whole and then end of file; the next reader is served only once that
// one has closed the FIFO (inotify tells), so that no two reads share a writer. The
// server polls (a writer's open without O_NONBLOCK would wait for a reader that may
// never come), so that stop needs nothing but a flag.
func serveFIFO(t *testing.T, path string, contents ...string) *fifoServer {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	events, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		t.Skipf("no inotify here: %v", err)
	}
	if _, err := syscall.InotifyAddWatch(events, path, syscall.IN_CLOSE_NOWRITE); err != nil {
		syscall.Close(events)
		t.Skipf("no inotify here: %v", err)
	}
	s := &fifoServer{path: path, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		defer syscall.Close(events)
		buf := make([]byte, 64*syscall.SizeofInotifyEvent)
		for !s.stopping.Load() {
			// ENXIO until a reader has the FIFO open (or waits in open).
			fd, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
			if err != nil {
				time.Sleep(time.Millisecond)
				continue
			}
			n := int(s.reads.Add(1))
			_, _ = syscall.Write(fd, []byte(contents[min(n, len(contents))-1])) // under PIPE_BUF: whole
			syscall.Close(fd)
			// The reader's close: only then may the next reader be served.
			for !s.stopping.Load() {
				if _, err := syscall.Read(events, buf); err == nil {
					break
				}
				time.Sleep(time.Millisecond)
			}
		}
	}()
	return s
}

// stop ends the server and returns how many reads it served.
func (s *fifoServer) stop() int {
	s.stopping.Store(true)
	<-s.done
	return int(s.reads.Load())
}
