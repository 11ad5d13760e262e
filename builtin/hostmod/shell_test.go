package hostmod_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/builtin/hostmod"
)

// shellCall runs body, with shell required, as a function of args on a VM confined
// to root, in a call that is read-only when readOnly is set, and returns its results.
func shellCall(t *testing.T, ctx context.Context, root string, readOnly bool, body string, args ...string) []any {
	t.Helper()
	vals, err := shellCallErr(t, ctx, root, readOnly, body, args...)
	if err != nil {
		t.Fatalf("call: %v", err)
	}
	return vals
}

// shellCallErr is shellCall returning the call's error.
func shellCallErr(t *testing.T, ctx context.Context, root string, readOnly bool, body string, args ...string) ([]any, error) {
	t.Helper()
	mod, err := hostmod.Shell([]string{root}, hostmod.ShellOptions{})
	if err != nil {
		t.Fatal(err)
	}
	host := &closeHost{}
	defer host.close()
	return runWith(t, []*bindings.Module{mod}, &bindings.Call{Context: ctx, Access: access(readOnly), OnClose: host.onClose}, body, args...)
}

// run calls shell.run(command, opts) in a writable call and returns its result table.
func run(t *testing.T, ctx context.Context, root, command, opts string) map[string]any {
	t.Helper()
	out := shellCall(t, ctx, root, false, "return shell.run(..., "+opts+")", command)
	res, ok := out[0].(map[string]any)
	if !ok {
		t.Fatalf("shell.run(%q) = %v", command, out)
	}
	return res
}

func TestShellRunMergesOutput(t *testing.T) {
	root := t.TempDir()
	res := run(t, context.Background(), root, "echo one; echo two >&2; echo three; exit 3", "nil")
	if res["output"] != "one\ntwo\nthree\n" || res["exitCode"] != float64(3) || res["truncated"] != false {
		t.Errorf("result = %v", res)
	}
	if res["cwd"] != root && !strings.HasSuffix(res["cwd"].(string), filepath.Base(root)) {
		t.Errorf("cwd = %v, want %s", res["cwd"], root)
	}
}

func TestShellRunCapsOutput(t *testing.T) {
	res := run(t, context.Background(), t.TempDir(), "printf '%01000d' 0", "{maxOutput = 100}")
	if res["output"] != strings.Repeat("0", 100) || res["truncated"] != true || res["omitted"] != float64(900) {
		t.Errorf("result = %v", res)
	}
}

// survivors counts the processes whose command line contains marker.
func survivors(t *testing.T, marker string) int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skip("no /proc")
	}
	n := 0
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), marker) {
			n++
		}
	}
	return n
}

// killsGroup runs a command with background and foreground children, stopped by
// the timeout in opts or by ctx, and checks that none of them survives and that the
// result has flag set (a cancelled call ends in an error instead, when flag is "").
func killsGroup(t *testing.T, ctx context.Context, opts, flag string) {
	t.Helper()
	// A distinctive duration marks the children in /proc.
	dur := strconv.Itoa(3000 + int(time.Now().UnixNano()%1000))
	start := time.Now()
	out, err := shellCallErr(t, ctx, t.TempDir(), false, "return shell.run(..., "+opts+")", "sleep "+dur+" & sleep "+dur+"; wait")
	if time.Since(start) > 10*time.Second {
		t.Fatalf("took %v", time.Since(start))
	}
	if flag == "" && err == nil {
		t.Errorf("cancelled call returned %v", out)
	}
	if flag != "" && (err != nil || out[0].(map[string]any)[flag] != true) {
		t.Errorf("%s not set: %v, %v", flag, out, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for survivors(t, "sleep\x00"+dur) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("children of the command survived")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestShellRunTimeoutKillsGroup(t *testing.T) {
	killsGroup(t, context.Background(), "{timeout = 300}", "timedOut")
}

func TestShellRunCancelKillsGroup(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	killsGroup(t, ctx, "nil", "")
}

func TestShellRunCwd(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	res := run(t, context.Background(), root, "pwd", "{cwd = 'sub'}")
	if !strings.HasSuffix(res["output"].(string), "/sub\n") || res["cwdOutside"] != false {
		t.Errorf("result = %v", res)
	}
	res = run(t, context.Background(), root, "cd /", "nil")
	if res["cwd"] != "/" || res["cwdOutside"] != true {
		t.Errorf("cd / result = %v", res)
	}
	for _, cwd := range []string{"..", "/", "sub/../.."} {
		out := shellCall(t, context.Background(), root, false, "return shell.run('pwd', {cwd = ...})", cwd)
		if out[0] != nil || out[2] != "outside" {
			t.Errorf("cwd %s: %v", cwd, out)
		}
	}
}

func TestShellReadOnlyRefusal(t *testing.T) {
	root := t.TempDir()
	out := shellCall(t, context.Background(), root, true, "return shell.run('touch x')")
	if out[0] != nil || out[2] != "readonly" {
		t.Errorf("touch in a read-only call: %v", out)
	}
	if _, err := os.Stat(filepath.Join(root, "x")); err == nil {
		t.Error("the file was created")
	}
	out = shellCall(t, context.Background(), root, true, "return shell.start('touch x')")
	if out[0] != nil || out[2] != "readonly" {
		t.Errorf("start in a read-only call: %v", out)
	}
	out = shellCall(t, context.Background(), root, true, "return shell.run('echo hi').output")
	if out[0] != "hi\n" {
		t.Errorf("echo in a read-only call: %v", out)
	}
}

func TestShellSplitAndReadOnly(t *testing.T) {
	root := t.TempDir()
	out := shellCall(t, context.Background(), root, true,
		"local p = shell.split('cd a && git status'); return #p, p[1], p[2], shell.readonly('ls'), shell.readonly('rm x')")
	if out[0] != float64(2) || out[1] != "cd a" || out[2] != "git status" || out[3] != true || out[4] != false {
		t.Errorf("got %v", out)
	}
	out = shellCall(t, context.Background(), root, true, "return shell.split(\"ls 'x\")")
	if out[0] != nil || out[2] != "badcommand" {
		t.Errorf("bad command: %v", out)
	}
	// An empty list is marked as an array, so that it stays [] when a tool returns it.
	out = shellCall(t, context.Background(), root, true, "return require('json').encode(shell.split(''))")
	if out[0] != "[]" {
		t.Errorf("split of nothing encodes as %v, want []", out[0])
	}
}
