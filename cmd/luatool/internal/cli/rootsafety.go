package cli

import (
	"fmt"
	"path/filepath"
)

// checkImplicitRoot refuses root, the current directory taken as the project root
// because no --root was given, when it is / or the home directory: a client that
// starts luatool there (Claude Desktop often does), or a person who runs it there
// by mistake, would give the file tools every file of the machine or of the user.
// Naming such a root with --root is allowed: then it is meant. root is absolute.
func checkImplicitRoot(root string) error {
	what := ""
	switch resolved := resolvedPath(root); resolved {
	case "/", filepath.VolumeName(resolved) + `\`:
		what = "the file system's root"
	case resolvedPath(home()):
		what = "your home directory"
	default:
		return nil
	}
	return fmt.Errorf("the project root would be %s, %s, as the current directory: the file tools would reach every file under it; run luatool in the project's directory, or give --root %s if that is what you mean", root, what, root)
}

// resolvedPath is path with its symlinks resolved, or path itself when they cannot
// be.
func resolvedPath(path string) string {
	if path == "" {
		return ""
	}
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	return path
}
