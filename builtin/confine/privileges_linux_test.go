package confine_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/luatool/luatool/builtin/confine"
)

// helperVar makes the test binary, started as a sandboxed command, run
// TestSandboxedHelper's action instead of the tests.
const helperVar = "SANDBOX_TEST_HELPER"

// TestSandboxedHelper is not a test: started by runHelper with helperVar set, it is
// the sandboxed command, and prints what the action it is told found from inside.
func TestSandboxedHelper(t *testing.T) {
	action, arg, ok := strings.Cut(os.Getenv(helperVar), ":")
	if !ok {
		t.Skip("run by runHelper only")
	}
	switch action {
	case "caps":
		fmt.Println(capabilityReport())
	case "bind":
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err == nil {
			err = unix.Bind(fd, &unix.SockaddrUnix{Name: arg})
		}
		fmt.Printf("bind: %v\n", err)
	case "raw":
		_, err := unix.Socket(unix.AF_PACKET, unix.SOCK_RAW, 0x0300) // ETH_P_ALL, in network order
		fmt.Printf("raw socket: %v\n", err)
	}
}

// capabilityReport reads the capability sets of the calling thread as
// /proc/self/status shows them, with the securebits and no_new_privs.
func capabilityReport() string {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return "capget: " + err.Error()
	}
	set := func(f func(unix.CapUserData) uint32) uint64 { return uint64(f(data[1]))<<32 | uint64(f(data[0])) }
	var bnd, amb uint64
	for c := 0; c < 64; c++ {
		if in, err := unix.PrctlRetInt(unix.PR_CAPBSET_READ, uintptr(c), 0, 0, 0); err == nil && in == 1 {
			bnd |= 1 << c
		}
		if in, err := unix.PrctlRetInt(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_IS_SET, uintptr(c), 0, 0); err == nil && in == 1 {
			amb |= 1 << c
		}
	}
	bits, _ := unix.PrctlRetInt(unix.PR_GET_SECUREBITS, 0, 0, 0, 0)
	nnp, _ := unix.PrctlRetInt(unix.PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)
	return fmt.Sprintf("CapInh: %016x\nCapPrm: %016x\nCapEff: %016x\nCapBnd: %016x\nCapAmb: %016x\nSecurebits: %#x\nNoNewPrivs: %d",
		set(func(d unix.CapUserData) uint32 { return d.Inheritable }), set(func(d unix.CapUserData) uint32 { return d.Permitted }),
		set(func(d unix.CapUserData) uint32 { return d.Effective }), bnd, amb, bits, nnp)
}

// runHelper runs this test binary as a command confined by p, with the test's
// directory readable, doing action, and returns what it printed (then the test
// framework's PASS).
func runHelper(t *testing.T, p confine.Policy, action string) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p.Read = append(p.Read, filepath.Dir(exe))
	cmd := exec.Command(exe, "-test.run=^TestSandboxedHelper$")
	cmd.Env = append(os.Environ(), helperVar+"="+action)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := confine.Start(cmd, p); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	return out.String()
}

// TestNoCapabilities: a command has no capability left, as the kernel shows it in
// /proc/self/status (granted for this one command) and as capget and prctl tell the
// command itself; run by root, the bounding set is empty and the securebits locked
// too. Its parent, the test, keeps its own.
func TestNoCapabilities(t *testing.T) {
	requireLandlock(t)
	status := mustRun(t, &confine.Policy{Read: []string{"/proc"}}, "grep -E '^(Cap|NoNewPrivs)' /proc/self/status")
	t.Logf("from /proc/self/status inside:\n%s", status)
	zero := "0000000000000000"
	for _, line := range []string{"CapInh", "CapPrm", "CapEff", "CapAmb"} {
		if !strings.Contains(status, line+":\t"+zero+"\n") {
			t.Errorf("%s is not empty:\n%s", line, status)
		}
	}
	if !strings.Contains(status, "NoNewPrivs:\t1\n") {
		t.Errorf("no_new_privs is not set:\n%s", status)
	}
	inside := runHelper(t, confine.Policy{}, "caps:")
	t.Logf("from capget and prctl inside:\n%s", inside)
	for _, line := range []string{"CapInh", "CapPrm", "CapEff", "CapAmb"} {
		if !strings.Contains(inside, line+": "+zero+"\n") {
			t.Errorf("%s is not empty:\n%s", line, inside)
		}
	}
	if os.Geteuid() != 0 {
		return
	}
	if !strings.Contains(status, "CapBnd:\t"+zero+"\n") || !strings.Contains(inside, "CapBnd: "+zero+"\n") {
		t.Errorf("run by root, the bounding set is not empty:\n%s\n%s", status, inside)
	}
	if !strings.Contains(inside, "Securebits: 0xeb\n") {
		t.Errorf("run by root, the securebits are not noroot, no ambient raise and locked:\n%s", inside)
	}
	if outside := capabilityReport(); strings.Contains(outside, "CapEff: "+zero) {
		t.Errorf("the test itself lost its capabilities:\n%s", outside)
	}
}

// TestNoDevicesFifosOrSockets: nowhere, the writable scratch directory and roots
// included, may a command make a device node, a fifo or a Unix socket; regular
// files, directories and links it may. Run by root, a raw socket (sniffing) is
// refused too: CAP_NET_RAW is gone.
func TestNoDevicesFifosOrSockets(t *testing.T) {
	requireLandlock(t)
	dir := t.TempDir()
	scratch := filepath.Join(dir, "tmp")
	root := filepath.Join(dir, "root")
	for _, d := range []string{scratch, root} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	p := confine.Policy{Scratch: []string{scratch}, Write: []string{root}}
	for _, d := range []string{scratch, root} {
		refused(t, &p, "mknod "+q(filepath.Join(d, "disk"))+" b 7 0")
		refused(t, &p, "mknod "+q(filepath.Join(d, "null"))+" c 1 3")
		refused(t, &p, "mkfifo "+q(filepath.Join(d, "fifo")))
		sock := filepath.Join(d, "sock")
		if out := runHelper(t, p, "bind:"+sock); !strings.HasPrefix(out, "bind: permission denied\n") {
			t.Errorf("binding %s: %q", sock, out)
		}
		mustRun(t, &p, "cd "+q(d)+" && echo x > f && mkdir sub && ln -s f link && ln f hard && cat link")
	}
	entries, _ := os.ReadDir(scratch)
	for _, e := range entries {
		if e.Type()&(os.ModeDevice|os.ModeNamedPipe|os.ModeSocket) != 0 {
			t.Errorf("%s was made: %v", e.Name(), e.Type())
		}
	}
	if os.Geteuid() == 0 {
		if out := runHelper(t, p, "raw:"); !strings.HasPrefix(out, "raw socket: "+syscall.EPERM.Error()+"\n") {
			t.Errorf("a raw socket: %q", out)
		}
	}
}
