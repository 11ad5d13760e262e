package hostmod

import (
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/luatool/luatool/internal/procgroup"
)

// Limits of background commands (shell.start), beside those of ShellOptions.
const (
	// defaultTaskTimeout is how long a background command runs when shell.start is
	// given no timeout, and maxTaskTimeout the longest timeout it takes: the
	// original's figures for run_in_background.
	defaultTaskTimeout = 10 * time.Minute
	maxTaskTimeout     = 2 * time.Hour
	// taskStopGrace is how long a command stopped with SIGTERM has to end before its
	// process group is killed with SIGKILL.
	taskStopGrace = 2 * time.Second
	// taskDrainGrace is how long output is still copied once the shell has ended and
	// its group was killed: only a process that left the group can still hold the
	// output open, and it must not keep the task from ending.
	taskDrainGrace = time.Second
	// keptTaskOutputs is how many output files of ended commands a session keeps;
	// starting more removes the oldest.
	keptTaskOutputs = 50
)

// Defaults of the ShellOptions that bound background commands.
const (
	defaultMaxTasks      = 10
	defaultMaxTasksTotal = 40
	defaultMaxTaskOutput = 4 << 20
)

// codeLimit is the error code of a background command refused by a limit.
const codeLimit = "limit"

// Why a background command ended other than by itself: the trailer of its output.
type stopReason int

const (
	notStopped  stopReason = iota
	stopAsked              // shell.stop
	stopTimeout            // its timeout passed
	stopOutput             // its output passed MaxTaskOutput
	stopClosed             // the engine closed
)

// A taskSet is the background commands of one shell module, by session. Only
// running commands can be found by id (shell.task, shell.stop): one that ended is
// gone, as in the original. Their output files stay readable by the session's fs
// calls until the engine that started them closes, or keptTaskOutputs newer ones
// push them out.
type taskSet struct {
	maxPerSession, maxTotal, maxOutput int

	mu      sync.Mutex
	running map[string]map[string]*task // by session, then id
	total   int                         // running in all sessions
	outputs map[string][]*task          // by session, oldest first: every task whose output file exists
}

func newTaskSet(o ShellOptions) *taskSet {
	ts := &taskSet{maxPerSession: o.MaxTasks, maxTotal: o.MaxTasksTotal, maxOutput: o.MaxTaskOutput,
		running: map[string]map[string]*task{}, outputs: map[string][]*task{}}
	if ts.maxPerSession == 0 {
		ts.maxPerSession = defaultMaxTasks
	}
	if ts.maxTotal == 0 {
		ts.maxTotal = defaultMaxTasksTotal
	}
	if ts.maxOutput == 0 {
		ts.maxOutput = defaultMaxTaskOutput
	}
	return ts
}

// A task is one background command.
type task struct {
	id, command, session string
	// dir is the task's own directory, made by MkdirTemp (mode 0700, a name no one
	// can know before), holding path, its output file.
	dir, path string
	cmd       *exec.Cmd
	group     *procgroup.Group // the command and what it starts
	// endOnClose unregisters the task from its engine's Close, which stops it and
	// removes dir.
	endOnClose func()
	done       chan struct{} // closed once the task has ended and its output is complete

	// early is how many bytes the output file held when the task began: what a
	// foreground command moved to the background had printed (adopt).
	early int

	mu     sync.Mutex
	exited bool // the shell has exited and its group was killed: signal it no more
	reason stopReason
}

// taskInfo is what shell.task and shell.stop return to Lua.
func (t *task) info() map[string]any {
	return map[string]any{"id": t.id, "command": t.command, "outputFile": t.path}
}

// signal applies end ((*procgroup.Group).Stop or Kill) to the task's group unless
// the shell has exited: its group number is then about to be free for reuse.
func (t *task) signal(end func(*procgroup.Group)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.exited {
		end(t.group)
	}
}

// taskIDChars are the characters of a task id after its "b": the original's ids
// (b6p3paamo) are "b", for a bash task, and eight of these.
const taskIDChars = "0123456789abcdefghijklmnopqrstuvwxyz"

func newTaskID() string {
	b := make([]byte, 9)
	rand.Read(b[1:])
	b[0] = 'b'
	for i := 1; i < len(b); i++ {
		b[i] = taskIDChars[int(b[i])%len(taskIDChars)]
	}
	return string(b)
}

// limitError is the refusal of a command over a count limit, or nil.
func (ts *taskSet) limitError(session string) error {
	if n := len(ts.running[session]); n >= ts.maxPerSession {
		return newOpError(codeLimit, "%d background commands are running in this session, the most allowed: stop one or wait for one to end", n)
	}
	if ts.total >= ts.maxTotal {
		return newOpError(codeLimit, "%d background commands are running, the most this host allows at once: stop one or wait for one to end", ts.total)
	}
	return nil
}

// start starts script in dir as a background command of session for at most
// timeout, its standard output and error going to a new output file; onClose
// registers the function that ends it with the engine (bindings.Call.OnClose).
// acc is what the command may reach (the call may write, what it hides). The
// command runs under the sandbox and environment of every command, in a process
// group of its own that the sandbox's guard kills should luatool end first.
func (ts *taskSet) start(s *shellState, session string, onClose func(func()) func(), script, workDir string, acc commandAccess, timeout time.Duration) (*task, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t, out, err := ts.newTask(session, script, onClose)
	if err != nil {
		return nil, err
	}
	release, r, sc, err := ts.launch(s, t, script, workDir, acc)
	if err != nil {
		ts.abandon(t, out)
		return nil, err
	}
	exited := make(chan bool, 1)
	go func() { exited <- awaitExit(t.cmd) }()
	ts.track(t, release, r, out, sc, exited, timeout)
	return t, nil
}

// A liveCommand is a foreground command still running that shell.run hands over
// to the background: its process, group, output pipe and scratch directory, the
// channel its exit is reported on (awaitExit's answer), and what it printed so far.
type liveCommand struct {
	cmd    *exec.Cmd
	group  *procgroup.Group
	r      *os.File
	sc     *scratch
	exited <-chan bool
	early  []byte
}

// adopt makes the running foreground command lc a background command of session
// for at most timeout, as start does for a new one: its output file begins with
// what it printed so far. On error lc is left as it was, for the caller to kill.
func (ts *taskSet) adopt(session string, onClose func(func()) func(), script string, lc *liveCommand, timeout time.Duration) (*task, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t, out, err := ts.newTask(session, script, onClose)
	if err != nil {
		return nil, err
	}
	release, err := guardGroup(lc.group)
	if err == nil {
		_, err = out.Write(lc.early)
		if err != nil {
			release()
		}
	}
	if err != nil {
		ts.abandon(t, out)
		return nil, err
	}
	t.cmd, t.group, t.early = lc.cmd, lc.group, len(lc.early)
	ts.track(t, release, lc.r, out, lc.sc, lc.exited, timeout)
	return t, nil
}

// newTask makes a task of session for script, with its own directory and empty
// output file, and registers its end with the engine through onClose. Its caller
// holds ts.mu.
func (ts *taskSet) newTask(session, script string, onClose func(func()) func()) (*task, *os.File, error) {
	if err := ts.limitError(session); err != nil {
		return nil, nil, err
	}
	dir, err := os.MkdirTemp("", "luatool-task-")
	if err != nil {
		return nil, nil, err
	}
	t := &task{id: newTaskID(), command: script, session: session, dir: dir, done: make(chan struct{})}
	for ts.running[session][t.id] != nil {
		t.id = newTaskID()
	}
	t.path = filepath.Join(dir, t.id+".output")
	out, err := os.OpenFile(t.path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	t.endOnClose = onClose(func() {
		ts.stop(t, stopClosed)
		ts.discard(t)
	})
	if t.endOnClose == nil {
		out.Close()
		os.RemoveAll(dir)
		return nil, nil, errors.New("this host does not end background commands when it closes, so none may start")
	}
	return t, out, nil
}

// abandon undoes newTask for a task that did not start.
func (ts *taskSet) abandon(t *task, out *os.File) {
	t.endOnClose()
	out.Close()
	os.RemoveAll(t.dir)
}

// track records t, whose command runs, as running in its session, stops it after
// timeout and waits for its end in the background. Its caller holds ts.mu.
func (ts *taskSet) track(t *task, release func(), r, out *os.File, sc *scratch, exited <-chan bool, timeout time.Duration) {
	if ts.running[t.session] == nil {
		ts.running[t.session] = map[string]*task{}
	}
	ts.running[t.session][t.id] = t
	ts.total++
	ts.outputs[t.session] = append(ts.outputs[t.session], t)
	timer := time.AfterFunc(timeout, func() { ts.stop(t, stopTimeout) })
	go ts.wait(t, release, r, out, sc, exited, timer)
}

// launch starts the command of t with its output into a new pipe, and has its
// process group guarded. It returns the guard's release, the pipe's read end and
// the command's scratch directory.
func (ts *taskSet) launch(s *shellState, t *task, script, workDir string, acc commandAccess) (release func(), r *os.File, sc *scratch, err error) {
	sc, err = newScratch()
	if err != nil {
		return nil, nil, nil, err
	}
	r, w, err := os.Pipe()
	if err != nil {
		sc.remove()
		return nil, nil, nil, err
	}
	t.cmd = s.command(script, workDir, sc, acc)
	t.cmd.Stdout, t.cmd.Stderr = w, w
	t.group, err = s.startCommand(t.cmd, sc, acc)
	w.Close()
	if err != nil {
		r.Close()
		sc.remove()
		return nil, nil, nil, err
	}
	if release, err = guardGroup(t.group); err != nil {
		t.group.Kill()
		_ = t.cmd.Wait()
		t.group.Close()
		r.Close()
		sc.remove()
		return nil, nil, nil, err
	}
	return release, r, sc, nil
}

// wait copies the output of t (up to the cap; past it the task is stopped) until
// the shell ends (exited reports it, with awaitExit's answer), then kills what is
// left of its group, completes the output file with the trailer of how it ended,
// and takes the task out of the running ones.
func (ts *taskSet) wait(t *task, release func(), r, out *os.File, sc *scratch, exited <-chan bool, timer *time.Timer) {
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		buf := make([]byte, 32<<10)
		written, stopped := t.early, false
		for {
			n, err := r.Read(buf)
			keep := max(0, min(n, ts.maxOutput-written))
			_, _ = out.Write(buf[:keep])
			written += keep
			if keep < n && !stopped {
				stopped = true // the rest is drained and dropped until the group ends
				go ts.stop(t, stopOutput)
			}
			if err != nil {
				return
			}
		}
	}()
	reaped := <-exited
	t.mu.Lock()
	t.exited = true
	// Children left in the background end with the shell: they must not hold the
	// output open, nor outlive the task. On Linux the shell is still a zombie, so
	// the group's number is not free yet.
	t.group.Kill()
	release()
	t.mu.Unlock()
	if !reaped {
		_ = t.cmd.Wait()
	}
	t.group.Close()
	_ = r.SetReadDeadline(time.Now().Add(taskDrainGrace))
	<-copied
	r.Close()
	sc.remove()
	if timer != nil {
		timer.Stop()
	}
	t.mu.Lock()
	reason := t.reason
	t.mu.Unlock()
	_, _ = out.WriteString(trailer(reason, exitCode(t.cmd.ProcessState), ts.maxOutput))
	out.Close()
	ts.mu.Lock()
	if m := ts.running[t.session]; m[t.id] == t {
		delete(m, t.id)
		ts.total--
		if len(m) == 0 {
			delete(ts.running, t.session)
		}
	}
	ts.trim(t.session)
	ts.mu.Unlock()
	close(t.done)
}

// trailer is the line an output file ends with: how the command ended, in the
// original's words ("[exited with code 0]", "[killed]"), and ours for the cap.
func trailer(reason stopReason, code, maxOutput int) string {
	switch reason {
	case notStopped:
		return fmt.Sprintf("\n[exited with code %d]\n", code)
	case stopOutput:
		return fmt.Sprintf("\n[killed: the output passed the limit of %d bytes]\n", maxOutput)
	}
	return "\n[killed]\n"
}

// trim removes the output files of the session's oldest ended commands beyond
// keptTaskOutputs. Its caller holds ts.mu.
func (ts *taskSet) trim(session string) {
	list := ts.outputs[session]
	ended := 0
	for _, t := range list {
		if ts.running[session][t.id] != t {
			ended++
		}
	}
	for i := 0; ended > keptTaskOutputs && i < len(list); {
		t := list[i]
		if ts.running[session][t.id] == t {
			i++
			continue
		}
		t.endOnClose()
		os.RemoveAll(t.dir)
		list = append(list[:i], list[i+1:]...)
		ended--
	}
	ts.outputs[session] = list
}

// find returns the running task id of session, or nil.
func (ts *taskSet) find(session, id string) *task {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.running[session][id]
}

// stop ends t: Stop to its group (SIGTERM), Kill after taskStopGrace, and
// returns once it has ended and its output file is complete. The first reason
// given while the shell still runs is the one its output file shows; a shell that
// has exited by itself keeps its exit code.
func (ts *taskSet) stop(t *task, reason stopReason) {
	t.mu.Lock()
	if t.reason == notStopped && !t.exited {
		t.reason = reason
	}
	t.mu.Unlock()
	t.signal((*procgroup.Group).Stop)
	grace := time.NewTimer(taskStopGrace)
	defer grace.Stop()
	select {
	case <-t.done:
		return
	case <-grace.C:
	}
	t.signal((*procgroup.Group).Kill)
	<-t.done
}

// discard removes t's output file, and forgets it, once the engine closes.
func (ts *taskSet) discard(t *task) {
	os.RemoveAll(t.dir)
	ts.mu.Lock()
	defer ts.mu.Unlock()
	list := ts.outputs[t.session]
	for i, o := range list {
		if o == t {
			list = append(list[:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(ts.outputs, t.session)
	} else {
		ts.outputs[t.session] = list
	}
}

// outputDir returns the directory of the output file at path (absolute and clean)
// when it is one of session's: the only files outside the roots an fs call may
// read, and only in that session.
func (ts *taskSet) outputDir(session, path string) (string, bool) {
	if ts == nil {
		return "", false
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for _, t := range ts.outputs[session] {
		if t.path == path {
			return t.dir, true
		}
	}
	return "", false
}
