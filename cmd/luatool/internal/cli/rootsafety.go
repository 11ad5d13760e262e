package cli

import (
	"fmt"
	"os/user"
	"path/filepath"
	"slices"
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
	default:
		if !slices.Contains(homes(), resolved) {
			return nil
		}
		what = "your home directory"
	}
	return fmt.Errorf("the project root would be %s, %s, as the current directory: the file tools would reach every file under it; run luatool in the project's directory, or give --root %s if that is what you mean", root, what, root)
}

// homes are the user's home directory as $HOME names it and as the account has it,
// links resolved: with HOME unset or pointing elsewhere, the account's home is
// still one.
func homes() []string {
	var out []string
	if h := home(); h != "" {
		out = append(out, resolvedPath(h))
	}
	if u, err := user.Current(); err == nil && u.HomeDir != "" {
		out = append(out, resolvedPath(u.HomeDir))
	}
	return out
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
