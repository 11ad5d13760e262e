package confine_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/luatool/luatool/builtin/confine"
	"github.com/luatool/luatool/builtin/confine/confinetest"
)

// guardParentVar makes TestGuardParent the program whose end the guard watches.
const guardParentVar = "LUATOOL_TEST_GUARD_PARENT"

// TestGuardParent is not a test of its own: run by TestGuardKillsGroupsOfAKilledProgram
// with guardParentVar set, it starts a shell in a process group of its own with a
// sleep beside it, has the group guarded (and released when the variable says
// "release"), prints the sleep's pid and waits to be killed.
func TestGuardParent(t *testing.T) {
	mode := os.Getenv(guardParentVar)
	if mode == "" {
		t.Skip("run by TestGuardKillsGroupsOfAKilledProgram")
	}
	cmd := exec.Command("bash", "-c", "sleep 1000 & echo $!; wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	release, err := confine.Guard(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if mode == "release" {
		release()
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("pid %s", line)
	select {} // until killed
}

// TestGuardKillsGroupsOfAKilledProgram kills a program with SIGKILL, which it cannot
// catch, and checks that the guard killed the process group it had registered: a
// sleep the group's shell started is gone. A released group is left alone.
func TestGuardKillsGroupsOfAKilledProgram(t *testing.T) {
	for _, mode := range []string{"guard", "release"} {
		t.Run(mode, func(t *testing.T) {
			parent := exec.Command(os.Args[0], "-test.run=^TestGuardParent$", "-test.v")
			parent.Env = append(os.Environ(), guardParentVar+"="+mode)
			out, err := parent.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := parent.Start(); err != nil {
				t.Fatal(err)
			}
			pid := 0
			sc := bufio.NewScanner(out)
			for pid == 0 && sc.Scan() {
				if rest, ok := strings.CutPrefix(sc.Text(), "pid "); ok {
					pid, _ = strconv.Atoi(rest)
				}
			}
			if pid == 0 {
				parent.Process.Kill()
				parent.Wait()
				t.Fatalf("the parent printed no pid (%v)", sc.Err())
			}
			sleep := confinetest.Pidfd(t, pid)
			defer unix.Close(sleep)
			// Whatever happens, the sleep ends with the test (through the pidfd, which
			// cannot reach another process that reused the number).
			defer unix.PidfdSendSignal(sleep, unix.SIGKILL, nil, 0)
			guard := confinetest.Pidfd(t, guardOf(t, parent.Process.Pid))
			defer unix.Close(guard)
			parent.Process.Kill()
			parent.Wait()
			// The guard exits once it has killed what it guards: after that, the
			// sleep is gone or it was never to go.
			if !confinetest.Exited(t, guard, time.Minute) {
				t.Fatal("the guard outlived the program it guards")
			}
			// The guard's SIGKILL is delivered at once but takes effect when the
			// kernel next schedules the sleep: a guarded one is waited for (the
			// limit bounds a broken test), a released one must be there now.
			limit := time.Duration(0)
			if mode == "guard" {
				limit = time.Minute
			}
			gone := confinetest.Exited(t, sleep, limit)
			if mode == "guard" && !gone {
				t.Errorf("the guarded sleep %d outlived the program that started it", pid)
			}
			if mode == "release" {
				if gone {
					t.Errorf("the released sleep %d was killed", pid)
				}
			}
		})
	}
}

// guardOf finds the guard process the program parent started: its child whose
// argv[0] is the guard's name.
func guardOf(t *testing.T, parent int) int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		// stat is "pid (comm) state ppid ...", comm possibly holding spaces.
		fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if strings.HasPrefix(string(cmdline), "luatool-guard\x00") && len(fields) > 1 && fields[1] == strconv.Itoa(parent) {
			return pid
		}
	}
	t.Fatalf("the program %d started no guard", parent)
	return 0
}

// TestGuardRefusesNonGroups checks that Guard refuses numbers that are no process
// group a command runs in: kill(-1) and kill(0) would reach far more.
func TestGuardRefusesNonGroups(t *testing.T) {
	for _, g := range []int{-5, 0, 1} {
		if _, err := confine.Guard(g); err == nil {
			t.Errorf("Guard(%d) succeeded", g)
		}
	}
}
