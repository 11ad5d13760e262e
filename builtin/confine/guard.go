//go:build unix

package confine

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
)

// guardVar marks the guard process (see Guard).
const guardVar = "LUATOOL_SANDBOX_GUARD"

// guardName is the guard's argv[0], as ps shows it.
const guardName = "luatool-guard"

// guard is this program's guard process, started by the first Guard. It is a
// process-wide singleton because what it watches is the process: one guard
// outlives the program's end whatever ends it.
var guard struct {
	mu sync.Mutex
	// w is the write end of the guard's standard input, its lifeline: the kernel
	// closes it when this program ends, however it ends, and the guard reads EOF.
	// Nil until the first Guard, and again after a write failed (the guard died).
	w *os.File
	// groups are the process groups registered and not released, to hand over to
	// a new guard should the first one die.
	groups map[int]bool
}

// Guard has the process group pgid killed with SIGKILL if this program ends, by any
// means (a SIGKILL included), before release is called; release is idempotent. It
// serves commands meant to run beyond the call that started them but never beyond
// the program: background shell commands.
//
// The guard is one small process per program, the program's own binary started
// again (as the launcher of Start is) on the first Guard, in a process group of its
// own and with no environment but its marker, so that a terminal's signals do not
// reach it. It ignores the signals that end a process politely and learns of
// groups through its standard input, whose other end only this program holds:
// when that input ends, the program has ended, and the guard kills every group it
// was told of and not released, then exits. Should the guard die, the next Guard
// starts another and hands it the groups still registered; Guard returns an error
// only when no guard can be started, and the caller should then not start what it
// could not guarantee to end.
//
// The caller releases a group while the group's leader is a zombie (exited, not yet
// reaped: see waitid's WNOWAIT) or still running, never after it reaped it, so that
// the guard can never kill a process group that reuses the number.
func Guard(pgid int) (release func(), err error) {
	if pgid <= 1 {
		return nil, fmt.Errorf("sandbox: guard: %d is not a process group a command runs in", pgid)
	}
	guard.mu.Lock()
	defer guard.mu.Unlock()
	if err := sendGuard('+', pgid); err != nil {
		return nil, err
	}
	if guard.groups == nil {
		guard.groups = map[int]bool{}
	}
	guard.groups[pgid] = true
	var once sync.Once
	return func() {
		once.Do(func() {
			guard.mu.Lock()
			defer guard.mu.Unlock()
			delete(guard.groups, pgid)
			_ = sendGuard('-', pgid) // a dead guard kills nothing: nothing to release
		})
	}, nil
}

// sendGuard tells the guard to add (+) or release (-) pgid, starting a guard when
// there is none or the last one died. Its caller holds guard.mu.
func sendGuard(op byte, pgid int) error {
	line := fmt.Sprintf("%c%d\n", op, pgid)
	if guard.w != nil {
		if _, err := io.WriteString(guard.w, line); err == nil {
			return nil
		}
		guard.w.Close() // the guard died: its groups go to the next one
		guard.w = nil
	}
	if op == '-' {
		return nil
	}
	w, err := startGuard()
	if err != nil {
		return err
	}
	for g := range guard.groups {
		line = fmt.Sprintf("+%d\n", g) + line
	}
	if _, err := io.WriteString(w, line); err != nil {
		w.Close()
		return fmt.Errorf("sandbox: guard: %w", err)
	}
	guard.w = w
	return nil
}

// startGuard starts a guard process and returns its lifeline.
func startGuard() (*os.File, error) {
	exe, err := self()
	if err != nil {
		return nil, fmt.Errorf("sandbox: guard: %w", err)
	}
	r, w, err := os.Pipe() // close-on-exec: no other child inherits the lifeline
	if err != nil {
		return nil, fmt.Errorf("sandbox: guard: %w", err)
	}
	defer r.Close()
	cmd := &exec.Cmd{Path: exe, Args: []string{guardName}, Env: []string{guardVar + "=1"}, Stdin: r,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true}}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, fmt.Errorf("sandbox: starting the guard: %w", err)
	}
	go func() { _ = cmd.Wait() }() // reap it whenever it ends
	return w, nil
}

// self returns the path of the running program's binary: /proc/self/exe where
// there is one (the binary even when its file was replaced since), else what
// os.Executable says.
func self() (string, error) {
	const exe = "/proc/self/exe"
	if _, err := os.Stat(exe); err == nil {
		return exe, nil
	}
	p, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("this program's binary cannot be found: %w", err)
	}
	return p, nil
}

// init makes the program serve as the guard when it was started as one; it then
// never returns. Otherwise it returns at once.
func init() {
	if os.Getenv(guardVar) == "" {
		return
	}
	runGuard(os.Stdin)
	os.Exit(0)
}

// runGuard is the guard: it keeps the groups its input adds and releases, and when
// the input ends kills those left.
func runGuard(in io.Reader) {
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGPIPE)
	groups := map[int]bool{}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		line := sc.Text()
		if len(line) < 2 {
			continue
		}
		g, err := strconv.Atoi(line[1:])
		if err != nil || g <= 1 {
			continue
		}
		switch line[0] {
		case '+':
			groups[g] = true
		case '-':
			delete(groups, g)
		}
	}
	for g := range groups {
		_ = syscall.Kill(-g, syscall.SIGKILL)
	}
}
