package hostmod

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	lua "github.com/yuin/gopher-lua"
	"mvdan.cc/sh/v3/syntax"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/sandbox"
)

// Error codes of the shell module, besides those of roots.go.
const (
	codeShellReadOnly = "readonly"   // the call is read-only and the command is not (as fs.write's code)
	codeBadCommand    = "badcommand" // the command does not parse
)

// Shell defaults: the timeout of a run, and the output kept when maxOutput is absent.
const (
	defaultShellTimeout = 120 * time.Second
	defaultShellOutput  = 1 << 20
)

// Shell returns the shell module alone, confined to roots and configured by opts.
func Shell(roots []string, opts ShellOptions) (*bindings.Module, error) {
	rs, err := newRootSet(roots)
	if err != nil {
		return nil, err
	}
	return rs.shellModule(opts)
}

// A shellState is what the shell module keeps between calls: its options, the
// Landlock ABI its commands run under (0 for none), and where background jobs write
// their output.
type shellState struct {
	rs   *rootSet
	opts ShellOptions
	abi  int
	mu   sync.Mutex
	dir  string // temporary directory of background output files, made on first use
	next int
}

// shellModule builds the shell module. A kernel without a usable Landlock leaves
// commands to the read-only classifier, as NoSandbox does (Describe says so); a
// program that has not called sandbox.Init is an error instead: its commands would
// run unconfined on a kernel that could confine them.
func (rs *rootSet) shellModule(opts ShellOptions) (*bindings.Module, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	s := &shellState{rs: rs, opts: opts}
	abi, err := opts.sandbox()
	if errors.Is(err, sandbox.ErrNoInit) {
		return nil, fmt.Errorf("hostmod: the shell sandbox: %w (or set ShellOptions.NoSandbox)", err)
	}
	if err == nil {
		s.abi = abi
	}
	return &bindings.Module{
		Name: "shell",
		Doc:  "shell commands run with bash in their own process group, confined to the roots",
		Funcs: map[string]lua.LGFunction{
			"run":      s.luaRun,
			"start":    s.luaStart,
			"split":    luaSplit,
			"readonly": luaReadOnly,
		},
	}, nil
}

// shellPath is bash, or sh when bash is missing.
func shellPath() string {
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "/bin/sh"
}

// mayWrite reports whether the current call may change files: it is not read-only
// (and there is a call).
func mayWrite(L *lua.LState) bool {
	c := bindings.CurrentCall(L)
	return c != nil && c.Access >= bindings.AccessWrite
}

// refuseWrites returns a readonly error when the current call is read-only and
// command is not classified read-only. It applies with the sandbox too, which makes
// a wrong classification harmless to the roots but is not the permission decision.
func refuseWrites(L *lua.LState, command string) error {
	if !mayWrite(L) && !ReadOnlyCommand(command) {
		return newOpError(codeShellReadOnly, "this call is read-only and the command may change something: %s", command)
	}
	return nil
}

// workDir resolves a cwd option (default: the first root) and checks it is a
// directory inside the roots.
func (s *shellState) workDir(cwd string) (string, error) {
	var dir string
	err := s.rs.do(cwd, func(r *os.Root, loc location) error {
		st, err := r.Stat(loc.name)
		if err != nil {
			return err
		}
		if !st.IsDir() {
			return newOpError(codeNotDir, "%s is not a directory", loc.abs)
		}
		dir = loc.abs
		return nil
	})
	return dir, err
}

// command builds the process for script in dir, in its own process group, with
// the minimal environment of sc.
func (s *shellState) command(script, dir string, sc *scratch) *exec.Cmd {
	cmd := exec.Command(shellPath(), "-c", script)
	cmd.Dir = dir
	cmd.Env = s.opts.environ(sc.tmp)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// killGroup sends SIGKILL to the process group of cmd.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// A cappedBuffer keeps the first max bytes written and counts the rest.
type cappedBuffer struct {
	buf     []byte
	max     int
	omitted int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	n := min(len(p), b.max-len(b.buf))
	b.buf = append(b.buf, p[:n]...)
	b.omitted += len(p) - n
	return len(p), nil
}

// A runResult is what shell.run returns.
type runResult struct {
	Output      string
	ExitCode    int
	Interrupted bool
	TimedOut    bool
	Truncated   bool
	Omitted     int
	Cwd         string
	CwdOutside  bool
}

// run runs command in dir until it ends, ctx ends or timeout passes; then the whole
// process group is killed, so that no child outlives the run. The shell records its
// final working directory through an EXIT trap, in the scratch directory's cwd file.
func (s *shellState) run(ctx context.Context, script, dir string, write bool, timeout time.Duration, maxOutput int) (*runResult, error) {
	sc, err := newScratch()
	if err != nil {
		return nil, err
	}
	defer sc.remove()
	trap := "pwd -P >| " + quote(sc.cwd) + " 2>/dev/null"
	cmd := s.command("trap "+quote(trap)+" EXIT\n"+script, dir, sc)
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = w, w
	if err := s.startCommand(cmd, sc, write); err != nil {
		r.Close()
		w.Close()
		return nil, err
	}
	w.Close()
	out := &cappedBuffer{max: maxOutput}
	copied := make(chan struct{})
	go func() {
		_, _ = io.Copy(out, r)
		r.Close()
		close(copied)
	}()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	res := &runResult{}
	select {
	case <-waited:
	case <-ctx.Done():
		res.Interrupted = true
		killGroup(cmd)
		<-waited
	case <-timer.C:
		res.TimedOut = true
		killGroup(cmd)
		<-waited
	}
	killGroup(cmd) // children left in the background must not hold the output open
	<-copied
	res.Output = string(out.buf)
	res.Omitted = out.omitted
	res.Truncated = out.omitted > 0
	res.ExitCode = exitCode(cmd.ProcessState)
	res.Cwd = dir
	if cwd := sc.finalCwd(); cwd != "" {
		res.Cwd = cwd
	}
	if _, err := s.rs.locate(res.Cwd); err != nil {
		res.CwdOutside = true
	}
	return res, nil
}

// exitCode is the shell's exit status, 128+n when signal n ended it.
func exitCode(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// quote quotes s for the shell.
func quote(s string) string {
	q, err := syntax.Quote(s, syntax.LangPOSIX)
	if err != nil {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return q
}

// shell.run(command, {cwd=, timeout=ms, maxOutput=}) runs command with bash -c and
// returns {output, exitCode, interrupted, timedOut, truncated, omitted, cwd,
// cwdOutside}, or nil, message, code.
func (s *shellState) luaRun(L *lua.LState) int {
	a := bindings.NewArgs(L, "shell.run")
	cmdText := a.String(1)
	o := a.Options(2, "cwd", "timeout", "maxOutput")
	cwd := o.String("cwd", "")
	timeout := o.Int("timeout", int(defaultShellTimeout/time.Millisecond))
	maxOutput := o.Int("maxOutput", defaultShellOutput)
	if timeout <= 0 {
		a.Error(2, "option 'timeout' must be positive")
	}
	if maxOutput < 0 {
		a.Error(2, "option 'maxOutput' must not be negative")
	}
	if err := refuseWrites(L, cmdText); err != nil {
		return push(L, err)
	}
	dir, err := s.workDir(cwd)
	if err != nil {
		return push(L, err)
	}
	ctx := L.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	res, err := s.run(ctx, cmdText, dir, mayWrite(L), time.Duration(timeout)*time.Millisecond, maxOutput)
	if err != nil {
		return push(L, err)
	}
	t := L.CreateTable(0, 8)
	t.RawSetString("output", lua.LString(res.Output))
	t.RawSetString("exitCode", lua.LNumber(res.ExitCode))
	t.RawSetString("interrupted", lua.LBool(res.Interrupted))
	t.RawSetString("timedOut", lua.LBool(res.TimedOut))
	t.RawSetString("truncated", lua.LBool(res.Truncated))
	t.RawSetString("omitted", lua.LNumber(res.Omitted))
	t.RawSetString("cwd", lua.LString(res.Cwd))
	t.RawSetString("cwdOutside", lua.LBool(res.CwdOutside))
	L.Push(t)
	return 1
}

// start runs command in the background, its output going to a file; the job is not
// bounded by the call and runs until it ends, when its scratch directory is removed.
func (s *shellState) start(script, dir string, write bool) (id, path string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.dir == "" {
		if s.dir, err = os.MkdirTemp("", "luatool-shell-"); err != nil {
			return "", "", err
		}
	}
	s.next++
	id = "bash_" + strconv.Itoa(s.next)
	path = filepath.Join(s.dir, id+".output")
	f, err := os.Create(path)
	if err != nil {
		return "", "", err
	}
	defer f.Close()
	sc, err := newScratch()
	if err != nil {
		return "", "", err
	}
	cmd := s.command(script, dir, sc)
	cmd.Stdout, cmd.Stderr = f, f
	if err := s.startCommand(cmd, sc, write); err != nil {
		sc.remove()
		return "", "", err
	}
	go func() {
		_ = cmd.Wait()
		sc.remove()
	}()
	return id, path, nil
}

// shell.start(command, {cwd=}) starts command in the background and returns its id
// and the path of the file receiving its output, or nil, message, code.
func (s *shellState) luaStart(L *lua.LState) int {
	a := bindings.NewArgs(L, "shell.start")
	cmdText := a.String(1)
	o := a.Options(2, "cwd")
	if err := refuseWrites(L, cmdText); err != nil {
		return push(L, err)
	}
	dir, err := s.workDir(o.String("cwd", ""))
	if err != nil {
		return push(L, err)
	}
	id, path, err := s.start(cmdText, dir, mayWrite(L))
	if err != nil {
		return push(L, fmt.Errorf("shell.start: %w", err))
	}
	L.Push(lua.LString(id))
	L.Push(lua.LString(path))
	return 2
}

// shell.split(command) returns the simple commands of command as a list, or nil,
// message, "badcommand" when it does not parse.
func luaSplit(L *lua.LState) int {
	a := bindings.NewArgs(L, "shell.split")
	parts, err := SplitCommand(a.String(1))
	if err != nil {
		return push(L, newOpError(codeBadCommand, "%s", err.Error()))
	}
	list := make([]any, len(parts))
	for i, p := range parts {
		list[i] = p
	}
	pushValue(L, list) // marked as an array, as the package's lists are
	return 1
}

// shell.readonly(command) reports whether command is classified read-only.
func luaReadOnly(L *lua.LState) int {
	a := bindings.NewArgs(L, "shell.readonly")
	L.Push(lua.LBool(ReadOnlyCommand(a.String(1))))
	return 1
}
