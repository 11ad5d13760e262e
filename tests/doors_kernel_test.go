package tests

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/luatool/luatool/builtin/confine/confinetest"
)

// Issue 26, items 2 and 5, against the luatool binary: a sandboxed command run by
// root holds no privilege, and a Read deny rule holds in the kernel, approval or not.

// requireKernelSandbox skips the test without a usable Landlock (see confinetest).
func requireKernelSandbox(t *testing.T) {
	t.Helper()
	confinetest.Landlock(t)
}

// bash runs the Bash tool with command through luatool in dir, with flags before
// the call, and returns stdout and stderr together.
func bash(t *testing.T, dir, command string, flags ...string) string {
	t.Helper()
	input, err := json.Marshal(map[string]string{"command": command})
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, _ := runLuatool(t, dir, "", append(flags, "call", "Bash", string(input))...)
	return stdout + stderr
}

// privilegeProbe is a program a sandboxed command runs to report, from inside,
// its capability sets as /proc/self/status shows them (read with capget and prctl,
// /proc being closed), and what the kernel answers to making a block device, a fifo
// and a Unix socket in $TMPDIR, a raw socket (sniffing) and a mount.
const privilegeProbe = `package main

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"
)

func prctl(op, arg uintptr) (uintptr, syscall.Errno) {
	r, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, op, arg, 0, 0, 0, 0)
	return r, e
}

func main() {
	hdr := struct{ version uint32; pid int32 }{version: 0x20080522}
	var data [2]struct{ eff, prm, inh uint32 }
	if _, _, e := syscall.RawSyscall(syscall.SYS_CAPGET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0); e != 0 {
		fmt.Println("capget:", e)
		return
	}
	var bnd, amb uint64
	for c := uintptr(0); c < 64; c++ {
		if r, e := prctl(23, c); e == 0 && r == 1 { // PR_CAPBSET_READ
			bnd |= 1 << c
		}
		if r, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, 47, 1, c, 0, 0, 0); e == 0 && r == 1 { // PR_CAP_AMBIENT_IS_SET
			amb |= 1 << c
		}
	}
	set := func(hi, lo uint32) uint64 { return uint64(hi)<<32 | uint64(lo) }
	fmt.Printf("CapInh:\t%016x\n", set(data[1].inh, data[0].inh))
	fmt.Printf("CapPrm:\t%016x\n", set(data[1].prm, data[0].prm))
	fmt.Printf("CapEff:\t%016x\n", set(data[1].eff, data[0].eff))
	fmt.Printf("CapBnd:\t%016x\n", bnd)
	fmt.Printf("CapAmb:\t%016x\n", amb)
	tmp := os.Getenv("TMPDIR")
	fmt.Println("mknod block:", syscall.Mknod(tmp+"/disk", syscall.S_IFBLK|0o600, 7<<8))
	fmt.Println("mkfifo:", syscall.Mknod(tmp+"/fifo", syscall.S_IFIFO|0o600, 0))
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err == nil {
		err = syscall.Bind(fd, &syscall.SockaddrUnix{Name: tmp + "/sock"})
	}
	fmt.Println("unix socket:", err)
	_, err = syscall.Socket(syscall.AF_PACKET, syscall.SOCK_RAW, 0x0300)
	fmt.Println("raw socket:", err)
	fmt.Println("mount:", syscall.Mount("none", tmp, "tmpfs", 0, ""))
}
`

// buildProbe builds privilegeProbe into dir/probe.
func buildProbe(t *testing.T, dir string) {
	t.Helper()
	src := filepath.Join(t.TempDir(), "probe.go")
	if err := os.WriteFile(src, []byte(privilegeProbe), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "probe"), src)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the probe: %v\n%s", err, out)
	}
}

// TestDoor2NoPrivilegeInSandbox: a command approved to run (--yes) holds no
// capability, as root too: every set is empty, inside and seen from inside; it
// cannot make a block device, a fifo or a Unix socket in $TMPDIR, open a raw socket,
// mount, or make namespaces that need privilege (a user namespace it may make, the
// README says what that gives). As root on main it had every capability and did all
// of these, and read a disk image through a block device it made.
func TestDoor2NoPrivilegeInSandbox(t *testing.T) {
	requireKernelSandbox(t)
	dir := t.TempDir()
	buildProbe(t, dir)
	out := bash(t, dir, "./probe", "--yes")
	t.Logf("the probe, from inside:\n%s", out)
	for _, line := range []string{"CapInh", "CapPrm", "CapEff", "CapAmb"} {
		if !strings.Contains(out, line+":\t0000000000000000\n") {
			t.Errorf("%s is not empty", line)
		}
	}
	for _, want := range []string{"mknod block: permission denied", "mkfifo: permission denied", "unix socket: permission denied", "mount: operation not permitted"} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("want %q", want)
		}
	}
	if os.Geteuid() != 0 {
		return
	}
	if !strings.Contains(out, "CapBnd:\t0000000000000000\n") || !strings.Contains(out, "raw socket: operation not permitted\n") {
		t.Errorf("run by root, the bounding set or CAP_NET_RAW is left")
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the project holds %d entries, want the probe alone", len(entries))
	}
	// The attacks through the shell: a block device of a loop device that
	// holds a disk image outside the roots, and namespaces that need privilege.
	image := filepath.Join(t.TempDir(), "disk.img")
	if err := os.WriteFile(image, append([]byte("DISK-CANARY-26"), make([]byte, 1<<20)...), 0o600); err != nil {
		t.Fatal(err)
	}
	if loop, err := exec.Command("losetup", "--find", "--show", image).Output(); err == nil {
		dev := strings.TrimSpace(string(loop))
		defer exec.Command("losetup", "-d", dev).Run()
		minor := strings.TrimPrefix(dev, "/dev/loop")
		if _, err := strconv.Atoi(minor); err != nil {
			t.Fatalf("losetup gave %q", dev)
		}
		out := bash(t, dir, "mknod $TMPDIR/disk b 7 "+minor+" && head -c 14 $TMPDIR/disk", "--yes")
		if strings.Contains(out, "DISK-CANARY-26") || !strings.Contains(out, "Permission denied") {
			t.Errorf("reading the disk image through a block device: %s", out)
		}
	} else {
		t.Logf("no loop device (%v): the block device is refused above", err)
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		return
	}
	host, _ := os.Hostname()
	for _, command := range []string{"unshare -u sh -c 'hostname door-26; hostname'", "unshare -n true", "unshare -m true", "unshare -Urn true", "unshare -Um true"} {
		if out := bash(t, dir, command, "--yes"); strings.Contains(out, "door-26\n") || !strings.Contains(out, "Exit code 1") {
			t.Errorf("%s: %s", command, out)
		}
	}
	if now, _ := os.Hostname(); now != host {
		t.Errorf("the host name changed from %q to %q", host, now)
	}
}

// denyProject makes a project holding secrets/key.txt (a canary) and readme.txt.
func denyProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "secrets"), 0o755); err != nil {
		t.Fatal(err)
	}
	for f, text := range map[string]string{"secrets/key.txt": "CANARY-26-5\n", "readme.txt": "project\n"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestDoor5ReadDenyInKernel: with --deny 'Read(./secrets/**)', neither an
// unapproved recursive grep (read-only, so it runs) nor an approved command that
// reaches the file through a glob, a variable or a substitution, by --yes or by an
// allow rule, prints it: the kernel refuses the file; the rest of the project reads
// as before. On main each printed the canary.
func TestDoor5ReadDenyInKernel(t *testing.T) {
	requireKernelSandbox(t)
	dir := denyProject(t)
	deny := "--deny=Read(./secrets/**)"
	out := bash(t, dir, "grep -r CANARY .; cat readme.txt", deny)
	if strings.Contains(out, "CANARY-26-5") || !strings.Contains(out, "./secrets/key.txt: Permission denied") || !strings.Contains(out, "project") {
		t.Errorf("unapproved grep -r: %s", out)
	}
	// A glob the classifier expands to the file is denied before it runs ("has been
	// denied"); what it cannot see, the kernel refuses ("Permission denied").
	for _, command := range []string{"cat secrets/k*", "cat */*", "f=secrets; cat $f/key.txt", "f=secrets; cat $f/k*", "cat $(echo secrets/key.txt)", "find . -type f | xargs cat"} {
		for _, approval := range []string{"--yes", "--allow=Bash(*)"} {
			if out := bash(t, dir, command, deny, approval); strings.Contains(out, "CANARY-26-5") || !strings.Contains(out, "Permission denied") && !strings.Contains(out, "Permission to use Bash has been denied: the command reads") {
				t.Errorf("%s with %s: %s", command, approval, out)
			}
		}
	}
	// Nor can it give the file a name the rule misses, for the next command or the
	// Read tool to read: by moving or linking it, or the directory that holds it.
	for _, command := range []string{"mv secrets/k* leak.txt", "ln secrets/k* leak.txt", "mv secrets leak", "cp -r secrets leak"} {
		dir := denyProject(t)
		bash(t, dir, command, deny, "--yes")
		if out := bash(t, dir, "cat leak.txt leak/key.txt", deny, "--yes"); strings.Contains(out, "CANARY-26-5") {
			t.Errorf("after %s, the next command: %s", command, out)
		}
		for _, leak := range []string{"leak.txt", "leak/key.txt"} {
			input, _ := json.Marshal(map[string]string{"file_path": filepath.Join(dir, leak)})
			if stdout, stderr, _ := runLuatool(t, dir, "", deny, "call", "Read", string(input)); strings.Contains(stdout+stderr, "CANARY-26-5") {
				t.Errorf("after %s, Read %s: %s", command, leak, stdout+stderr)
			}
		}
	}
}

// TestDoor5TreeTooLargeRefused: a rule that reaches every directory (.env at any
// depth) in a tree larger than the walk's bound refuses the command, saying why
// and what to do, instead of running it less confined.
func TestDoor5TreeTooLargeRefused(t *testing.T) {
	requireKernelSandbox(t)
	dir := denyProject(t)
	for d := range 101 {
		sub := filepath.Join(dir, "gen", strconv.Itoa(d))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		for f := range 500 {
			if err := os.WriteFile(filepath.Join(sub, strconv.Itoa(f)), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	out := bash(t, dir, "cat readme.txt", "--deny=Read(.env)", "--yes")
	if strings.Contains(out, "project\n") || !strings.Contains(out, "the Read deny rules reach into too many files") || !strings.Contains(out, "Anchor the rules") {
		t.Errorf("a tree of 50,500 files under Read(.env): %s", out)
	}
	if out := bash(t, dir, "cat readme.txt", "--deny=Read(./secrets/**)", "--yes"); !strings.Contains(out, "project\n") {
		t.Errorf("the same tree under Read(./secrets/**): %s", out)
	}
}

// TestDoor5ReadDenyWithoutKernel: without the kernel sandbox (--no-shell-sandbox),
// a command that may read where the rule hides something does not run unasked, and
// one that names the hidden file is denied even when approved.
func TestDoor5ReadDenyWithoutKernel(t *testing.T) {
	dir := denyProject(t)
	deny := "--deny=Read(./secrets/**)"
	out := bash(t, dir, "grep -r CANARY .", deny, "--no-shell-sandbox")
	if strings.Contains(out, "CANARY-26-5") || !strings.Contains(out, "Bash was not allowed to run") {
		t.Errorf("unapproved grep -r without the kernel: %s", out)
	}
	out = bash(t, dir, "cat secrets/key.txt", deny, "--no-shell-sandbox", "--yes")
	if strings.Contains(out, "CANARY-26-5") || !strings.Contains(out, "which a Read deny rule hides") {
		t.Errorf("approved, naming the file, without the kernel: %s", out)
	}
}
