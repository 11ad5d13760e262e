package confine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// minABI is the oldest Landlock ABI the sandbox uses: ABI 3 is the first that
// controls truncation.
const minABI = 3

// presets are go-landlock's configurations by ABI version (presets[v-1] is ABI v),
// each handling every access right its version knows.
var presets = []landlock.Config{landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5,
	landlock.V6, landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11}

// Landlock returns the Landlock ABI version Start enforces, or why there is none:
// an error saying what the kernel lacks. The version is the kernel's,
// capped at the newest go-landlock knows, and lowered to 5 on a kernel whose signal
// scoping has the erratum go-landlock also works around.
func Landlock() (int, error) {
	v, err := ll.LandlockGetABIVersion()
	switch {
	case errors.Is(err, syscall.ENOSYS):
		return 0, errors.New("Landlock is not available: the kernel has no Landlock support")
	case errors.Is(err, syscall.EOPNOTSUPP):
		return 0, errors.New("Landlock is not available: the kernel has it but it is not enabled (see the lsm= boot parameter)")
	case err != nil:
		return 0, fmt.Errorf("Landlock is not available: %w", err)
	case v < minABI:
		return 0, fmt.Errorf("Landlock is not available: the kernel has ABI %d, and the sandbox needs %d (the first that controls truncation)", v, minABI)
	}
	if v >= 6 {
		if errata, err := ll.LandlockGetErrata(); err != nil || errata&0x2 == 0 {
			v = 5
		}
	}
	return min(v, len(presets)), nil
}

// Start starts cmd as (*exec.Cmd).Start does, confined by p and the system paths.
// cmd.Path and cmd.Args name the command, with everything else of cmd (directory,
// environment, standard streams, process attributes) as for any command; Start
// changes them to run the launcher, which then executes the command in its place,
// so that cmd.Process and cmd.Wait are the command's. It returns an error, with
// nothing executed, when the sandbox cannot be used, a path of p cannot be granted,
// or the launcher could not apply the policy or execute the command.
//
// The Landlock ruleset is built here, in the calling process, and handed to the
// launcher as an open descriptor: the launcher only enforces it and executes, and
// any problem with the policy is found before a process starts.
func Start(cmd *exec.Cmd, p Policy) error {
	abi, err := Landlock()
	if err != nil {
		return err
	}
	exe, err := self()
	if err != nil {
		return fmt.Errorf("sandbox: the launcher: %w", err)
	}
	fd, flags, err := ruleset(p.withSystem(), abi)
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	rs := os.NewFile(uintptr(fd), "landlock-ruleset")
	defer rs.Close()
	r, w, err := os.Pipe()
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	defer r.Close()
	first := 3 + len(cmd.ExtraFiles)
	spec, err := json.Marshal(launch{Ruleset: first, Flags: flags, Status: first + 1})
	if err != nil {
		w.Close()
		return fmt.Errorf("sandbox: %w", err)
	}
	cmd.Env = append(cmd.Environ(), launchVar+"="+string(spec))
	cmd.Args = append([]string{launcherName, cmd.Path}, cmd.Args...)
	cmd.Path = exe
	cmd.ExtraFiles = append(cmd.ExtraFiles, rs, w)
	err = cmd.Start()
	w.Close()
	if err != nil {
		return fmt.Errorf("sandbox: starting the launcher: %w", err)
	}
	// The pipe closes when the launcher executes the command (the descriptor is
	// close-on-exec there) or exits; a message means it exited without executing.
	msg, _ := io.ReadAll(r)
	if len(msg) > 0 {
		_ = cmd.Wait()
		return fmt.Errorf("sandbox: %s", msg)
	}
	return nil
}

// ruleset builds the Landlock ruleset of p for ABI abi: rules for the paths of p as
// they are now (see ruleBuilder.grant; a path that is not there grants nothing); no
// network rule, so that TCP is refused, unless p allows the network, in which case
// the network is not handled at all. It returns the ruleset's descriptor
// (close-on-exec) and the flags to enforce it with.
func ruleset(p Policy, abi int) (int, uint32, error) {
	cfg := presets[abi-1]
	if p.Network {
		cfg.HandledAccessNet = 0
	}
	fd, flags, err := cfg.NewRulesetFD()
	if err == nil && fd < 0 {
		err = errors.New("go-landlock made no ruleset") // cannot happen: every preset handles file access
	}
	if err != nil {
		return -1, 0, fmt.Errorf("building the Landlock ruleset: %w", err)
	}
	b := ruleBuilder{ruleset: fd, handled: uint64(cfg.HandledAccessFS), hidden: p.Hidden, hiddenBelow: p.HiddenBelow}
	grants := []struct {
		paths  []string
		access uint64
		hide   bool
	}{{p.Read, readAccess, true}, {p.Write, writeAccess, true}, {p.Scratch, writeAccess, false}}
	for _, g := range grants {
		for _, path := range g.paths {
			if err := b.grant(path, g.access, g.hide); err != nil {
				unix.Close(fd)
				return -1, 0, fmt.Errorf("building the Landlock ruleset: %w", err)
			}
		}
	}
	return fd, flags, nil
}

// init makes the program serve as the launcher when it was started as one: then, on
// its own thread, it drops every capability and enforces the Landlock ruleset it was
// handed, and executes the command from that thread, so that the command starts
// confined, and does not return (on failure it reports why to the process that
// started it and exits with status 126). Otherwise it returns at once.
func init() {
	text, ok := os.LookupEnv(launchVar)
	if !ok {
		return
	}
	os.Unsetenv(launchVar)
	var l launch
	if err := json.Unmarshal([]byte(text), &l); err != nil {
		fail(-1, fmt.Errorf("the launcher's instructions do not parse: %v", err))
	}
	syscall.CloseOnExec(l.Status)
	syscall.CloseOnExec(l.Ruleset)
	if len(os.Args) < 3 {
		fail(l.Status, errors.New("the launcher was given no command"))
	}
	// Landlock and capabilities belong to the calling thread, and execve keeps that
	// thread's: the thread stays locked from the first change to the exec, and is
	// never unlocked.
	runtime.LockOSThread()
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		fail(l.Status, fmt.Errorf("prctl(PR_SET_NO_NEW_PRIVS): %v", err))
	}
	if err := dropCapabilities(); err != nil {
		fail(l.Status, fmt.Errorf("dropping capabilities: %v", err))
	}
	if err := ll.LandlockRestrictSelf(l.Ruleset, l.Flags); err != nil {
		fail(l.Status, fmt.Errorf("enforcing the Landlock ruleset: %v", err))
	}
	err := syscall.Exec(os.Args[1], os.Args[2:], os.Environ())
	fail(l.Status, fmt.Errorf("executing %s: %v", os.Args[1], err))
}

// fail reports err on the status descriptor (on stderr when there is none, or it
// cannot be written) and ends the launcher.
func fail(status int, err error) {
	if status < 0 {
		fmt.Fprintf(os.Stderr, "sandbox: %v\n", err)
		os.Exit(126)
	}
	if _, werr := io.WriteString(os.NewFile(uintptr(status), "status"), err.Error()); werr != nil {
		fmt.Fprintf(os.Stderr, "sandbox: %v\n", err)
	}
	os.Exit(126)
}
