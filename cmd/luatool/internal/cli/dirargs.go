package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/luatool/luatool/engine"
	"github.com/luatool/luatool/engine/luaload"
)

// needDir returns nil when path is a directory, else an error that says, after
// what (a flag, a command), whether the path does not exist or is a file: "open .:
// no such file or directory" names neither the path nor the mistake.
func needDir(what, path string) error {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s %s: no such directory", what, path)
	case err != nil:
		return fmt.Errorf("%s %s: %w", what, path, err)
	case !st.IsDir():
		return fmt.Errorf("%s %s: a file, not a directory", what, path)
	}
	return nil
}

// checkNamedRoot is checkImplicitRoot for the commands that call tools (call, run,
// serve): nil when --root names the root, else the check of the current directory
// taken for it.
func (a *app) checkNamedRoot() error {
	if a.cfg.root != "" {
		return nil
	}
	root, err := a.projectRoot()
	if err != nil {
		return err
	}
	return checkImplicitRoot(root)
}

// checkSource is the source check loads for one of its arguments: a directory
// whole, or a tool file alone with its directory's lib/ (the modules it may
// require), named as its directory would be, as test takes a test file.
func checkSource(arg string) (engine.Source, error) {
	st, err := os.Stat(arg)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return engine.Source{}, fmt.Errorf("check %s: no such file or directory", arg)
	case err != nil:
		return engine.Source{}, fmt.Errorf("check %s: %w", arg, err)
	case st.IsDir():
		return engine.DirSource(arg), nil
	case !strings.HasSuffix(arg, ".lua") || strings.HasSuffix(arg, "_test.lua"):
		return engine.Source{}, fmt.Errorf("check %s: not a tool file (NAME.lua); give a tool file or a directory (luatool test runs test files)", arg)
	}
	dir := filepath.Dir(arg)
	return engine.Source{Name: dir, FS: fileAndLib{os.DirFS(dir), filepath.Base(arg)}}, nil
}

// fileAndLib is a directory showing only one file and its lib/ directory.
type fileAndLib struct {
	dir  fs.FS
	file string
}

// shows reports whether name is one of the files shown.
func (f fileAndLib) shows(name string) bool {
	return name == "." || name == f.file || name == luaload.LibDir || strings.HasPrefix(name, luaload.LibDir+"/")
}

// Open opens a file shown; the others do not exist.
func (f fileAndLib) Open(name string) (fs.File, error) {
	if !f.shows(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return f.dir.Open(name)
}

// ReadDir lists a directory's entries shown.
func (f fileAndLib) ReadDir(name string) ([]fs.DirEntry, error) {
	if !f.shows(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	entries, err := fs.ReadDir(f.dir, name)
	if name != "." {
		return entries, err
	}
	var shown []fs.DirEntry
	for _, e := range entries {
		if f.shows(e.Name()) {
			shown = append(shown, e)
		}
	}
	return shown, err
}
