package hostmod

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The read-only classifier. A command line is read-only when it is made only of
// simple commands joined by pipes, lists and blocks, each of literal words, whose
// program is in the classifier's table with every option one the table allows for
// it, parsed as the program parses it (readonly_opts.go); whose redirections only
// read or discard; and whose every file read lies inside the roots after its links
// are resolved, hidden by no Read deny rule. Globs are expanded as bash would, and
// each name checked; a git command's repository is checked too (readonly_gitrepo.go).
// Anything not understood is not read-only: the classifier fails closed.

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

// ReadOnlyCommand reports whether a shell command line only reads, judged from its
// text alone: it parses, has no expansion ($, command or process substitution,
// arithmetic, brace expansion, a glob), background job, assignment (but of the
// locale and time zone), block, subshell, function, for, case or time (if and while
// are read-only when what they hold is), writes through no redirection except to
// /dev/null, has no cd combined with git, and every simple command is read-only by
// the classifier's table. It checks no path, no glob
// and no git repository: the shell module's classification (with the roots, the
// working directory and the deny rules) does.
func ReadOnlyCommand(command string) bool {
	v, _ := classifyLine(command, nil, workDir{}, nil, false)
	return v == commandReadOnly
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
// the first root); confined says the command runs in the kernel sandbox. A command
// that reads a path a Read deny rule hides is commandHidden, whatever else it does
// (hidden may be nil: nothing is). Otherwise it is read-only only when
// ReadOnlyCommand's rules hold and every path it reads, its globs' names and the
// directories they list, and its git repository lie inside the roots: paths are
// resolved from the working directory and the cd before them, component by
// component as the kernel resolves them; a path starting with ~ is outside (the
// shell expands it to the home directory). It returns the verdict and the path or
// word that decided it.
func (rs *rootSet) classifyCommand(command, cwd string, hidden func(string) bool, confined bool) (commandVerdict, string) {
	if cwd == "" {
		cwd = rs.dirs[0].given
	}
	physical, err := filepath.EvalSymlinks(cwd)
	if err != nil {
		return commandWrites, cwd
	}
	return classifyLine(command, rs, workDir{logical: filepath.Clean(cwd), physical: physical}, hidden, confined)
}

// A workDir is where a command of the line runs: as the shell names it (logical:
// bash's cd goes up from a link by name) and as the kernel finds it (physical).
type workDir struct{ logical, physical string }

// A lineCheck classifies one command line.
type lineCheck struct {
	rs       *rootSet // nil: the text alone (no paths, globs or repositories)
	hidden   func(string) bool
	confined bool
	globs    globber

	writes   bool   // something may change, or is not understood
	hiddenAt string // the first path a Read deny rule hides
	outside  string // the first word or path reaching outside the roots
	cds      int
	git      bool
}

// classifyLine parses and classifies command.
func classifyLine(command string, rs *rootSet, dir workDir, hidden func(string) bool, confined bool) (commandVerdict, string) {
	f, err := parseShell(command)
	if err != nil || len(f.Stmts) == 0 {
		return commandWrites, ""
	}
	lc := &lineCheck{rs: rs, hidden: hidden, confined: confined}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ParamExp, *syntax.ArithmExp, *syntax.ExtGlob,
			*syntax.BraceExp:
			lc.writes = true
		}
		return true
	})
	lc.stmts(f.Stmts, dir, true)
	switch {
	case lc.hiddenAt != "":
		return commandHidden, lc.hiddenAt
	case lc.writes || lc.cds > 0 && lc.git:
		return commandWrites, ""
	case lc.outside != "":
		return commandOutside, lc.outside
	}
	return commandReadOnly, ""
}

// stmts classifies a list of statements run in turn; a cd among them moves the
// ones after it when seq holds (see cd). It returns the directory after them.
func (lc *lineCheck) stmts(list []*syntax.Stmt, d workDir, seq bool) workDir {
	for _, st := range list {
		d = lc.stmt(st, d, seq)
	}
	return d
}

// stmt classifies one statement run in d. seq says the statements after it run
// only after it, in the same shell (a list of ; and &&): only there may a cd move
// what follows.
func (lc *lineCheck) stmt(st *syntax.Stmt, d workDir, seq bool) workDir {
	if st.Background || st.Coprocess || st.Disown {
		lc.writes = true
	}
	if st.Negated {
		seq = false
	}
	for _, r := range st.Redirs {
		lc.redirect(r, d)
	}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		return lc.call(c, d, seq)
	case *syntax.BinaryCmd:
		if c.Op == syntax.AndStmt {
			return lc.stmt(c.Y, lc.stmt(c.X, d, seq), seq)
		}
		lc.stmt(c.X, d, false)
		lc.stmt(c.Y, d, false)
		return d
	case *syntax.TestClause:
		lc.testExpr(c.X, d)
		return d
	case *syntax.IfClause:
		for ; c != nil; c = c.Else {
			lc.stmts(c.Cond, d, false)
			lc.stmts(c.Then, d, false)
		}
		return d
	case *syntax.WhileClause:
		lc.stmts(c.Cond, d, false)
		lc.stmts(c.Do, d, false)
		return d
	}
	// for and case (whose words expand), blocks, subshells, functions and the
	// rest are not read-only; what they read is still checked against the deny
	// rules.
	lc.writes = true
	syntax.Walk(st.Cmd, func(n syntax.Node) bool {
		if inner, ok := n.(*syntax.Stmt); ok {
			lc.stmt(inner, d, false)
			return false
		}
		return true
	})
	return d
}

// redirect checks one redirection: input from a file (read), here-documents and
// here-strings, duplications of descriptors, and output to /dev/null only.
func (lc *lineCheck) redirect(r *syntax.Redirect, d workDir) {
	if r.N != nil && strings.Trim(r.N.Value, "0123456789") != "" {
		lc.writes = true // {var}>file assigns a variable
	}
	target, ok := literalWord(r.Word)
	switch r.Op {
	case syntax.RdrIn:
		if !ok {
			lc.writes = true
			return
		}
		if !harmlessDevices[target] {
			lc.read(target, d)
		}
	case syntax.Hdoc, syntax.DashHdoc:
		// bash expands an unquoted here-document's body; the original asks.
		if r.Word == nil || !slices.ContainsFunc(r.Word.Parts, func(p syntax.WordPart) bool {
			switch p.(type) {
			case *syntax.SglQuoted, *syntax.DblQuoted:
				return true
			}
			return false
		}) {
			lc.writes = true
		}
	case syntax.WordHdoc:
	case syntax.DplIn, syntax.DplOut:
		if !ok || target != "-" && strings.Trim(target, "0123456789") != "" {
			lc.writes = true
		}
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob, syntax.AppClob:
		if !ok || target != "/dev/null" {
			lc.writes = true
			if ok {
				lc.read(target, d) // a denied file may not be touched at all
			}
		}
	default:
		lc.writes = true
	}
}

// call classifies a simple command: its assignments, its words expanded, and the
// command by the table; cd moves the directory of what follows.
func (lc *lineCheck) call(c *syntax.CallExpr, d workDir, seq bool) workDir {
	if len(c.Args) == 0 {
		lc.writes = true // an assignment alone changes the shell's state
		return d
	}
	for _, a := range c.Assigns {
		v, ok := literalWord(a.Value)
		if a.Append || a.Naked || a.Index != nil || a.Array != nil || !ok || !safeAssignment(a.Name.Value, v) {
			lc.writes = true
		}
	}
	argv, firstGlob, ok := lc.expand(c.Args, d)
	if !ok {
		lc.writes = true
		if argv != nil {
			lc.readAll(guessedReads(argv), d)
		}
		return d
	}
	if argv[0] == "cd" {
		return lc.cd(argv, firstGlob, d, seq)
	}
	if !lc.command(argv, firstGlob, d, 0) {
		lc.writes = true
	}
	return d
}

// command classifies argv, run in d; firstGlob is the index of its first word
// that came from a glob (-1 for none). A wrapper's command is classified in turn
// (depth counts them); a git command's repository is checked.
func (lc *lineCheck) command(argv []string, firstGlob int, d workDir, depth int) bool {
	c, ok := classifyArgv(argv)
	if !ok {
		lc.readAll(guessedReads(argv), d)
		return false
	}
	lc.readAll(c.reads, d)
	for _, l := range c.links {
		lc.readAs(l, d, false)
	}
	if c.git {
		lc.git = true
		lc.repository(d)
	}
	p := programs[argv[0]]
	if c.runs == nil {
		return firstGlob < 0 || p.globs
	}
	offset := len(argv) - len(c.runs)
	if offset < 1 || !slices.Equal(argv[offset:], c.runs) {
		offset = len(argv) // a command the program names itself (xargs' echo)
	}
	if depth >= maxWrapDepth || firstGlob >= 0 && firstGlob < offset {
		return false
	}
	if c.unseen && (!lc.confined || !slices.Contains(xargsTargets, c.runs[0])) {
		return false
	}
	if firstGlob >= 0 {
		firstGlob -= offset
	}
	return lc.command(c.runs, firstGlob, d, depth+1)
}

// cd follows a cd: its target is read (a directory must not be hidden or outside),
// and it moves the commands after it only when it is the line's one cd, in a
// sequence (seq), to an existing directory that bash's logical path and the
// kernel's resolution agree on. Any other cd is not read-only, and so is a relative
// path read after one (see readAs); the directory it moves to still decides what
// the deny rules see.
func (lc *lineCheck) cd(argv []string, firstGlob int, d workDir, seq bool) workDir {
	target := "~" // cd alone goes home
	if len(argv) > 1 {
		target = argv[1]
	}
	lc.read(target, d)
	lc.cds++
	if strings.HasPrefix(target, "~") {
		return d // outside the roots, recorded by read
	}
	if len(argv) > 2 || strings.HasPrefix(target, "-") || firstGlob >= 0 || !seq || lc.cds > 1 {
		lc.writes = true
		return d
	}
	if lc.rs == nil {
		return d
	}
	logical := target
	if !filepath.IsAbs(logical) {
		logical = filepath.Join(d.logical, target)
	}
	physical, ok := resolvePath(d.physical, target)
	byName, ok2 := resolvePath("/", filepath.Clean(logical))
	fi, err := os.Stat(physical)
	if !ok || !ok2 || physical != byName || err != nil || !fi.IsDir() {
		lc.writes = true
		return d
	}
	return workDir{logical: filepath.Clean(logical), physical: physical}
}

// read checks a word naming a file the command line reads, taken from d: a Read
// deny rule must not hide it, by name or where its links lead, and it must lie
// inside the roots where its links lead. ~ is the home directory: outside. A ..
// after a directory name (sub/../x) is refused as the original refuses it: through
// a link, it climbs from where the link leads.
func (lc *lineCheck) read(word string, d workDir) {
	lc.readAs(word, d, true)
}

// readAs is read, following the word's last component when it is a link (follow)
// or reading the link itself.
func (lc *lineCheck) readAs(word string, d workDir, follow bool) {
	if lc.cds > 0 && !filepath.IsAbs(word) {
		// The original asks about a relative path after a cd: which file it is
		// depends on where the cd went.
		lc.writes = true
	}
	if lc.rs == nil || word == "" {
		return
	}
	if strings.HasPrefix(word, "~") || climbsAfterName(word) {
		lc.reachOutside(word)
		return
	}
	byName := word
	if !filepath.IsAbs(word) {
		byName = filepath.Join(d.logical, word)
	}
	real, ok := resolvePath(d.physical, word)
	if !follow {
		dir, name := filepath.Split(word)
		real, ok = resolvePath(d.physical, dir)
		real = filepath.Join(real, name)
	}
	if lc.hidden != nil && lc.hiddenAt == "" {
		switch {
		case lc.hidden(byName):
			lc.hiddenAt = byName
		case ok && lc.hidden(real):
			lc.hiddenAt = real
		}
	}
	if !ok || !lc.rs.inside(real) {
		lc.reachOutside(word)
	}
}

func (lc *lineCheck) readAll(words []string, d workDir) {
	for _, w := range words {
		lc.read(w, d)
	}
}

// climbsAfterName reports whether a path has a .. after a component that names a
// directory (not . or ..).
func climbsAfterName(p string) bool {
	named := false
	for _, comp := range strings.Split(p, "/") {
		switch comp {
		case "", ".":
		case "..":
			if named {
				return true
			}
		default:
			named = true
		}
	}
	return false
}

// reachOutside records the first word reaching outside the roots.
func (lc *lineCheck) reachOutside(word string) {
	if lc.outside == "" {
		lc.outside = word
	}
}

// repository checks the git repository of a git command run in d.
func (lc *lineCheck) repository(d workDir) {
	if lc.rs == nil {
		return
	}
	switch v, why := lc.rs.gitRepository(d.physical); v {
	case commandWrites:
		lc.writes = true
	case commandOutside:
		lc.reachOutside(why)
	}
}

// guessedReads are the words of a command the table does not know that may name
// files it reads: every word but the name and options, and the values of
// --option=value. A word that is not a path is taken as one all the same, which can
// only make the command need permission (or be denied), never let it through.
func guessedReads(argv []string) []string {
	var out []string
	for _, a := range argv[1:] {
		switch {
		case a == "-" || a == "--":
		case strings.HasPrefix(a, "-"):
			if _, v, ok := strings.Cut(a, "="); ok && v != "" {
				out = append(out, v)
			}
		default:
			out = append(out, a)
		}
	}
	return out
}

// expand turns a command's words into its arguments as bash would: quotes removed,
// a glob replaced by the names it matches (checked: the directories it lists are
// read, and no name may start with "-"). It returns the index of the first word
// that came from a glob (-1 for none), and ok false for a word with an expansion
// the classifier does not follow (a variable, a substitution, brace expansion, a
// glob it cannot check), a tilde (home, outside the roots, recorded as such), or
// when it judges the text alone. argv is then the words it could read, for the
// deny rules.
func (lc *lineCheck) expand(words []*syntax.Word, d workDir) ([]string, int, bool) {
	argv := make([]string, 0, len(words))
	firstGlob, ok := -1, true
	for i, w := range words {
		chars, lit := wordChars(w)
		if !lit || braceExpansion(chars) {
			ok = false
			continue
		}
		text := literalOf(chars)
		if tildeExpansion(chars) {
			lc.reachOutside(text)
		}
		if !hasGlob(chars) || i == 0 && text == "[" {
			argv = append(argv, text)
			continue
		}
		if lc.rs == nil || i == 0 {
			ok = false
			continue
		}
		names, expanded := lc.globs.expand(d.physical, chars)
		for _, dir := range lc.globs.listed {
			lc.read(dir, d)
		}
		lc.globs.listed = lc.globs.listed[:0]
		if !expanded {
			ok = false
			continue
		}
		if firstGlob < 0 {
			firstGlob = len(argv)
		}
		argv = append(argv, text)
		for _, n := range names {
			if strings.HasPrefix(n, "-") {
				ok = false
			}
			if n != text {
				argv = append(argv, n)
			}
		}
	}
	if len(argv) == 0 {
		return nil, firstGlob, false
	}
	return argv, firstGlob, ok
}

// wordChars returns a word's characters after quote removal, marking those that
// were quoted or escaped; lit is false for a word with any expansion or an ANSI-C
// quote ($'...').
func wordChars(w *syntax.Word) ([]globChar, bool) {
	if w == nil {
		return nil, false
	}
	var out []globChar
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			v := p.Value
			for i := 0; i < len(v); i++ {
				if v[i] != '\\' {
					out = append(out, globChar{v[i], false})
					continue
				}
				if i+1 >= len(v) {
					return nil, false
				}
				i++
				if v[i] != '\n' { // a backslash-newline joins lines
					out = append(out, globChar{v[i], true})
				}
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				return nil, false
			}
			for i := 0; i < len(p.Value); i++ {
				out = append(out, globChar{p.Value[i], true})
			}
		case *syntax.DblQuoted:
			if p.Dollar {
				return nil, false
			}
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return nil, false
				}
				s := unescapeDouble(lit.Value)
				for i := 0; i < len(s); i++ {
					out = append(out, globChar{s[i], true})
				}
			}
		default:
			return nil, false
		}
	}
	return out, true
}

// literalWord returns the value of a word made only of literal text and quotes,
// refusing one with an unquoted glob (which a redirection would expand).
func literalWord(w *syntax.Word) (string, bool) {
	chars, ok := wordChars(w)
	if !ok || hasGlob(chars) || braceExpansion(chars) {
		return "", false
	}
	return literalOf(chars), true
}

// unescapeDouble removes the backslashes that escape a character inside double quotes.
func unescapeDouble(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// braceExpansion reports whether bash would expand braces in the word: an unquoted
// { with an unquoted , or .. inside it before its }.
func braceExpansion(w []globChar) bool {
	for i, g := range w {
		if g.quoted || g.c != '{' {
			continue
		}
		depth := 0
	scan:
		for j := i; j < len(w); j++ {
			h := w[j]
			if h.quoted {
				continue
			}
			switch h.c {
			case '{':
				depth++
			case '}':
				if depth--; depth == 0 {
					break scan
				}
			case ',':
				if depth == 1 {
					return true
				}
			case '.':
				if depth == 1 && j+1 < len(w) && w[j+1].c == '.' && !w[j+1].quoted {
					return true
				}
			}
		}
	}
	return false
}

// tildeExpansion reports whether bash would expand a ~ in the word to a home
// directory: an unquoted ~ first, or, in a word that looks like an assignment
// (NAME=...), after its = or a :.
func tildeExpansion(w []globChar) bool {
	if len(w) > 0 && w[0].c == '~' && !w[0].quoted {
		return true
	}
	eq := -1
	for i, g := range w {
		if g.quoted || !(g.c == '_' || g.c >= 'a' && g.c <= 'z' || g.c >= 'A' && g.c <= 'Z' || i > 0 && g.c >= '0' && g.c <= '9') {
			if g.c == '=' && !g.quoted && i > 0 {
				eq = i
			}
			break
		}
	}
	if eq < 0 {
		return false
	}
	for i := eq; i+1 < len(w); i++ {
		if (w[i].c == '=' || w[i].c == ':') && !w[i].quoted && w[i+1].c == '~' && !w[i+1].quoted {
			return true
		}
	}
	return false
}

// testExpr checks a [[ ]] expression: its words are literal (not expanded as
// paths), the operands of file tests are files read, -v and -R are not read-only
// (bash evaluates an array subscript in the name), and the operands of arithmetic
// comparisons and -t must be numbers (bash evaluates them as arithmetic, running
// what a subscript holds).
func (lc *lineCheck) testExpr(x syntax.TestExpr, d workDir) {
	switch x := x.(type) {
	case *syntax.Word:
		if _, ok := wordChars(x); !ok {
			lc.writes = true
		}
	case *syntax.ParenTest:
		lc.testExpr(x.X, d)
	case *syntax.UnaryTest:
		w, isWord := x.X.(*syntax.Word)
		text := ""
		if isWord {
			chars, _ := wordChars(w)
			text = literalOf(chars)
			if tildeExpansion(chars) {
				lc.reachOutside(text)
			}
		}
		switch {
		case x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar:
			lc.writes = true
		case x.Op == syntax.TsFdTerm:
			if !isInteger(text) {
				lc.writes = true
			}
		case x.Op >= syntax.TsExists && x.Op <= syntax.TsNoEmpty && isWord:
			lc.read(text, d)
		}
		lc.testExpr(x.X, d)
	case *syntax.BinaryTest:
		lc.testExpr(x.X, d)
		lc.testExpr(x.Y, d)
		l, lok := x.X.(*syntax.Word)
		r, rok := x.Y.(*syntax.Word)
		switch x.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			if !lok || !rok || !isInteger(l.Lit()) || !isInteger(r.Lit()) {
				lc.writes = true
			}
		case syntax.TsNewer, syntax.TsOlder, syntax.TsDevIno:
			for _, w := range []*syntax.Word{l, r} {
				if s, ok := literalWord(w); ok {
					lc.read(s, d)
				} else {
					lc.writes = true
				}
			}
		}
	default:
		lc.writes = true
	}
}
