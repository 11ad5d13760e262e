package hostmod_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/builtin/confine/confinetest"
	"github.com/luatool/luatool/builtin/hostmod"
)

// taskEnv is the standard modules on a fresh root, with a host that ends their
// background commands when the test ends.
type taskEnv struct {
	t    *testing.T
	root string
	mods []*bindings.Module
	host *closeHost
}

func newTaskEnv(t *testing.T, opts hostmod.ShellOptions) *taskEnv {
	t.Helper()
	e := &taskEnv{t: t, root: t.TempDir(), host: &closeHost{}}
	mods, err := hostmod.StandardWith(hostmod.Options{Roots: []string{e.root}, Shell: opts})
	if err != nil {
		t.Fatal(err)
	}
	e.mods = mods
	t.Cleanup(e.host.close)
	return e
}

// call runs body in a call of session that may write, unless readOnly.
func (e *taskEnv) call(session string, readOnly bool, body string, args ...string) []any {
	e.t.Helper()
	out, err := runWith(e.t, e.mods, &bindings.Call{Context: context.Background(), Access: access(readOnly), Session: session, OnClose: e.host.onClose}, body, args...)
	if err != nil {
		e.t.Fatalf("%s: %v", body, err)
	}
	return out
}

// start starts command in the background for session and returns its id and path.
func (e *taskEnv) start(session, command string) (id, path string) {
	e.t.Helper()
	out := e.call(session, false, "return shell.start(...)", command)
	id, _ = out[0].(string)
	if id == "" {
		e.t.Fatalf("shell.start(%q): %v", command, out)
	}
	return id, out[1].(string)
}

// TestTaskOutputFile: a background command's output file takes stdout and stderr as
// they come and ends with the original's trailer; the file lies in a directory of
// its own, private to the user; the id has the original's form.
func TestTaskOutputFile(t *testing.T) {
	e := newTaskEnv(t, hostmod.ShellOptions{})
	for _, c := range []struct{ command, want string }{
		{"echo started; echo finished", "started\nfinished\n\n[exited with code 0]\n"},
		{"echo bad >&2; exit 4", "bad\n\n[exited with code 4]\n"},
		{"printf x", "x\n[exited with code 0]\n"},
	} {
		id, path := e.start("", c.command)
		if !regexp.MustCompile(`^b[0-9a-z]{8}$`).MatchString(id) || !strings.HasSuffix(path, "/"+id+".output") {
			t.Errorf("id %q, path %q", id, path)
		}
		if got := ended(t, path); got != c.want {
			t.Errorf("%q: output %q, want %q", c.command, got, c.want)
		}
		for _, p := range []string{path, path[:strings.LastIndexByte(path, '/')]} {
			st, err := os.Stat(p)
			if err != nil || st.Mode().Perm()&0o077 != 0 {
				t.Errorf("%s: %v, %v: others may reach it", p, st.Mode(), err)
			}
		}
		if out := e.call("", true, "return shell.task(...)", id); out[0] != nil {
			t.Errorf("an ended command is still found: %v", out)
		}
	}
}

// TestTaskStop: stop ends a running command, its file says [killed], and after that
// the id is unknown; so is one that never was.
func TestTaskStop(t *testing.T) {
	e := newTaskEnv(t, hostmod.ShellOptions{})
	id, path := e.start("", "echo one; sleep 1000; echo two")
	holds(t, path, "one\n")
	info := e.call("", true, "return shell.task(...)", id)[0].(map[string]any)
	if info["id"] != id || info["command"] != "echo one; sleep 1000; echo two" || info["outputFile"] != path {
		t.Errorf("task: %v", info)
	}
	out := e.call("", false, "return shell.stop(...)", id)
	if m, ok := out[0].(map[string]any); !ok || m["command"] != "echo one; sleep 1000; echo two" {
		t.Fatalf("stop: %v", out)
	}
	if b, _ := os.ReadFile(path); string(b) != "one\n\n[killed]\n" {
		t.Errorf("after stop the file holds %q", b)
	}
	for _, unknown := range []string{id, "nosuchtask123"} {
		out = e.call("", false, "return shell.stop(...)", unknown)
		if out[0] != nil || out[1] != "no background command "+unknown+" is running in this session" || out[2] != "notfound" {
			t.Errorf("stop %s: %v", unknown, out)
		}
	}
	// Stopping changes something: a read-only call may not.
	id, _ = e.start("", "sleep 1000")
	_, err := runWith(t, e.mods, &bindings.Call{Context: context.Background(), Access: bindings.AccessRead, Entry: "call", OnClose: e.host.onClose},
		"return shell.stop(...)", id)
	if err == nil || !strings.Contains(err.Error(), "shell.stop is not available in this call: the tool is read-only for this input") {
		t.Errorf("stop in a read-only call: %v", err)
	}
}

// TestTaskTimeout: a command past its timeout is stopped, as the original does
// (toolu_bg_15), and its id is gone.
func TestTaskTimeout(t *testing.T) {
	e := newTaskEnv(t, hostmod.ShellOptions{})
	out := e.call("", false, "return shell.start(..., {timeout = 1000})", "echo early; sleep 1000; echo late")
	id, path := out[0].(string), out[1].(string)
	if got := ended(t, path); got != "early\n\n[killed]\n" {
		t.Errorf("timed out: %q", got)
	}
	if out := e.call("", true, "return shell.task(...)", id); out[0] != nil {
		t.Errorf("a timed-out command is still found: %v", out)
	}
	for _, bad := range []string{"0", "-1", "7200001"} {
		_, err := runWith(t, e.mods, &bindings.Call{Context: context.Background(), Access: bindings.AccessWrite, OnClose: e.host.onClose},
			"return shell.start('true', {timeout = "+bad+"})")
		if err == nil || !strings.Contains(err.Error(), "bad argument #2 to 'shell.start' (option 'timeout' must be between 1 and 7200000)") {
			t.Errorf("timeout %s: %v", bad, err)
		}
	}
}

// TestTaskStopEscalates: a command that ignores SIGTERM is killed with SIGKILL
// after the grace, its children too.
func TestTaskStopEscalates(t *testing.T) {
	e := newTaskEnv(t, hostmod.ShellOptions{})
	id, path := e.start("", "trap '' TERM; sleep 1000 & echo $!; wait")
	var pid int
	for deadline := time.Now().Add(time.Minute); pid == 0; time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(path)
		if line, ok := strings.CutSuffix(string(b), "\n"); ok {
			pid, _ = strconv.Atoi(line)
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %q", b)
		}
	}
	child := confinetest.Pidfd(t, pid)
	e.call("", false, "return shell.stop(...)", id)
	if !confinetest.Exited(t, child, time.Minute) {
		t.Error("the child that ignores SIGTERM outlived the stop")
	}
	if got := ended(t, path); got != strconv.Itoa(pid)+"\n\n[killed]\n" {
		t.Errorf("output %q", got)
	}
}

// TestTaskOutputCap: a command whose output passes MaxTaskOutput is stopped, and
// its file keeps the first MaxTaskOutput bytes and says why it ended.
func TestTaskOutputCap(t *testing.T) {
	e := newTaskEnv(t, hostmod.ShellOptions{MaxTaskOutput: 1000})
	_, path := e.start("", "yes")
	want := strings.Repeat("y\n", 500) + "\n[killed: the output passed the limit of 1000 bytes]\n"
	if got := ended(t, path); got != want {
		t.Errorf("capped output: %d bytes ending %q", len(got), got[max(0, len(got)-80):])
	}
}

// TestTaskLimits: a session may run MaxTasks commands at once and all sessions
// MaxTasksTotal; a start beyond fails with code "limit", and one that ends makes
// room.
func TestTaskLimits(t *testing.T) {
	e := newTaskEnv(t, hostmod.ShellOptions{MaxTasks: 2, MaxTasksTotal: 3})
	a1, _ := e.start("a", "sleep 1000")
	e.start("a", "sleep 1000")
	out := e.call("a", false, "return shell.start(...)", "sleep 1000")
	if out[0] != nil || out[1] != "2 background commands are running in this session, the most allowed: stop one or wait for one to end" || out[2] != "limit" {
		t.Errorf("third in a session: %v", out)
	}
	e.start("b", "sleep 1000")
	out = e.call("b", false, "return shell.start(...)", "sleep 1000")
	if out[0] != nil || out[1] != "3 background commands are running, the most this host allows at once: stop one or wait for one to end" || out[2] != "limit" {
		t.Errorf("fourth in all: %v", out)
	}
	e.call("a", false, "return shell.stop(...)", a1)
	e.start("b", "sleep 1000")
	if _, err := hostmod.Shell([]string{e.root}, hostmod.ShellOptions{MaxTaskOutput: -1}); err == nil {
		t.Error("a negative limit was accepted")
	}
}

// TestTaskSessions: a session's background commands are its own: another session
// cannot find, stop or read them; the owner's fs reads the output file, which no
// one can write.
func TestTaskSessions(t *testing.T) {
	e := newTaskEnv(t, hostmod.ShellOptions{})
	id, path := e.start("ann", "echo secret; sleep 1000")
	holds(t, path, "secret\n")
	if out := e.call("bob", true, "return shell.task(...)", id); out[0] != nil {
		t.Errorf("bob finds ann's command: %v", out)
	}
	if out := e.call("bob", false, "return shell.stop(...)", id); out[0] != nil || out[2] != "notfound" {
		t.Errorf("bob stops ann's command: %v", out)
	}
	for _, fn := range []string{"read", "lines", "stat"} {
		if out := e.call("bob", true, "return fs."+fn+"(...)", path); out[0] != nil || out[2] != "outside" {
			t.Errorf("bob's fs.%s of ann's output: %v", fn, out)
		}
	}
	if out := e.call("bob", true, "return fs.exists(...)", path); out[0] != false {
		t.Errorf("bob's fs.exists of ann's output: %v", out)
	}
	if out := e.call("ann", true, "return fs.read(...)", path); out[0] != "secret\n" {
		t.Errorf("ann's fs.read of her output: %v", out)
	}
	if out := e.call("ann", true, "local t, info = fs.lines(...); return t, info.totalLines", path); out[0] != "secret" || out[1] != float64(1) {
		t.Errorf("ann's fs.lines of her output: %v", out)
	}
	if out := e.call("ann", false, "return fs.write(..., 'x')", path); out[0] != nil || out[2] != "outside" {
		t.Errorf("ann's fs.write of her output: %v", out)
	}
	if b, _ := os.ReadFile(path); string(b) != "secret\n" {
		t.Errorf("the output file was changed: %q", b)
	}
	if out := e.call("ann", false, "return shell.stop(...)", id); out[0] == nil {
		t.Errorf("ann cannot stop her own command: %v", out)
	}
}

// TestTaskClose: the host's close stops every running command with its children
// and removes the output files, ended commands' too; nothing stays registered.
func TestTaskClose(t *testing.T) {
	e := newTaskEnv(t, hostmod.ShellOptions{})
	_, donePath := e.start("", "echo done")
	ended(t, donePath)
	_, path := e.start("other", "sleep 1000 & echo $!; wait")
	var pid int
	for deadline := time.Now().Add(time.Minute); pid == 0; time.Sleep(10 * time.Millisecond) {
		b, _ := os.ReadFile(path)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %q", b)
		}
	}
	child := confinetest.Pidfd(t, pid)
	e.host.close()
	// close has killed the group and waited for the shell; the sleep, killed with
	// it, may take a moment more to exit on a loaded machine.
	if !confinetest.Exited(t, child, 10*time.Second) {
		t.Errorf("the background sleep %d survived the close", pid)
	}
	for _, p := range []string{path, donePath} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s survived the close: %v", p, err)
		}
	}
	if n := e.host.registered(); n != 0 {
		t.Errorf("%d closers left", n)
	}
}

// TestTaskNeedsAnEnd: shell.start refuses where nothing would end the command: in
// a call without OnClose (a member other than call, a test's own code).
func TestTaskNeedsAnEnd(t *testing.T) {
	e := newTaskEnv(t, hostmod.ShellOptions{})
	_, err := runWith(t, e.mods, &bindings.Call{Context: context.Background(), Access: bindings.AccessWrite}, "return shell.start('sleep 1000')")
	if err == nil || !strings.Contains(err.Error(), "shell.start is available only in call(): a background command must end with the engine that started it") {
		t.Errorf("start without OnClose: %v", err)
	}
	refusing := func(func()) func() { return nil }
	out, err := runWith(t, e.mods, &bindings.Call{Context: context.Background(), Access: bindings.AccessWrite, OnClose: refusing}, "return shell.start('sleep 1000')")
	if err != nil || out[0] != nil || out[1] != "shell.start: this host does not end background commands when it closes, so none may start" {
		t.Errorf("start with a host that ends nothing: %v, %v", out, err)
	}
}

// TestTaskEnvironment: a background command gets the minimal environment of every
// command, not the host's.
func TestTaskEnvironment(t *testing.T) {
	t.Setenv("LUATOOL_TEST_TOKEN", "hunter2")
	e := newTaskEnv(t, hostmod.ShellOptions{})
	_, path := e.start("", "env")
	got := ended(t, path)
	if strings.Contains(got, "hunter2") || !regexp.MustCompile(`(?m)^HOME=`).MatchString(got) || strings.Contains(got, "HOME="+os.Getenv("HOME")+"\n") {
		t.Errorf("environment of a background command:\n%s", got)
	}
}

// TestRunMovesToBackground: with background=true a command that passes its timeout
// goes on as a background command of the session, its output file beginning with
// what it printed before; without it, or beyond the session's limit, it is killed.
func TestRunMovesToBackground(t *testing.T) {
	e := newTaskEnv(t, hostmod.ShellOptions{MaxTasks: 1})
	// The command waits for a file the test makes, so it cannot end before its
	// timeout however late the timer fires; a second is for printing "early".
	gated := func(gate string) string {
		return "echo early; until [ -e " + gate + " ]; do sleep 0.01; done; echo late"
	}
	run := "local r = shell.run(..., {timeout = 1000, background = %s}); return r.timedOut, r.output, r.taskId, r.outputFile, r.exitCode"
	out := e.call("s", true, strings.Replace(run, "%s", "true", 1), gated("gate1"))
	id, _ := out[2].(string)
	if out[0] != true || out[1] != "early\n" || id == "" || out[4] != nil {
		t.Fatalf("moved: %v", out)
	}
	path := out[3].(string)
	if got := e.call("s", true, "local t = shell.task(...); return t and t.outputFile", id); got[0] != path {
		t.Errorf("shell.task(%s) = %v, want output file %s", id, got, path)
	}
	// The session's one background command is taken: the next is killed.
	out = e.call("s", true, strings.Replace(run, "%s", "true", 1), "echo second; "+gated("never"))
	if out[0] != true || out[1] != "second\nearly\n" || out[2] != nil || out[4] != float64(137) {
		t.Errorf("beyond the limit: %v", out)
	}
	if err := os.WriteFile(filepath.Join(e.root, "gate1"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := ended(t, path); got != "early\nlate\n\n[exited with code 0]\n" {
		t.Errorf("output file %q", got)
	}
	out = e.call("s", true, strings.Replace(run, "%s", "false", 1), gated("never"))
	if out[0] != true || out[1] != "early\n" || out[2] != nil {
		t.Errorf("without background: %v", out)
	}
}
