package hostmod

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/luatool/luatool/bindings"
	"github.com/luatool/luatool/builtin/confine"
	"github.com/luatool/luatool/internal/procgroup"
)

// ShellOptions configures how the shell module runs commands. The zero value is
// the default: every command in the kernel sandbox, without the network, in the
// minimal environment.
type ShellOptions struct {
	// NoSandbox runs commands without the kernel sandbox, with the rights of the
	// host process: only the read-only classifier then stands between a read-only
	// call and a command that changes something, and a command may read whatever
	// the host may.
	NoSandbox bool
	// Network lets sandboxed commands connect and listen over TCP.
	Network bool
	// PassEnv names variables of the host's environment that commands get too,
	// beyond the minimal environment (see environ); a name listed here wins over
	// that environment's value for it.
	PassEnv []string
	// MaxTasks bounds the background commands (shell.start) running at once in one
	// session; zero means 10. MaxTasksTotal bounds them in all sessions together;
	// zero means 40. A start beyond either fails with code "limit".
	MaxTasks, MaxTasksTotal int
	// MaxTaskOutput bounds the output file of a background command, in bytes: a
	// command whose output passes it is stopped, and its file ends with a line that
	// says so. Zero means 4 MiB.
	MaxTaskOutput int
}

// check refuses PassEnv names that could not be variables, and negative limits.
func (o ShellOptions) check() error {
	if o.MaxTasks < 0 || o.MaxTasksTotal < 0 || o.MaxTaskOutput < 0 {
		return errors.New("hostmod: ShellOptions: MaxTasks, MaxTasksTotal and MaxTaskOutput must not be negative")
	}
	for _, name := range o.PassEnv {
		if name == "" || strings.ContainsAny(name, "=\x00") {
			return fmt.Errorf("hostmod: ShellOptions.PassEnv: %q is not an environment variable name", name)
		}
	}
	return nil
}

// Describe says in one line how the shell module built with o confines commands on
// this system, as luatool describe and serve print it after "shell sandbox: ".
func (o ShellOptions) Describe() string {
	abi, err := o.Landlock()
	if err != nil {
		return "none (" + err.Error() + "); shell commands are confined by the read-only classifier only"
	}
	network := "denied"
	switch {
	case o.Network:
		network = "allowed"
	case abi < 4:
		network = "not controlled (Landlock controls TCP from ABI 4)"
	}
	return fmt.Sprintf("Landlock ABI %d (reads: roots and system directories; writes: roots, for calls that may write; network: %s)", abi, network)
}

// Landlock returns the Landlock ABI commands run under, or why they run without:
// turned off, or the kernel. Package hooks runs Claude Code's command hooks under
// the same answer.
func (o ShellOptions) Landlock() (int, error) {
	if o.NoSandbox {
		return 0, errors.New("turned off by the host")
	}
	return confine.Landlock()
}

// Start starts cmd confined as the shell module's commands are: in the kernel
// sandbox unless o turns it off or the kernel has none, reading read and the system
// directories, writing scratch only, with the network only when o allows it. It is
// for the host's own commands, such as Claude Code's command hooks (engine/hooks
// takes ShellOptions as its Launcher); cmd's environment is the caller's (Environ).
func (o ShellOptions) Start(cmd *exec.Cmd, read []string, scratch string) error {
	if _, err := o.Landlock(); err != nil {
		return cmd.Start()
	}
	return confine.Start(cmd, confine.Policy{Read: read, Write: []string{scratch}, Network: o.Network})
}

// defaultPath is the PATH of commands when the host has none.
const defaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// Environ is the environment of a command whose scratch directory is tmp: the
// host's PATH, HOME and TMPDIR set to tmp, the host's LANG, LC_* and TERM, and the
// PassEnv variables the host has. Nothing else of the host's environment reaches a
// command: it may hold tokens and keys. Command hooks (package hooks) get it too.
func (o ShellOptions) Environ(tmp string) []string {
	path := os.Getenv("PATH")
	if path == "" {
		path = defaultPath
	}
	env := []string{"PATH=" + path, "HOME=" + tmp, "TMPDIR=" + tmp}
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name == "LANG" || name == "TERM" || strings.HasPrefix(name, "LC_") {
			env = append(env, kv)
		}
	}
	for _, name := range o.PassEnv {
		if v, ok := os.LookupEnv(name); ok {
			env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, name+"=") })
			env = append(env, name+"="+v)
		}
	}
	return env
}

// readOnlyGitConfig is the git configuration every command of a read-only call
// gets, through GIT_CONFIG_COUNT (the command-line scope, above the repository's
// own files, and passed on to submodules): no fsmonitor hook or daemon, no hooks at
// all, no pager, no signature checks, no implicit bare repository, no transport
// (a lazy fetch of a partial clone would run ssh or an ext:: remote), and no
// automatic maintenance. The classifier refuses a repository whose configuration
// could run a program; this covers what it might miss. What the environment
// cannot switch off (an external diff, textconv and filter drivers by name) the
// classifier alone refuses.
var readOnlyGitConfig = [][2]string{
	{"core.fsmonitor", "false"},
	{"core.useBuiltinFSMonitor", "false"},
	{"core.hooksPath", "/dev/null"},
	{"core.pager", "cat"},
	{"log.showSignature", "false"},
	{"safe.bareRepository", "explicit"},
	{"protocol.allow", "never"},
	{"gc.auto", "0"},
	{"maintenance.auto", "false"},
}

// readOnlyEnviron returns env for a command of a call that may not change
// anything: git's dangerous configuration switched off (readOnlyGitConfig), no
// pager, no optional locks (git status refreshes and writes the index otherwise),
// no lazy fetch and no prompt; and without the variables, passed by the host, that
// would choose another repository, configuration or external diff than the one the
// classifier checked. An approved call keeps env as it is, so that a commit runs
// the user's hooks.
func readOnlyEnviron(env []string) []string {
	env = slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CONFIG", "GIT_CONFIG_GLOBAL",
			"GIT_CONFIG_SYSTEM", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_EXTERNAL_DIFF", "GIT_PAGER",
			"PAGER", "GIT_OPTIONAL_LOCKS", "GIT_NO_LAZY_FETCH", "GIT_TERMINAL_PROMPT":
			return true
		}
		return strings.HasPrefix(name, "GIT_CONFIG_KEY_") || strings.HasPrefix(name, "GIT_CONFIG_VALUE_")
	})
	env = append(env, "GIT_CONFIG_COUNT="+strconv.Itoa(len(readOnlyGitConfig)))
	for i, kv := range readOnlyGitConfig {
		env = append(env, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", i, kv[0]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", i, kv[1]))
	}
	return append(env, "GIT_PAGER=cat", "PAGER=cat", "GIT_OPTIONAL_LOCKS=0", "GIT_NO_LAZY_FETCH=1",
		"GIT_TERMINAL_PROMPT=0")
}

// A scratch is the directory of one command, removed when it ends: tmp, its
// TMPDIR and HOME, which it may write; and cwd, the file its EXIT trap writes the
// final working directory to. The command may write cwd but not replace it (it has
// no rights on base), so that reading it back cannot be turned into reading a file
// the command could not.
type scratch struct {
	base, tmp, cwd string
}

func newScratch() (*scratch, error) {
	base, err := os.MkdirTemp("", "luatool-cmd-")
	if err != nil {
		return nil, err
	}
	sc := &scratch{base: base, tmp: filepath.Join(base, "tmp"), cwd: filepath.Join(base, "cwd")}
	if err := os.Mkdir(sc.tmp, 0o700); err != nil {
		sc.remove()
		return nil, err
	}
	if err := os.WriteFile(sc.cwd, nil, 0o600); err != nil {
		sc.remove()
		return nil, err
	}
	return sc, nil
}

func (sc *scratch) remove() { os.RemoveAll(sc.base) }

// maxCwd bounds what is read back from the cwd file: a path, not a dump.
const maxCwd = 1 << 16

// finalCwd is the working directory the command's EXIT trap recorded, or "" when
// it recorded none.
func (sc *scratch) finalCwd() string {
	f, err := os.OpenFile(sc.cwd, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, maxCwd))
	return strings.TrimRight(string(b), "\n")
}

// A commandAccess is what a command of a call may do beyond reading the roots and
// its scratch directory: write the roots (the call may write), and not read what
// the call's Read deny rules hide (bindings.Call.Hidden and HiddenBelow).
type commandAccess struct {
	write               bool
	hidden, hiddenBelow func(string) bool
}

// callAccess is the commandAccess of the current call of L, with the object stores
// of repositories whose work trees may hide something hidden too
// (guardObjectStores).
func callAccess(L *lua.LState) commandAccess {
	c := bindings.CurrentCall(L)
	if c == nil {
		return commandAccess{}
	}
	return guardObjectStores(commandAccess{write: c.Access >= bindings.AccessWrite, hidden: c.Hidden, hiddenBelow: c.HiddenBelow})
}

// startCommand starts cmd in a group of its own, in the sandbox when there is one:
// reads of the roots except what a Read deny rule hides, reads and writes of sc,
// and writes of the roots when the call may write (again except what is hidden). A hidden path is
// refused by the kernel whatever the command line, so an approval does not open it.
func (s *shellState) startCommand(cmd *exec.Cmd, sc *scratch, acc commandAccess) (*procgroup.Group, error) {
	if s.abi == 0 {
		return procgroup.Start(cmd, (*exec.Cmd).Start)
	}
	p := confine.Policy{Scratch: []string{sc.tmp, sc.cwd}, Network: s.opts.Network, Hidden: acc.hidden, HiddenBelow: acc.hiddenBelow}
	for _, d := range s.rs.dirs {
		if acc.write {
			p.Write = append(p.Write, d.resolved)
		} else {
			p.Read = append(p.Read, d.resolved)
		}
	}
	group, err := procgroup.Start(cmd, func(cmd *exec.Cmd) error { return confine.Start(cmd, p) })
	if errors.Is(err, confine.ErrTooManyEntries) {
		return nil, newOpError(codeShellHidden, "the command was not run: the Read deny rules reach into too many files for the kernel sandbox to grant the rest one by one (%v). "+
			"Anchor the rules to the directories that hold what they hide (Read(/config/.env) rather than Read(.env)), or keep large trees out of the roots", err)
	}
	if err != nil {
		return nil, fmt.Errorf("shell: %w", err)
	}
	return group, nil
}
