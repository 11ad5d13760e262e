package cli

import (
	"fmt"
	"os"
	"path/filepath"
)

// checkImplicitRoot refuses to take the current directory as the root of the file
// tools when no --root names one (root is the --root given, "" for none) and that
// directory is the file system's root or the home directory: a client that starts
// the server wherever it likes, or a command typed from ~, would otherwise put every
// file of the machine or of the user within the tools' reach without anyone having
// said so. An explicit --root, even / or ~, is taken as meant.
func checkImplicitRoot(root string) error {
	if root != "" {
		return nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return fmt.Errorf("the current directory, the default root: %w; give the project directory with --root DIR", err)
	}
	// Symbolic links resolved, so that a link to / or ~ is refused too.
	resolved := func(path string) string {
		if r, err := filepath.EvalSymlinks(path); err == nil {
			return r
		}
		return filepath.Clean(path)
	}
	dir := resolved(wd)
	what := ""
	switch {
	case filepath.Dir(dir) == dir:
		what = "the file system's root"
	case home() != "" && dir == resolved(home()):
		what = "your home directory"
	default:
		return nil
	}
	return fmt.Errorf("the current directory %s is %s: as the root it would put every file under it within the file tools' reach; "+
		"give the project directory with --root DIR (or --root %s if you mean it)", wd, what, shellWord(wd))
}
