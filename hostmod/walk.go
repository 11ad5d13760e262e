package hostmod

import (
	"context"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"golang.org/x/sync/errgroup"

	"github.com/luatool/luatool/bindings"
)

// isVCSDir reports whether a directory name is a version-control store, which no
// search enters.
func isVCSDir(name string) bool {
	switch name {
	case ".git", ".svn", ".hg", ".bzr", ".jj", ".sl":
		return true
	}
	return false
}

// walkWorkers bounds the goroutines of one walk. Most of a walk's time is system
// calls (reading directories, opening them), which block a goroutine but not the
// others: a few more than the CPUs keep the kernel busy.
func walkWorkers() int { return min(2*runtime.GOMAXPROCS(0), 16) }

// A walker visits the regular files below a directory of a root's fs.FS. Directories
// are read in parallel (walkWorkers), so the files come in no particular order and
// file is called from several goroutines at once. It does not follow symbolic links
// (as ripgrep without -L), and includes hidden files but not the temporary files of
// atomic writes (isTempName). It stops with a "cancelled" opError when ctx ends, and
// with the first error file returns.
type walker struct {
	ctx  context.Context
	fsys fs.FS
	// root, if set, is the root fsys reads: directories are then read through a
	// handle on their parent, one system call each instead of one a path component.
	root *os.Root
	// start is the directory walked, slash-separated inside the root.
	start string
	// ignore makes the walk skip directories that ignore files exclude, and tells
	// file which files they exclude.
	ignore bool
	// skipDir, if set, excludes a directory (by its path relative to start).
	skipDir func(rel string) bool
	// hidden, if set, excludes a file or a directory with all it holds (by its path
	// relative to start): a Read deny rule matches it (bindings.Call.Hidden).
	hidden func(rel string) bool
	// file is called for each regular file with its path relative to start and
	// whether ignore files exclude it, possibly from several goroutines at once. An
	// error stops the walk.
	file func(rel string, d fs.DirEntry, ignored bool) error

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
		for _, dir := range ancestors(w.start) {
			if entries, err := fs.ReadDir(w.fsys, dir); err == nil {
				stack = stack.with(w.fsys, dir, entries)
			}
		}
	}
	entries, err := fs.ReadDir(w.fsys, w.start)
	if err != nil {
		return err
	}
	var handle *os.Root
	if w.root != nil {
		if handle, err = w.root.OpenRoot(w.start); err != nil {
			handle = nil
		}
	}
	w.group, w.gctx = errgroup.WithContext(w.ctx)
	w.group.SetLimit(walkWorkers())
	w.group.Go(func() error {
		if handle != nil {
			defer handle.Close()
		}
		return w.walkEntries(w.start, entries, stack, handle)
	})
	return w.group.Wait()
}

// readDir reads directory name, whose parent's handle is parent (nil when there is
// none), and returns its entries sorted by name and a handle on it (nil when none
// could be opened; the caller closes it).
func (w *walker) readDir(parent *os.Root, name string) ([]fs.DirEntry, *os.Root, error) {
	if parent != nil {
		if r, err := parent.OpenRoot(path.Base(name)); err == nil {
			if entries, err := readRootDir(r); err == nil {
				return entries, r, nil
			}
			r.Close()
		}
	}
	entries, err := fs.ReadDir(w.fsys, name)
	return entries, nil, err
}

func (w *walker) walkEntries(dir string, entries []fs.DirEntry, stack ignoreStack, handle *os.Root) error {
	if w.ignore {
		stack = stack.with(w.fsys, dir, entries)
	}
	for _, e := range entries {
		if err := w.gctx.Err(); err != nil {
			if err = w.ctx.Err(); err == nil {
				return nil // another walk failed: Wait returns its error
			}
			return newOpError(codeCancelled, "search cancelled: %v", err)
		}
		if isTempName(e.Name()) {
			continue
		}
		name := joinName(dir, e.Name())
		rel := w.rel(name)
		switch {
		case e.IsDir():
			if isVCSDir(e.Name()) || (w.ignore && stack.ignored(name, true)) || (w.skipDir != nil && w.skipDir(rel)) || (w.hidden != nil && w.hidden(rel)) {
				continue
			}
			sub, subHandle, err := w.readDir(handle, name)
			if err != nil {
				continue
			}
			walkSub := func() error {
				if subHandle != nil {
					defer subHandle.Close()
				}
				return w.walkEntries(name, sub, stack, subHandle)
			}
			// A free worker takes the subdirectory; without one this goroutine
			// walks it (waiting for one could deadlock: every worker waits).
			if !w.group.TryGo(walkSub) {
				if err := walkSub(); err != nil {
					return err
				}
			}
		case e.Type().IsRegular():
			if w.hidden != nil && w.hidden(rel) {
				continue
			}
			if err := w.file(rel, e, w.ignore && stack.ignored(name, false)); err != nil {
				return err
			}
		}
	}
	return nil
}

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
	return strings.TrimPrefix(name, w.start+"/")
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
