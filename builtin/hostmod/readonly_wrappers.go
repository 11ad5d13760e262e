package hostmod

import (
	"slices"
	"strings"
)

// The table: programs that run another command (timeout, command, xargs), whose
// command is classified in its turn; ps and pgrep; the shell's history; the
// version questions. The original runs no other wrapper unasked (nice, nohup,
// stdbuf and env are not read-only here either).

func init() {
	register(
		&program{name: "timeout", check: timeoutCheck,
			note: "timeout DURATION COMMAND only, no option; the command classified in its turn"},
		&program{name: "command", check: commandCheck,
			note: "command COMMAND only, no option; the command classified in its turn"},
		&program{name: "xargs", opts: strictOptionSet(true, false, "-0", "-E=EOF", "-L=N", "-P=N", "-n=N",
			"-s=N", "-d=CHAR", "-r", "-t", "-x", "-a --arg-file=FILE !", "-I=R !", "-i --replace !",
			"-o --open-tty !", "-p --interactive !", "--process-slot-var=VAR !"),
			operands: xargsOperands,
			note:     "runs only echo and wc (every option of theirs only reads, since the input may add any; the original asks for the programs that print what they read), and only in the kernel sandbox, which bounds the files the input names; -E takes EOF only, -d one character; -I and -i would put the input inside the command's words"},
		&program{name: "history", opts: strictOptionSet(false, false), operands: atMost(1, countOperand)},
		&program{name: "ps", opts: psOptions, operands: psOperands,
			note: "BSD options (words without a dash) may not hold e or E (the environment of each process); -e goes only with -AacdeFfjlwHLTm and --forest"},
		strict("pgrep", textOperands, "-d --delimiter=DELIM", "-l --list-name", "-a --list-full", "-v --inverse",
			"-w --lightweight", "-c --count", "-f --full", "-g --pgroup=PGID", "-G --group=GID", "-i --ignore-case",
			"-n --newest", "-o --oldest", "-O --older=SECS", "-P --parent=PPID", "-s --session=SID",
			"-t --terminal=TTY", "-u --euid=ID", "-U --uid=ID", "-x --exact", "-F --pidfile=FILE",
			"-L --logpidfile", "-r --runstates=STATE", "--ns=PID", "--nslist=NS", "--help", "-V --version"),
		&program{name: "tput", opts: strictOptionSet(false, false, "-T=TERM", "-V", "-x", "-S !"),
			operands: tputOperands,
			note:     "capabilities that reset, clear or program the terminal (init, reset, clear, smcup...) are not read-only, as the original refuses them"},
		versionOnly("node", "-v", "--version"),
		versionOnly("python", "--version"),
		versionOnly("python3", "--version"),
	)
}

// tputResets are the capabilities that reset, clear or program a terminal.
var tputResets = []string{"init", "reset", "rs1", "rs2", "rs3", "is1", "is2", "is3", "iprog", "if", "rf",
	"clear", "flash", "mc0", "mc4", "mc5", "mc5i", "mc5p", "pfkey", "pfloc", "pfx", "pfxl", "smcup", "rmcup"}

// tputOperands: capability names, none of tputResets.
func tputOperands(c *argvCheck, operands []string) bool {
	for _, o := range operands {
		if slices.Contains(tputResets, o) {
			return c.refuse(o)
		}
	}
	return true
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

// timeoutCheck: timeout, a duration (digits, a fraction, an optional s, m, h or d),
// then the command, which may not be a builtin that would run outside timeout's
// reach ([[, alias, cd, help, history, type).
func timeoutCheck(c *argvCheck) bool {
	if len(c.argv) < 3 || !isDuration(c.argv[1]) {
		return c.refuse("timeout")
	}
	switch c.argv[2] {
	case "[[", "alias", "cd", "help", "history", "type":
		return c.refuse(c.argv[2])
	}
	c.runs = c.argv[2:]
	return true
}

// isDuration reports whether s is a duration timeout takes as the original does:
// digits, a fraction, and s, m, h or d.
func isDuration(s string) bool {
	if n := len(s); n > 1 && strings.IndexByte("smhd", s[n-1]) >= 0 {
		s = s[:n-1]
	}
	whole, frac, dotted := strings.Cut(s, ".")
	return whole != "" && strings.Trim(whole, "0123456789") == "" &&
		(!dotted || frac != "" && strings.Trim(frac, "0123456789") == "")
}

// commandCheck: command, then the command it runs, with no option (command -v
// and -V the original asks about).
func commandCheck(c *argvCheck) bool {
	if len(c.argv) < 2 || strings.HasPrefix(c.argv[1], "-") {
		return c.refuse("command")
	}
	c.runs = c.argv[1:]
	return true
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

// safeAssignments are the variables a read-only command line may set for its
// command: the locale and the time zone change how output looks, nothing more.
// Their values must be plain names (see safeAssignment).
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

// maxWrapDepth bounds how many wrappers a command may nest (timeout command ...).
const maxWrapDepth = 8

// xargsTargets are the commands xargs may run: every option they have only reads.
var xargsTargets = []string{"echo", "wc"}

// xargsOperands: the command xargs runs with names from its input (echo when
// none); -E takes EOF only and -d one character, as the original takes them.
func xargsOperands(c *argvCheck, operands []string) bool {
	for _, v := range c.args.values("-E") {
		if v != "EOF" {
			return c.refuse(v)
		}
	}
	for _, v := range c.args.values("-d") {
		if len(v) != 1 {
			return c.refuse(v)
		}
	}
	if len(operands) == 0 {
		operands = []string{"echo"}
	}
	c.runs, c.unseen = operands, true
	return true
}

// psOptions are ps's options with a dash the table allows.
var psOptions = strictOptionSet(false, false,
	"-A", "-a", "-d", "-e", "-N --deselect", "-f", "-F", "-l", "-j", "-y", "-w", "-c", "-H", "-L", "-T",
	"-m", "-C=CMDLIST", "-G=GROUPLIST", "-g=GROUPLIST", "-p --pid=PIDLIST", "-q --quick-pid=PIDLIST",
	"-s --sid=SIDLIST", "-t --tty=TTYLIST", "-u --user=USERLIST", "-U=USERLIST", "--sort=SPEC",
	"--forest", "--headers", "--no-headers", "--width=N", "-V --version", "--help", "--info")

// psOperands: BSD options and their values, which may not show the environment
// (e or E); and -e only among the options that select and format, as the original
// takes it.
func psOperands(c *argvCheck, operands []string) bool {
	for _, o := range operands {
		if strings.ContainsAny(o, "eE") {
			return c.refuse(o)
		}
	}
	args := c.argv[1:]
	if !slices.ContainsFunc(args, func(a string) bool {
		return strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsRune(a, 'e')
	}) {
		return true
	}
	marks := 0
	for _, a := range args {
		if a == "--forest" {
			continue
		}
		if !strings.HasPrefix(a, "-") || strings.Trim(a[1:], "AacdeFfjlwHLTm") != "" || len(a) < 2 {
			return c.refuse(a)
		}
		marks += strings.Count(a, "H") + strings.Count(a, "L") + strings.Count(a, "T") + strings.Count(a, "m")
	}
	if marks > 1 {
		return c.refuse("ps")
	}
	return true
}
