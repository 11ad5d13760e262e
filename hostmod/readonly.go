package hostmod

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// parseShell parses command as bash.
func parseShell(command string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
}

// SplitCommand returns the simple commands of a shell command line, in source order,
// each as written (with its redirections): the parts of pipes, lists, &&, || and
// blocks, and also the commands inside substitutions, so that a permission rule
// allowing the outer command does not let an inner one through. A command that does
// not parse is an error.
func SplitCommand(command string) ([]string, error) {
	f, err := parseShell(command)
	if err != nil {
		return nil, err
	}
	var parts []string
	syntax.Walk(f, func(n syntax.Node) bool {
		if st, ok := n.(*syntax.Stmt); ok {
			if _, simple := st.Cmd.(*syntax.CallExpr); simple {
				text := strings.TrimSpace(command[st.Pos().Offset():st.End().Offset()])
				if text != "" {
					parts = append(parts, text)
				}
			}
		}
		return true
	})
	return parts, nil
}

// ReadOnlyCommand reports whether a shell command line only reads: it parses, has no
// command or process substitution, parameter or arithmetic expansion, background job,
// assignment, subshell, function, loop or other compound command, writes through no
// redirection except to /dev/null, and every simple command in its pipes and lists is
// on the allow-list of read-only commands with read-only flags. Unquoted globs make a
// command not read-only, and so does a cd combined with git. Anything not understood
// is not read-only: the classifier fails closed.
func ReadOnlyCommand(command string) bool {
	f, err := parseShell(command)
	if err != nil || len(f.Stmts) == 0 {
		return false
	}
	safe := true
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ParamExp, *syntax.ArithmExp,
			*syntax.ExtGlob, *syntax.BraceExp:
			safe = false
		}
		return safe
	})
	if !safe {
		return false
	}
	var names []string
	for _, st := range f.Stmts {
		if !readOnlyStmt(st, &names) {
			return false
		}
	}
	hasCd, hasGit := false, false
	for _, n := range names {
		hasCd = hasCd || n == "cd"
		hasGit = hasGit || n == "git"
	}
	return !(hasCd && hasGit)
}

// readPaths hands read every literal word of a command line that may name a file it
// reads, with the cd targets in effect before it (innermost last), as the shell would
// see them: the operands of its commands (every word but the command's name and
// flags; the value of a --flag=value), the targets of input redirections, and the
// targets of cd themselves. A word that is not a path (a pattern, a count) is handed
// on all the same: the caller takes it as a path, which can only make the command
// need permission, never let it through. Words that are not literal (expansions,
// globs) cannot be told; such a command is not read-only anyway. Compound commands
// other than lists and blocks are walked without following cd.
func readPaths(f *syntax.File, read func(word string, cds []string)) {
	var cds []string
	var stmt func(st *syntax.Stmt)
	stmt = func(st *syntax.Stmt) {
		for _, r := range st.Redirs {
			if r.Op == syntax.RdrIn {
				if s, ok := literalWord(r.Word); ok {
					read(s, cds)
				}
			}
		}
		switch c := st.Cmd.(type) {
		case *syntax.CallExpr:
			argv := make([]string, len(c.Args))
			for i, w := range c.Args {
				argv[i], _ = literalWord(w)
			}
			if len(argv) == 0 {
				return
			}
			if argv[0] == "cd" {
				target := "~" // cd alone goes home
				if len(argv) > 1 {
					target = argv[1]
				}
				read(target, cds)
				cds = append(slices.Clip(cds), target)
				return
			}
			for _, a := range argv[1:] {
				switch {
				case a == "-" || a == "--":
				case strings.HasPrefix(a, "-"):
					if _, v, ok := strings.Cut(a, "="); ok && v != "" {
						read(v, cds)
					}
				default:
					read(a, cds)
				}
			}
		case *syntax.BinaryCmd:
			stmt(c.X)
			stmt(c.Y)
		case *syntax.Block:
			for _, s := range c.Stmts {
				stmt(s)
			}
		default:
			syntax.Walk(c, func(n syntax.Node) bool {
				if inner, ok := n.(*syntax.Stmt); ok {
					stmt(inner)
					return false
				}
				return true
			})
		}
	}
	for _, st := range f.Stmts {
		stmt(st)
	}
}

// readOnlyStmt checks one statement, appending the names of its simple commands.
func readOnlyStmt(st *syntax.Stmt, names *[]string) bool {
	if st.Background || st.Coprocess || st.Disown {
		return false
	}
	for _, r := range st.Redirs {
		if !readOnlyRedirect(r) {
			return false
		}
	}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Assigns) > 0 || len(c.Args) == 0 {
			return false
		}
		argv := make([]string, len(c.Args))
		for i, w := range c.Args {
			s, ok := literalWord(w)
			if !ok {
				return false
			}
			argv[i] = s
		}
		*names = append(*names, argv[0])
		return readOnlyArgv(argv)
	case *syntax.BinaryCmd:
		return readOnlyStmt(c.X, names) && readOnlyStmt(c.Y, names)
	case *syntax.Block:
		for _, s := range c.Stmts {
			if !readOnlyStmt(s, names) {
				return false
			}
		}
		return true
	default:
		return false
	}
}

// readOnlyRedirect accepts input redirections, here-documents and here-strings,
// duplications onto another descriptor, and output to /dev/null.
func readOnlyRedirect(r *syntax.Redirect) bool {
	switch r.Op {
	case syntax.RdrIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return true
	case syntax.DplIn, syntax.DplOut:
		s, ok := literalWord(r.Word)
		return ok && (s == "-" || strings.Trim(s, "0123456789") == "")
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob, syntax.AppClob:
		s, ok := literalWord(r.Word)
		return ok && s == "/dev/null"
	default:
		return false
	}
}

// literalWord returns the value of a word made only of literal text and quotes. An
// unquoted glob character (other than a lone "[", the test command) makes it fail.
func literalWord(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	if lit := w.Lit(); lit == "[" {
		return lit, true
	}
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			v := p.Value
			for i := 0; i < len(v); i++ {
				switch c := v[i]; c {
				case '\\':
					if i+1 < len(v) {
						i++
						b.WriteByte(v[i])
					}
				case '*', '?', '[':
					return "", false
				default:
					b.WriteByte(c)
				}
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false
			}
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescapeDouble(lit.Value))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// unescapeDouble removes the backslashes that escape a character inside double quotes.
func unescapeDouble(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// anyArgs are commands that only read whatever their arguments.
var anyArgs = map[string]bool{
	"cat": true, "head": true, "tail": true, "wc": true, "stat": true, "diff": true,
	"cut": true, "tr": true, "which": true, "sleep": true, "true": true, "false": true,
	"test": true, "[": true, "pwd": true, "whoami": true, "ls": true, "cd": true,
	"grep": true, "egrep": true, "fgrep": true, "ps": true, "base64": true,
	"sha1sum": true, "sha224sum": true, "sha256sum": true, "sha384sum": true,
	"sha512sum": true, "md5sum": true, "basename": true, "dirname": true,
	"realpath": true, "id": true, "uname": true, "nl": true,
}

// refusedFlags are, per command, flags that write, run programs or read unexpected
// files. A flag given as "--name" also refuses "--name=value"; a one-letter flag
// "-x" is refused wherever it appears in a cluster of short flags.
var refusedFlags = map[string][]string{
	"sort": {"-o", "--output", "--compress-program"},
	"rg":   {"--pre"},
	"file": {"-C", "--compile"},
	"date": {"-s", "--set"},
	"tree": {"-o"},
	"fd":   {"-x", "--exec", "-X", "--exec-batch"},
	"jq":   {"-f", "--from-file", "--rawfile", "--slurpfile", "-L"},
	"sed":  {"-i", "--in-place", "-f", "--file"},
	"find": {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"},
}

// hasFlag reports whether argv (after the command name) contains one of flags.
// find's flags are whole words; other commands also have short flags clustered.
func hasFlag(cmd string, args []string, flags []string) bool {
	for _, a := range args {
		if a == "--" && cmd != "find" {
			return false
		}
		for _, f := range flags {
			switch {
			case a == f, strings.HasPrefix(f, "--") && strings.HasPrefix(a, f+"="):
				return true
			case cmd != "find" && len(f) == 2 && len(a) > 1 && a[0] == '-' && a[1] != '-' &&
				strings.IndexByte(a[1:], f[1]) >= 0:
				return true
			}
		}
	}
	return false
}

func readOnlyArgv(argv []string) bool {
	cmd, args := argv[0], argv[1:]
	switch {
	case anyArgs[cmd]:
		return true
	case cmd == "echo":
		for _, a := range args {
			if strings.ContainsAny(a, "$`") {
				return false
			}
		}
		return true
	case cmd == "git":
		return readOnlyGit(args)
	case cmd == "node":
		return len(args) == 1 && (args[0] == "-v" || args[0] == "--version")
	case cmd == "python", cmd == "python3":
		return len(args) == 1 && (args[0] == "-V" || args[0] == "--version")
	case cmd == "sed":
		return !hasFlag(cmd, args, refusedFlags[cmd]) && readOnlySed(args)
	}
	flags, ok := refusedFlags[cmd]
	return ok && !hasFlag(cmd, args, flags)
}

// sedLine is a read-only sed command: an optional address or range, then p, d, q, =
// or an s command whose flags neither write (w) nor execute (e).
var sedLine = regexp.MustCompile(`^((\d+|\$|/[^/]*/)(,(\d+|\$|/[^/]*/))?!?)?\s*([pdq=]|s(.)(.*))?$`)

// readOnlySed checks sed's scripts: those after -e, or else the first operand.
func readOnlySed(args []string) bool {
	var scripts []string
	operand := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-e" || a == "--expression":
			if i+1 >= len(args) {
				return false
			}
			i++
			scripts = append(scripts, args[i])
		case strings.HasPrefix(a, "--expression="):
			scripts = append(scripts, strings.TrimPrefix(a, "--expression="))
		case strings.HasPrefix(a, "-") && a != "-":
			if strings.ContainsAny(a[1:], "ef") && !strings.HasPrefix(a, "--") {
				return false // a script or script file clustered with other flags
			}
		case operand == "":
			operand = a
		}
	}
	if len(scripts) == 0 {
		if operand == "" {
			return false
		}
		scripts = append(scripts, operand)
	}
	for _, s := range scripts {
		for _, line := range strings.FieldsFunc(s, func(r rune) bool { return r == ';' || r == '\n' }) {
			m := sedLine.FindStringSubmatch(strings.TrimSpace(line))
			if m == nil || (m[6] != "" && !readOnlySubstitute(m[6], m[7])) {
				return false
			}
		}
	}
	return true
}

// readOnlySubstitute checks the rest of an s command, after its delimiter: the
// pattern, the replacement, then flags among g, p, i, I, m, M and digits.
func readOnlySubstitute(delim, rest string) bool {
	if delim == "\\" || delim == "\n" {
		return false
	}
	d := delim[0]
	seen := 0
	i := 0
	for ; i < len(rest) && seen < 2; i++ {
		switch rest[i] {
		case '\\':
			i++
		case d:
			seen++
		}
	}
	if seen < 2 {
		return false
	}
	return strings.Trim(rest[i:], "gpiImM0123456789") == ""
}

// gitReadOnly are the git subcommands that only read, with the flags they refuse.
var gitReadOnly = map[string][]string{
	"status":    nil,
	"diff":      {"--output", "--ext-diff"},
	"log":       {"--output", "--ext-diff"},
	"show":      {"--output", "--ext-diff"},
	"blame":     nil,
	"ls-files":  nil,
	"rev-parse": nil,
	"grep":      {"-O", "--open-files-in-pager"},
}

// readOnlyGit checks git's arguments: harmless global options, then a read-only
// subcommand. -c, --exec-path, --config-env and every other global option are refused.
func readOnlyGit(args []string) bool {
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		switch args[i] {
		case "--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs":
			i++
		default:
			return false
		}
	}
	if i == len(args) {
		return false
	}
	sub, rest := args[i], args[i+1:]
	switch sub {
	case "branch":
		return readOnlyGitBranch(rest)
	case "tag":
		return len(rest) == 0 || rest[0] == "-l" || rest[0] == "--list"
	}
	flags, ok := gitReadOnly[sub]
	return ok && !hasFlag("git", rest, flags)
}

// gitBranchFlags are the flags of git branch that list.
var gitBranchFlags = map[string]bool{
	"-a": true, "--all": true, "-r": true, "--remotes": true, "-v": true, "-vv": true,
	"--verbose": true, "-l": true, "--list": true, "--show-current": true,
	"--merged": true, "--no-merged": true, "--contains": true, "--no-contains": true,
	"--no-color": true, "--color": true, "--column": true, "--no-column": true,
}

// readOnlyGitBranch accepts git branch only when it lists: listing flags, and names
// (which would otherwise create a branch) only as patterns after --list or as the
// argument of --contains and the like.
func readOnlyGitBranch(args []string) bool {
	listing := false
	for _, a := range args {
		if a == "-l" || a == "--list" {
			listing = true
		}
	}
	for i, a := range args {
		switch {
		case gitBranchFlags[a], strings.HasPrefix(a, "--sort="), strings.HasPrefix(a, "--format="):
		case !strings.HasPrefix(a, "-") && (listing || i > 0 && strings.HasSuffix(args[i-1], "merged") ||
			i > 0 && strings.HasSuffix(args[i-1], "contains")):
		default:
			return false
		}
	}
	return true
}

// A commandVerdict is how the shell module classifies a command line for a call.
type commandVerdict int

const (
	// commandReadOnly: the command only reads, and only paths inside the roots that
	// no Read deny rule hides.
	commandReadOnly commandVerdict = iota
	// commandWrites: the command may change something (or is not understood).
	commandWrites
	// commandOutside: the command only reads, but reads a path outside the roots.
	commandOutside
	// commandHidden: the command reads a path a Read deny rule hides.
	commandHidden
	// commandUnlisted: the command only reads, but reads a directory in which a
	// Read deny rule may hide something, and no kernel sandbox keeps it out
	// (shellState.classify).
	commandUnlisted
)

// classifyCommand classifies command for a call working in cwd (absolute; "" means
// the first root). A command that reads a path a Read deny rule hides is
// commandHidden, whatever else it does (hidden may be nil: nothing is). Otherwise it
// is read-only only when it is by ReadOnlyCommand and every path it reads
// (readPaths) lies inside the roots: a path starting with ~ is outside (the shell
// expands it to the home directory), and /proc, /dev and the like are outside the
// roots. It returns the verdict and the path that decided it.
func (rs *rootSet) classifyCommand(command, cwd string, hidden func(string) bool) (commandVerdict, string) {
	f, err := parseShell(command)
	if err != nil {
		return commandWrites, ""
	}
	if cwd == "" {
		cwd = rs.dirs[0].given
	}
	// resolve makes a word absolute against cwd and the cd targets before it; "" for
	// one the shell would expand to the home directory.
	resolve := func(w string, cds []string) string {
		base := cwd
		for _, d := range append(slices.Clip(cds), w) {
			if strings.HasPrefix(d, "~") {
				return ""
			}
			base = rs.abs(d, base)
		}
		return base
	}
	type read struct{ word, path string }
	var reads []read
	readPaths(f, func(w string, cds []string) { reads = append(reads, read{w, resolve(w, cds)}) })
	for i, r := range reads {
		if r.path == "" {
			continue
		}
		// A link is read where it leads: inside the roots it may lead out of them,
		// or to a file a deny rule hides.
		p := filepath.Clean(r.path)
		if real, err := filepath.EvalSymlinks(p); err == nil && real != p {
			if hidden != nil && hidden(p) {
				return commandHidden, r.path
			}
			p = real
			reads[i].path = real
		}
		if hidden != nil && hidden(p) {
			return commandHidden, p
		}
	}
	if !ReadOnlyCommand(command) {
		return commandWrites, ""
	}
	for _, r := range reads {
		if r.path == "" || !rs.inside(r.path) {
			return commandOutside, r.word
		}
	}
	return commandReadOnly, ""
}
