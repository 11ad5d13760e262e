package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/luatool/luatool/engine/rules"
	"github.com/luatool/luatool/internal/jsonvalue"
	"github.com/luatool/luatool/internal/procgroup"
)

// A Launcher starts the commands of hooks, confined as the host confines the
// commands it runs. builtin/hostmod's ShellOptions is one.
type Launcher interface {
	// Environ is the whole environment of a command whose scratch directory is
	// tmp: nothing of the host's own that the host does not mean to pass.
	Environ(tmp string) []string
	// Start starts cmd, which may read read and the system directories and write
	// scratch, and nothing else where the host can confine it.
	Start(cmd *exec.Cmd, read []string, scratch string) error
}

// Options say how command hooks run.
type Options struct {
	// Launcher starts the commands; it must be set.
	Launcher Launcher
	// Roots are the directories a hook may read (the engine's roots).
	Roots []string
	// ProjectDir is CLAUDE_PROJECT_DIR for the hooks; empty means the first root.
	ProjectDir string
}

// maxOutput bounds what is kept of a hook's stdout and of its stderr.
const maxOutput = 1 << 20

// FromSettings returns the command hooks of h, in order, for the engine's
// Options.Hooks; none when h.Disabled. Settings already left out what cannot run.
func FromSettings(h Settings, opts Options) []Hook {
	if opts.Launcher == nil {
		panic("hooks: FromSettings: Options.Launcher is nil: command hooks need the host's launcher (builtin/hostmod's ShellOptions confines them as shell commands are)")
	}
	if h.Disabled {
		return nil
	}
	if opts.ProjectDir == "" && len(opts.Roots) > 0 {
		opts.ProjectDir = opts.Roots[0]
	}
	out := make([]Hook, len(h.Commands))
	for i, c := range h.Commands {
		out[i] = &Command{spec: c, opts: opts}
	}
	return out
}

// A Command is one command hook of a settings file.
type Command struct {
	spec CommandSpec
	opts Options
}

// Event is the event of the hook's entry.
func (c *Command) Event() Event { return c.spec.Event }

// Matcher is the entry's matcher.
func (c *Command) Matcher() string { return c.spec.Matcher }

// Name is the command, or the program and arguments: the same command given twice
// runs once.
func (c *Command) Name() string {
	if c.spec.Command != "" {
		return c.spec.Command
	}
	return strings.Join(c.spec.Args, " ")
}

// Timeout is the hook's "timeout".
func (c *Command) Timeout() time.Duration { return c.spec.Timeout }

// Run runs the command with in on its stdin and reads its answer. Errors name the
// settings file and line of the hook.
func (c *Command) Run(ctx context.Context, in *Input) (Decision, error) {
	d, err := c.run(ctx, in)
	if err != nil {
		return Decision{}, fmt.Errorf("%s%w", c.spec.Pos.Prefix(), err)
	}
	return d, nil
}

func (c *Command) run(ctx context.Context, in *Input) (Decision, error) {
	input, err := json.Marshal(in)
	if err != nil {
		return Decision{}, err
	}
	stdout, stderr, code, err := c.execute(ctx, in.Cwd, input)
	if err != nil {
		return Decision{}, err
	}
	out, parsed, perr := parseOutput(in.HookEventName, stdout)
	switch {
	case code == 2:
		// Blocking, whatever the JSON says of the permission; the reason names the
		// command, as the original's does.
		msg := string(stderr)
		if strings.TrimSpace(msg) == "" {
			msg = "no output on stderr" // luatool's words
		}
		reason := "[" + c.Name() + "]: " + msg
		if parsed && perr == nil && out.Reason != "" {
			reason = out.Reason
		}
		switch in.HookEventName {
		case PreToolUse:
			return Decision{Permission: rules.Deny, Reason: reason}, nil
		case PostToolUse:
			return Decision{Block: true, Reason: reason}, nil
		}
		return Decision{AdditionalContext: reason}, nil
	case code == 0 || parsed && perr == nil:
		return out, perr
	}
	msg := strings.TrimSpace(string(stderr))
	if msg == "" {
		msg = "no output on stderr"
	}
	return Decision{}, fmt.Errorf("exit status %d: %s", code, truncate(msg, 2000))
}

// execute runs the command until it ends or ctx does, then kills its group
// (procgroup) so that nothing it started outlives it.
func (c *Command) execute(ctx context.Context, cwd string, input []byte) (stdout, stderr []byte, code int, err error) {
	tmp, err := os.MkdirTemp("", "luatool-hook-")
	if err != nil {
		return nil, nil, 0, err
	}
	defer os.RemoveAll(tmp)
	var cmd *exec.Cmd
	if c.spec.Command != "" {
		cmd = exec.Command("/bin/sh", "-c", c.spec.Command)
	} else {
		cmd = exec.Command(c.spec.Args[0], c.spec.Args[1:]...)
	}
	cmd.Dir = cwd
	cmd.Env = append(c.opts.Launcher.Environ(tmp), "CLAUDE_PROJECT_DIR="+c.opts.ProjectDir)

	// Plain pipes, not io.Writers: Wait must not wait for a child left in the
	// background that holds them open; the group kill below ends it.
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, nil, 0, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, nil, 0, err
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		return nil, nil, 0, err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	group, startErr := procgroup.Start(cmd, func(cmd *exec.Cmd) error { return c.start(cmd, tmp) })
	inR.Close()
	outW.Close()
	errW.Close()
	if startErr != nil {
		inW.Close()
		outR.Close()
		errR.Close()
		return nil, nil, 0, startErr
	}
	defer group.Close()
	go func() {
		_, _ = inW.Write(input) // a hook that does not read its input is no error
		inW.Close()
	}()
	var outBuf, errBuf bytes.Buffer
	copied := make(chan struct{}, 2)
	for _, p := range []struct {
		r *os.File
		b *bytes.Buffer
	}{{outR, &outBuf}, {errR, &errBuf}} {
		go func() {
			_, _ = io.Copy(p.b, io.LimitReader(p.r, maxOutput))
			_, _ = io.Copy(io.Discard, p.r)
			p.r.Close()
			copied <- struct{}{}
		}()
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var stopped error
	select {
	case <-waited:
	case <-ctx.Done():
		stopped = ctx.Err()
		group.Kill()
		<-waited
	}
	group.Kill()
	// A process that left the hook's group (setsid) survives the kill and may hold
	// the pipes open: the output is read for a moment more, then no longer, so that
	// the hook's answer (its exit code above all) is never lost waiting for it.
	grace := time.NewTimer(outputGrace)
	defer grace.Stop()
	for n := 0; n < 2; {
		select {
		case <-copied:
			n++
		case <-grace.C:
			_ = outR.SetReadDeadline(time.Now())
			_ = errR.SetReadDeadline(time.Now())
		}
	}
	if stopped != nil {
		if errors.Is(stopped, context.DeadlineExceeded) {
			return nil, nil, 0, errors.New("timed out; the command was killed")
		}
		return nil, nil, 0, fmt.Errorf("stopped: %w", stopped)
	}
	return outBuf.Bytes(), errBuf.Bytes(), exitCode(cmd.ProcessState), nil
}

// outputGrace is how long a hook's output is read after the hook has exited and its
// process group was killed.
const outputGrace = 250 * time.Millisecond

// start starts cmd through the Launcher: reads of the roots and of the settings
// file's directory, writes of the scratch directory only.
func (c *Command) start(cmd *exec.Cmd, tmp string) error {
	read := append([]string(nil), c.opts.Roots...)
	if c.spec.Pos.File != "" {
		read = append(read, filepath.Dir(c.spec.Pos.File))
	}
	return c.opts.Launcher.Start(cmd, read, tmp)
}

// exitCode is the exit status, 128+n when signal n ended the command.
func exitCode(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// parseOutput reads a hook's stdout: parsed reports whether it was meant as JSON (its
// first non-blank character is "{"), err whether that JSON is not what the protocol
// defines (DecodeOutput). Reason in the decision is the reason the JSON
// gives, for exit code 2.
func parseOutput(event Event, stdout []byte) (d Decision, parsed bool, err error) {
	text := bytes.TrimSpace(stdout)
	if len(text) == 0 || text[0] != '{' {
		return Decision{}, false, nil
	}
	v, err := jsonvalue.Decode(text)
	if err != nil {
		return Decision{}, true, fmt.Errorf("the output is not valid JSON: %v", err)
	}
	d, err = DecodeOutput(event, v.(map[string]any), false)
	return d, true, err
}

// truncate cuts s to at most n bytes, on a character boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "..."
}
