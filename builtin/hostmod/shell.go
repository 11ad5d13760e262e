package hostmod

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	lua "github.com/yuin/gopher-lua"
	"mvdan.cc/sh/v3/syntax"

	"github.com/luatool/luatool/bindings"
)

// Error codes of the shell module, besides those of roots.go.
const (
	codeShellReadOnly = "readonly"   // the call is read-only and the command is not (as fs.write's code)
	codeShellHidden   = "hidden"     // the command reads a path a Read deny rule hides
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
	m, _, err := rs.shellModule(opts)
	return m, err
}

// A shellState is what the shell module keeps between calls: its options, the
// Landlock ABI its commands run under (0 for none), and the background commands.
type shellState struct {
	rs    *rootSet
	opts  ShellOptions
	abi   int
	tasks *taskSet
}

// shellModule builds the shell module, and returns its background commands too,
// whose output files the fs module of the same roots lets their session read. A
// kernel without a usable Landlock leaves commands to the read-only classifier, as
// NoSandbox does (Describe says so).
func (rs *rootSet) shellModule(opts ShellOptions) (*bindings.Module, *taskSet, error) {
	if err := opts.check(); err != nil {
		return nil, nil, err
	}
	s := &shellState{rs: rs, opts: opts, tasks: newTaskSet(opts)}
	if abi, err := opts.Landlock(); err == nil {
		s.abi = abi
	}
	return &bindings.Module{
		Name:  "shell",
		Doc:   "shell commands run with bash in their own process group, confined to the roots",
		Roots: rs.given(),
		Funcs: map[string]lua.LGFunction{
			"run":      s.luaRun,
			"start":    s.luaStart,
			"task":     s.luaTask,
			"stop":     s.luaStop,
			"split":    luaSplit,
			"readonly": s.luaReadOnly,
			"writes":   s.luaWrites,
		},
	}, s.tasks, nil
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

// refuseWrites returns an error for a command the current call may not run in cwd
// ("" for the first root): in every call, one that reads a path a Read deny rule
// hides (code "hidden"); in a call that may not write, one that is not read-only,
// reads outside the roots, or reads where a hidden path may lie with no kernel
// sandbox to keep it out (code "readonly"). It applies with the sandbox too, which
// makes a wrong classification harmless to the roots but is not the permission
// decision.
func (s *shellState) refuseWrites(L *lua.LState, command, cwd string) error {
	verdict, path := s.classify(L, command, cwd)
	if verdict == commandHidden {
		return newOpError(codeShellHidden, "the command reads %s, which a Read deny rule hides: %s", path, command)
	}
	if mayWrite(L) {
		return nil
	}
	switch verdict {
	case commandReadOnly:
		return nil
	case commandOutside:
		return newOpError(codeShellReadOnly, "this call is read-only and the command reads %s, outside the roots: %s", path, command)
	case commandUnlisted:
		return newOpError(codeShellReadOnly, "this call is read-only and the command reads %s, where a Read deny rule may hide files that only the kernel sandbox (not in force) could keep from it: %s", path, command)
	}
	return newOpError(codeShellReadOnly, "this call is read-only and the command may change something: %s", command)
}

// classify classifies command for the current call of L (see classifyCommand), in
// cwd as shell.run takes it. Without the kernel sandbox, only the classifier keeps a
// command from what a Read deny rule hides, and it sees the paths a command names,
// not those it finds: a command that would be read-only but reads a directory in
// which such a rule may hide something (grep -r . beside a rule on ./secrets/**), a
// path that is not there to tell, or may read its working directory so (grep -r, ls
// -R and find read it unnamed) is commandUnlisted, so that it does not run unasked.
// With the sandbox the kernel refuses the hidden paths themselves.
func (s *shellState) classify(L *lua.LState, command, cwd string) (commandVerdict, string) {
	var hidden, below func(string) bool
	if c := bindings.CurrentCall(L); c != nil {
		hidden, below = c.Hidden, c.HiddenBelow
	}
	if cwd != "" {
		cwd = s.rs.abs(cwd, "")
	}
	if s.abi != 0 || hidden == nil {
		return s.rs.classifyCommand(command, cwd, hidden, s.abi != 0)
	}
	// classifyCommand asks hidden about every path the command reads.
	unlisted := ""
	probe := func(p string) bool {
		if hidden(p) {
			return true
		}
		if unlisted == "" && (below == nil || below(p)) {
			if st, err := os.Stat(p); err != nil || st.IsDir() {
				unlisted = p
			}
		}
		return false
	}
	verdict, path := s.rs.classifyCommand(command, cwd, probe, false)
	if cwd == "" {
		cwd = s.rs.dirs[0].given
	}
	if unlisted == "" && (below == nil || below(cwd)) {
		unlisted = cwd
	}
	if verdict == commandReadOnly && unlisted != "" {
		return commandUnlisted, unlisted
	}
	return verdict, path
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

// command builds the process for script in dir, with the minimal environment of
// sc; a read-only call's has git's program-running settings switched off
// (readOnlyEnviron). startCommand starts it in a group of its own.
func (s *shellState) command(script, dir string, sc *scratch, acc commandAccess) *exec.Cmd {
	cmd := exec.Command(shellPath(), "-c", script)
	cmd.Dir = dir
	cmd.Env = s.opts.Environ(sc.tmp)
	if !acc.write {
		cmd.Env = readOnlyEnviron(cmd.Env)
	}
	return cmd
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

// A runResult is what shell.run returns. A command moved to the background at
// its timeout has Task set, and Output is what it printed so far.
type runResult struct {
	Output      string
	ExitCode    int
	Interrupted bool
	TimedOut    bool
	Truncated   bool
	Omitted     int
	Cwd         string
	CwdOutside  bool
	Task        *task
}

// A handOver moves a foreground command that passed its timeout to the background
// (taskSet.adopt bound to the call's session), or refuses with an error.
type handOver func(*liveCommand) (*task, error)

// run runs command in dir until it ends, ctx ends or timeout passes. At the
// timeout, a command that handOver (when not nil) takes keeps running in the
// background; otherwise its whole group is killed, so that no child outlives the
// run. The shell records its final working directory through an EXIT trap, in the
// scratch directory's cwd file.
func (s *shellState) run(ctx context.Context, script, dir string, acc commandAccess, timeout time.Duration, maxOutput int, handOver handOver) (*runResult, error) {
	sc, err := newScratch()
	if err != nil {
		return nil, err
	}
	trap := "pwd -P >| " + quote(sc.cwd) + " 2>/dev/null"
	cmd := s.command("trap "+quote(trap)+" EXIT\n"+script, dir, sc, acc)
	r, w, err := os.Pipe()
	if err != nil {
		sc.remove()
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = w, w
	group, err := s.startCommand(cmd, sc, acc)
	if err != nil {
		r.Close()
		w.Close()
		sc.remove()
		return nil, err
	}
	w.Close()
	out := &cappedBuffer{max: maxOutput}
	copyOut := func(done chan<- struct{}) {
		_, _ = io.Copy(out, r)
		close(done)
	}
	copied := make(chan struct{})
	go copyOut(copied)
	exited := make(chan bool, 1)
	go func() { exited <- awaitExit(cmd) }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	res := &runResult{}
	reaped := false
	select {
	case reaped = <-exited:
	case <-ctx.Done():
		res.Interrupted = true
		group.Kill()
		reaped = <-exited
	case <-timer.C:
		res.TimedOut = true
		if handOver != nil {
			if t := moveToBackground(handOver, r, out, copied, &liveCommand{cmd: cmd, group: group, r: r, sc: sc, exited: exited}); t != nil {
				res.Task, res.Output = t, string(out.buf)
				return res, nil
			}
			copied = make(chan struct{})
			go copyOut(copied)
		}
		group.Kill()
		reaped = <-exited
	}
	group.Kill() // children left in the background must not hold the output open
	if !reaped {
		_ = cmd.Wait()
	}
	group.Close()
	<-copied
	r.Close()
	res.Output = string(out.buf)
	res.Omitted = out.omitted
	res.Truncated = out.omitted > 0
	res.ExitCode = exitCode(cmd.ProcessState)
	res.Cwd = dir
	if cwd := sc.finalCwd(); cwd != "" {
		res.Cwd = cwd
	}
	sc.remove()
	if _, err := s.rs.locate(res.Cwd); err != nil {
		res.CwdOutside = true
	}
	return res, nil
}

// moveToBackground stops copying the output of lc into out (what is left stays in
// the pipe r) and hands lc over, with what it printed so far. It returns the
// background task, or nil when handOver refuses; the copying is then stopped and
// the caller restarts it.
func moveToBackground(handOver handOver, r *os.File, out *cappedBuffer, copied <-chan struct{}, lc *liveCommand) *task {
	_ = r.SetReadDeadline(time.Now())
	<-copied
	_ = r.SetReadDeadline(time.Time{})
	lc.early = out.buf
	t, err := handOver(lc)
	if err != nil {
		return nil
	}
	return t
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

// shell.run(command, {cwd=, timeout=ms, maxOutput=, background=}) runs command
// with bash -c and returns {output, exitCode, interrupted, timedOut, truncated,
// omitted, cwd, cwdOutside}, or nil, message, code. With background=true, in
// call() of an engine that ends background commands, a command that passes its
// timeout keeps running as a background command of the session (10 minutes at
// most, as shell.start's default) instead of being killed: the result then has
// timedOut, taskId and outputFile, and output is what it printed so far.
func (s *shellState) luaRun(L *lua.LState) int {
	a := bindings.NewArgs(L, "shell.run")
	cmdText := a.String(1)
	o := a.Options(2, "cwd", "timeout", "maxOutput", "background")
	cwd := o.String("cwd", "")
	timeout := o.Int("timeout", int(defaultShellTimeout/time.Millisecond))
	maxOutput := o.Int("maxOutput", defaultShellOutput)
	background := o.Bool("background", false)
	if timeout <= 0 {
		a.Error(2, "option 'timeout' must be positive")
	}
	if maxOutput < 0 {
		a.Error(2, "option 'maxOutput' must not be negative")
	}
	if err := s.refuseWrites(L, cmdText, cwd); err != nil {
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
	var hand handOver
	if c := bindings.CurrentCall(L); background && c != nil && c.OnClose != nil {
		hand = func(lc *liveCommand) (*task, error) {
			return s.tasks.adopt(c.Session, c.OnClose, cmdText, lc, defaultTaskTimeout)
		}
	}
	access := callAccess(L)
	var res *runResult
	if werr := bindings.Blocking(L, func() {
		res, err = s.run(ctx, cmdText, dir, access, time.Duration(timeout)*time.Millisecond, maxOutput, hand)
	}); werr != nil {
		L.RaiseError("shell.run: stopped: %v", werr)
	}
	if err != nil {
		return push(L, err)
	}
	t := L.CreateTable(0, 10)
	t.RawSetString("output", lua.LString(res.Output))
	t.RawSetString("timedOut", lua.LBool(res.TimedOut))
	if res.Task != nil {
		t.RawSetString("taskId", lua.LString(res.Task.id))
		t.RawSetString("outputFile", lua.LString(res.Task.path))
		L.Push(t)
		return 1
	}
	t.RawSetString("exitCode", lua.LNumber(res.ExitCode))
	t.RawSetString("interrupted", lua.LBool(res.Interrupted))
	t.RawSetString("truncated", lua.LBool(res.Truncated))
	t.RawSetString("omitted", lua.LNumber(res.Omitted))
	t.RawSetString("cwd", lua.LString(res.Cwd))
	t.RawSetString("cwdOutside", lua.LBool(res.CwdOutside))
	L.Push(t)
	return 1
}

// shell.start(command, {cwd=, timeout=ms}) starts command in the background, for at
// most timeout (default 10 minutes, at most 2 hours), and returns its id and the
// path of the file receiving its output, or nil, message, code. Only call may
// start one, in an engine that ends it when it closes (bindings.Call.OnClose); a
// read-only call only a command classified read-only, which the sandbox keeps
// read-only for its whole life.
func (s *shellState) luaStart(L *lua.LState) int {
	a := bindings.NewArgs(L, "shell.start")
	cmdText := a.String(1)
	o := a.Options(2, "cwd", "timeout")
	cwd := o.String("cwd", "")
	timeout := o.Int("timeout", int(defaultTaskTimeout/time.Millisecond))
	if timeout <= 0 || timeout > int(maxTaskTimeout/time.Millisecond) {
		a.Error(2, fmt.Sprintf("option 'timeout' must be between 1 and %d", maxTaskTimeout/time.Millisecond))
	}
	c := bindings.CurrentCall(L)
	if c == nil || c.OnClose == nil {
		L.RaiseError("shell.start is available only in call(): a background command must end with the engine that started it")
	}
	if err := s.refuseWrites(L, cmdText, cwd); err != nil {
		return push(L, err)
	}
	dir, err := s.workDir(cwd)
	if err != nil {
		return push(L, err)
	}
	t, err := s.tasks.start(s, c.Session, c.OnClose, cmdText, dir, callAccess(L), time.Duration(timeout)*time.Millisecond)
	if err != nil {
		var oe *opError
		if !errors.As(err, &oe) {
			err = fmt.Errorf("shell.start: %w", err)
		}
		return push(L, err)
	}
	L.Push(lua.LString(t.id))
	L.Push(lua.LString(t.path))
	return 2
}

// sessionOf is the session of the current call ("" outside one).
func sessionOf(L *lua.LState) string {
	if c := bindings.CurrentCall(L); c != nil {
		return c.Session
	}
	return ""
}

// shell.task(id) returns {id=, command=, outputFile=} of the background command id
// when it is running in the call's session, or nil.
func (s *shellState) luaTask(L *lua.LState) int {
	id := bindings.NewArgs(L, "shell.task").String(1)
	t := s.tasks.find(sessionOf(L), id)
	if t == nil {
		L.Push(lua.LNil)
		return 1
	}
	pushValue(L, t.info())
	return 1
}

// shell.stop(id) stops the background command id of the call's session (SIGTERM to
// its process group, SIGKILL two seconds later) and returns once it has ended:
// {id=, command=, outputFile=}, or nil, message, "notfound" when no command of that
// id is running in the session. Only a call that may change things may stop one.
func (s *shellState) luaStop(L *lua.LState) int {
	id := bindings.NewArgs(L, "shell.stop").String(1)
	bindings.Require(L, "shell.stop", bindings.AccessWrite)
	t := s.tasks.find(sessionOf(L), id)
	if t == nil {
		return push(L, newOpError(codeNotFound, "no background command %s is running in this session", id))
	}
	if err := bindings.Blocking(L, func() { s.tasks.stop(t, stopAsked) }); err != nil {
		L.RaiseError("shell.stop: stopped: %v", err)
	}
	pushValue(L, t.info())
	return 1
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

// shell.readonly(command[, {cwd=}]) reports whether command only reads, and only
// inside the roots (relative paths from cwd, default the first root): true, or false,
// why and a code: "hidden" when it reads a path a Read deny rule hides (a call that
// must be denied), "outside" when it reads a path outside the roots, "unlisted" when
// it reads a directory in which such a rule may hide something and there is no kernel
// sandbox to keep the command out, "writes" when it may change something.
func (s *shellState) luaReadOnly(L *lua.LState) int {
	a := bindings.NewArgs(L, "shell.readonly")
	command := a.String(1)
	cwd := a.Options(2, "cwd").String("cwd", "")
	verdict, path := s.classify(L, command, cwd)
	switch verdict {
	case commandReadOnly:
		L.Push(lua.LTrue)
		return 1
	case commandHidden:
		return pushVerdict(L, "the command reads "+path+", which a Read deny rule hides", "hidden")
	case commandOutside:
		return pushVerdict(L, "the command reads "+path+", outside the roots", "outside")
	case commandUnlisted:
		return pushVerdict(L, "the command reads "+path+", where a Read deny rule may hide files, and no kernel sandbox keeps it from them", "unlisted")
	}
	return pushVerdict(L, "the command may change something", "writes")
}

// pushVerdict returns false, why and code to Lua.
func pushVerdict(L *lua.LState, why, code string) int {
	L.Push(lua.LFalse)
	L.Push(lua.LString(why))
	L.Push(lua.LString(code))
	return 3
}
