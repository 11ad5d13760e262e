//go:build linux

package hostile

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"unsafe"
)

// withStdio runs fn with the process's stdout and stdin replaced by pipes, at the
// file descriptor level (so that even a write(1, ...) behind Go's back is caught) and
// in os.Stdout/os.Stdin. It returns what was written to stdout and whether the stdin
// canary was left unread.
func withStdio(t *testing.T, fn func()) (stdout string, stdinIntact bool) {
	t.Helper()
	outR, outW, err := os.Pipe()
	must(t, err)
	inR, inW, err := os.Pipe()
	must(t, err)
	if _, err := io.WriteString(inW, stdinCanary); err != nil {
		t.Fatal(err)
	}
	inW.Close()
	restoreOut := redirectFD(t, 1, outW)
	restoreIn := redirectFD(t, 0, inR)
	savedOut, savedIn := os.Stdout, os.Stdin
	os.Stdout, os.Stdin = outW, inR
	got := make(chan string)
	go func() {
		b, _ := io.ReadAll(outR)
		got <- string(b)
	}()
	func() {
		defer func() {
			os.Stdout, os.Stdin = savedOut, savedIn
			restoreOut()
			restoreIn()
		}()
		fn()
	}()
	outW.Close()
	stdout = <-got
	outR.Close()
	rest, _ := io.ReadAll(inR)
	inR.Close()
	return stdout, string(rest) == stdinCanary
}

// redirectFD points fd at f and returns the function that points it back.
func redirectFD(t *testing.T, fd int, f *os.File) func() {
	t.Helper()
	saved, err := syscall.Dup(fd)
	must(t, err)
	must(t, syscall.Dup3(int(f.Fd()), fd, 0))
	return func() {
		syscall.Dup3(saved, fd, 0)
		syscall.Close(saved)
	}
}

// An audit watches directories with inotify while a call runs: any open, read,
// write, creation, removal or attribute change of an entry in them is reported. It is
// the test's syscall audit for "nothing outside the root was touched".
type audit struct {
	fd     int
	dirs   map[int32]string
	ignore []string
}

func startAudit(t *testing.T, ignore []string, dirs ...string) *audit {
	t.Helper()
	fd, err := syscall.InotifyInit1(syscall.IN_NONBLOCK | syscall.IN_CLOEXEC)
	must(t, err)
	a := &audit{fd: fd, dirs: map[int32]string{}, ignore: ignore}
	for _, d := range dirs {
		wd, err := syscall.InotifyAddWatch(fd, d, syscall.IN_ALL_EVENTS)
		if err != nil {
			syscall.Close(fd)
			t.Fatalf("inotify on %s: %v", d, err)
		}
		a.dirs[int32(wd)] = d
	}
	return a
}

var eventNames = []struct {
	mask uint32
	name string
}{
	{syscall.IN_ACCESS, "ACCESS"}, {syscall.IN_MODIFY, "MODIFY"}, {syscall.IN_ATTRIB, "ATTRIB"},
	{syscall.IN_CLOSE_WRITE, "CLOSE_WRITE"}, {syscall.IN_CLOSE_NOWRITE, "CLOSE_NOWRITE"}, {syscall.IN_OPEN, "OPEN"},
	{syscall.IN_MOVED_FROM, "MOVED_FROM"}, {syscall.IN_MOVED_TO, "MOVED_TO"}, {syscall.IN_CREATE, "CREATE"},
	{syscall.IN_DELETE, "DELETE"}, {syscall.IN_DELETE_SELF, "DELETE_SELF"}, {syscall.IN_MOVE_SELF, "MOVE_SELF"},
}

// stop ends the audit and returns the events seen, one line each.
func (a *audit) stop() []string {
	defer syscall.Close(a.fd)
	var out []string
	buf := make([]byte, 64<<10)
	for {
		n, err := syscall.Read(a.fd, buf)
		if n <= 0 || err != nil {
			return out
		}
		for off := 0; off+syscall.SizeofInotifyEvent <= n; {
			ev := (*syscall.InotifyEvent)(unsafe.Pointer(&buf[off]))
			if ev.Mask&syscall.IN_Q_OVERFLOW != 0 {
				out = append(out, "inotify queue overflow: the audit lost events")
				off += syscall.SizeofInotifyEvent + int(ev.Len)
				continue
			}
			name := ""
			if ev.Len > 0 {
				raw := buf[off+syscall.SizeofInotifyEvent : off+syscall.SizeofInotifyEvent+int(ev.Len)]
				name = strings.TrimRight(string(raw), "\x00")
			}
			off += syscall.SizeofInotifyEvent + int(ev.Len)
			p := a.dirs[ev.Wd]
			if name != "" {
				p = filepath.Join(p, name)
			}
			if slices.Contains(a.ignore, p) || ev.Mask&syscall.IN_IGNORED != 0 {
				continue
			}
			var kinds []string
			for _, e := range eventNames {
				if ev.Mask&e.mask != 0 {
					kinds = append(kinds, e.name)
				}
			}
			out = append(out, fmt.Sprintf("%s %s", strings.Join(kinds, "|"), p))
		}
	}
}

// mkfifo makes a named pipe.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	must(t, syscall.Mkfifo(path, 0o644))
}

// unblockFIFO opens a named pipe for writing and closes it at once, which releases a
// reader blocked opening it (the reader then sees end of file).
func unblockFIFO(path string) {
	if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		f.Close()
	}
}
