package hostmod

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"

	"github.com/luatool/luatool/bindings"
)

// What a shell command line writes, told before it runs, so that a tool can ask
// before a command changes something protected (a tool directory, .git, a shell's
// startup file: engine.CallContext.Protected): the targets of its output
// redirections, and the operands of the commands known to write files. It is an
// over-approximation where it can be (every operand of such a command counts, its
// sources too, and a glob counts for every name it may match, dot files included),
// and it says which words it cannot tell (an expansion, the operands xargs reads,
// an archive's contents) rather than guess. It does not see what a program writes
// by itself (a script, an interpreter, make): only the kernel sandbox bounds those.

// A writeTarget is a path a command may write: a file, or with tree a directory
// anywhere inside which it may write (a recursive remove, chmod, copy or move).
type writeTarget struct {
	// path is absolute, as the shell would open it: not cleaned, so that a ".."
	// after a symbolic link goes where the kernel takes it.
	path string
	tree bool
}

// shellWrites is what a command line may write.
type shellWrites struct {
	targets []writeTarget
	// unknown are the words, as written, whose targets cannot be told before the
	// command runs.
	unknown []string
}

// fileWriters are the commands known to write the files their operands name, by
// how: every operand a file; operands as trees with a recursive option (recursive);
// sources copied into the last operand, as trees with a recursive option (copies);
// or targets read from data (fromData: an archive, a patch), which cannot be told.
var fileWriters = map[string]writerKind{
	"tee": writesOperands, "touch": writesOperands, "truncate": writesOperands, "mkdir": writesOperands,
	"rmdir": writesOperands, "unlink": writesOperands, "link": writesOperands, "mkfifo": writesOperands,
	"mknod": writesOperands, "shred": writesOperands, "chattr": writesOperands, "setfacl": writesOperands,
	"sed": writesOperands, "perl": writesOperands, "sort": writesOperands, "uniq": writesOperands,
	"dd": writesOperands, "curl": writesOperands, "wget": writesOperands, "split": writesOperands,
	"csplit": writesOperands, "gzip": writesOperands, "gunzip": writesOperands, "bzip2": writesOperands,
	"bunzip2": writesOperands, "xz": writesOperands, "unxz": writesOperands, "zstd": writesOperands,
	"unzstd": writesOperands, "zip": writesOperands,
	"rm": writesRecursive, "chmod": writesRecursive, "chown": writesRecursive, "chgrp": writesRecursive,
	"cp": writesCopies, "mv": writesCopies, "ln": writesCopies, "install": writesCopies, "rsync": writesCopies,
	"tar": writesFromData, "unzip": writesFromData, "7z": writesFromData, "7za": writesFromData,
	"bsdtar": writesFromData, "cpio": writesFromData, "patch": writesFromData,
}

type writerKind int

const (
	writesOperands writerKind = iota
	writesRecursive
	writesCopies
	writesFromData
)

// commandWrappers run the command that follows their options; shells run their -c
// string.
var (
	commandWrappers = []string{"command", "builtin", "exec", "nohup", "time", "nice", "ionice", "stdbuf",
		"timeout", "setsid", "sudo", "doas", "env", "chrt", "taskset"}
	shells = []string{"sh", "bash", "dash", "zsh", "ksh", "mksh"}
)

// findWrites are the actions with which find changes what it finds, or writes the
// file after them.
var findWrites = []string{"-delete", "-exec", "-execdir", "-ok", "-okdir", "-fprint", "-fprint0", "-fprintf", "-fls"}

// writeScan walks a command line.
type writeScan struct {
	src string // the command line, for the words it cannot tell
	// cwds are the directories the commands may run in: the start, and every cd
	// target seen so far (a cd may or may not have run when a later command does).
	// cwdUnknown is set after a cd whose target cannot be told.
	cwds       []string
	cwdUnknown bool
	home       string
	out        shellWrites
	depth      int // of sh -c strings and eval
	// scratch says $TMPDIR names the scratch directory throughout (scratchKept).
	scratch bool
}

// writeTargets tells what command, run in cwd (absolute), may write.
func writeTargets(command, cwd string) (shellWrites, error) {
	f, err := parseShell(command)
	if err != nil {
		return shellWrites{}, err
	}
	home, _ := os.UserHomeDir()
	w := &writeScan{src: command, cwds: []string{cwd}, home: home, scratch: scratchKept(command, f)}
	w.file(f)
	return w.out, nil
}

// scratchVar is the variable naming a command's scratch directory, made for each
// command and removed after it (see ShellOptions.Environ): nothing in it is
// protected, and the tool's prompt tells the model to use it.
const scratchVar = "TMPDIR"

// variableSetters are the commands that may set a variable whose name is not in
// their words (read $v, printf -v, declare, a sourced file...).
var variableSetters = []string{"source", ".", "eval", "read", "mapfile", "readarray", "printf",
	"declare", "typeset", "local", "export", "readonly", "unset", "set", "getopts", "let",
	"alias", "builtin", "command", "exec", "enable", "shopt"}

// scratchKept reports whether $TMPDIR still names the scratch directory wherever the
// command line expands it: every mention of the name is a plain expansion of it
// (no assignment, no ${TMPDIR:=...}), no command that may set a variable by a name
// it computes runs (and every command's name is literal), and there is no
// arithmetic, which assigns by computed names too. Anything else may point TMPDIR
// elsewhere, and its expansions are then words that cannot be told.
func scratchKept(src string, f *syntax.File) bool {
	kept := true
	plain := 0
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.ParamExp:
			if n.Param != nil && n.Param.Value == scratchVar {
				if !plainExpansion(n) {
					kept = false
				}
				plain++
			}
		case *syntax.ArithmCmd, *syntax.ArithmExp, *syntax.LetClause, *syntax.DeclClause:
			kept = false
		case *syntax.CallExpr:
			if len(n.Args) > 0 {
				name, ok := n.Args[0].Lit(), n.Args[0].Lit() != ""
				if !ok || slices.Contains(variableSetters, name) {
					kept = false
				}
			}
		}
		return kept
	})
	return kept && strings.Count(src, scratchVar) == plain
}

// plainExpansion reports whether p is $NAME or ${NAME}, with no operator.
func plainExpansion(p *syntax.ParamExp) bool {
	return !p.Excl && !p.Length && !p.Width && p.Index == nil && p.Slice == nil && p.Repl == nil &&
		p.Exp == nil && p.Names == 0
}

// inScratch reports whether word names a path in the scratch directory: it starts
// with a plain $TMPDIR (quoted or not) followed by literal text, in a command line
// where TMPDIR keeps its value (scratchKept) and outside sh -c strings and eval.
func (w *writeScan) inScratch(word *syntax.Word) bool {
	if !w.scratch || w.depth > 0 || len(word.Parts) == 0 {
		return false
	}
	parts := word.Parts
	if dq, ok := parts[0].(*syntax.DblQuoted); ok && len(parts) == 1 {
		parts = dq.Parts
	}
	if len(parts) == 0 {
		return false
	}
	p, ok := parts[0].(*syntax.ParamExp)
	if !ok || p.Param == nil || p.Param.Value != scratchVar || !plainExpansion(p) {
		return false
	}
	rest := &syntax.Word{Parts: parts[1:]}
	s, ok := w.literal(rest)
	return ok && !strings.Contains(s, "..")
}

// file walks a parsed command line.
func (w *writeScan) file(f *syntax.File) {
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			for _, r := range n.Redirs {
				if writesThrough(r) {
					w.target(r.Word, false)
				}
			}
		case *syntax.CallExpr:
			w.call(n)
		}
		return true
	})
}

// writesThrough reports whether a redirection may write its target: any output
// redirection but a duplication onto a descriptor (2>&1, >&-).
func writesThrough(r *syntax.Redirect) bool {
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.AppClob,
		syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob:
		return true
	case syntax.DplOut:
		s := r.Word.Lit()
		return s == "" || strings.Trim(s, "0123456789") != "" && s != "-"
	}
	return false
}

// call looks at one simple command.
func (w *writeScan) call(c *syntax.CallExpr) {
	args := c.Args
	for len(args) > 0 {
		name, ok := w.literal(args[0])
		if !ok {
			w.unknownWord(args[0]) // a command named by an expansion may be any
			return
		}
		name = filepath.Base(name)
		switch {
		case name == "cd" || name == "pushd":
			w.cd(args[1:])
			return
		case name == "eval":
			w.inner(args[1:])
			return
		case slices.Contains(shells, name):
			w.shell(args[1:])
			return
		case name == "xargs":
			w.xargs(args[1:])
			return
		case name == "find":
			w.find(args[1:])
			return
		case name == "git":
			w.git(args[1:])
			return
		case slices.Contains(commandWrappers, name):
			args = w.unwrap(name, args[1:])
			continue
		}
		if kind, ok := fileWriters[name]; ok {
			w.writer(name, kind, args[1:])
		}
		return
	}
}

// unwrap skips a wrapper's options (and the values that may follow them: numbers,
// durations, a user) and returns the wrapped command's words. A chdir option makes
// the working directory unknown.
func (w *writeScan) unwrap(name string, args []*syntax.Word) []*syntax.Word {
	for len(args) > 0 {
		s, ok := w.literal(args[0])
		switch {
		case !ok:
			return args
		case name == "env" && (s == "-C" || strings.HasPrefix(s, "--chdir")):
			w.cwdUnknown = true
			if s == "-C" || s == "--chdir" {
				args = args[1:] // its directory
			}
		case strings.HasPrefix(s, "-"):
			if (name == "sudo" || name == "doas") && (s == "-u" || s == "-g") && len(args) > 1 {
				args = args[1:]
			}
		case name == "env" && strings.Contains(s, "="):
		case strings.Trim(s, "0123456789.smhd") == "":
			// a count or a duration (nice -n 5, timeout 10s)
		default:
			return args
		}
		args = args[1:]
	}
	return args
}

// cd records a cd or pushd target as a directory later commands may run in.
func (w *writeScan) cd(args []*syntax.Word) {
	var target *syntax.Word
	for _, a := range args {
		if s, ok := w.literal(a); ok && strings.HasPrefix(s, "-") {
			continue // -P, -L; "cd -" returns to a directory already counted
		}
		target = a
		break
	}
	if target == nil {
		if w.home == "" {
			w.cwdUnknown = true
			return
		}
		w.cwds = append(w.cwds, w.home)
		return
	}
	if _, ok := w.literal(target); !ok {
		w.cwdUnknown = true
		return
	}
	var dirs []string
	for _, cwd := range w.cwds {
		for _, f := range w.expand(target, cwd) {
			dirs = append(dirs, join(cwd, f))
		}
	}
	for _, d := range dirs {
		if !slices.Contains(w.cwds, d) {
			w.cwds = append(w.cwds, d)
		}
	}
}

// shell looks into sh -c STRING; a shell running a script or its input writes what
// the script says, which cannot be told.
func (w *writeScan) shell(args []*syntax.Word) {
	for i, a := range args {
		s, ok := w.literal(a)
		if !ok {
			w.unknownWord(a)
			return
		}
		if strings.HasPrefix(s, "-") && strings.Contains(s, "c") && !strings.HasPrefix(s, "--") {
			if i+1 < len(args) {
				w.inner(args[i+1 : i+2])
			}
			return
		}
		if !strings.HasPrefix(s, "-") {
			w.unknownWord(a) // a script
			return
		}
	}
	if len(args) == 0 {
		w.out.unknown = append(w.out.unknown, "the commands the shell reads from its input")
	}
}

// inner walks the command line the words make, as eval and sh -c run it.
func (w *writeScan) inner(words []*syntax.Word) {
	var parts []string
	for _, word := range words {
		s, ok := w.literal(word)
		if !ok {
			w.unknownWord(word)
			return
		}
		parts = append(parts, s)
	}
	f, err := parseShell(strings.Join(parts, " "))
	if err != nil || w.depth >= 4 {
		w.out.unknown = append(w.out.unknown, strings.Join(parts, " "))
		return
	}
	src := w.src
	w.src = strings.Join(parts, " ")
	w.depth++
	w.file(f)
	w.depth--
	w.src = src
}

// xargs: the operands of a writing command it runs come from its input.
func (w *writeScan) xargs(args []*syntax.Word) {
	for i, a := range args {
		s, ok := w.literal(a)
		if !ok {
			w.unknownWord(a)
			return
		}
		if strings.HasPrefix(s, "-") {
			continue
		}
		name := filepath.Base(s)
		if _, writes := fileWriters[name]; writes || slices.Contains(shells, name) || name == "find" {
			w.out.unknown = append(w.out.unknown, "the operands xargs reads from its input for "+name)
			w.call(&syntax.CallExpr{Args: args[i:]})
		}
		return
	}
}

// find: with an action that changes what it finds, every starting point is a tree
// written; -fprint and -fls write the file after them.
func (w *writeScan) find(args []*syntax.Word) {
	var starts []*syntax.Word
	expr := false
	writes := false
	for i, a := range args {
		s, ok := w.literal(a)
		if !ok {
			if !expr {
				starts = append(starts, a)
			}
			continue
		}
		if !expr && (strings.HasPrefix(s, "-") || s == "(" || s == "!") {
			expr = true
		}
		if !expr {
			starts = append(starts, a)
			continue
		}
		if slices.Contains(findWrites, s) {
			writes = true
			if strings.HasPrefix(s, "-fprint") || s == "-fls" {
				if i+1 < len(args) {
					w.target(args[i+1], false)
				}
			}
		}
	}
	if !writes {
		return
	}
	if len(starts) == 0 {
		w.target(&syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: "."}}}, true)
	}
	for _, s := range starts {
		w.target(s, true)
	}
}

// git: config writes the repository's configuration (or --file's), submodule its
// .gitmodules and configuration; -C changes where.
func (w *writeScan) git(args []*syntax.Word) {
	dirs := []string{"."}
	for i := 0; i < len(args); i++ {
		s, ok := w.literal(args[i])
		if !ok {
			w.unknownWord(args[i])
			return
		}
		switch {
		case s == "-C" && i+1 < len(args):
			i++
			if d, ok := w.literal(args[i]); ok {
				dirs = []string{d}
			} else {
				w.unknownWord(args[i])
				return
			}
		case s == "-c" || s == "--git-dir" || s == "--work-tree" || s == "--namespace" || s == "--config-env":
			i++
		case strings.HasPrefix(s, "--git-dir="):
			dirs = append(dirs, strings.TrimPrefix(s, "--git-dir=")+"/..")
		case strings.HasPrefix(s, "-"):
		case s == "config":
			for _, d := range dirs {
				w.literalTarget(d + "/.git/config")
			}
			for j := i + 1; j < len(args); j++ {
				if f, ok := w.literal(args[j]); ok && (f == "--file" || f == "-f") && j+1 < len(args) {
					w.target(args[j+1], false)
				} else if ok && strings.HasPrefix(f, "--file=") {
					w.literalTarget(strings.TrimPrefix(f, "--file="))
				}
			}
			return
		case s == "submodule":
			for _, d := range dirs {
				w.literalTarget(d + "/.gitmodules")
				w.literalTarget(d + "/.git/config")
			}
			return
		default:
			return
		}
	}
}

// writer looks at the operands of a command of fileWriters.
func (w *writeScan) writer(name string, kind writerKind, args []*syntax.Word) {
	if name == "tar" && !w.tarExtracts(args) {
		kind = writesOperands // it writes the archive its -f names
	}
	if kind == writesFromData {
		w.out.unknown = append(w.out.unknown, "the files "+name+" writes from its input")
	}
	recursive := name == "mv" || name == "rsync" // they move and copy trees as they are
	var operands []*syntax.Word
	for _, a := range args {
		if w.inScratch(a) {
			continue
		}
		s, ok := w.literal(a)
		if !ok {
			w.unknownWord(a)
			continue
		}
		switch {
		case s == "-" || s == "--":
		case strings.HasPrefix(s, "--"):
			recursive = recursive || s == "--recursive" || s == "--archive"
			if _, v, ok := strings.Cut(s, "="); ok {
				w.literalTarget(v)
			}
		case strings.HasPrefix(s, "-"):
			recursive = recursive || strings.ContainsAny(s[1:], "rR") || name == "cp" && strings.Contains(s[1:], "a")
			if len(s) > 2 {
				w.literalTarget(s[2:]) // an attached value: -t DIR written -tDIR
			}
		default:
			operands = append(operands, a)
			if _, v, ok := strings.Cut(s, "="); ok {
				w.literalTarget(v) // dd of=FILE
			}
		}
	}
	tree := recursive && (kind == writesRecursive || kind == writesCopies)
	for _, o := range operands {
		w.target(o, tree)
	}
	if kind != writesCopies || len(operands) < 2 {
		return
	}
	// Sources land in the last operand under their own names; a link's relative
	// target is read from the link's directory.
	last, ok := w.literal(operands[len(operands)-1])
	if !ok {
		return
	}
	for _, src := range operands[:len(operands)-1] {
		s, ok := w.literal(src)
		if !ok {
			continue
		}
		w.literalTargetTree(last+"/"+filepath.Base(s), tree)
		if name == "ln" && !filepath.IsAbs(s) {
			w.literalTarget(last + "/" + s)
			w.literalTarget(filepath.Dir(last) + "/" + s)
		}
	}
}

// tarExtracts reports whether tar's words ask it to extract (x in its first word,
// with or without a dash, or in a short option cluster; --extract, --get), or
// cannot be told.
func (w *writeScan) tarExtracts(args []*syntax.Word) bool {
	for i, a := range args {
		s, ok := w.literal(a)
		switch {
		case !ok:
			return true
		case s == "--extract" || s == "--get":
			return true
		case strings.HasPrefix(s, "--"):
		case strings.HasPrefix(s, "-") || i == 0:
			if strings.Contains(s, "x") {
				return true
			}
		}
	}
	return false
}

// target adds what word names, in every directory the command may run in.
func (w *writeScan) target(word *syntax.Word, tree bool) {
	if w.inScratch(word) {
		return
	}
	if _, ok := w.literal(word); !ok {
		w.unknownWord(word)
		return
	}
	for _, cwd := range w.cwds {
		for _, f := range w.expand(word, cwd) {
			if !filepath.IsAbs(f) && w.cwdUnknown {
				w.unknownWord(word)
				return
			}
			w.out.add(writeTarget{path: join(cwd, f), tree: tree})
		}
	}
}

// literalTarget adds a path given as text (an option's value).
func (w *writeScan) literalTarget(s string) { w.literalTargetTree(s, false) }

func (w *writeScan) literalTargetTree(s string, tree bool) {
	if s == "" {
		return
	}
	if s == "~" || strings.HasPrefix(s, "~/") {
		if w.home == "" {
			w.out.unknown = append(w.out.unknown, s)
			return
		}
		s = w.home + s[1:]
	}
	if !filepath.IsAbs(s) && w.cwdUnknown {
		w.out.unknown = append(w.out.unknown, s)
		return
	}
	for _, cwd := range w.cwds {
		w.out.add(writeTarget{path: join(cwd, s), tree: tree})
	}
}

func (o *shellWrites) add(t writeTarget) {
	if !slices.Contains(o.targets, t) {
		o.targets = append(o.targets, t)
	}
}

// unknownWord records a word whose target cannot be told, as written.
func (w *writeScan) unknownWord(word *syntax.Word) {
	text := word.Lit()
	if p, e := word.Pos(), word.End(); p.IsValid() && e.IsValid() && int(e.Offset()) <= len(w.src) {
		text = w.src[p.Offset():e.Offset()]
	}
	if !slices.Contains(w.out.unknown, text) {
		w.out.unknown = append(w.out.unknown, text)
	}
}

// literal returns the text a word stands for when it holds no expansion (quotes
// removed, globs and braces left as written); ok is false for one that has any.
func (w *writeScan) literal(word *syntax.Word) (string, bool) {
	plain := true
	syntax.Walk(word, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ArithmExp, *syntax.ProcSubst, *syntax.ExtGlob:
			plain = false
		}
		return plain
	})
	if !plain {
		return "", false
	}
	// A Config of its own: expand prepares the one it is given in place, the
	// package's shared default included, so nil races between goroutines (see
	// docs/upstream.md).
	s, err := expand.Literal(&expand.Config{}, word)
	return s, err == nil
}

// expand returns the fields a plain word expands to in cwd: braces, a tilde and
// globs expanded as bash would, but with dot files matched too (more names, never
// fewer).
func (w *writeScan) expand(word *syntax.Word, cwd string) []string {
	cfg := &expand.Config{
		Env:      expand.ListEnviron("HOME=" + w.home),
		DotGlob:  true,
		ReadDir2: func(d string) ([]fs.DirEntry, error) { return os.ReadDir(join(cwd, d)) },
	}
	fields, err := expand.Fields(cfg, word)
	if err != nil || len(fields) == 0 {
		s, _ := w.literal(word)
		return []string{s}
	}
	return fields
}

// join makes p absolute against dir without cleaning it.
func join(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	if p == "" {
		return dir
	}
	return strings.TrimSuffix(dir, string(filepath.Separator)) + string(filepath.Separator) + p
}

// shell.writes(command[, {cwd=}]) tells what command may write, run in cwd (default
// the first root): a list of {path=, tree=} (absolute paths, not cleaned; tree for a
// directory written anywhere inside), and a list of the words whose targets cannot be
// told; nil, the error and "badcommand" when it does not parse.
func (s *shellState) luaWrites(L *lua.LState) int {
	a := bindings.NewArgs(L, "shell.writes")
	command := a.String(1)
	cwd := s.rs.abs(a.Options(2, "cwd").String("cwd", ""), "")
	out, err := writeTargets(command, cwd)
	if err != nil {
		return push(L, newOpError(codeBadCommand, "%s", err.Error()))
	}
	targets := make([]any, len(out.targets))
	for i, t := range out.targets {
		m := map[string]any{"path": t.path}
		if t.tree {
			m["tree"] = true
		}
		targets[i] = m
	}
	unknown := make([]any, len(out.unknown))
	for i, u := range out.unknown {
		unknown[i] = u
	}
	pushValue(L, targets)
	pushValue(L, unknown)
	return 2
}
