//go:build !linux

package hostile

import (
	"io"
	"os"
	"testing"
)

// withStdio runs fn with os.Stdout and os.Stdin replaced by pipes (on Linux the file
// descriptors are redirected too).
func withStdio(t *testing.T, fn func()) (stdout string, stdinIntact bool) {
	t.Helper()
	outR, outW, err := os.Pipe()
	must(t, err)
	inR, inW, err := os.Pipe()
	must(t, err)
	io.WriteString(inW, stdinCanary)
	inW.Close()
	savedOut, savedIn := os.Stdout, os.Stdin
	os.Stdout, os.Stdin = outW, inR
	got := make(chan string)
	go func() {
		b, _ := io.ReadAll(outR)
		got <- string(b)
	}()
	func() {
		defer func() { os.Stdout, os.Stdin = savedOut, savedIn }()
		fn()
	}()
	outW.Close()
	stdout = <-got
	outR.Close()
	rest, _ := io.ReadAll(inR)
	inR.Close()
	return stdout, string(rest) == stdinCanary
}

// The inotify audit exists on Linux only; elsewhere the tree snapshots remain.
type audit struct{}

func startAudit(*testing.T, []string, ...string) *audit { return &audit{} }

func (*audit) stop() []string { return nil }

func mkfifo(t *testing.T, path string) { t.Skip("named pipes are tested on Linux") }

func unblockFIFO(string) {}
