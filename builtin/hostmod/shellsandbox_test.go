package hostmod_test

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/builtin/confine"
	"github.com/luatool/luatool/builtin/confine/confinetest"
	"github.com/luatool/luatool/builtin/hostmod"
)

// requireSandbox skips the test when the kernel has no usable Landlock (see
// confinetest).
func requireSandbox(t testing.TB) {
	t.Helper()
	confinetest.Landlock(t)
}

// shellWith runs shell.run(command) with the shell module of opts on root, in a call
// that is read-only when readOnly is set, and returns the result's output and exit
// code.
func shellWith(t *testing.T, opts hostmod.ShellOptions, root string, readOnly bool, command string) (string, int) {
	t.Helper()
	mod, err := hostmod.Shell([]string{root}, opts)
	if err != nil {
		t.Fatal(err)
	}
	out, err := runWith(t, []*bindings.Module{mod}, &bindings.Call{Context: context.Background(), Access: access(readOnly)},
		"local r, err, code = shell.run(...); if not r then error(code .. ': ' .. err) end; return r.output, r.exitCode", command)
	if err != nil {
		t.Fatalf("shell.run(%q): %v", command, err)
	}
	return out[0].(string), int(out[1].(float64))
}

// secretLayout makes a root and, outside it, a home directory holding a secret
// file; it returns the root and the secret's path.
func secretLayout(t *testing.T) (root, secret string) {
	t.Helper()
	base := t.TempDir()
	root = filepath.Join(base, "project")
	secret = filepath.Join(base, "home", ".ssh", "id_ed25519")
	for _, d := range []string{root, filepath.Dir(secret)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(secret, []byte("PRIVATE KEY\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "readme.txt"), []byte("project\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, secret
}

// TestShellSandboxReads: in a call that may write, the classifier is not asked and
// the kernel refuses a read outside the roots; without the sandbox the command reads
// the file. In a read-only call the classifier refuses it before it runs (and
// TestStartCommandPolicy shows the kernel would too).
func TestShellSandboxReads(t *testing.T) {
	requireSandbox(t)
	root, secret := secretLayout(t)
	for _, readOnly := range []bool{true, false} {
		if out, code := shellWith(t, hostmod.ShellOptions{}, root, readOnly, "cat readme.txt"); out != "project\n" || code != 0 {
			t.Errorf("reading the root (read-only %v): %q, %d", readOnly, out, code)
		}
	}
	out, code := shellWith(t, hostmod.ShellOptions{}, root, false, "cat "+secret)
	if code == 0 || !strings.Contains(out, "Permission denied") || strings.Contains(out, "PRIVATE") {
		t.Errorf("reading the secret: %q, %d", out, code)
	}
	if out, _ := shellWith(t, hostmod.ShellOptions{NoSandbox: true}, root, false, "cat "+secret); out != "PRIVATE KEY\n" {
		t.Errorf("without the sandbox, the secret reads %q", out)
	}
	mod, err := hostmod.Shell([]string{root}, hostmod.ShellOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = runWith(t, []*bindings.Module{mod}, &bindings.Call{Context: context.Background(), Access: access(true)},
		"local r, err, code = shell.run(...); if not r then error(code .. ': ' .. err) end; return r.output", "cat "+secret)
	if err == nil || !strings.Contains(err.Error(), "readonly: this call is read-only and the command reads "+secret+", outside the roots") {
		t.Errorf("a read-only call reading the secret: %v, want the classifier's refusal", err)
	}
}

// TestShellSandboxWrites: a call that may write may change the roots and nothing
// outside them (shellenv_test.go checks that a read-only call cannot change them,
// whatever the classifier says).
func TestShellSandboxWrites(t *testing.T) {
	requireSandbox(t)
	root, secret := secretLayout(t)
	if out, code := shellWith(t, hostmod.ShellOptions{}, root, false, "echo made > made.txt && mkdir d && mv made.txt d/"); code != 0 {
		t.Fatalf("writing the root: %q, %d", out, code)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "d", "made.txt")); string(b) != "made\n" {
		t.Errorf("d/made.txt = %q", b)
	}
	out, code := shellWith(t, hostmod.ShellOptions{}, root, false, "echo x >> "+secret)
	if code == 0 || !strings.Contains(out, "Permission denied") {
		t.Errorf("writing outside the roots: %q, %d", out, code)
	}
}

// TestShellEnvironment: a command sees the minimal environment, not the host's,
// plus what PassEnv names; its TMPDIR and HOME are its own, writable, and gone
// once it has ended.
func TestShellEnvironment(t *testing.T) {
	t.Setenv("HOSTMOD_TEST_SECRET", "token-123")
	t.Setenv("LC_MESSAGES", "C")
	root := t.TempDir()
	script := `env; echo scratch > "$TMPDIR/x" && cat "$HOME/x"`
	for _, opts := range []hostmod.ShellOptions{{}, {NoSandbox: true}} {
		out, code := shellWith(t, opts, root, false, script)
		if code != 0 || strings.Contains(out, "token-123") || !strings.Contains(out, "LC_MESSAGES=C\n") || !strings.HasSuffix(out, "scratch\n") {
			t.Errorf("NoSandbox %v: exit %d:\n%s", opts.NoSandbox, code, out)
		}
		var tmp, home string
		for _, line := range strings.Split(out, "\n") {
			if v, ok := strings.CutPrefix(line, "TMPDIR="); ok {
				tmp = v
			}
			if v, ok := strings.CutPrefix(line, "HOME="); ok {
				home = v
			}
		}
		if tmp == "" || home != tmp {
			t.Errorf("TMPDIR %q, HOME %q", tmp, home)
		}
		if _, err := os.Stat(tmp); err == nil {
			t.Errorf("the scratch directory %s outlived the command", tmp)
		}
	}
	out, _ := shellWith(t, hostmod.ShellOptions{PassEnv: []string{"HOSTMOD_TEST_SECRET"}}, root, false, "echo $HOSTMOD_TEST_SECRET")
	if out != "token-123\n" {
		t.Errorf("PassEnv: %q", out)
	}
	if _, err := hostmod.Shell([]string{root}, hostmod.ShellOptions{PassEnv: []string{"A=B"}}); err == nil || !strings.Contains(err.Error(), `"A=B" is not an environment variable name`) {
		t.Errorf("PassEnv A=B: %v", err)
	}
}

// TestShellProcHidden: the environment of the host process is not readable
// through /proc.
func TestShellProcHidden(t *testing.T) {
	requireSandbox(t)
	t.Setenv("HOSTMOD_TEST_SECRET", "token-123")
	out, code := shellWith(t, hostmod.ShellOptions{}, t.TempDir(), false, "cat /proc/"+strconv.Itoa(os.Getpid())+"/environ; cat /proc/self/environ")
	if code == 0 || strings.Contains(out, "token-123") || !strings.Contains(out, "Permission denied") {
		t.Errorf("exit %d: %q", code, out)
	}
}

// TestShellNetwork: commands reach a loopback listener only with Network.
func TestShellNetwork(t *testing.T) {
	requireSandbox(t)
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	connect := "exec 3<>/dev/tcp/127.0.0.1/" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port) + " && echo connected"
	if out, code := shellWith(t, hostmod.ShellOptions{}, t.TempDir(), false, connect); code == 0 || !strings.Contains(out, "Permission denied") {
		t.Errorf("without Network: %q, %d", out, code)
	}
	if out, _ := shellWith(t, hostmod.ShellOptions{Network: true}, t.TempDir(), false, connect); out != "connected\n" {
		t.Errorf("with Network: %q", out)
	}
}

// TestShellStartSandboxed: a background job runs under the same sandbox.
func TestShellStartSandboxed(t *testing.T) {
	requireSandbox(t)
	root, secret := secretLayout(t)
	mod, err := hostmod.Shell([]string{root}, hostmod.ShellOptions{})
	if err != nil {
		t.Fatal(err)
	}
	host := &closeHost{}
	defer host.close()
	out, err := runWith(t, []*bindings.Module{mod}, &bindings.Call{Context: context.Background(), Access: bindings.AccessWrite, OnClose: host.onClose},
		"return shell.start(...)", "cat readme.txt; cat "+secret+"; echo done")
	if err != nil || out[0] == nil {
		t.Fatalf("start: %v, %v", out, err)
	}
	got := ended(t, out[1].(string))
	if !strings.HasPrefix(got, "project\n") || !strings.Contains(got, "Permission denied") || strings.Contains(got, "PRIVATE") || !strings.Contains(got, "done\n") {
		t.Errorf("job output: %q", got)
	}
}

// denyLayout makes a root holding secrets/key.txt (a canary) and readme.txt, and
// returns the root and a call that hides secrets as a Read(./secrets/**) deny rule
// would, read-only or not.
func denyLayout(t *testing.T) (root string, call func(readOnly bool) *bindings.Call) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	secrets := filepath.Join(root, "secrets")
	if err := os.Mkdir(secrets, 0o755); err != nil {
		t.Fatal(err)
	}
	for f, text := range map[string]string{filepath.Join(secrets, "key.txt"): "CANARY\n", filepath.Join(root, "readme.txt"): "project\n"} {
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, func(readOnly bool) *bindings.Call {
		return &bindings.Call{
			Context: context.Background(), Access: access(readOnly),
			Hidden: func(p string) bool { return p == secrets || strings.HasPrefix(p, secrets+"/") },
			HiddenBelow: func(dir string) bool {
				return dir == secrets || strings.HasPrefix(secrets, dir+"/") || strings.HasPrefix(dir, secrets+"/")
			},
		}
	}
}

// runIn runs shell.run(command) with the shell module of opts on root in call, and
// returns the output, or the error's code and message.
func runIn(t *testing.T, opts hostmod.ShellOptions, root string, call *bindings.Call, command string) string {
	t.Helper()
	mod, err := hostmod.Shell([]string{root}, opts)
	if err != nil {
		t.Fatal(err)
	}
	out, err := runWith(t, []*bindings.Module{mod}, call,
		"local r, err, code = shell.run(...); if not r then return code .. ': ' .. err end; return r.output", command)
	if err != nil {
		t.Fatalf("shell.run(%q): %v", command, err)
	}
	return out[0].(string)
}

// TestShellReadDenyInKernel: with the kernel sandbox, a Read deny rule holds for what
// the classifier cannot see: a read-only call's recursive grep, and in a call that
// may write (approved), globs, variables and substitutions; the kernel refuses the
// hidden file, in a background command too, and the rest reads as before.
func TestShellReadDenyInKernel(t *testing.T) {
	requireSandbox(t)
	root, call := denyLayout(t)
	if out := runIn(t, hostmod.ShellOptions{}, root, call(true), "grep -r CANARY .; cat readme.txt"); out != "grep: ./secrets/key.txt: Permission denied\nproject\n" {
		t.Errorf("read-only grep -r: %q", out)
	}
	// A glob the classifier expands names the hidden file: refused before it runs.
	if out := runIn(t, hostmod.ShellOptions{}, root, call(false), "cat secrets/k*"); !strings.HasPrefix(out, "hidden: ") {
		t.Errorf("cat secrets/k*: %q", out)
	}
	// What the classifier cannot see, the kernel refuses.
	for _, command := range []string{"f=secrets; cat $f/k*", "f=secrets; cat $f/key.txt", "cat $(echo secrets/key.txt)"} {
		if out := runIn(t, hostmod.ShellOptions{}, root, call(false), command); out != "cat: secrets/key.txt: Permission denied\n" {
			t.Errorf("%s: %q", command, out)
		}
	}
	mod, err := hostmod.Shell([]string{root}, hostmod.ShellOptions{})
	if err != nil {
		t.Fatal(err)
	}
	host := &closeHost{}
	defer host.close()
	c := call(false)
	c.OnClose = host.onClose
	out, err := runWith(t, []*bindings.Module{mod}, c, "return shell.start(...)", "f=secrets; cat $f/*; echo done")
	if err != nil || out[0] == nil {
		t.Fatalf("start: %v, %v", out, err)
	}
	if got := ended(t, out[1].(string)); strings.Contains(got, "CANARY") || !strings.Contains(got, "Permission denied") {
		t.Errorf("background command: %q", got)
	}
}

// TestShellReadDenyWithoutKernel: without the kernel sandbox only the classifier
// stands between a command and a hidden file, so a read-only call runs no command
// that reads where a hidden path may lie, named or not (its working directory
// included), and shell.readonly says "unlisted"; a command naming the hidden file
// is refused even in a call that may write. A call that may write runs the others:
// that is what approving one means without the kernel.
func TestShellReadDenyWithoutKernel(t *testing.T) {
	root, call := denyLayout(t)
	opts := hostmod.ShellOptions{NoSandbox: true}
	for _, command := range []string{"grep -r CANARY .", "grep -r CANARY", "find", "cat readme.txt"} {
		if out := runIn(t, opts, root, call(true), command); !strings.HasPrefix(out, "readonly: this call is read-only and the command reads "+root+", where a Read deny rule may hide files") {
			t.Errorf("read-only %s: %q", command, out)
		}
	}
	mod, err := hostmod.Shell([]string{root}, opts)
	if err != nil {
		t.Fatal(err)
	}
	out, err := runWith(t, []*bindings.Module{mod}, call(true), "return shell.readonly(...)", "ls -R")
	if err != nil || len(out) != 3 || out[2] != "unlisted" {
		t.Errorf("shell.readonly(ls -R): %v, %v", out, err)
	}
	if out := runIn(t, opts, root, call(false), "cat secrets/key.txt"); !strings.HasPrefix(out, "hidden: the command reads "+root+"/secrets/key.txt, which a Read deny rule hides") {
		t.Errorf("approved, naming the hidden file: %q", out)
	}
	if out := runIn(t, opts, root, call(true), "cat readme.txt"); strings.Contains(out, "project") {
		t.Errorf("a read-only call ran a command in the root: %q", out)
	}
	if out := runIn(t, opts, root, call(false), "cat readme.txt"); out != "project\n" {
		t.Errorf("approved, reading the root: %q", out)
	}
}

func TestShellDescribe(t *testing.T) {
	if got := (hostmod.ShellOptions{NoSandbox: true}).Describe(); got != "none (turned off by the host); shell commands are confined by the read-only classifier only" {
		t.Errorf("NoSandbox: %q", got)
	}
	abi, err := confine.Landlock()
	if err != nil {
		if got := (hostmod.ShellOptions{}).Describe(); !strings.HasPrefix(got, "none (Landlock is not available") {
			t.Errorf("without Landlock: %q", got)
		}
		return
	}
	want := "Landlock ABI " + strconv.Itoa(abi) + " (reads: roots and system directories; writes: roots, for calls that may write; network: allowed)"
	if got := (hostmod.ShellOptions{Network: true}).Describe(); got != want {
		t.Errorf("Describe = %q, want %q", got, want)
	}
}

// BenchmarkShellRun measures shell.run("true") with and without the sandbox: the
// difference is the launcher (a start of the test binary, the policy, Landlock).
func BenchmarkShellRun(b *testing.B) {
	for _, c := range []struct {
		name string
		opts hostmod.ShellOptions
	}{{"sandbox", hostmod.ShellOptions{}}, {"none", hostmod.ShellOptions{NoSandbox: true}}} {
		b.Run(c.name, func(b *testing.B) {
			if !c.opts.NoSandbox {
				requireSandbox(b)
			}
			mod, err := hostmod.Shell([]string{b.TempDir()}, c.opts)
			if err != nil {
				b.Fatal(err)
			}
			vm := bindings.NewVM(bindings.Config{Modules: []*bindings.Module{mod}})
			defer vm.Close()
			prog, err := bindings.Compile("bench.lua", []byte(`local shell = require("shell")
return function() local r = shell.run("true"); if not r or r.exitCode ~= 0 then error("failed") end end`), bindings.Limits{})
			if err != nil {
				b.Fatal(err)
			}
			if err := vm.Run(prog); err != nil {
				b.Fatal(err)
			}
			call := &bindings.Call{Context: context.Background(), Access: bindings.AccessWrite}
			for b.Loop() {
				if _, err := vm.Call(call, vm.Main); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestShellReadDenyHoldsInGitObjects: a Read deny rule also holds for what git keeps
// of the hidden file: with the kernel sandbox, a command cannot print a committed
// version of it from the repository's object store, while without the rule git
// prints it (the test would pass vacuously otherwise).
func TestShellReadDenyHoldsInGitObjects(t *testing.T) {
	requireSandbox(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git on PATH")
	}
	root, call := denyLayout(t)
	git := exec.Command("sh", "-c", "git init -q && git add -A && git -c user.email=t@t -c user.name=t commit -qm x")
	git.Dir = root
	if out, err := git.CombinedOutput(); err != nil {
		t.Fatalf("git: %v\n%s", err, out)
	}
	const show = "git show HEAD:secrets/key.txt; git log -p | grep -c CANARY; cat readme.txt"
	if out := runIn(t, hostmod.ShellOptions{}, root, &bindings.Call{Context: context.Background(), Access: access(false)}, show); !strings.Contains(out, "CANARY\n") {
		t.Fatalf("without a deny rule git should print the file: %q", out)
	}
	for _, readOnly := range []bool{true, false} {
		out := runIn(t, hostmod.ShellOptions{}, root, call(readOnly), show)
		if strings.Contains(out, "CANARY\n") || !strings.HasSuffix(out, "0\nproject\n") {
			t.Errorf("read-only %v: %q", readOnly, out)
		}
	}
}
