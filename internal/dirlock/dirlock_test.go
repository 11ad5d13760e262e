//go:build unix

package dirlock

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"
)

// helperVar makes the test binary a second process that takes the lock, says so on
// stdout and holds it until its stdin closes.
const helperVar = "DIRLOCK_TEST_HOLD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(helperVar); dir != "" {
		d, err := os.Open(dir)
		if err != nil {
			os.Exit(2)
		}
		if _, err := Lock(context.Background(), d); err != nil {
			os.Exit(3)
		}
		os.Stdout.WriteString("locked\n")
		var b [1]byte
		os.Stdin.Read(b[:])
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The lock holds across processes: while another process has it, Lock waits, and
// gives up with ctx's error; once that process is gone (its lock released by the
// kernel), Lock takes it.
func TestLockAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	holder := exec.Command(os.Args[0])
	holder.Env = append(os.Environ(), helperVar+"="+dir)
	stdin, err := holder.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, _ := holder.StdoutPipe()
	if err := holder.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 7)
	if _, err := stdout.Read(buf); err != nil || string(buf) != "locked\n" {
		t.Fatalf("the holder said %q, %v", buf, err)
	}

	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := Lock(ctx, d); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Lock while another process holds it = %v, want the context's error", err)
	}
	stdin.Close()
	if err := holder.Wait(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	unlock, err := Lock(ctx, d)
	if err != nil {
		t.Fatalf("Lock after the holder exited: %v", err)
	}
	unlock()
}
