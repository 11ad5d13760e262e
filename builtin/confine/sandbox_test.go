package confine_test

import (
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/luatool/luatool/builtin/confine"
	"github.com/luatool/luatool/builtin/confine/confinetest"
)

// requireLandlock skips the test when the kernel has no usable Landlock (see
// confinetest).
func requireLandlock(t testing.TB) int {
	t.Helper()
	return confinetest.Landlock(t)
}

// run runs script with bash under p (unconfined when p is nil) and returns its
// output and exit code.
func run(t *testing.T, p *confine.Policy, script string) (string, int) {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	var err error
	if p == nil {
		err = cmd.Start()
	} else {
		err = confine.Start(cmd, *p)
	}
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	err = cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("wait: %v", err)
	}
	return out.String(), cmd.ProcessState.ExitCode()
}

// mustRun is run for scripts that must succeed.
func mustRun(t *testing.T, p *confine.Policy, script string) string {
	t.Helper()
	out, code := run(t, p, script)
	if code != 0 {
		t.Fatalf("%s: exit %d: %s", script, code, out)
	}
	return out
}

// refused checks that script fails under p, the kernel refusing it.
func refused(t *testing.T, p *confine.Policy, script string) {
	t.Helper()
	out, code := run(t, p, script)
	if code == 0 || !strings.Contains(out, "Permission denied") {
		t.Errorf("%s: exit %d, output %q; want a refusal", script, code, out)
	}
}

// q quotes s for the shell.
func q(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// layout is a root with a file, and outside it a home directory with a secret.
type layout struct {
	root, file, home, secret string
}

func newLayout(t *testing.T) layout {
	t.Helper()
	base := t.TempDir()
	l := layout{root: filepath.Join(base, "root"), home: filepath.Join(base, "home")}
	l.file = filepath.Join(l.root, "file.txt")
	l.secret = filepath.Join(l.home, ".ssh", "id_ed25519")
	for _, d := range []string{l.root, filepath.Dir(l.secret)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for f, text := range map[string]string{l.file: "in the root\n", l.secret: "PRIVATE KEY\n"} {
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

func TestReadOnlyRoot(t *testing.T) {
	requireLandlock(t)
	l := newLayout(t)
	p := &confine.Policy{Read: []string{l.root}}
	if out := mustRun(t, p, "cat "+q(l.file)+"; ls "+q(l.root)); out != "in the root\nfile.txt\n" {
		t.Errorf("reading the root: %q", out)
	}
	for _, script := range []string{
		"echo new > " + q(filepath.Join(l.root, "new.txt")),
		"echo more >> " + q(l.file),
		"truncate -s 0 " + q(l.file),
		"rm " + q(l.file),
		"mkdir " + q(filepath.Join(l.root, "dir")),
		"mv " + q(l.file) + " " + q(filepath.Join(l.root, "moved.txt")),
	} {
		refused(t, p, script)
	}
	if b, err := os.ReadFile(l.file); err != nil || string(b) != "in the root\n" {
		t.Errorf("the file after the refused writes: %q, %v", b, err)
	}
	if entries, _ := os.ReadDir(l.root); len(entries) != 1 {
		t.Errorf("the root after the refused writes holds %d entries", len(entries))
	}
}

func TestWritableRoot(t *testing.T) {
	requireLandlock(t)
	l := newLayout(t)
	p := &confine.Policy{Write: []string{l.root}}
	sub := filepath.Join(l.root, "sub")
	mustRun(t, p, "cd "+q(l.root)+" && echo more >> file.txt && mkdir sub && echo new > sub/new.txt && mv sub/new.txt moved.txt && ln -s moved.txt link")
	if b, _ := os.ReadFile(l.file); string(b) != "in the root\nmore\n" {
		t.Errorf("file.txt = %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(l.root, "link")); string(b) != "new\n" {
		t.Errorf("moved.txt through the link = %q", b)
	}
	if _, err := os.Stat(sub); err != nil {
		t.Error(err)
	}
	// Writable means the root, not its neighbours.
	refused(t, p, "echo x > "+q(filepath.Join(l.home, "x")))
}

// TestSecretOutsideRoot: a directory outside the policy, readable by the test
// itself, is refused to the command and to every process it starts.
func TestSecretOutsideRoot(t *testing.T) {
	requireLandlock(t)
	l := newLayout(t)
	script := "cat " + q(l.secret)
	if out := mustRun(t, nil, script); out != "PRIVATE KEY\n" {
		t.Fatalf("unconfined, the secret reads %q", out)
	}
	p := &confine.Policy{Write: []string{l.root}}
	for _, s := range []string{
		script,
		"ls " + q(filepath.Dir(l.secret)),
		"cp " + q(l.secret) + " " + q(l.root),
		"bash -c " + q("sh -c "+q(script)),
		"(" + script + ") &\nwait $!",
		"cd " + q(filepath.Dir(l.secret)) + " && cat id_ed25519",
	} {
		refused(t, p, s)
	}
	if _, err := os.Stat(filepath.Join(l.root, "id_ed25519")); err == nil {
		t.Error("the secret was copied into the root")
	}
}

func TestSystemFiles(t *testing.T) {
	requireLandlock(t)
	p := &confine.Policy{}
	if out := mustRun(t, p, "grep -c '^root:' /etc/passwd; echo hi > /dev/null; head -c 4 /dev/zero | wc -c"); out != "1\n4\n" {
		t.Errorf("system files: %q", out)
	}
	if _, err := os.ReadFile("/etc/shadow"); err == nil {
		refused(t, p, "cat /etc/shadow")
	}
	for _, s := range []string{"ls /tmp", "echo x > /tmp/luatool-sandbox-test", "ls /root", "ls /sys", "cat /proc/self/status"} {
		refused(t, p, s)
	}
}

// TestEnvironmentHidden: neither the launcher's instructions nor, through /proc,
// the environment of the process that started the command are readable.
func TestEnvironmentHidden(t *testing.T) {
	requireLandlock(t)
	t.Setenv("SANDBOX_TEST_MARKER", "visible")
	p := &confine.Policy{}
	out := mustRun(t, p, "env")
	if strings.Contains(out, "LUATOOL_SANDBOX") || !strings.Contains(out, "SANDBOX_TEST_MARKER=visible") {
		t.Errorf("env (inherited on purpose) shows:\n%s", out)
	}
	for _, s := range []string{"cat /proc/self/environ", "cat /proc/" + strconv.Itoa(os.Getpid()) + "/environ", "cat /proc/$PPID/environ", "ls /proc"} {
		refused(t, p, s)
	}
}

// TestNetwork: a loopback listener of the test is out of reach unless the policy
// allows the network.
func TestNetwork(t *testing.T) {
	if requireLandlock(t) < 4 {
		t.Skip("Landlock before ABI 4 does not control TCP")
	}
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- struct{}{}
			c.Close()
		}
	}()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	connect := "exec 3<>/dev/tcp/127.0.0.1/" + port + " && echo connected"
	refused(t, &confine.Policy{}, connect)
	refused(t, &confine.Policy{}, "bash -c "+q(connect))
	if len(accepted) != 0 {
		t.Error("the listener got a connection from a command without the network")
	}
	if out := mustRun(t, &confine.Policy{Network: true}, connect); out != "connected\n" {
		t.Errorf("with the network: %q", out)
	}
	<-accepted
}

// TestSignalsScoped: a command cannot signal the process that started it.
func TestSignalsScoped(t *testing.T) {
	if requireLandlock(t) < 6 {
		t.Skip("Landlock before ABI 6 does not scope signals")
	}
	out, code := run(t, &confine.Policy{}, "kill -0 "+strconv.Itoa(os.Getpid()))
	if code == 0 || !strings.Contains(out, "not permitted") {
		t.Errorf("kill -0 of the test process: exit %d, %q", code, out)
	}
	mustRun(t, &confine.Policy{}, "sleep 10 & kill $!")
}

// TestLauncherFailure: a command that cannot be executed is an error of Start,
// with the launcher's reason.
func TestLauncherFailure(t *testing.T) {
	requireLandlock(t)
	cmd := exec.Command("/nonexistent/command")
	err := confine.Start(cmd, confine.Policy{})
	if err == nil || !strings.Contains(err.Error(), "executing /nonexistent/command: no such file or directory") {
		t.Errorf("Start = %v", err)
	}
}

// BenchmarkStart measures starting and waiting for /bin/true in the sandbox and
// without it: the difference is the launcher (a start of this binary, the policy
// with /etc enumerated, Landlock).
func BenchmarkStart(b *testing.B) {
	for _, sandboxed := range []bool{true, false} {
		name := "none"
		if sandboxed {
			name = "sandbox"
		}
		b.Run(name, func(b *testing.B) {
			if sandboxed {
				requireLandlock(b)
			}
			root := b.TempDir()
			for b.Loop() {
				cmd := exec.Command("/bin/true")
				var err error
				if sandboxed {
					err = confine.Start(cmd, confine.Policy{Read: []string{root}})
				} else {
					err = cmd.Start()
				}
				if err == nil {
					err = cmd.Wait()
				}
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
