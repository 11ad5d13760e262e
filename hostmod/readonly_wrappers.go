package hostmod

import (
	"slices"
	"strings"
)

// The table: programs that run another command (timeout, nice, nohup, stdbuf, env,
// command, xargs), whose own options are allowed here and whose command is then
// classified in its turn; the shell builtins that only report; ps and pgrep; the
// version questions.

func init() {
	register(
		&program{name: "timeout", opts: newOptionSet(getoptStopSyntax, false, "--preserve-status",
			"--foreground", "-k --kill-after=DURATION", "-s --signal=SIGNAL", "-v --verbose", "--help",
			"--version"), operands: timeoutOperands},
		withCounts(&program{name: "nice", opts: newOptionSet(getoptStopSyntax, false, "-n --adjustment=N",
			"--help", "--version"), operands: runsOperands(false)}),
		&program{name: "nohup", opts: newOptionSet(getoptStopSyntax, false, "--help", "--version"),
			operands: runsOperands(true), note: "its output goes to a pipe, never to nohup.out"},
		&program{name: "stdbuf", opts: newOptionSet(getoptStopSyntax, false, "-i --input=MODE",
			"-o --output=MODE", "-e --error=MODE", "--help", "--version"), operands: runsOperands(true)},
		&program{name: "env", opts: newOptionSet(getoptStopSyntax, false, "-0 --null", "-i --ignore-environment",
			"-u --unset=NAME", "-v --debug", "--block-signal[=SIG]", "--default-signal[=SIG]",
			"--ignore-signal[=SIG]", "--list-signal-handling", "-C --chdir=DIR !", "-S --split-string=S !",
			"--help", "--version"), operands: envOperands,
			note: "assignments only of the variables in safeAssignments; a command is required (env alone prints the environment, which may hold what the host passes); -i and -u not before git, whose environment carries the read-only call's overrides"},
		&program{name: "command", opts: newOptionSet(exactStopSyntax, false, "-p", "-v", "-V"),
			operands: commandOperands},
		&program{name: "xargs", opts: newOptionSet(getoptStopSyntax, false, "-0 --null",
			"-a --arg-file=FILE !", "-d --delimiter=CHARACTER", "-E=END", "-e --eof[=END]", "-I=R",
			"-i --replace[=R]", "-L=MAX-LINES", "-l --max-lines[=MAX-LINES]", "-n --max-args=MAX-ARGS",
			"-o --open-tty !", "-P --max-procs=MAX-PROCS", "-p --interactive !",
			"--process-slot-var=VAR !", "-r --no-run-if-empty", "-s --max-chars=MAX-CHARS", "--show-limits",
			"-t --verbose", "-x --exit", "--help", "--version"), operands: xargsOperands,
			note: "runs only a program marked xargs-safe (every option it has only reads, since the input may add any), and only in the kernel sandbox, which bounds the files named by the input; --process-slot-var sets a variable such as PATH in the command's environment"},
		&program{name: "type", opts: newOptionSet(exactSyntax, false, "-a", "-f", "-P", "-p", "-t"),
			operands: textOperands},
		&program{name: "help", opts: newOptionSet(exactSyntax, false, "-d", "-m", "-s"), operands: textOperands},
		&program{name: "history", opts: newOptionSet(exactSyntax, false), operands: atMost(1, countOperand)},
		&program{name: "alias", opts: newOptionSet(exactSyntax, false), operands: noOperands},
		&program{name: "ps", check: psCheck,
			note: "a custom parser for ps's three syntaxes; the BSD e and E (the environment of processes) are not read-only"},
		gnu("pgrep", textOperands, "-d --delimiter=DELIM", "-l --list-name", "-a --list-full",
			"-v --inverse", "-w --lightweight", "-c --count", "-f --full", "-g --pgroup=PGID", "-G --group=GID",
			"-i --ignore-case", "-n --newest", "-o --oldest", "-O --older=SECS", "-P --parent=PPID",
			"-s --session=SID", "-t --terminal=TTY", "-u --euid=ID", "-U --uid=ID", "-x --exact",
			"-F --pidfile=FILE", "-L --logpidfile", "-r --runstates=STATE", "-A --ignore-ancestors",
			"--cgroup=GRP", "--ns=PID", "--nslist=NS", "--signal=SIGNAL", "-h --help", "-V --version"),
		versionOnly("node", "-v", "--version"),
		versionOnly("python", "-V", "--version"),
		versionOnly("python3", "-V", "--version"),
		versionOnly("go", "version"),
	)
}

// versionOnly is a program allowed only to print its version, by one of words
// given alone.
func versionOnly(name string, words ...string) *program {
	return &program{name: name, note: "only " + strings.Join(words, " or ") + ", alone",
		check: func(c *argvCheck) bool {
			if len(c.argv) != 2 || !slices.Contains(words, c.argv[1]) {
				return c.refuse(name)
			}
			return true
		}}
}

// runsOperands: the operands are a command the program runs; required unless the
// program does something else without one (nice prints the niceness).
func runsOperands(required bool) func(*argvCheck, []string) bool {
	return func(c *argvCheck, operands []string) bool {
		if len(operands) == 0 {
			return !required || c.refuse(c.argv[0])
		}
		c.runs = operands
		return true
	}
}

// timeoutOperands: a duration, then the command.
func timeoutOperands(c *argvCheck, operands []string) bool {
	if len(operands) < 2 || !isDuration(operands[0]) {
		return c.refuse("timeout")
	}
	c.runs = operands[1:]
	return true
}

// isDuration reports whether s is timeout's duration: a number with an optional
// s, m, h or d.
func isDuration(s string) bool {
	s = strings.TrimRight(s, "smhd")
	return s != "" && strings.Trim(s, "0123456789.") == ""
}

// countOperand: a number.
func countOperand(c *argvCheck, operands []string) bool {
	for _, o := range operands {
		if !isInteger(o) {
			return c.refuse(o)
		}
	}
	return true
}

// commandOperands: command -v and -V name commands (text); otherwise the operands
// are the command to run.
func commandOperands(c *argvCheck, operands []string) bool {
	if c.args.has("-v", "-V") {
		return true
	}
	return runsOperands(true)(c, operands)
}

// safeAssignments are the variables a read-only command line may set, for its
// command or through env: the locale and the time zone change how output looks,
// nothing more. Their values must be plain names (see safeAssignment).
var safeAssignments = map[string]bool{
	"LC_ALL": true, "LANG": true, "LANGUAGE": true, "LC_COLLATE": true, "LC_CTYPE": true,
	"LC_MESSAGES": true, "LC_NUMERIC": true, "LC_TIME": true, "TZ": true, "NO_COLOR": true,
}

// safeAssignment reports whether NAME=VALUE is one of safeAssignments with a plain
// value: letters, digits, and _ . - @ + and no path (a TZ naming a file would be
// read).
func safeAssignment(name, value string) bool {
	if !safeAssignments[name] || strings.HasPrefix(value, ":") || strings.Contains(value, "..") {
		return false
	}
	for i := 0; i < len(value); i++ {
		c := value[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("_.-@+", c) >= 0) {
			return false
		}
	}
	return true
}

// envOperands: assignments of safe variables, then the command (required: env alone
// prints the environment). With -i or -u, the command may not be git: the
// read-only call's git overrides live in the environment.
func envOperands(c *argvCheck, operands []string) bool {
	for len(operands) > 0 {
		name, value, ok := strings.Cut(operands[0], "=")
		if !ok {
			break
		}
		if !safeAssignment(name, value) {
			return c.refuse(operands[0])
		}
		operands = operands[1:]
	}
	if len(operands) == 0 {
		return c.refuse("env")
	}
	if c.args.has("-i", "-u") && runsGit(operands) {
		return c.refuse(operands[0])
	}
	c.runs = operands
	return true
}

// runsGit reports whether argv runs git, itself or through the wrappers of the table.
func runsGit(argv []string) bool {
	for depth := 0; len(argv) > 0 && depth < maxWrapDepth; depth++ {
		if argv[0] == "git" {
			return true
		}
		c, _ := classifyArgv(argv)
		argv = c.runs
	}
	return false
}

// maxWrapDepth bounds how many wrappers a command may nest (timeout nice env ...).
const maxWrapDepth = 8

// xargsOperands: the command xargs runs with names from its input (echo when none).
// A replacement string may not be in the command's name, which the input would
// then choose.
func xargsOperands(c *argvCheck, operands []string) bool {
	if len(operands) == 0 {
		operands = []string{"echo"}
	}
	replace := c.args.values("-I", "-i")
	if c.args.has("-i") && len(c.args.values("-i")) == 0 {
		replace = append(replace, "{}")
	}
	for _, r := range replace {
		if r == "" || strings.Contains(operands[0], r) {
			return c.refuse(operands[0])
		}
	}
	c.runs, c.unseen = operands, true
	return true
}

// psOptions are ps's UNIX and GNU options as the classifier allows them.
var psOptions = newOptionSet(exactSyntax, false,
	"-A", "-a", "-d", "-e", "-N --deselect", "-f", "-F", "-l", "-j", "-y", "-w", "-c", "-H", "-L", "-T",
	"-m", "-M", "-Z --context", "-x", "-o --format=FORMAT", "-O=FORMAT", "-p --pid=PIDLIST",
	"--ppid=PIDLIST", "-q --quick-pid=PIDLIST", "-s --sid=SIDLIST", "-t --tty=TTYLIST", "-u --user=USERLIST",
	"-U=USERLIST", "-g --group=GROUPLIST", "-G --Group=GROUPLIST", "-C=CMDLIST", "--sort=SPEC", "--forest",
	"--headers", "--no-headers", "--cols --columns --width=N", "--lines --rows=N", "-V --version",
	"--help[=SECTION]", "--info")

// psBSDLetters are the BSD options (no dash) ps may have: selection and format
// letters, never e (the environment of each process); psBSDValues take the next
// word.
const (
	psBSDLetters = "aAcfhjlLmMnrsSTuvwxXZ"
	psBSDValues  = "oOpUt"
)

// psCheck reads ps's words: options with a dash by psOptions, BSD clusters without.
func psCheck(c *argvCheck) bool {
	args := c.argv[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			_, n, ok := psOptions.parseWord(args[i:])
			if !ok {
				return c.refuse(a)
			}
			i += n - 1
			continue
		}
		for j := 0; j < len(a); j++ {
			switch {
			case strings.IndexByte(psBSDValues, a[j]) >= 0 && j == len(a)-1 && i+1 < len(args):
				i++
			case strings.IndexByte(psBSDLetters, a[j]) < 0:
				return c.refuse(a)
			}
		}
	}
	return true
}
