package procgroup_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/luatool/luatool/internal/procgroup"
)

// roleVar makes the test binary play a process of the tree the tests end: "parent"
// starts a "child" and waits; "child" says so and waits. Both write to the
// standard output they were given, so the pipe a test reads ends only when both
// have ended.
const roleVar = "PROCGROUP_TEST_ROLE"

func TestMain(m *testing.M) {
	switch os.Getenv(roleVar) {
	case "parent":
		child := exec.Command(os.Args[0], "-test.run=^$")
		child.Env = append(os.Environ(), roleVar+"=child")
		child.Stdout = os.Stdout
		if err := child.Start(); err != nil {
			fmt.Println("parent:", err)
			os.Exit(1)
		}
		_ = child.Wait()
		os.Exit(0)
	case "child":
		fmt.Println("child running")
		time.Sleep(time.Hour)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// startTree starts a parent that starts a child, both writing to the pipe it
// returns, and returns once the child runs.
func startTree(t *testing.T) (*procgroup.Group, *exec.Cmd, *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), roleVar+"=parent")
	cmd.Stdout = w
	g, err := procgroup.Start(cmd, (*exec.Cmd).Start)
	w.Close()
	if err != nil {
		r.Close()
		t.Fatal(err)
	}
	line, err := bufio.NewReader(r).ReadString('\n')
	if strings.TrimSpace(line) != "child running" {
		g.Kill()
		_ = cmd.Wait()
		g.Close()
		r.Close()
		t.Fatalf("the child did not start: %q, %v", line, err)
	}
	return g, cmd, r
}

// ended reports whether every process holding the pipe r has ended (the pipe
// reads EOF), waiting up to a minute: far beyond a kill's time, so only a process
// that survived makes it false.
func ended(t *testing.T, r *os.File) bool {
	t.Helper()
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, r)
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(time.Minute):
		r.Close()
		return false
	}
}

// TestKillEndsTheTree: Kill ends the command and the process it started.
func TestKillEndsTheTree(t *testing.T) {
	g, cmd, r := startTree(t)
	defer g.Close()
	defer r.Close()
	g.Kill()
	if !ended(t, r) {
		t.Error("a process of the group survived Kill")
	}
	if err := cmd.Wait(); err == nil {
		t.Error("the killed command exited 0")
	}
}

// TestStopEndsTheTree: Stop ends them too (SIGTERM, which the test binary does
// not catch; on Windows, as Kill).
func TestStopEndsTheTree(t *testing.T) {
	g, cmd, r := startTree(t)
	defer g.Close()
	defer r.Close()
	g.Stop()
	if !ended(t, r) {
		t.Error("a process of the group survived Stop")
	}
	_ = cmd.Wait()
}

// TestStartFailure: a command that cannot start is an error, and no group.
func TestStartFailure(t *testing.T) {
	cmd := exec.Command(t.TempDir() + "/no-such-program")
	if g, err := procgroup.Start(cmd, (*exec.Cmd).Start); err == nil || g != nil {
		t.Fatalf("started a missing program: %v, %v", g, err)
	}
}
