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

// TestEndingEndsTheTree: Kill, and Stop (SIGTERM, which the test binary does not
// catch; on Windows, as Kill), end the command and the process it started.
func TestEndingEndsTheTree(t *testing.T) {
	for name, end := range map[string]func(*procgroup.Group){"Kill": (*procgroup.Group).Kill, "Stop": (*procgroup.Group).Stop} {
		t.Run(name, func(t *testing.T) {
			g, cmd, r := startTree(t)
			defer g.Close()
			defer r.Close()
			end(g)
			if !ended(t, r) {
				t.Errorf("a process of the group survived %s", name)
			}
			if err := cmd.Wait(); err == nil {
				t.Errorf("the command ended by %s exited 0", name)
			}
		})
	}
}

// TestStartFailure: a command that cannot start is an error, and no group.
func TestStartFailure(t *testing.T) {
	cmd := exec.Command(t.TempDir() + "/no-such-program")
	if g, err := procgroup.Start(cmd, (*exec.Cmd).Start); err == nil || g != nil {
		t.Fatalf("started a missing program: %v, %v", g, err)
	}
}
