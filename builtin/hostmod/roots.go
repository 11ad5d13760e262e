package hostmod

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	lua "github.com/yuin/gopher-lua"
)

// Error codes, the third result of a module function that failed with nil, message,
// code. Scripts branch on the code and show the message.
const (
	codeOutside    = "outside"    // the path lies outside every root
	codeNotFound   = "notfound"   // no such file or directory
	codeIsDir      = "isdir"      // a file was expected, the path is a directory
	codeNotDir     = "notdir"     // a directory was expected
	codeNotFile    = "notfile"    // not a regular file (device, pipe, socket)
	codeTooLarge   = "toolarge"   // over the caller's maxBytes
	codeDenied     = "denied"     // the operating system refused access
	codeBadPattern = "badpattern" // a regular expression or glob does not compile
	codeBadType    = "badtype"    // an unknown file type name
	// codeUnsupported is a regular expression ripgrep's dialect takes and Go's
	// engine cannot search for.
	codeUnsupported = "unsupported"
	codeCancelled   = "cancelled" // the call's context ended
	codeIO          = "io"        // any other failure of the file system
)

// An opError is a failure a script can recover from: a module function returns it
// as nil, message, code.
type opError struct {
	code string
	msg  string
}

func (e *opError) Error() string { return e.msg }

func newOpError(code, format string, args ...any) *opError {
	return &opError{code: code, msg: fmt.Sprintf(format, args...)}
}

// push returns err to Lua as nil, message, code. The result is the number of values.
func push(L *lua.LState, err error) int {
	var oe *opError
	if !errors.As(err, &oe) {
		oe = &opError{code: codeIO, msg: err.Error()}
	}
	L.Push(lua.LNil)
	L.Push(lua.LString(oe.msg))
	L.Push(lua.LString(oe.code))
	return 3
}

// A rootDir is one allowed directory, in the form the host gave (made absolute and
// clean) and with symbolic links resolved, so that a path written either way is
// recognised as inside it.
type rootDir struct {
	given, resolved string
}

// A rootSet is the set of directories a module may read. It holds names only: each
// operation opens the root it needs with os.OpenRoot and closes it before returning,
// so a module holds no file descriptors between calls, needs no Close, and a root
// that is renamed or replaced between calls is looked up afresh. The cost is one
// extra open per operation, small beside the work the operation does.
//
// os.Root does the confining: it refuses any name that leaves the directory,
// including through a symbolic link. The lexical check in locate only chooses the
// root and gives the clear message for paths that are plainly outside.
type rootSet struct {
	dirs []rootDir
	// outputs are the background commands of the shell module of the same roots,
	// whose output files, outside the roots, their session's reads may open too
	// (doRead). Nil for a set with no shell module.
	outputs *taskSet
}

// newRootSet checks that every root is an existing directory.
func newRootSet(dirs []string) (*rootSet, error) {
	if len(dirs) == 0 {
		return nil, errors.New("hostmod: at least one root directory is required")
	}
	rs := &rootSet{}
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return nil, fmt.Errorf("hostmod: root %s: %w", d, err)
		}
		resolved, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return nil, fmt.Errorf("hostmod: root %s: %w", d, err)
		}
		st, err := os.Stat(resolved)
		if err != nil {
			return nil, fmt.Errorf("hostmod: root %s: %w", d, err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("hostmod: root %s is not a directory", d)
		}
		rs.dirs = append(rs.dirs, rootDir{given: abs, resolved: resolved})
	}
	return rs, nil
}

// given returns the roots in the form the host gave them (absolute and clean), for
// bindings.Module.Roots.
func (rs *rootSet) given() []string {
	dirs := make([]string, len(rs.dirs))
	for i, d := range rs.dirs {
		dirs[i] = d.given
	}
	return dirs
}

// abs makes p absolute and clean: a leading ~ is the user's home directory and a
// relative path is taken relative to base, or to the first root when base is "".
func (rs *rootSet) abs(p, base string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = home + p[1:]
		}
	}
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	if base == "" {
		base = rs.dirs[0].given
	}
	return filepath.Join(rs.abs(base, ""), p)
}

// within returns p relative to dir in slash form ("." for dir itself) when p is dir
// or lies below it. Both must be absolute and clean.
func within(dir, p string) (string, bool) {
	if p == dir {
		return ".", true
	}
	prefix := dir
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	if !strings.HasPrefix(p, prefix) {
		return "", false
	}
	return filepath.ToSlash(p[len(prefix):]), true
}

// A location is an absolute path found inside a root.
type location struct {
	// abs is the path, absolute and clean, in the form the caller wrote it.
	abs string
	// dir is the root directory holding it, in the same form (given or resolved).
	dir string
	// name is the path inside the root, slash-separated, "." for the root itself.
	name string
}

// locate finds the root holding the absolute path p, preferring the deepest root
// when roots nest.
func (rs *rootSet) locate(p string) (location, error) {
	best := location{}
	for _, d := range rs.dirs {
		for _, form := range []string{d.given, d.resolved} {
			if name, ok := within(form, p); ok && len(form) > len(best.dir) {
				best = location{abs: p, dir: form, name: name}
			}
		}
	}
	if best.dir == "" {
		return best, newOpError(codeOutside, "path %s is outside the allowed roots", p)
	}
	return best, nil
}

// inside reports whether the absolute, clean path p lies inside a root, by its
// name (symbolic links are not followed: this is the lexical check of locate).
func (rs *rootSet) inside(p string) bool {
	_, err := rs.locate(p)
	return err == nil
}

// do runs op on the root holding path p (absolute, or relative to the first root),
// with the root open for the length of op. Errors op returns from os.Root are
// classified into opErrors. A path refused because a symbolic link on it leaves the
// root (os.Root also refuses absolute links) is tried once more in its resolved form,
// which succeeds only when that form is inside a root: the retry is confined too.
func (rs *rootSet) do(p string, op func(r *os.Root, loc location) error) error {
	loc, err := rs.locate(rs.abs(p, ""))
	if err != nil {
		return err
	}
	err = rs.run(loc, op)
	if !isEscape(err) {
		return err
	}
	resolved, rerr := filepath.EvalSymlinks(loc.abs)
	if rerr != nil || resolved == loc.abs {
		return newOpError(codeOutside, "path %s is outside the allowed roots", loc.abs)
	}
	rloc, lerr := rs.locate(resolved)
	if lerr != nil {
		return newOpError(codeOutside, "path %s is outside the allowed roots (it resolves to %s)", loc.abs, resolved)
	}
	err = rs.run(rloc, op)
	if isEscape(err) {
		return newOpError(codeOutside, "path %s is outside the allowed roots", loc.abs)
	}
	return err
}

// doRead is do for the functions that only read (fs.read, fs.lines, fs.stat,
// fs.exists): a path outside the roots that is the output file of one of the
// calling session's background commands is read in that file's own directory
// (through an os.Root on it, as the roots are). No other session, and no function
// that writes, lists or searches, reaches it.
func (rs *rootSet) doRead(L *lua.LState, p string, op func(r *os.Root, loc location) error) error {
	err := rs.do(p, op)
	var oe *opError
	if !errors.As(err, &oe) || oe.code != codeOutside {
		return err
	}
	abs := rs.abs(p, "")
	dir, ok := rs.outputs.outputDir(sessionOf(L), abs)
	if !ok {
		return err
	}
	name, _ := within(dir, abs)
	if rerr := rs.run(location{abs: abs, dir: dir, name: name}, op); !isEscape(rerr) {
		return rerr
	}
	return err
}

func (rs *rootSet) run(loc location, op func(r *os.Root, loc location) error) error {
	r, err := os.OpenRoot(loc.dir)
	if err != nil {
		return classify(loc.dir, err)
	}
	defer r.Close()
	return classify(loc.abs, op(r, loc))
}

// escapeText is how os.Root words a refusal; the error value itself is unexported.
// The tests pin it: a symbolic link leading out of a root must be reported as outside.
const escapeText = "path escapes from parent"

func isEscape(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && pe.Err != nil && pe.Err.Error() == escapeText
}

// classify turns an error from os.Root into an opError naming the path; opErrors
// and escapes pass through unchanged (do words an escape once it has retried).
func classify(path string, err error) error {
	var oe *opError
	switch {
	case err == nil, errors.As(err, &oe), isEscape(err):
		return err
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return newOpError(codeNotFound, "%s: no such file or directory", path)
	case errors.Is(err, fs.ErrPermission):
		return newOpError(codeDenied, "%s: permission denied", path)
	default:
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return newOpError(codeIO, "%s: %v", path, err)
	}
}
