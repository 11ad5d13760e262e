package hostmod

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	lua "github.com/yuin/gopher-lua"
	"golang.org/x/sync/errgroup"

	"github.com/luatool/luatool/bindings"
)

// isVCSDir reports whether a directory name is a version-control store, which
// Claude Code's Grep excludes with globs (its Glob does not).
func isVCSDir(name string) bool {
	switch name {
	case ".git", ".svn", ".hg", ".bzr", ".jj", ".sl":
		return true
	}
	return false
}

// walkWorkers bounds the goroutines of one walk. Most of a walk's time is system
// calls (reading directories, opening and reading files), which block a goroutine
// but not the others: a few more than the CPUs keep the kernel busy.
func walkWorkers() int { return min(2*runtime.GOMAXPROCS(0), 16) }

// A dirent is an entry of a directory as a walk reads it: its name and its type
// (the type bits of fs.FileMode), known without a stat where the file system tells.
type dirent struct {
	name string
	typ  fs.FileMode
}

// A walkDir is a directory open for a walk. What it holds is opened by name (one
// path element, never "." or "..") without following a symbolic link, and checked
// once open to be what the walk took it for: an entry replaced by a link, or by
// another kind of file, between the reading of the directory and its opening is
// skipped rather than followed (errNotWalked). Once its entries are read, it is
// safe for use by several goroutines at once (the parts of a sharedDir).
type walkDir interface {
	// entries returns the directory's entries, sorted by name.
	entries() ([]dirent, error)
	// openDir opens the subdirectory name.
	openDir(name string) (walkDir, error)
	// readFile reads the regular file name into *buf as readFile does, and returns
	// its modification time.
	readFile(name string, buf *[]byte, text bool) ([]byte, time.Time, error)
	// modTime returns the modification time of the regular file name.
	modTime(name string) (time.Time, error)
	// close releases the directory.
	close()
}

// errNotWalked is the error of a walkDir asked to open an entry that is not (or no
// longer) of the type the walk expects, or whose name is not one path element.
var errNotWalked = errors.New("entry changed or not walkable")

// checkEntryName refuses a name that is not one path element: a walkDir opens only
// what its directory holds.
func checkEntryName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") || (filepath.Separator != '/' && strings.ContainsRune(name, filepath.Separator)) {
		return errNotWalked
	}
	return nil
}

// A walker visits the regular files below a directory of a root. Directories are
// read in parallel (walkWorkers), so the files come in no particular order and file
// is called from several goroutines at once. It does not follow symbolic links (as
// ripgrep without -L), and includes hidden files but not the temporary files of
// atomic writes (isTempName). It stops with a "cancelled" opError when ctx ends, and
// with the first error file returns.
type walker struct {
	ctx  context.Context
	root *os.Root
	// start is the directory walked, slash-separated inside the root.
	start string
	// ignore makes the walk skip directories that ignore files exclude, and tells
	// file which files they exclude.
	ignore bool
	// skipVCS makes the walk skip version-control directories (isVCSDir).
	skipVCS bool
	// skipDir, if set, excludes a directory (by its path relative to start).
	skipDir func(rel string) bool
	// hidden, if set, excludes a file or a directory with all it holds (by its path
	// relative to start): a Read deny rule matches it (bindings.Call.Hidden).
	hidden func(rel string) bool
	// file is called for each regular file with its path relative to start, the
	// directory holding it (open during the call only) and its name there, and
	// whether ignore files exclude it, possibly from several goroutines at once. An
	// error stops the walk.
	file func(rel string, dir walkDir, name string, ignored bool) error

	// group runs the walks of subdirectories; its context ends when ctx does or
	// a walk fails.
	group *errgroup.Group
	gctx  context.Context
}

// walk runs the walk. An unreadable start directory is an error; an unreadable
// directory below it is skipped, as ripgrep skips it after a warning.
func (w *walker) walk() error {
	var stack ignoreStack
	if w.ignore {
		if gitAbove(w.root.Name()) {
			stack = ignoreStack{{dir: ".", repo: true}}
		}
		fsys := w.root.FS()
		for _, dir := range ancestors(w.start) {
			if entries, err := fs.ReadDir(fsys, dir); err == nil {
				stack = stack.withFS(fsys, dir, entries)
			}
		}
	}
	d, err := openWalkRoot(w.root, w.start)
	if err != nil {
		return err
	}
	entries, err := d.entries()
	if err != nil {
		d.close()
		return err
	}
	w.group, w.gctx = errgroup.WithContext(w.ctx)
	w.group.SetLimit(walkWorkers())
	w.group.Go(func() error { return w.walkDir(w.start, newSharedDir(d), entries, stack) })
	return w.group.Wait()
}

// A sharedDir is a walkDir whose entries several goroutines may walk, each a part:
// the last to release it closes it.
type sharedDir struct {
	walkDir
	refs atomic.Int32
}

func newSharedDir(d walkDir) *sharedDir {
	s := &sharedDir{walkDir: d}
	s.refs.Store(1)
	return s
}

func (s *sharedDir) release() {
	if s.refs.Add(-1) == 0 {
		s.close()
	}
}

// splitEntries is the number of entries below which a walk of a directory's entries
// is not shared with another goroutine.
const splitEntries = 64

// walkDir walks the entries of directory dir, held by d, and releases d.
func (w *walker) walkDir(dir string, d *sharedDir, entries []dirent, stack ignoreStack) error {
	if w.ignore {
		stack = stack.with(d, dir, entries)
	}
	return w.walkPart(dir, d, entries, stack)
}

// walkPart walks part of the entries of directory dir, held by d, whose ignore files
// stack holds, and releases d. A free worker takes the second half of a long part,
// and so on, so that the files of a large directory are read in parallel too.
func (w *walker) walkPart(dir string, d *sharedDir, entries []dirent, stack ignoreStack) error {
	defer d.release()
	for len(entries) > 0 {
		if len(entries) >= 2*splitEntries {
			half := entries[len(entries)/2:]
			d.refs.Add(1)
			if w.group.TryGo(func() error { return w.walkPart(dir, d, half, stack) }) {
				entries = entries[:len(entries)/2]
			} else {
				d.refs.Add(-1)
			}
		}
		n := min(len(entries), splitEntries)
		for _, e := range entries[:n] {
			if err := w.gctx.Err(); err != nil {
				if err = w.ctx.Err(); err == nil {
					return nil // another walk failed: Wait returns its error
				}
				return newOpError(codeCancelled, "search cancelled: %v", err)
			}
			if err := w.visit(dir, d, e, stack); err != nil {
				return err
			}
		}
		entries = entries[n:]
	}
	return nil
}

// visit visits one entry of directory dir, held by d: a directory is walked (by a
// free worker if there is one), a regular file given to w.file.
func (w *walker) visit(dir string, d walkDir, e dirent, stack ignoreStack) error {
	if isTempName(e.name) {
		return nil
	}
	name := joinName(dir, e.name)
	rel := w.rel(name)
	switch {
	case e.typ.IsDir():
		if (w.skipVCS && isVCSDir(e.name)) || (w.ignore && stack.ignored(name, true)) || (w.skipDir != nil && w.skipDir(rel)) || (w.hidden != nil && w.hidden(rel)) {
			return nil
		}
		sub, err := d.openDir(e.name)
		if err != nil {
			return nil
		}
		subEntries, err := sub.entries()
		if err != nil {
			sub.close()
			return nil
		}
		walkSub := func() error { return w.walkDir(name, newSharedDir(sub), subEntries, stack) }
		// A free worker takes the subdirectory; without one this goroutine walks
		// it (waiting for one could deadlock: every worker waits).
		if !w.group.TryGo(walkSub) {
			return walkSub()
		}
	case e.typ.IsRegular():
		if w.hidden != nil && w.hidden(rel) {
			return nil
		}
		return w.file(rel, d, e.name, w.ignore && stack.ignored(name, false))
	}
	return nil
}

// sortDirents sorts entries by name.
func sortDirents(entries []dirent) {
	slices.SortFunc(entries, func(a, b dirent) int { return strings.Compare(a.name, b.name) })
}

// Lengths of reading text.
const (
	binaryPrefix = rgBufferSize // bytes examined for a NUL: ripgrep's first read
	oneReadMax   = 256 << 10    // a file up to this size is read whole before it is examined
)

// readFile reads a file through read, which returns 0 bytes at its end; size is its
// size by a stat (a hint: a file that changed is read to its end all the same).
// The content goes to *buf, which is grown as needed and left grown (the content
// is valid until *buf's next use; nil buf allocates). A small file takes one read.
// With text, a large file whose first binaryPrefix bytes hold a NUL byte gives nil
// data without the rest being read: ripgrep gives up on such a file at its first
// read. (A smaller one is read whole; grep's search gives up on it the same way,
// once it knows the file might match.)
func readFile(read func([]byte) (int, error), size int64, buf *[]byte, text bool) ([]byte, error) {
	var data []byte
	if buf != nil {
		data = (*buf)[:0]
		defer func() { *buf = data[:0] }()
	}
	if text && size > oneReadMax {
		data = slices.Grow(data, binaryPrefix)
		for len(data) < binaryPrefix {
			n, err := read(data[len(data):binaryPrefix])
			data = data[:len(data)+n]
			if n == 0 || err != nil {
				if err != nil && !errors.Is(err, io.EOF) {
					return nil, err
				}
				break
			}
		}
		if isBinary(data) {
			return nil, nil
		}
	}
	data = slices.Grow(data, int(max(size, 0))+1-len(data))
	for {
		if len(data) == cap(data) {
			data = slices.Grow(data, max(len(data), 16<<10))
		}
		room := cap(data) - len(data)
		n, err := read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if n == 0 || errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if n < room && int64(len(data)) == size {
			break // a short read that ends where the stat said: the end
		}
	}
	return data, nil
}

// isBinary reports whether data holds a NUL byte in its first binaryPrefix bytes.
func isBinary(data []byte) bool {
	return bytes.IndexByte(data[:min(len(data), binaryPrefix)], 0) >= 0
}

// textBuffers holds the buffers of readFile between files.
var textBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// hiddenBelow returns the walker's hidden function for a walk of the directory of
// loc under the current call of L, or nil when the call hides nothing.
func hiddenBelow(L *lua.LState, loc location) func(rel string) bool {
	hidden := hiddenFunc(L)
	if hidden == nil {
		return nil
	}
	return func(rel string) bool {
		return hidden(filepath.Join(loc.abs, filepath.FromSlash(rel)))
	}
}

// hiddenFunc returns the Hidden function of the current call of L, or nil.
func hiddenFunc(L *lua.LState) func(absPath string) bool {
	if c := bindings.CurrentCall(L); c != nil {
		return c.Hidden
	}
	return nil
}

// rel returns name (inside the root) relative to the start directory.
func (w *walker) rel(name string) string {
	if w.start == "." {
		return name
	}
	return name[len(w.start)+1:] // name is below start
}

// gitAbove reports whether a directory above root (a directory's absolute path)
// holds a ".git", so that root is inside a git repository, as ripgrep finds it.
func gitAbove(root string) bool {
	for d := filepath.Dir(root); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		if d == filepath.Dir(d) {
			return false
		}
	}
}

// ancestors returns the directories above dir inside the root, outermost first:
// "a/b" gives ".", "a".
func ancestors(dir string) []string {
	if dir == "." {
		return nil
	}
	var out []string
	for d := path.Dir(dir); ; d = path.Dir(d) {
		out = append([]string{d}, out...)
		if d == "." {
			return out
		}
	}
}
